#!/usr/bin/python3
"""Overload: a legitimate client beside a flood of large requests, with and without
admission (--max-inflight-bytes).

The legitimate client is rosetta-load, gRPC unary Transcode of log_1k.json at a fixed open-
loop rate (its p50/p99 latency and errors). The flood is --flooders Python gRPC clients
(grpcio), each sending 3.5 MiB JSON Transcode requests back to back for the same time. Per
bound: the legitimate client's latency, the flood's answered and refused (`overloaded`)
counts, and rosettad's peak RSS (VmHWM) over its idle RSS. The first row is the legitimate
client alone.

usage: overload_bench.py --build BUILD --datasets DIR [--bounds 0,268435456,33554432]
                         [--flooders 64] [--rate 2000] [--seconds 10]
(a bound of 0 means none: --max-inflight-bytes set past anything the flood can claim)
"""
import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests', 'support'))
from rosettad_process import Rosettad  # noqa: E402

MIB = 1 << 20


def flood_payload():
    record = {'ts': '2026-12-01T10:00:00Z', 'level': 'info', 'msg': 'request served', 'latency_ms': 12.5,
              'tags': ['a', 'b', 'c'], 'user': {'id': 12345, 'name': 'name'}}
    records = []
    while len(records) * 150 < 3.5 * MIB:
        records.append(dict(record, seq=len(records)))
    return json.dumps(records).encode()


def vm_kib(pid, field):
    for line in open('/proc/%d/status' % pid):
        if line.startswith(field + ':'):
            return int(line.split()[1])
    return 0


def run(args, pb, pbg, bound, flooders, body):
    import grpc
    extra = ['--io-threads', '2', '--max-inflight-bytes', str(bound if bound else 1 << 40)]
    with Rosettad(os.path.join(args.build, 'service', 'rosettad'), *extra) as server:
        time.sleep(0.3)
        idle = vm_kib(server.pid, 'VmRSS')
        stop = time.time() + args.seconds + 1.5
        counts = {'ok': 0, 'overloaded': 0, 'other': 0}
        lock = threading.Lock()

        def flood():
            opts = [('grpc.max_send_message_length', 64 * MIB), ('grpc.max_receive_message_length', 64 * MIB)]
            with grpc.insecure_channel(server.grpc, options=opts) as channel:
                stub = pbg.TranscoderStub(channel)
                request = pb.TranscodeRequest(input_format=1, output_format=2, payload=body)
                while time.time() < stop:
                    try:
                        stub.Transcode(request, timeout=30)
                        outcome = 'ok'
                    except grpc.RpcError as e:
                        err = pb.Error.FromString(dict(e.trailing_metadata() or ()).get('rosetta-error-bin', b''))
                        outcome = 'overloaded' if err.code == 'overloaded' else 'other'
                    with lock:
                        counts[outcome] += 1

        threads = [threading.Thread(target=flood) for _ in range(flooders)]
        for t in threads:
            t.start()
        out = os.path.join(args.tmp, 'legit.json')
        subprocess.run([os.path.join(args.build, 'load', 'rosetta-load'), '--transport', 'grpc',
                        '--address', server.grpc, '--mode', 'open', '--rate', str(args.rate),
                        '--connections', '2', '--duration', str(args.seconds), '--warmup', '1',
                        '--payload', os.path.join(args.datasets, 'log_1k.json'), '--quiet', '--json', out],
                       check=True, stdout=subprocess.DEVNULL)
        for t in threads:
            t.join()
        peak = vm_kib(server.pid, 'VmHWM')
        legit = json.load(open(out))
    return {'idle_kib': idle, 'peak_kib': peak, 'legit': legit, 'flood': counts}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', required=True)
    ap.add_argument('--datasets', required=True)
    ap.add_argument('--bounds', default='0,268435456,33554432')
    ap.add_argument('--flooders', type=int, default=64)
    ap.add_argument('--rate', type=int, default=2000)
    ap.add_argument('--seconds', type=int, default=10)
    args = ap.parse_args()
    project = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
    with tempfile.TemporaryDirectory(prefix='overload_bench_') as tmp:
        args.tmp = tmp
        proto_dir = os.path.join(project, 'proto')
        subprocess.run([sys.executable, '-m', 'grpc_tools.protoc', '-I', proto_dir, '--python_out=' + tmp,
                        '--grpc_python_out=' + tmp, 'rosetta/v1/transcoder.proto'], check=True, cwd=proto_dir)
        sys.path.insert(0, tmp)
        pb = importlib.import_module('rosetta.v1.transcoder_pb2')
        pbg = importlib.import_module('rosetta.v1.transcoder_pb2_grpc')
        body = flood_payload()
        rows = [('legitimate client alone', run(args, pb, pbg, 0, 0, body))]
        for bound in (int(b) for b in args.bounds.split(',')):
            name = '%d x %.1f MiB flood, %s' % (args.flooders, len(body) / MIB,
                                                'no bound' if not bound else 'bound %d MiB' % (bound // MIB))
            rows.append((name, run(args, pb, pbg, bound, args.flooders, body)))
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
