"""JSON Schemas of --schema-dir in the real rosettad, reloaded by SIGHUP (docs/schema.md
"rosettad: schema_dir, reload, metrics").

The directory is laid out as the kubelet mounts a ConfigMap (each NAME.json a symlink
through ..data to a timestamped folder, a change swapped in by renaming ..data), so this is
also the Kubernetes story of docs/schema.md. Checked over gRPC, TCP and HTTP: a schema
changed on disk changes the verdicts after SIGHUP; a reload with one broken file keeps every
old verdict and says why on stderr; rosetta_schema_reloads_total counts ok and error (the
start-up load as one ok); a broken directory at start exits 2 with one line naming the file.

usage: schema_reload_test.py ROSETTAD PROJECT_DIR
"""
import http.client
import importlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'support'))
from rosettad_process import Rosettad, tcp_frame, tcp_response  # noqa: E402

failures = []


def check(ok, what):
    print('%-4s %s' % ('ok' if ok else 'FAIL', what), flush=True)
    if not ok:
        failures.append(what)
    return ok


def order_schema(minimum):
    return {'$schema': 'https://json-schema.org/draft/2020-12/schema', 'type': 'object', 'required': ['id'],
            'properties': {'id': {'type': 'integer', 'minimum': minimum},
                           'tags': {'type': 'array', 'items': {'type': 'string'}}}}


BROKEN = {'properties': {'x': {'pattern': '(a)\\1'}}}  # a backreference: no linear-time meaning


class ConfigMapDir:
    """A directory as the kubelet keeps a mounted ConfigMap: NAME -> ..data/NAME,
    ..data -> ..<version>/, and an update swapped in by one rename of ..data."""

    def __init__(self, root):
        self.root = root
        self.version = 0
        self.names = set()

    def publish(self, files):
        self.version += 1
        folder = '..v%d' % self.version
        os.mkdir(os.path.join(self.root, folder))
        for name, doc in files.items():
            with open(os.path.join(self.root, folder, name), 'w') as f:
                f.write(doc if isinstance(doc, str) else json.dumps(doc))
        tmp = os.path.join(self.root, '..data_tmp')
        os.symlink(folder, tmp)
        os.rename(tmp, os.path.join(self.root, '..data'))
        for name in files:
            if name not in self.names:
                os.symlink(os.path.join('..data', name), os.path.join(self.root, name))
        for name in self.names - set(files):
            os.unlink(os.path.join(self.root, name))
        self.names = set(files)


def host_port(address):
    h, p = address.rsplit(':', 1)
    return h, int(p)


def scrape(server):
    c = http.client.HTTPConnection(*host_port(server.metrics), timeout=5)
    c.request('GET', '/metrics')
    text = c.getresponse().read().decode()
    c.close()
    return text


def metric(text, name, **labels):
    total = 0.0
    for m in re.finditer(r'^%s(?:\{([^}]*)\})? (\S+)$' % re.escape(name), text, re.M):
        have = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1) or ''))
        if all(have.get(k) == v for k, v in labels.items()):
            total += float(m.group(2))
    return total


def wait_for(predicate, within=10.0):
    deadline = time.monotonic() + within
    while True:
        value = predicate()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


class Clients:
    """One payload's verdict over each front-end, as (ok, first error line)."""

    def __init__(self, server, pb, pbg, grpc):
        self.server, self.pb = server, pb
        self.stub = pbg.TranscoderStub(grpc.insecure_channel(server.grpc))
        self.tcp = socket.create_connection(server.tcp_host_port(), timeout=5)
        self.next_id = 0

    def grpc(self, payload, schema):
        r = self.stub.Validate(self.pb.ValidateRequest(format=1, payload=payload, schema=schema), timeout=5)
        return r.valid, r.error.message, [v.path for v in r.violations]

    def tcp_validate(self, payload, schema):
        self.next_id += 1
        self.tcp.sendall(tcp_frame(2, self.next_id, payload, 1, 0, schema.encode()))
        status, rid, data = tcp_response(self.tcp)
        return status, data.decode()

    def http(self, payload, schema):
        c = http.client.HTTPConnection(*host_port(self.server.http), timeout=5)
        c.request('POST', '/v1/validate?schema=' + schema, body=payload,
                  headers={'Content-Type': 'application/json'})
        r = c.getresponse()
        body = r.read()
        c.close()
        return r.status, json.loads(body) if body else None

    def verdicts(self, payload, schema='order'):
        """'valid' or the first violation's message, on each of the three, or a mismatch."""
        valid, message, _ = self.grpc(payload, schema)
        g = 'valid' if valid else message
        status, data = self.tcp_validate(payload, schema)
        t = 'valid' if status == 0 else data.split(': ', 1)[1] if ': ' in data else data
        hs, problem = self.http(payload, schema)
        h = 'valid' if hs == 204 else (problem or {}).get('detail', 'HTTP %d' % hs)
        return g if g == t == h else 'front-ends differ: gRPC %r, TCP %r, HTTP %r' % (g, t, h)


def main():
    binary, project = sys.argv[1:3]
    proto_dir = os.path.join(os.path.abspath(project), 'proto')
    with tempfile.TemporaryDirectory(prefix='rosetta-schema-reload-') as tmp:
        subprocess.run([sys.executable, '-m', 'grpc_tools.protoc', '-I', proto_dir, '--python_out=' + tmp,
                        '--grpc_python_out=' + tmp, 'rosetta/v1/transcoder.proto'], check=True, cwd=proto_dir)
        sys.path.insert(0, tmp)
        import grpc
        pb = importlib.import_module('rosetta.v1.transcoder_pb2')
        pbg = importlib.import_module('rosetta.v1.transcoder_pb2_grpc')

        # A broken directory at start: exit 2, one line naming the file and the location.
        bad = os.path.join(tmp, 'bad')
        os.mkdir(bad)
        for name, doc in (('order.json', order_schema(1)), ('broken.json', BROKEN)):
            with open(os.path.join(bad, name), 'w') as f:
                json.dump(doc, f)
        r = subprocess.run([binary, '--grpc-listen', '127.0.0.1:0', '--tcp-listen', '127.0.0.1:0',
                            '--http-listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0',
                            '--schema-dir', bad], capture_output=True, timeout=30)
        lines = r.stderr.decode().splitlines()
        check(r.returncode == 2 and len(lines) == 1 and r.stdout == b''
              and lines[0].startswith('rosettad: --schema-dir: %s/broken.json: /properties/x/pattern: ' % bad),
              'a broken schema at start: exit 2, one line naming file and location (%d, %r)'
              % (r.returncode, lines))

        schemas = os.path.join(tmp, 'schemas')
        os.mkdir(schemas)
        cm = ConfigMapDir(schemas)
        cm.publish({'order.json': order_schema(1)})
        log = os.path.join(tmp, 'stderr.log')
        with Rosettad(binary, '--schema-dir', schemas, stderr_path=log) as server:
            c = Clients(server, pb, pbg, grpc)
            reloads = lambda outcome: metric(scrape(server), 'rosetta_schema_reloads_total', outcome=outcome)  # noqa

            def sighup_and_wait(outcome, count):
                server.proc.send_signal(signal.SIGHUP)
                return wait_for(lambda: reloads(outcome) == count)

            check(reloads('ok') == 1 and reloads('error') == 0, 'start-up load counted: reloads ok 1, error 0')
            check('rosettad: JSON Schemas loaded from %s (1)' % schemas in open(log).read(),
                  'stderr names the directory loaded at start')
            check(c.verdicts(b'{"id": 3}') == 'valid', 'minimum 1: {"id": 3} valid on gRPC, TCP and HTTP')
            v = c.verdicts(b'{"id": 0}')
            check(v == '/properties/id/minimum: 0 is below the minimum 1', 'minimum 1: {"id": 0} refused (%s)' % v)
            valid, _, paths = c.grpc(b'{"tags": [1, "b", 2]}', 'order')
            check(not valid and paths == ['', '/tags/0', '/tags/2'], 'gRPC lists every violation (%s)' % paths)
            v = c.verdicts(b'{"id": 3}', 'customer')
            check(v == 'no schema named "customer" is loaded', 'customer: unknown_schema everywhere (%s)' % v)

            # The schema changes on disk: the verdicts change after SIGHUP, not before.
            cm.publish({'order.json': order_schema(5), 'customer.json': {'type': 'object', 'required': ['name']}})
            check(c.verdicts(b'{"id": 3}') == 'valid', 'changed on disk, no SIGHUP yet: the old verdict')
            check(sighup_and_wait('ok', 2), 'SIGHUP: reloads ok 2')
            v = c.verdicts(b'{"id": 3}')
            check(v == '/properties/id/minimum: 3 is below the minimum 5', 'after SIGHUP: minimum 5 (%s)' % v)
            check(c.verdicts(b'{"name": "a"}', 'customer') == 'valid', 'after SIGHUP: the new schema customer')

            # A broken reload: every old verdict stays, stderr says which file and where.
            cm.publish({'order.json': order_schema(10), 'customer.json': {'type': 'object'}, 'broken.json': BROKEN})
            check(sighup_and_wait('error', 1), 'a broken reload: reloads error 1')
            check(reloads('ok') == 2, 'a broken reload: reloads ok stays 2')
            v = c.verdicts(b'{"id": 7}')
            check(v == 'valid', 'after the broken reload: still minimum 5 ({"id": 7} valid: %s)' % v)
            v = c.verdicts(b'{"id": 3}')
            check(v == '/properties/id/minimum: 3 is below the minimum 5', 'after the broken reload: %s' % v)
            v = c.verdicts(b'{}', 'customer')
            check(v == '/required: missing required property "name"', 'the old customer schema too (%s)' % v)
            check(c.verdicts(b'{}', 'broken') == 'no schema named "broken" is loaded', 'nothing of the broken set')
            text = open(log).read()
            check(re.search(r'rosettad: SIGHUP: schema reload failed, keeping the previous schemas: \S*broken\.json: '
                            r'/properties/x/pattern: ', text) is not None,
                  'stderr: the failed reload, naming file and location')

            # Fixed: the next SIGHUP takes the directory whole.
            cm.publish({'order.json': order_schema(10), 'customer.json': {'type': 'object'}})
            check(sighup_and_wait('ok', 3), 'fixed: reloads ok 3')
            v = c.verdicts(b'{"id": 7}')
            check(v == '/properties/id/minimum: 7 is below the minimum 10', 'fixed: minimum 10 (%s)' % v)
            text = scrape(server)
            n = metric(text, 'rosetta_schema_violations_total', schema='order')
            check(n == 3 * 4 + 1, 'rosetta_schema_violations_total{schema="order"} %g (want 13)' % n)
            check(metric(text, 'rosetta_schema_violations_total', schema='customer') == 3,
                  'rosetta_schema_violations_total{schema="customer"} 3')
            check(metric(text, 'rosetta_schema_violations_total', schema='broken') == 0 and
                  'schema="broken"' not in text, 'no series for a schema that never loaded')
            check(server.stop() == 0, 'SIGTERM: exit 0')
    if failures:
        print('FAIL: %d check(s)' % len(failures))
        return 1
    print('PASS')
    return 0


if __name__ == '__main__':
    sys.exit(main())
