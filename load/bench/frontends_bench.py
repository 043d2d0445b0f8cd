#!/usr/bin/python3
"""rosettad's three front-ends on the same payload, and the gRPC library's own server beside them.

h2load (nghttp2-client) is the client of gRPC and HTTP so that a client's cost does not hide
the servers': it sends each request's body from a file and reads the answers without
decoding them. Rows, each REPS rounds in alternating order, medians reported:
- unary Transcode of the 1 KiB log record (log_1k, JSON -> CBOR), rosettad and rosetta-echo
  (the same service on the gRPC C++ library's callback API, answering the payload unchanged);
- TranscodeStream: each call's body holds --stream-messages requests (one response each);
- HTTP/1.1 keep-alive POST /v1/transcode (h2load --h1, the same pipelining depth);
- TCP pipelining of the same record (rosetta-load --transport tcp).
Server CPU per request comes from /proc/PID/stat around each run.

usage: frontends_bench.py --build BUILD --datasets DIR [--reps 3] [--requests 200000]
                          [--connections 4] [--streams 16] [--stream-messages 100]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests', 'support'))
from rosettad_process import Echo, Rosettad, grpc_transcode_request  # noqa: E402


def h2load(address, path, body_file, requests, connections, streams, http1=False):
    headers = (['--h1', '-H', 'Content-Type: application/json', '-H', 'Accept: application/cbor'] if http1 else
               ['-H', 'content-type: application/grpc', '-H', 'te: trailers'])
    p = subprocess.run(['h2load', '-n', str(requests), '-c', str(connections), '-m', str(streams), '-t', '1',
                        '-d', body_file] + headers + ['http://%s%s' % (address, path)],
                       capture_output=True, text=True, timeout=600)
    rps = None
    for line in p.stdout.splitlines():
        if line.startswith('finished in'):
            rps = float(line.split(',')[1].split()[0])
        if line.startswith('requests:') and ' 0 failed' not in line:
            sys.exit('frontends_bench: h2load saw failures: ' + line)
        if line.startswith('status codes:') and ' 0 4xx, 0 5xx' not in line:
            sys.exit('frontends_bench: h2load saw error statuses: ' + line)
    if rps is None:
        sys.exit('frontends_bench: h2load printed no result:\n' + p.stdout + p.stderr)
    return rps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', required=True)
    ap.add_argument('--datasets', required=True)
    ap.add_argument('--reps', type=int, default=3)
    ap.add_argument('--requests', type=int, default=200000)
    ap.add_argument('--connections', type=int, default=4)
    ap.add_argument('--streams', type=int, default=16)
    ap.add_argument('--stream-messages', type=int, default=100)
    args = ap.parse_args()
    payload = open(os.path.join(args.datasets, 'log_1k.json'), 'rb').read()
    tmp = tempfile.mkdtemp(prefix='frontends_bench_')
    unary = os.path.join(tmp, 'unary.bin')
    stream = os.path.join(tmp, 'stream.bin')
    open(unary, 'wb').write(grpc_transcode_request(payload))
    open(stream, 'wb').write(grpc_transcode_request(payload) * args.stream_messages)
    b = args.build
    rows = {k: [] for k in ('rosettad unary', 'rosetta-echo unary', 'rosettad TranscodeStream', 'rosettad HTTP/1.1',
                            'rosettad TCP')}
    with Rosettad(f'{b}/service/rosettad', stderr_path=os.path.join(tmp, 'rosettad.stderr')) as rosettad, \
            Echo(f'{b}/load/rosetta-echo', stderr_path=os.path.join(tmp, 'echo.stderr')) as echo:
        def run(name, server, fn, per_call=1):
            cpu0 = server.cpu_seconds()
            rps, done = fn()
            cpu = server.cpu_seconds() - cpu0
            rows[name].append((rps * per_call, 1e6 * cpu / max(1, done * per_call)))
            print(f'frontends_bench: {name}: {rps * per_call:.0f} messages/s, server {rows[name][-1][1]:.2f} us CPU each',
                  file=sys.stderr, flush=True)

        def tcp():
            out = os.path.join(tmp, 'tcp.json')
            subprocess.run([f'{b}/load/rosetta-load', '--transport', 'tcp', '--address', rosettad.tcp,
                            '--connections', str(args.connections), '--inflight', str(args.streams),
                            '--duration', '5', '--warmup', '1', '--payload', os.path.join(args.datasets, 'log_1k.json'),
                            '--from', 'json', '--to', 'cbor', '--quiet', '--json', out], check=True,
                           stdout=subprocess.DEVNULL)
            r = json.load(open(out))
            return r['throughput_rps'], r['completed_all']

        path = '/rosetta.v1.Transcoder/Transcode'
        for rep in range(args.reps):
            order = [
                ('rosettad unary', rosettad, lambda: (h2load(rosettad.grpc, path, unary, args.requests,
                                                             args.connections, args.streams), args.requests), 1),
                ('rosetta-echo unary', echo, lambda: (h2load(echo.grpc, path, unary, args.requests // 4,
                                                             args.connections, args.streams), args.requests // 4), 1),
                ('rosettad TranscodeStream', rosettad,
                 lambda: (h2load(rosettad.grpc, '/rosetta.v1.Transcoder/TranscodeStream', stream,
                                 args.requests // args.stream_messages, args.connections, args.streams),
                          args.requests // args.stream_messages), args.stream_messages),
                ('rosettad HTTP/1.1', rosettad,
                 lambda: (h2load(rosettad.http, '/v1/transcode', os.path.join(args.datasets, 'log_1k.json'),
                                 args.requests, args.connections, args.streams, http1=True), args.requests), 1),
                ('rosettad TCP', rosettad, tcp, 1),
            ]
            if rep % 2:
                order.reverse()
            for name, server, fn, per_call in order:
                run(name, server, fn, per_call)
    med = {k: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v)) for k, v in rows.items()}
    print('| server, call | messages/s (median) | server CPU µs per message |')
    print('|---|---:|---:|')
    for k, (rps, cpu) in med.items():
        print(f'| {k} | {rps:.0f} | {cpu:.2f} |')
    r, e = med['rosettad unary'], med['rosetta-echo unary']
    s, t, h = med['rosettad TranscodeStream'], med['rosettad TCP'], med['rosettad HTTP/1.1']
    print(f'\nrosettad / rosetta-echo, unary: {r[0] / e[0]:.2f}x the calls per second, '
          f'{r[1] / e[1]:.2f}x the server CPU per call; TranscodeStream / TCP pipelining: '
          f'{s[0] / t[0]:.2f}x the messages per second; HTTP/1.1 keep-alive: {h[0] / r[0]:.2f}x the gRPC '
          f'unary rate and {h[0] / t[0]:.2f}x the TCP rate.')


if __name__ == '__main__':
    main()
