"""rosettad's /metrics as a real Prometheus sees it.

Starts rosettad and a real Prometheus (Debian package `prometheus`) scraping it every
second, sends TCP requests in two batches, and polls Prometheus' HTTP API until
rosetta_requests_total shows exactly the counts sent. Then checks every query of
deploy/grafana/rosetta-dashboard.json: it appears verbatim in docs/metrics.md, Prometheus
evaluates it without error, and the p99-latency, allocation-per-request and error-ratio
queries return the series the requests must have produced. Also runs
`promtool check metrics` on a scrape. Stops everything it started.

usage: prometheus_scrape_test.py ROSETTAD SOURCE_DIR
exit 0: passed; 1: failed; 77: no /usr/bin/prometheus (skipped).
"""
import json
import math
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'support'))
from rosettad_process import Rosettad, free_port, tcp_frame, tcp_response  # noqa: E402

PROMETHEUS = '/usr/bin/prometheus'
PROMTOOL = '/usr/bin/promtool'
DEADLINE_S = 30.0
JSON, CBOR, MSGPACK = 1, 2, 3

failures = []


def check(ok, what):
    print('%-4s %s' % ('ok' if ok else 'FAIL', what))
    if not ok:
        failures.append(what)
    return ok


def send_batch(server, ok_json_cbor, syntax_json_cbor, ok_json_msgpack):
    with socket.create_connection(server.tcp_host_port(), timeout=5) as s:
        frames = []
        rid = 0
        for _ in range(ok_json_cbor):
            rid += 1
            frames.append(tcp_frame(1, rid, b'{"a":[1,2,3],"b":"text"}', JSON, CBOR))
        for _ in range(syntax_json_cbor):
            rid += 1
            frames.append(tcp_frame(1, rid, b'{"a":[1,2,}', JSON, CBOR))
        for _ in range(ok_json_msgpack):
            rid += 1
            frames.append(tcp_frame(1, rid, b'[true,null,1.5]', JSON, MSGPACK))
        s.sendall(b''.join(frames))
        statuses = [tcp_response(s)[0] for _ in range(rid)]
    want = [0] * ok_json_cbor + [2] * syntax_json_cbor + [0] * ok_json_msgpack
    check(statuses == want, 'TCP batch answered %s' % statuses)


def query(prom, expr):
    url = 'http://%s/api/v1/query?%s' % (prom, urllib.parse.urlencode({'query': expr}))
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:  # 400 bad_data: the body still says why
        return json.load(e)


def series(result):
    """{frozenset(labels without __name__ and job/instance): float value}."""
    out = {}
    for r in result.get('data', {}).get('result', []):
        labels = {k: v for k, v in r['metric'].items() if k not in ('__name__', 'job', 'instance')}
        out[frozenset(labels.items())] = float(r['value'][1])
    return out


def wait_for_counts(prom, want, what):
    """Polls rosetta_requests_total until every series in `want` has its count."""
    deadline = time.monotonic() + DEADLINE_S
    got = {}
    while time.monotonic() < deadline:
        got = series(query(prom, 'rosetta_requests_total'))
        if all(got.get(frozenset(k.items())) == v for k, v in want):
            return check(True, '%s: rosetta_requests_total in Prometheus has the expected counts' % what)
        time.sleep(0.5)
    return check(False, '%s: Prometheus never showed %s; last: %s' % (what, want, got))


def start_prometheus(tmp, metrics_addr):
    config = os.path.join(tmp, 'prometheus.yml')
    with open(config, 'w') as f:
        f.write('global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n'
                'scrape_configs:\n  - job_name: rosettad\n    static_configs:\n'
                '      - targets: ["%s"]\n' % metrics_addr)
    for _ in range(5):  # the free port may be taken in between: try another
        port = free_port()
        log = open(os.path.join(tmp, 'prometheus.log'), 'w')
        proc = subprocess.Popen([PROMETHEUS, '--config.file=' + config, '--web.listen-address=127.0.0.1:%d' % port,
                                 '--storage.tsdb.path=' + os.path.join(tmp, 'tsdb'), '--log.level=warn'],
                                stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen('http://127.0.0.1:%d/-/ready' % port, timeout=1) as r:
                    if r.status == 200:
                        return proc, '127.0.0.1:%d' % port
            except OSError:
                time.sleep(0.2)
        proc.kill()
        proc.wait()
    raise RuntimeError('Prometheus did not start: %s' % open(os.path.join(tmp, 'prometheus.log')).read()[-2000:])


def stop(proc, name):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            print('note: %s needed SIGKILL' % name)


def dashboard_queries(source_dir):
    with open(os.path.join(source_dir, 'deploy/grafana/rosetta-dashboard.json')) as f:
        dashboard = json.load(f)
    return [t['expr'] for p in dashboard['panels'] for t in p.get('targets', [])]


def main():
    binary, source_dir = sys.argv[1:3]
    if not os.access(PROMETHEUS, os.X_OK):
        print('skipped: no %s (apt-get install prometheus)' % PROMETHEUS)
        return 77
    with Rosettad(binary) as server, tempfile.TemporaryDirectory(prefix='rosetta-prom-') as tmp:
        # promtool on a scrape, as Prometheus' own linter reads it.
        with urllib.request.urlopen('http://%s/metrics' % server.metrics, timeout=5) as r:
            text = r.read()
        p = subprocess.run([PROMTOOL, 'check', 'metrics'], input=text, capture_output=True)
        check(p.returncode == 0, 'promtool check metrics: exit %d %s' % (p.returncode, (p.stdout + p.stderr).decode()[:300]))

        prom, prom_addr = start_prometheus(tmp, server.metrics)
        try:
            send_batch(server, 3, 1, 1)
            base = {'transport': 'tcp', 'op': 'transcode', 'input': 'json'}
            wait_for_counts(prom_addr, [({**base, 'output': 'cbor', 'outcome': 'ok'}, 3.0),
                                        ({**base, 'output': 'cbor', 'outcome': 'syntax'}, 1.0),
                                        ({**base, 'output': 'msgpack', 'outcome': 'ok'}, 1.0)], 'first batch')
            # A second batch after Prometheus has the first: rate() over the window is then
            # above zero, so the dashboard's queries have something to show.
            send_batch(server, 5, 2, 1)
            wait_for_counts(prom_addr, [({**base, 'output': 'cbor', 'outcome': 'ok'}, 8.0),
                                        ({**base, 'output': 'cbor', 'outcome': 'syntax'}, 3.0),
                                        ({**base, 'output': 'msgpack', 'outcome': 'ok'}, 2.0)], 'second batch')
            up = series(query(prom_addr, 'up{job="rosettad"}'))
            check(list(up.values()) == [1.0], 'up{job="rosettad"} == 1 (%s)' % list(up.values()))

            with open(os.path.join(source_dir, 'docs/metrics.md')) as f:
                doc = f.read()
            exprs = dashboard_queries(source_dir)
            check(len(exprs) >= 8, 'dashboard has %d queries' % len(exprs))
            results = {}
            for expr in exprs:
                check(expr in doc, 'docs/metrics.md holds the dashboard query %s' % expr)
                r = query(prom_addr, expr)
                check(r.get('status') == 'success', 'Prometheus evaluates %s: %s' % (expr, r.get('error', 'ok')))
                results[expr] = series(r)

            def finite(expr, labels, positive=True):
                v = results.get(expr, {}).get(frozenset(labels.items()))
                check(v is not None and math.isfinite(v) and (v > 0 if positive else v >= 0),
                      '%s{%s} = %s' % (expr.split('(')[0] or expr, labels, v))
            p99 = next(e for e in exprs if e.startswith('histogram_quantile(0.99') and 'duration' in e)
            finite(p99, {'input': 'json', 'output': 'cbor'})
            alloc = next(e for e in exprs if 'rosetta_request_allocated_bytes_sum' in e)
            finite(alloc, {'transport': 'tcp', 'op': 'transcode'}, positive=False)
            rss = next(e for e in exprs if e.startswith('process_resident_memory_bytes'))
            finite(rss, {})
            ratio = next(e for e in exprs if 'outcome!="ok"' in e and ' / ' in e)
            v = results[ratio].get(frozenset({'transport': 'tcp'}.items()))
            # 3 errors of 13 requests in the window (rates are per second over the same
            # window, so the ratio is the ratio of the increases, up to extrapolation).
            check(v is not None and 0.05 < v < 0.5, 'error ratio for tcp = %s (3 of 13 sent)' % v)
        finally:
            stop(prom, 'prometheus')
        code = server.terminate(within=5.0)
        check(code == 0, 'rosettad exit after SIGTERM: %s' % code)
    print('prometheus_scrape_test: %s' % ('ok' if not failures else '%d failures' % len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
