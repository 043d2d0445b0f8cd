"""The deploy/ manifests against the real rosettad.

- every rosettad.json under deploy/ is accepted by rosettad (started with it, listeners
  moved to port 0 by flags, which win over the file), and its max_input_bytes is in force;
- every YAML file under deploy/ parses (PyYAML, when installed);
- where kubectl is installed, each kustomization builds, the ConfigMap it renders holds the
  JSON file next to it, and the shapes the docs promise hold: probes on gRPC health in the
  base, 3 replicas and a CPU HorizontalPodAutoscaler in the gateway, loopback listeners
  in the sidecar.

usage: deploy_config_test.py ROSETTAD SOURCE_DIR
"""
import glob
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'support'))
from rosettad_process import Rosettad, tcp_response  # noqa: E402

failures = []


def check(ok, what):
    print('%-4s %s' % ('ok' if ok else 'FAIL', what))
    if not ok:
        failures.append(what)
    return ok


def frame_maximum(server):
    with socket.create_connection(server.tcp_host_port(), timeout=5) as s:
        s.sendall(struct.pack('>I', 0xFFFFFFFF))
        status, _, data = tcp_response(s)
    m = re.search(rb'maximum of (\d+)', data)
    return int(m.group(1)) if status == 5 and m else None


def main():
    binary, source_dir = sys.argv[1:3]
    deploy = os.path.join(source_dir, 'deploy')
    configs = sorted(glob.glob(os.path.join(deploy, '**', 'rosettad.json'), recursive=True))
    check(len(configs) >= 2, '%d rosettad.json files under deploy/' % len(configs))
    for path in configs:
        rel = os.path.relpath(path, source_dir)
        with open(path) as f:
            config = json.load(f)
        with Rosettad(binary, '--config', path) as server:
            want = 10 + 65535 + config.get('max_input_bytes', 4 << 20)
            got = frame_maximum(server)
            check(got == want, '%s: rosettad runs with it, frame maximum %s (want %d)' % (rel, got, want))
            check(server.terminate() == 0, '%s: exit 0 after SIGTERM' % rel)

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
