"""Pod emulation: the manifests of deploy/ run as Docker containers on one machine.

Each overlay is rendered with `kubectl kustomize`, and every container is started from its
rendered spec as the kubelet would start it: the image's entrypoint with the manifest's
args, read-only root, the pod's uid and gid, no capabilities, no privilege escalation,
Docker's default seccomp profile (RuntimeDefault), the CPU and memory limits, the
ConfigMap's rosettad.json mounted read-only where the manifest mounts it, and the Secret's
files (made here with openssl) read-only, group-readable by fsGroup. The probes are the
manifest's (gRPC health Check or HTTP GET, with its timeout), run from this machine
against ports published on 127.0.0.1 only; termination is the kubelet's: the preStop exec
hook, then SIGTERM, then SIGKILL once terminationGracePeriodSeconds have passed.

  base      one replica, plaintext, the gRPC probes: start-up time to ready, requests/s
            over gRPC and TCP with the pod's CPU limit, memory, drain under load
  gateway   three replicas behind one DNS name (a Docker network alias, as the headless
            Service gives one address per pod), TLS from a made-up Secret; a gRPC and a TCP
            load generator (rosetta-load containers, client-side round robin over the name)
            run while every replica is replaced in turn as a rolling update does (a new one
            started and ready, then the old one: preStop, SIGTERM, the grace period); the
            bar is zero failed requests on both transports
  sidecar   rosettad and an application container in one network namespace: the app
            reaches it on 127.0.0.1, another container cannot; both stopped together, with
            rosettad's preStop holding its drain until the app is done

usage: deploy/emulate.sh [--only base,gateway,sidecar] [--json OUT]
Needs a running Docker daemon and the images rosettad:0.1.0 and rosetta-load:0.1.0
(scripts/image.sh), kubectl (for kustomize) and Python's grpcio, grpc-tools and yaml.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCKER = os.environ.get('DOCKER', '/usr/bin/docker')
IMAGE = os.environ.get('ROSETTAD_IMAGE', 'rosettad:0.1.0')
LOAD_IMAGE = os.environ.get('LOAD_IMAGE', 'rosetta-load:0.1.0')
HEALTH_PROTO_DIR = '/usr/share/grpc-proto/grpc/health/v1'
PAYLOAD = '/usr/local/share/rosetta-load/payload.json'  # in the load image
TAG = 'rosetta-emu-%d' % os.getpid()

failures = []
report = {}


def check(ok, what):
    print('%-4s %s' % ('ok' if ok else 'FAIL', what), flush=True)
    if not ok:
        failures.append(what)
    return ok


def say(text):
    print('     ' + text, flush=True)


def docker(*args, check_rc=True, timeout=120):
    p = subprocess.run([DOCKER, *args], capture_output=True, text=True, timeout=timeout)
    if check_rc and p.returncode != 0:
        raise RuntimeError('docker %s: %s' % (' '.join(args[:3]), p.stderr.strip()))
    return p.stdout.strip()


# ---------------------------------------------------------------- manifests

def render(overlay):
    out = subprocess.run(['kubectl', 'kustomize', os.path.join(ROOT, 'deploy', 'overlays', overlay)],
                         capture_output=True, text=True, check=True).stdout
    return [d for d in yaml.safe_load_all(out) if d]


def find(docs, kind, name=None):
    for d in docs:
        if d['kind'] == kind and (name is None or d['metadata']['name'] == name):
            return d
    raise KeyError('%s %s' % (kind, name))


class PodSpec:
    """What the emulation takes from a rendered Deployment."""

    def __init__(self, docs):
        self.deployment = find(docs, 'Deployment')
        self.pod = self.deployment['spec']['template']['spec']
        self.configmaps = {d['metadata']['name']: d for d in docs if d['kind'] == 'ConfigMap'}

    def container(self, name):
        return next(c for c in self.pod['containers'] if c['name'] == name)

    @property
    def grace(self):
        return int(self.pod.get('terminationGracePeriodSeconds', 30))

    def config_volume(self):
        """The ConfigMap volume that holds rosettad.json (the gateway mounts another: its schemas)."""
        return next(v for v in self.pod['volumes'] if 'configMap' in v and
                    'rosettad.json' in (self.configmaps[v['configMap']['name']].get('data') or {}))

    def rosettad_json(self):
        return self.configmaps[self.config_volume()['configMap']['name']]['data']['rosettad.json']

    def config_mount(self):
        volume = self.config_volume()
        return next(m['mountPath'] for m in self.container('rosettad')['volumeMounts'] if m['name'] == volume['name'])

    def other_configmaps(self):
        """(name, data, mountPath) of rosettad's other ConfigMap volumes (the gateway's JSON Schemas)."""
        config = self.config_volume()['name']
        mounts = {m['name']: m['mountPath'] for m in self.container('rosettad').get('volumeMounts', [])}
        return [(v['name'], self.configmaps[v['configMap']['name']].get('data') or {}, mounts[v['name']])
                for v in self.pod['volumes'] if 'configMap' in v and v['name'] != config and v['name'] in mounts]


def quantity_cpus(q):
    q = str(q)
    return float(q[:-1]) / 1000 if q.endswith('m') else float(q)


def quantity_bytes(q):
    q = str(q)
    for suffix, mult in (('Ki', 1 << 10), ('Mi', 1 << 20), ('Gi', 1 << 30)):
        if q.endswith(suffix):
            return int(float(q[:-len(suffix)]) * mult)
    return int(q)


def container_args(pod, c):
    """`docker run` flags for container spec `c` of pod spec `pod` (security, limits)."""
    psc, csc = pod.get('securityContext', {}), c.get('securityContext', {})
    args = []
    uid, gid = csc.get('runAsUser', psc.get('runAsUser')), csc.get('runAsGroup', psc.get('runAsGroup'))
    if uid is not None:
        args += ['--user', '%s:%s' % (uid, gid if gid is not None else uid)]
    if 'fsGroup' in psc:
        args += ['--group-add', str(psc['fsGroup'])]
    if csc.get('readOnlyRootFilesystem'):
        args.append('--read-only')
    for cap in csc.get('capabilities', {}).get('drop', []):
        args += ['--cap-drop', cap]
    if csc.get('allowPrivilegeEscalation') is False:
        args += ['--security-opt', 'no-new-privileges']
    limits = c.get('resources', {}).get('limits', {})
    if 'cpu' in limits:
        args += ['--cpus', '%g' % quantity_cpus(limits['cpu'])]
    if 'memory' in limits:
        args += ['--memory', str(quantity_bytes(limits['memory']))]
    for e in c.get('env', []):
        args += ['-e', '%s=%s' % (e['name'], e['value'])]
    return args


def check_grace(name, spec, c):
    """terminationGracePeriodSeconds covers preStop + drain_timeout_ms + tcp_linger_ms + 2 s."""
    settings = json.loads(spec.rosettad_json())
    pre = c.get('lifecycle', {}).get('preStop', {}).get('exec', {}).get('command', [])
    pre_s = float(pre[-1]) if pre and pre[0].endswith('sleep') else 0
    need = pre_s + settings.get('drain_timeout_ms', 10000) / 1000 + settings.get('tcp_linger_ms', 1000) / 1000 + 2
    check(spec.grace >= need, '%s: terminationGracePeriodSeconds %d >= preStop %g s + drain_timeout_ms %g s + '
          'tcp_linger_ms %g s + 2 s = %g s' % (name, spec.grace, pre_s, settings.get('drain_timeout_ms', 10000) / 1000,
                                               settings.get('tcp_linger_ms', 1000) / 1000, need))
    return pre


# ---------------------------------------------------------------- probes

class Probes:
    """The kubelet's probes of one container, from this machine through 127.0.0.1 ports."""

    def __init__(self, grpc_mod, health_pb2, health_pb2_grpc):
        self.grpc, self.pb, self.pbg = grpc_mod, health_pb2, health_pb2_grpc

    def run(self, probe, container, ports):
        timeout = probe.get('timeoutSeconds', 1)
        try:
            if 'grpc' in probe and probe['grpc'] is not None:
                port = ports[probe['grpc']['port']]
                with self.grpc.insecure_channel('127.0.0.1:%d' % port) as ch:
                    r = self.pbg.HealthStub(ch).Check(
                        self.pb.HealthCheckRequest(service=probe['grpc'].get('service', '')), timeout=timeout)
                    return r.status == self.pb.HealthCheckResponse.SERVING
            if 'httpGet' in probe:
                port = ports[probe['httpGet']['port']]
                with urllib.request.urlopen('http://127.0.0.1:%d%s' % (port, probe['httpGet']['path']),
                                            timeout=timeout) as r:
                    return 200 <= r.status < 400
        except Exception:  # noqa: BLE001 (a failed probe)
            return False
        raise ValueError('probe kind of %r' % probe)


class Container:
    """One running container and the host ports of its named container ports."""

    def __init__(self, name, spec_container):
        self.name = name
        self.spec = spec_container
        self.ports = {}
        self.started = None

    def publish_flags(self):
        flags = []
        for p in self.spec.get('ports', []):
            flags += ['-p', '127.0.0.1::%d' % p['containerPort']]
        return flags

    def learn_ports(self):
        for p in self.spec.get('ports', []):
            out = docker('port', self.name, '%d/tcp' % p['containerPort'])
            port = int(out.splitlines()[0].rsplit(':', 1)[1])
            self.ports[p['containerPort']] = port
            if 'name' in p:
                self.ports[p['name']] = port

    def ip(self, network):
        return docker('inspect', '-f', '{{(index .NetworkSettings.Networks "%s").IPAddress}}' % network, self.name)

    def running(self):
        return docker('inspect', '-f', '{{.State.Running}}', self.name, check_rc=False) == 'true'

    def exit_code(self):
        return int(docker('inspect', '-f', '{{.State.ExitCode}}', self.name))

    def logs(self):
        p = subprocess.run([DOCKER, 'logs', self.name], capture_output=True, text=True)
        return p.stdout + p.stderr


def wait_ready(probes, c, within=60.0, every=0.05):
    """Seconds from the container's start until its readiness probe first passes (polled
    every 50 ms, finer than the kubelet's period, to measure start-up); None if never."""
    probe = c.spec['readinessProbe']
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if probes.run(probe, c.name, c.ports):
            return time.monotonic() - c.started
        if not c.running():
            return None
        time.sleep(every)
    return None


def terminate(c, pre_stop, grace):
    """The kubelet's termination: preStop exec, SIGTERM, SIGKILL at the grace period.
    Returns (seconds from SIGTERM to exit, exit code, killed)."""
    t0 = time.monotonic()
    if pre_stop:
        docker('exec', c.name, *pre_stop, timeout=grace + 5)
    left = grace - (time.monotonic() - t0)
    t_term = time.monotonic()
    docker('kill', '-s', 'TERM', c.name)
    killed = False
    try:
        subprocess.run([DOCKER, 'wait', c.name], capture_output=True, timeout=max(left, 0.1))
    except subprocess.TimeoutExpired:
        docker('kill', c.name, check_rc=False)
        subprocess.run([DOCKER, 'wait', c.name], capture_output=True, timeout=30)
        killed = True
    return time.monotonic() - t_term, c.exit_code(), killed


def memory_mb(c):
    """The pod's memory: rosettad's resident set (process_resident_memory_bytes on its metrics
    port), in MB."""
    with urllib.request.urlopen('http://127.0.0.1:%d/metrics' % c.ports[9464], timeout=5) as r:
        text = r.read().decode()
    value = next(line.split()[-1] for line in text.splitlines() if line.startswith('process_resident_memory_bytes '))
    return float(value) / 1e6


def run_load(name, network, args, out_dir, extra=()):
    """A rosetta-load container on `network` writing its JSON report to out_dir/NAME.json."""
    docker('run', '-d', '--name', name, '--network', network, '--read-only', '--cap-drop', 'ALL',
           '--security-opt', 'no-new-privileges', '-v', '%s:/out' % out_dir, *extra, LOAD_IMAGE,
           '--quiet', '--json', '/out/%s.json' % name, *args)


def stop_load(name, out_dir, within=60):
    docker('kill', '-s', 'TERM', name, check_rc=False)
    subprocess.run([DOCKER, 'wait', name], capture_output=True, timeout=within)
    code = int(docker('inspect', '-f', '{{.State.ExitCode}}', name))
    path = os.path.join(out_dir, name + '.json')
    result = json.load(open(path)) if os.path.exists(path) else None
    if code != 0 or result is None:
        say(docker('logs', name, check_rc=False))
    return code, result


def load_line(result):
    moved = (', %d connection(s) moved after going-away, %d request(s) sent again' %
             (result['reconnects'], result['resent'])) if result.get('reconnects') else ''
    return ('%d ok, %d failed (%s), %d connection(s) lost, %.0f req/s%s' %
            (result['ok'], result['errors'], result['errors_by_code'] or 'none', result['connections_lost'],
             result['throughput_rps'], moved))


# ---------------------------------------------------------------- the pods

class Emulation:
    def __init__(self, tmp, probes):
        self.tmp = tmp
        self.probes = probes
        self.network = TAG
        self.containers = []
        docker('network', 'create', self.network)

    def cleanup(self):
        names = docker('ps', '-aq', '--filter', 'label=%s' % TAG, check_rc=False).split()
        if names:
            docker('rm', '-f', *names, check_rc=False)
        docker('network', 'rm', self.network, check_rc=False)

    def config_dir(self, name, spec):
        d = os.path.join(self.tmp, name + '-config')
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, 'rosettad.json'), 'w') as f:
            f.write(spec.rosettad_json())
        os.chmod(d, 0o755)
        os.chmod(os.path.join(d, 'rosettad.json'), 0o644)
        return d

    def start_rosettad(self, name, spec, volumes=(), alias=None, extra=()):
        c = Container(name, spec.container('rosettad'))
        flags = ['run', '-d', '--name', name, '--hostname', name, '--label', TAG, '--network', self.network,
                 *container_args(spec.pod, c.spec), *c.publish_flags(),
                 '-v', '%s:%s:ro' % (self.config_dir(name, spec), spec.config_mount())]
        for host, inside in volumes:
            flags += ['-v', '%s:%s:ro' % (host, inside)]
        for volume, data, inside in spec.other_configmaps():
            d = os.path.join(self.tmp, '%s-%s' % (name, volume))
            os.makedirs(d, exist_ok=True)
            for key, text in data.items():
                with open(os.path.join(d, key), 'w') as f:
                    f.write(text)
                os.chmod(os.path.join(d, key), 0o644)
            os.chmod(d, 0o755)
            flags += ['-v', '%s:%s:ro' % (d, inside)]
        if alias:
            flags += ['--network-alias', alias]
        c.started = time.monotonic()
        docker(*flags, *extra, IMAGE, *c.spec.get('args', []))
        c.learn_ports()
        return c

    # -- base: one replica, plaintext, the gRPC probes
    def base(self):
        print('== base: one replica (deploy/base), the gRPC probes, capacity with the pod\'s CPU limit', flush=True)
        docs = [d for d in yaml.safe_load_all(subprocess.run(
            ['kubectl', 'kustomize', os.path.join(ROOT, 'deploy', 'base')], capture_output=True, text=True,
            check=True).stdout) if d]
        spec = PodSpec(docs)
        c_spec = spec.container('rosettad')
        pre_stop = check_grace('base', spec, c_spec)
        limits = c_spec['resources']['limits']
        c = self.start_rosettad(TAG + '-base', spec)
        ready = wait_ready(self.probes, c)
        check(ready is not None, 'base: ready (gRPC probe %s, service %s) %.2f s after start' %
              (c_spec['readinessProbe']['grpc']['port'], c_spec['readinessProbe']['grpc'].get('service', ''),
               ready or -1))
        check(self.probes.run(c_spec['livenessProbe'], c.name, c.ports), 'base: liveness (gRPC probe, service "")')
        report['startup_to_ready_s'] = round(ready or -1, 3)
        idle_mb = memory_mb(c)
        out = os.path.join(self.tmp, 'base-out')
        os.makedirs(out, exist_ok=True)
        os.chmod(out, 0o777)
        capacity = {}
        for transport, port in (('grpc', 50051), ('tcp', 50052)):
            name = '%s-base-%s' % (TAG, transport)
            run_load(name, self.network, ['--transport', transport, '--address', '%s:%d' % (c.name, port),
                                          '--connections', '8', '--inflight', '8', '--duration', '10',
                                          '--warmup', '2', '--payload', PAYLOAD], out, ['--label', TAG])
            time.sleep(8)
            mem = memory_mb(c)
            subprocess.run([DOCKER, 'wait', name], capture_output=True, timeout=120)
            code, result = stop_load(name, out)
            ok = code == 0 and result is not None and result['errors'] == 0
            check(ok, 'base: %s closed loop, 8 connections x 8 in flight, 10 s: %s; memory %.0f MB' %
                  (transport, load_line(result) if result else 'no report', mem))
            capacity[transport] = {'rps': round(result['throughput_rps']) if result else None,
                                   'p99_us': round(result['latency_us']['p99']) if result else None,
                                   'memory_mb': round(mem, 1), 'load_cpu_s': result['cpu_s'] if result else None}
        report['base'] = {'cpu_limit': str(limits['cpu']), 'memory_limit': str(limits['memory']),
                          'idle_memory_mb': round(idle_mb, 1), 'capacity': capacity}
        # Drain under load: the TCP generator keeps going while the pod is terminated.
        name = '%s-base-drain' % TAG
        run_load(name, self.network, ['--transport', 'tcp', '--address', '%s:50052' % c.name, '--connections', '8',
                                      '--inflight', '8', '--duration', '600', '--warmup', '0', '--drain', '2',
                                      '--payload', PAYLOAD],
                 out, ['--label', TAG])
        time.sleep(3)
        drain_s, code, killed = terminate(c, pre_stop, spec.grace)
        check(code == 0 and not killed, 'base: under load, preStop then SIGTERM: exit %d %.2f s after SIGTERM%s' %
              (code, drain_s, ' (SIGKILL at the grace period)' if killed else ''))
        report['base']['drain_under_load_s'] = round(drain_s, 3)
        code, result = stop_load(name, out)
        # Nowhere to go after the going-away: what was not answered is reported, not lost silently.
        if result:
            say('the TCP client during that drain: %s (no other replica to move to)' % load_line(result))

    # -- gateway: three replicas, rolling restart under load
    def gateway(self):
        print('== gateway: 3 replicas (deploy/overlays/gateway), TLS, a rolling restart under gRPC and TCP load',
              flush=True)
        spec = PodSpec(render('gateway'))
        c_spec = spec.container('rosettad')
        pre_stop = check_grace('gateway', spec, c_spec)
        tls = self.make_secret()
        mount = next(m['mountPath'] for m in c_spec['volumeMounts'] if m['name'] == 'tls')
        # The load Job of deploy/overlays/load names the headless Service by its cluster DNS
        # name: here that name is the replicas' network alias (one address per replica).
        job = find(render('load'), 'Job')
        job_pod = job['spec']['template']['spec']
        job_c = job_pod['containers'][0]
        job_args = job_c['args']
        address = next(a.split('=', 1)[1] for a in job_args if a.startswith('--address='))
        alias = address.rsplit(':', 1)[0]
        ca_mount = next(m['mountPath'] for m in job_c['volumeMounts'])

        def start(i):
            return self.start_rosettad('%s-gw-%d' % (TAG, i), spec, volumes=[(tls, mount)], alias=alias)

        replicas = [start(i) for i in range(3)]
        for c in replicas:
            t = wait_ready(self.probes, c)
            check(t is not None, 'gateway: %s ready (HTTP GET /readyz on port health) %.2f s after start' %
                  (c.name[len(TAG) + 1:], t or -1))
        out = os.path.join(self.tmp, 'gw-out')
        os.makedirs(out, exist_ok=True)
        os.chmod(out, 0o777)
        # The Job's container and arguments; the run lasts until stopped (SIGTERM), at a fixed
        # rate that leaves this 2-core machine room for the replicas being replaced.
        job_args = [a for a in job_args if not a.startswith(('--json', '--quiet'))]
        until_stopped = ['--duration=600', '--warmup=0', '--drain=15', '--mode=open', '--rate=800',
                         '--connections=4', '--inflight=16']
        loads = {
            'grpc': job_args + until_stopped,
            'tcp': job_args + until_stopped + ['--transport=tcp', '--address=%s:50052' % alias, '--connections=6'],
        }
        for transport, args in loads.items():
            run_load('%s-gw-load-%s' % (TAG, transport), self.network, args, out,
                     ['--label', TAG, '-v', '%s:%s:ro' % (os.path.join(tls, 'ca'), ca_mount),
                      *container_args(job_pod, job_c)])
        time.sleep(4)
        liveness = threading.Event()
        live_failures = []

        def watch_liveness():  # the kubelet's liveness probe of every live replica, each period
            probe = c_spec['livenessProbe']
            misses = {}
            while not liveness.wait(probe.get('periodSeconds', 10) / 5):
                for c in list(replicas):
                    if not c.running():
                        continue
                    misses[c.name] = 0 if self.probes.run(probe, c.name, c.ports) else misses.get(c.name, 0) + 1
                    if misses[c.name] >= probe.get('failureThreshold', 3):
                        live_failures.append(c.name)

        watcher = threading.Thread(target=watch_liveness, daemon=True)
        watcher.start()
        drains, readies, mems = [], [], []
        t_restart = time.monotonic()
        for i in range(3):
            mems.append(memory_mb(replicas[i]))
            new = start(3 + i)
            t = wait_ready(self.probes, new)
            check(t is not None, 'gateway: new replica %d ready %.2f s after start' % (i + 1, t or -1))
            readies.append(t or -1)
            old = replicas[i]
            drain_s, code, killed = terminate(old, pre_stop, spec.grace)
            check(code == 0 and not killed, 'gateway: old replica %d: preStop %s, SIGTERM, exit %d %.2f s later%s' %
                  (i + 1, ' '.join(pre_stop), code, drain_s, ' (SIGKILL)' if killed else ''))
            drains.append(drain_s)
            replicas[i] = new
        restart_s = time.monotonic() - t_restart
        time.sleep(3)
        liveness.set()
        for c in replicas:
            mems.append(memory_mb(c))
        check(not live_failures, 'gateway: every liveness probe passed (%s)' % (live_failures or 'none failed'))
        results = {}
        for transport in loads:
            code, result = stop_load('%s-gw-load-%s' % (TAG, transport), out)
            results[transport] = result
            ok = code == 0 and result is not None and result['errors'] == 0 and result['connections_lost'] == 0 \
                and result['ok'] > 0
            check(ok, 'gateway: rolling restart under %s load: %s' % (transport, load_line(result) if result
                                                                     else 'no report (exit %d)' % code))
        report['gateway'] = {
            'rolling_restart_s': round(restart_s, 1),
            'ready_after_start_s': [round(t, 2) for t in readies],
            'drain_after_sigterm_s': [round(d, 2) for d in drains],
            'memory_mb': [round(m, 1) for m in mems],
            'grpc': {k: results['grpc'][k] for k in ('ok', 'errors', 'connections_lost', 'throughput_rps')}
            if results.get('grpc') else None,
            'tcp': {k: results['tcp'][k] for k in ('ok', 'errors', 'connections_lost', 'reconnects', 'resent',
                                                   'throughput_rps')} if results.get('tcp') else None,
        }
        for c in replicas:
            terminate(c, [], spec.grace)

    def make_secret(self):
        """The Secret rosetta-tls as cert-manager writes it: tls.crt, tls.key, ca.crt; mode
        0440, group fsGroup (10001), as the kubelet mounts it with defaultMode 288."""
        d = os.path.join(self.tmp, 'rosetta-tls')
        os.makedirs(d)

        def openssl(*args):
            subprocess.run(['openssl', *args], capture_output=True, check=True)

        ca_key, ca, key, csr, crt = (os.path.join(d, n) for n in ('ca.key', 'ca.crt', 'tls.key', 'tls.csr', 'tls.crt'))
        openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
                '-subj', '/CN=rosetta-ca', '-keyout', ca_key, '-out', ca)
        openssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj',
                '/CN=rosettad', '-keyout', key, '-out', csr)
        ext = os.path.join(d, 'ext.cnf')
        with open(ext, 'w') as f:
            names = find(render('gateway'), 'Certificate', 'rosettad')['spec']['dnsNames']
            f.write('subjectAltName=%s\nextendedKeyUsage=serverAuth\n' % ','.join('DNS:' + n for n in names))
        openssl('x509', '-req', '-in', csr, '-CA', ca, '-CAkey', ca_key, '-CAcreateserial', '-days', '1',
                '-extfile', ext, '-out', crt)
        for n in ('ca.key', 'tls.csr', 'ext.cnf', 'ca.srl'):
            if os.path.exists(os.path.join(d, n)):
                os.remove(os.path.join(d, n))
        for n in ('tls.crt', 'tls.key', 'ca.crt'):
            os.chown(os.path.join(d, n), 0, 10001)
            os.chmod(os.path.join(d, n), 0o440)
        os.chmod(d, 0o755)
        # The Secret rosetta-ca as the load Job mounts it: ca.crt alone.
        os.makedirs(os.path.join(d, 'ca'))
        shutil.copy(ca, os.path.join(d, 'ca', 'ca.crt'))
        os.chmod(os.path.join(d, 'ca', 'ca.crt'), 0o444)
        os.chmod(os.path.join(d, 'ca'), 0o755)
        return d

    # -- sidecar: rosettad and the app in one network namespace
    def sidecar(self):
        print('== sidecar: rosettad next to an application container (deploy/overlays/sidecar)', flush=True)
        spec = PodSpec(render('sidecar'))
        c_spec, app_spec = spec.container('rosettad'), spec.container('app')
        pre_stop = check_grace('sidecar', spec, c_spec)
        # The pod's network namespace: rosettad's container holds it (the pause container's
        # role), the app joins it, so only the ports rosettad binds on 0.0.0.0 are reachable.
        c = self.start_rosettad('%s-sc' % TAG, spec)
        t = wait_ready(self.probes, c)
        check(t is not None, 'sidecar: rosettad ready (HTTP GET /metrics on port metrics) %.2f s after start' % (t or -1))
        env = {e['name']: e['value'] for e in app_spec.get('env', [])}
        out = os.path.join(self.tmp, 'sc-out')
        os.makedirs(out, exist_ok=True)
        os.chmod(out, 0o777)
        app = '%s-sc-app' % TAG
        docker('run', '-d', '--name', app, '--label', TAG, '--network', 'container:' + c.name,
               *container_args(spec.pod, app_spec), '-v', '%s:/out' % out, LOAD_IMAGE, '--quiet', '--json',
               '/out/%s.json' % app, '--transport', 'tcp', '--address', env['ROSETTA_TCP_ADDR'], '--connections', '2',
               '--inflight', '8', '--duration', '600', '--warmup', '0', '--payload', PAYLOAD)
        probe = subprocess.run([DOCKER, 'exec', app, '/usr/local/bin/rosetta-load', '--quiet', '--transport', 'grpc',
                                '--address', env['ROSETTA_GRPC_ADDR'], '--duration', '2', '--warmup', '0',
                                '--payload', PAYLOAD], capture_output=True, text=True, timeout=60)
        check(probe.returncode == 0 and re.search(r'errors\s+0\b', probe.stdout) is not None,
              'sidecar: the app reaches rosettad on %s (gRPC) and %s (TCP)' %
              (env['ROSETTA_GRPC_ADDR'], env['ROSETTA_TCP_ADDR']))
        ip = c.ip(self.network)
        for port in (50051, 50052, 8080):
            outside = subprocess.run([DOCKER, 'run', '--rm', '--label', TAG, '--network', self.network, LOAD_IMAGE,
                                      '--quiet', '--transport', 'grpc' if port == 50051 else 'tcp', '--address',
                                      '%s:%d' % (ip, port), '--duration', '1', '--warmup', '0', '--payload', PAYLOAD],
                                     capture_output=True, text=True, timeout=60)
            check(outside.returncode == 2, 'sidecar: port %d refused from outside the pod (%s)' %
                  (port, (outside.stderr.strip().splitlines() or ['?'])[-1][:90]))
        with urllib.request.urlopen('http://127.0.0.1:%d/metrics' % c.ports[9464], timeout=5) as r:
            check(r.status == 200, 'sidecar: metrics (port 9464) reachable from outside the pod for Prometheus')
        time.sleep(2)
        # Termination: both containers at once; the app has no preStop, rosettad's holds its
        # SIGTERM until the app has finished its work through it.
        t0 = time.monotonic()
        result = {}
        th = threading.Thread(target=lambda: result.update(zip(('drain', 'code', 'killed'),
                                                                terminate(c, pre_stop, spec.grace))))
        th.start()
        code, app_result = stop_load(app, out)
        app_done = time.monotonic() - t0
        th.join()
        pod_done = time.monotonic() - t0
        check(code == 0 and app_result is not None and app_result['errors'] == 0 and app_result['connections_lost'] == 0,
              'sidecar: the app stopped on SIGTERM after its last answers, %.1f s in: %s' %
              (app_done, load_line(app_result) if app_result else 'no report'))
        check(result.get('code') == 0 and not result.get('killed') and app_done < pod_done,
              'sidecar: rosettad drained after its preStop (%s), exit %s, pod gone %.1f s after the stop' %
              (' '.join(pre_stop), result.get('code'), pod_done))
        report['sidecar'] = {'app_done_s': round(app_done, 1), 'pod_done_s': round(pod_done, 1)}


def health_stubs(tmp):
    """The grpc.health.v1 stubs, generated as users generate them (grpc_tools.protoc)."""
    subprocess.run([sys.executable, '-m', 'grpc_tools.protoc', '-I', HEALTH_PROTO_DIR, '--python_out=' + tmp,
                    '--grpc_python_out=' + tmp, 'health.proto'], check=True)
    subprocess.run([sys.executable, '-m', 'grpc_tools.protoc', '-I', os.path.join(ROOT, 'proto'),
                    '--python_out=' + tmp, '--grpc_python_out=' + tmp, 'rosetta/v1/transcoder.proto'], check=True)
    sys.path.insert(0, tmp)
    import grpc
    import health_pb2
    import health_pb2_grpc
    return Probes(grpc, health_pb2, health_pb2_grpc)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--only', default='base,gateway,sidecar')
    parser.add_argument('--json', help='write the figures here')
    args = parser.parse_args()
    for tool in ('kubectl', 'openssl'):
        if shutil.which(tool) is None:
            print('emulate: needs %s' % tool)
            return 2
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix='rosetta-emu-') as tmp:
        os.chmod(tmp, 0o755)
        probes = health_stubs(tmp)
        emu = Emulation(tmp, probes)
        try:
            for part in args.only.split(','):
                try:
                    getattr(emu, part)()
                except Exception as e:  # noqa: BLE001 (reported, then the next part)
                    check(False, '%s: %r' % (part, e))
        finally:
            emu.cleanup()
    report['image_mb'] = round(float(docker('image', 'inspect', '-f', '{{.Size}}', IMAGE)) / 1e6, 1)
    report['seconds'] = round(time.monotonic() - t0)
    print(json.dumps(report, indent=2))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(report, f, indent=2)
    print('emulate: %s (%d s)' % ('ok' if not failures else '%d failures' % len(failures), report['seconds']))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
