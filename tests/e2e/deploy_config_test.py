"""The deploy/ manifests against the real rosettad.

- every rosettad.json under deploy/ is accepted by rosettad (started with it, listeners
  moved to port 0 by flags, which win over the file), and its max_input_bytes is in force;
  a config with TLS gets certificates made here in place of the Secret's paths (flags
  again), is asked over TLS, and its health listener answers /readyz in plaintext;
- every YAML file under deploy/ parses (PyYAML, when installed);
- where kubectl is installed, each kustomization builds, the ConfigMap it renders holds the
  JSON file next to it, and the shapes the docs promise hold: probes on gRPC health in the
  base, 3 replicas and a CPU HorizontalPodAutoscaler in the gateway, loopback listeners
  in the sidecar; in the gateway, the TLS files of rosettad.json are those of the
  cert-manager Certificate's Secret, mounted whole (no subPath) where the config looks, also
  into the reloader that signals rosettad, and the probes are HTTP GETs of the health port;
  its schema_dir is a ConfigMap of a stable name (updated in place by the kubelet, not
  rolled) mounted whole, read-only, where the config looks and into the same reloader.

usage: deploy_config_test.py ROSETTAD SOURCE_DIR
"""
import glob
import http.client
import json
import os
import re
import shutil
import socket
import ssl
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'support'))
from rosettad_process import Rosettad, tcp_response  # noqa: E402
from tls_test import CertificateAuthority  # noqa: E402

failures = []


def check(ok, what):
    print('%-4s %s' % ('ok' if ok else 'FAIL', what))
    if not ok:
        failures.append(what)
    return ok


def frame_maximum(server, tls=None):
    try:
        with socket.create_connection(server.tcp_host_port(), timeout=5) as raw:
            s = tls.wrap_socket(raw, server_hostname='127.0.0.1') if tls else raw
            s.sendall(struct.pack('>I', 0xFFFFFFFF))
            status, _, data = tcp_response(s)
    except (OSError, EOFError) as e:
        return repr(e)
    m = re.search(rb'maximum of (\d+)', data)
    return int(m.group(1)) if status == 5 and m else None


def check_gateway_tls(objs, deployment, container):
    """The gateway's TLS files come from the cert-manager Secret, mounted whole where
    rosettad.json looks, and the probes do not need TLS."""
    cm = [o for (k, _), o in objs.items() if k == 'ConfigMap' and o['metadata']['name'].startswith('rosettad-config')]
    conf = json.loads(cm[0]['data']['rosettad.json']) if cm else {}
    certs = [o for (k, _), o in objs.items() if k == 'Certificate' and o['apiVersion'] == 'cert-manager.io/v1'
             and o['spec'].get('secretName') == 'rosetta-tls']
    if not check(len(certs) == 1, 'gateway: a cert-manager Certificate for the Secret rosetta-tls'):
        return
    namespace = certs[0]['metadata'].get('namespace')
    services = ['%s.%s.svc.cluster.local' % (n, namespace) for (k, n) in objs if k == 'Service']
    missing = [n for n in services if n not in certs[0]['spec'].get('dnsNames', [])]
    check(services and not missing, 'gateway: the certificate names every Service (missing %s)' % missing)
    pod = deployment['spec']['template']['spec']
    secret_volumes = {v['name'] for v in pod.get('volumes', [])
                      if v.get('secret', {}).get('secretName') == 'rosetta-tls'}

    def secret_dir(c):
        mounts = [m for m in c.get('volumeMounts', []) if m['name'] in secret_volumes]
        ok = len(mounts) == 1 and mounts[0].get('readOnly') is True and 'subPath' not in mounts[0]
        return mounts[0]['mountPath'].rstrip('/') if ok else None
    where = secret_dir(container)
    files = {k: conf.get(k) for k in ('tls_cert', 'tls_key', 'tls_client_ca') if k in conf}
    want = {'tls_cert': 'tls.crt', 'tls_key': 'tls.key', 'tls_client_ca': 'ca.crt'}
    check(where is not None and 'tls_cert' in files and 'tls_key' in files
          and all(v == '%s/%s' % (where, want[k]) for k, v in files.items()),
          'gateway: rosettad.json %s are files of the Secret mounted read-only, whole, at %s' % (files, where))
    reloaders = [c['name'] for c in pod['containers'] if c is not container and secret_dir(c) == where]
    check(pod.get('shareProcessNamespace') is True and len(reloaders) == 1,
          'gateway: a reloader container (%s) sees the Secret and rosettad\'s process' % reloaders)
    health_port = int(conf.get('health_listen', ':0').rsplit(':', 1)[1])
    ports = {p.get('name'): p['containerPort'] for p in container.get('ports', [])}
    for probe, path in (('readinessProbe', '/readyz'), ('livenessProbe', '/healthz')):
        get = container.get(probe, {}).get('httpGet', {})
        port = ports.get(get.get('port'), get.get('port'))
        check('grpc' not in container.get(probe, {}) and get.get('path') == path and port == health_port != 0,
              'gateway: %s is GET %s on health_listen\'s port %d' % (probe, path, health_port))
    # The JSON Schemas: a ConfigMap of a stable name, mounted whole where schema_dir looks,
    # and seen by the reloader too (a change is a SIGHUP, not a rollout).
    schema_volumes = {v['name']: v['configMap']['name'] for v in pod.get('volumes', []) if 'configMap' in v
                      and ('ConfigMap', v['configMap']['name']) in objs
                      and 'rosettad.json' not in (objs[('ConfigMap', v['configMap']['name'])].get('data') or {})}

    def schema_dir(c):
        mounts = [m for m in c.get('volumeMounts', []) if m['name'] in schema_volumes]
        ok = len(mounts) == 1 and mounts[0].get('readOnly') is True and 'subPath' not in mounts[0]
        return mounts[0]['mountPath'].rstrip('/') if ok else None
    where = schema_dir(container)
    check(where is not None and conf.get('schema_dir', '').rstrip('/') == where,
          'gateway: schema_dir %r is a ConfigMap mounted read-only, whole, at %s' % (conf.get('schema_dir'), where))
    check(all(not re.search(r'-[a-z0-9]{10}$', n) for n in schema_volumes.values()),
          'gateway: the schemas\' ConfigMap has a stable name, no content hash (%s)' % list(schema_volumes.values()))
    check([c['name'] for c in pod['containers'] if c is not container and schema_dir(c) == where] == reloaders,
          'gateway: the reloader (%s) sees the schemas too' % reloaders)


def main():
    binary, source_dir = sys.argv[1:3]
    deploy = os.path.join(source_dir, 'deploy')
    configs = sorted(glob.glob(os.path.join(deploy, '**', 'rosettad.json'), recursive=True))
    check(len(configs) >= 2, '%d rosettad.json files under deploy/' % len(configs))
    has_tls = '--tls-cert' in subprocess.run([binary, '--help'], capture_output=True, text=True).stdout
    tmp = tempfile.TemporaryDirectory(prefix='rosetta-deploy-')
    pki = None
    for path in configs:
        rel = os.path.relpath(path, source_dir)
        with open(path) as f:
            config = json.load(f)
        args, tls = ['--config', path], None
        if 'tls_cert' in config:
            if not has_tls:
                print('skip %s: this rosettad has no --tls-cert' % rel)
                continue
            if pki is None:
                ca = CertificateAuthority(tmp.name, 'ca')
                pki = ca, ca.issue('server', 'server_cert'), ca.issue('client', 'client_cert')
            ca, server_cert, client_cert = pki
            # The Secret's paths do not exist here: flags (which win) name files made above.
            args += ['--tls-cert', server_cert[0], '--tls-key', server_cert[1]]
            tls = ssl.create_default_context(cafile=ca.cert)
            if 'tls_client_ca' in config:
                args += ['--tls-client-ca', ca.cert]
                tls.load_cert_chain(*client_cert)
        if 'schema_dir' in config:
            # The ConfigMap's mount does not exist here: an empty directory instead (flags win).
            schemas = os.path.join(tmp.name, 'schemas')
            os.makedirs(schemas, exist_ok=True)
            args += ['--schema-dir', schemas]
        if 'health_listen' in config:
            args += ['--health-listen', '127.0.0.1:0']
        with Rosettad(binary, *args) as server:
            want = 10 + 65535 + config.get('max_input_bytes', 4 << 20)
            got = frame_maximum(server, tls)
            check(got == want, '%s: rosettad runs with it%s, frame maximum %s (want %d)' %
                  (rel, ' (TLS)' if tls else '', got, want))
            if 'health_listen' in config:
                try:
                    c = http.client.HTTPConnection(*server.listening['health'].rsplit(':', 1), timeout=5)
                    c.request('GET', '/readyz')
                    status = c.getresponse().status
                    c.close()
                except (KeyError, OSError, http.client.HTTPException) as e:
                    status = repr(e)
                check(status == 200, '%s: the health listener answers /readyz: %s' % (rel, status))
            check(server.terminate() == 0, '%s: exit 0 after SIGTERM' % rel)
    tmp.cleanup()

    try:
        import yaml
    except ImportError:
        yaml = None
        print('skip YAML parsing (no PyYAML: apt-get install python3-yaml)')
    if yaml:
        for path in sorted(glob.glob(os.path.join(deploy, '**', '*.yaml'), recursive=True)):
            try:
                with open(path) as f:
                    docs = [d for d in yaml.safe_load_all(f) if d is not None]
                check(bool(docs), '%s parses' % os.path.relpath(path, source_dir))
            except yaml.YAMLError as e:
                check(False, '%s: %s' % (os.path.relpath(path, source_dir), e))

    kubectl = shutil.which('kubectl')
    if not kubectl or not yaml:
        print('skip kustomize builds (needs kubectl and PyYAML)')
    else:
        rendered = {}
        for name in ('base', 'overlays/gateway', 'overlays/sidecar'):
            p = subprocess.run([kubectl, 'kustomize', os.path.join(deploy, name)], capture_output=True, text=True,
                               timeout=60)
            if not check(p.returncode == 0, 'kubectl kustomize deploy/%s: %s' % (name, p.stderr.strip()[:300])):
                continue
            docs = [d for d in yaml.safe_load_all(p.stdout) if d]
            rendered[name] = {(d['kind'], d['metadata']['name']): d for d in docs}
            cms = [d for d in docs if d['kind'] == 'ConfigMap' and d['metadata']['name'].startswith('rosettad-config')]
            local = os.path.join(deploy, name, 'rosettad.json')
            if cms and os.path.exists(local):
                with open(local) as f:
                    check(json.loads(cms[0]['data']['rosettad.json']) == json.load(f),
                          'deploy/%s: the ConfigMap holds rosettad.json' % name)

        def rosettad_container(objs):
            for (kind, _), d in objs.items():
                if kind == 'Deployment':
                    for c in d['spec']['template']['spec']['containers']:
                        if c['name'] == 'rosettad':
                            return d, c
            return None, None

        if 'base' in rendered:
            d, c = rosettad_container(rendered['base'])
            check(c is not None and c['readinessProbe'].get('grpc', {}).get('port') == 50051
                  and c['livenessProbe'].get('grpc', {}).get('port') == 50051, 'base: gRPC health probes on 50051')
            ann = d['spec']['template']['metadata'].get('annotations', {}) if d else {}
            check(ann.get('prometheus.io/scrape') == 'true' and ann.get('prometheus.io/port') == '9464',
                  'base: Prometheus scrape annotations')
            check(d['spec']['template']['spec']['securityContext'].get('runAsNonRoot') is True, 'base: runs as non-root')
        if 'overlays/gateway' in rendered:
            objs = rendered['overlays/gateway']
            d, _ = rosettad_container(objs)
            check(d is not None and d['spec']['replicas'] == 3, 'gateway: 3 replicas')
            hpa = [o for (k, _), o in objs.items() if k == 'HorizontalPodAutoscaler']
            check(len(hpa) == 1 and hpa[0]['spec']['metrics'][0]['resource']['name'] == 'cpu'
                  and hpa[0]['spec']['scaleTargetRef']['name'] == d['metadata']['name'], 'gateway: HPA on CPU')
            check(any(k == 'Service' for k, _ in objs), 'gateway: behind a Service')
            check_gateway_tls(objs, *rosettad_container(objs))
        if 'overlays/sidecar' in rendered:
            d, c = rosettad_container(rendered['overlays/sidecar'])
            names = [x['name'] for x in d['spec']['template']['spec']['containers']] if d else []
            check(len(names) == 2 and 'rosettad' in names, 'sidecar: an app container and rosettad (%s)' % names)
            cm = [o for (k, n), o in rendered['overlays/sidecar'].items() if k == 'ConfigMap']
            conf = json.loads(cm[0]['data']['rosettad.json']) if cm else {}
            check(conf.get('grpc_listen', '').startswith('127.0.0.1:') and conf.get('tcp_listen', '').startswith('127.0.0.1:'),
                  'sidecar: gRPC and TCP on 127.0.0.1')
            base_c = rosettad_container(rendered.get('base', {}))[1]
            if base_c and c:
                check(c['resources']['limits']['memory'] != base_c['resources']['limits']['memory'],
                      'sidecar: its own (lower) resource limits')

    print('deploy_config_test: %s' % ('ok' if not failures else '%d failures' % len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
