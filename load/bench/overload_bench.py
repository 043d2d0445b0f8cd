#!/usr/bin/python3
"""Overload: a legitimate client beside a flood of large requests, with and without
admission (--max-inflight-bytes).

The legitimate client is rosetta-load, gRPC unary Transcode of log_1k.json at a fixed open-
loop rate (its p50/p99 latency and errors). The flood is h2load (nghttp2-client) on
--flooders connections, each sending 3.5 MiB JSON -> CBOR Transcode calls back to back for
the same time (one call in flight per connection). Per bound: the legitimate client's
latency, the flood's answered and refused (`overloaded`) calls (from rosettad's own
metrics), and rosettad's peak RSS (VmHWM) over its idle RSS. The first row is the
legitimate client alone.

usage: overload_bench.py --build BUILD --datasets DIR [--bounds 0,67108864,16777216]
                         [--flooders 64] [--rate 2000] [--seconds 10]
(a bound of 0 means none: --max-inflight-bytes set past anything the flood can claim)
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import urllib.request
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests', 'support'))
from rosettad_process import Rosettad, grpc_transcode_request  # noqa: E402

MIB = 1 << 20


def flood_payload():
    record = {'ts': '2026-12-01T10:00:00Z', 'level': 'info', 'msg': 'request served', 'latency_ms': 12.5,
              'tags': ['a', 'b', 'c'], 'user': {'id': 12345, 'name': 'name'}}
    per_record = len(json.dumps(dict(record, seq=99999))) + 2
    records = [dict(record, seq=i) for i in range(int(3.5 * MIB) // per_record)]
    return json.dumps(records).encode()  # 3.5 MiB: under the default max_input_bytes (4 MiB)


def vm_kib(pid, field):
    for line in open('/proc/%d/status' % pid):
        if line.startswith(field + ':'):
            return int(line.split()[1])
    return 0


def metric_sum(address, name, labels):
    """The sum of the series of `name` whose labels include all of `labels`."""
    text = urllib.request.urlopen('http://%s/metrics' % address, timeout=10).read().decode()
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name + '{') and all('%s="%s"' % kv in line for kv in labels.items()):
            total += float(line.rsplit(' ', 1)[1])
    return total


def run(args, bound, flooders, flood_file):
    extra = ['--io-threads', '2', '--max-inflight-bytes', str(bound if bound else 1 << 40)]
    with Rosettad(os.path.join(args.build, 'service', 'rosettad'), *extra) as server:
        time.sleep(0.3)
        idle = vm_kib(server.pid, 'VmRSS')
        flood = None
        if flooders:
            flood = subprocess.Popen(['h2load', '-c', str(flooders), '-m', '1', '-t', '1',
                                      '-D', str(args.seconds + 2), '-d', flood_file,
                                      '-H', 'content-type: application/grpc', '-H', 'te: trailers',
                                      'http://%s/rosetta.v1.Transcoder/Transcode' % server.grpc],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.5)
        out = os.path.join(args.tmp, 'legit.json')
        subprocess.run([os.path.join(args.build, 'load', 'rosetta-load'), '--transport', 'grpc',
                        '--address', server.grpc, '--mode', 'open', '--rate', str(args.rate),
                        '--connections', '2', '--duration', str(args.seconds), '--warmup', '1',
                        '--payload', os.path.join(args.datasets, 'log_1k.json'), '--quiet', '--json', out],
                       check=True, stdout=subprocess.DEVNULL)
        if flood:
            flood.wait(60)
        peak = vm_kib(server.pid, 'VmHWM')
        legit = json.load(open(out))
        counts = {
            'ok': metric_sum(server.metrics, 'rosetta_requests_total',
                             {'transport': 'grpc', 'outcome': 'ok'}) - legit['completed_all'],
            'overloaded': metric_sum(server.metrics, 'rosetta_rejected_total',
                                     {'transport': 'grpc', 'reason': 'overloaded'}),
            'other': metric_sum(server.metrics, 'rosetta_rejected_total', {'transport': 'grpc'}) -
            metric_sum(server.metrics, 'rosetta_rejected_total', {'transport': 'grpc', 'reason': 'overloaded'}),
        }
    return {'idle_kib': idle, 'peak_kib': peak, 'legit': legit, 'flood': counts}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', required=True)
    ap.add_argument('--datasets', required=True)
    ap.add_argument('--bounds', default='0,67108864,16777216')
    ap.add_argument('--flooders', type=int, default=64)
    ap.add_argument('--rate', type=int, default=2000)
    ap.add_argument('--seconds', type=int, default=10)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix='overload_bench_') as tmp:
        args.tmp = tmp
        body = flood_payload()
        flood_file = os.path.join(tmp, 'flood.bin')
        with open(flood_file, 'wb') as f:
            f.write(grpc_transcode_request(body))
        rows = [('legitimate client alone', run(args, 0, 0, flood_file))]
        for bound in (int(b) for b in args.bounds.split(',')):
            name = '%d x %.1f MiB flood, %s' % (args.flooders, len(body) / MIB,
                                                'no bound' if not bound else 'bound %d MiB' % (bound // MIB))
            rows.append((name, run(args, bound, args.flooders, flood_file)))
            print('overload_bench: %s done' % name, file=sys.stderr, flush=True)
    print('| run | legit p50 ms | legit p99 ms | legit errors | flood answered | flood refused (overloaded) '
          '| flood other | peak RSS over idle, MiB |')
    print('|---|---:|---:|---:|---:|---:|---:|---:|')
    for name, r in rows:
        lat = r['legit']['latency_us']
        print('| %s | %.2f | %.2f | %d | %d | %d | %d | %.0f |' % (
            name, lat['p50'] / 1000, lat['p99'] / 1000, r['legit']['errors'], r['flood']['ok'],
            r['flood']['overloaded'], r['flood']['other'], (r['peak_kib'] - r['idle_kib']) / 1024))


if __name__ == '__main__':
    main()
