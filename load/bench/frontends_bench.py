#!/usr/bin/python3
"""rosettad's three front-ends on the same payload, in plaintext and TLS, and the gRPC
library's own server beside them.

The clients are load tools that do not decode what they get, so a client's cost does not
hide the servers': h2load (nghttp2-client) for gRPC, wrk for HTTP/1.1 (h2load cannot
pipeline HTTP/1.1 requests that carry a body), rosetta-load for the TCP frame protocol.
Rows, each REPS rounds in alternating order, medians reported:
- unary Transcode of the 1 KiB log record (log_1k, JSON -> CBOR), rosettad and rosetta-echo
  (the same service on the gRPC C++ library's callback API, answering the payload unchanged):
  --connections connections, --streams calls in flight on each;
- TranscodeStream: each call's body holds --stream-messages requests (one response each);
- HTTP/1.1 keep-alive POST /v1/transcode, --connections connections with --streams
  pipelined requests in flight on each (wrk with load/bench/wrk_pipeline.lua), and the same
  with one request in flight per connection on connections x streams connections;
- TCP pipelining of the same record (rosetta-load --transport tcp), the same depth;
- gRPC unary, HTTP/1.1 pipelined and TCP again against a rosettad with TLS (a certificate
  made with openssl for the run; TLS 1.3, the handshakes before the measured window).
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


def h2load(address, path, body_file, requests, connections, streams, tls=False):
    headers = ['-H', 'content-type: application/grpc', '-H', 'te: trailers']
    p = subprocess.run(['h2load', '-n', str(requests), '-c', str(connections), '-m', str(streams), '-t', '1',
                        '-d', body_file] + headers + ['%s://%s%s' % ('https' if tls else 'http', address, path)],
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


def wrk(address, body_file, connections, depth, seconds, tls=False):
    env = dict(os.environ, WRK_BODY=body_file, WRK_PIPELINE=str(depth))
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'wrk_pipeline.lua')
    p = subprocess.run(['wrk', '-t', '1', '-c', str(connections), '-d', '%ds' % seconds, '-s', script,
                        '%s://%s/' % ('https' if tls else 'http', address)],
                       capture_output=True, text=True, env=env, timeout=600)
    rps = done = None
    for line in p.stdout.splitlines():
        line = line.strip()
        if line.startswith('Requests/sec:'):
            rps = float(line.split()[1])
        if ' requests in ' in line:
            done = int(line.split()[0])
        if line.startswith('Non-2xx') or line.startswith('Socket errors'):
            sys.exit('frontends_bench: wrk saw errors: ' + line)
    if rps is None or done is None:
        sys.exit('frontends_bench: wrk printed no result:\n' + p.stdout + p.stderr)
    return rps, done


def make_certificate(tmp):
    """A self-signed certificate for 127.0.0.1 (EC P-256, as cert-manager's default)."""
    cert, key = os.path.join(tmp, 'cert.pem'), os.path.join(tmp, 'key.pem')
    subprocess.run(['openssl', 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
                    '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1',
                    '-addext', 'subjectAltName=IP:127.0.0.1'], check=True, capture_output=True)
    return cert, key


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
    rows = {k: [] for k in ('rosettad unary', 'rosetta-echo unary', 'rosettad TranscodeStream',
                            'rosettad HTTP/1.1 pipelined', 'rosettad HTTP/1.1 one per connection', 'rosettad TCP',
                            'TLS: rosettad unary', 'TLS: rosettad HTTP/1.1 pipelined', 'TLS: rosettad TCP')}
    cert, key = make_certificate(tmp)
    body = os.path.join(args.datasets, 'log_1k.json')
    seconds = 5
    with Rosettad(f'{b}/service/rosettad', stderr_path=os.path.join(tmp, 'rosettad.stderr')) as rosettad, \
            Rosettad(f'{b}/service/rosettad', '--tls-cert', cert, '--tls-key', key,
                     stderr_path=os.path.join(tmp, 'rosettad-tls.stderr')) as secure, \
            Echo(f'{b}/load/rosetta-echo', stderr_path=os.path.join(tmp, 'echo.stderr')) as echo:
        def run(name, server, fn, per_call=1):
            cpu0 = server.cpu_seconds()
            rps, done = fn()
            cpu = server.cpu_seconds() - cpu0
            rows[name].append((rps * per_call, 1e6 * cpu / max(1, done * per_call)))
            print(f'frontends_bench: {name}: {rps * per_call:.0f} messages/s, server {rows[name][-1][1]:.2f} us CPU each',
                  file=sys.stderr, flush=True)

        def tcp(server, tls=False):
            out = os.path.join(tmp, 'tcp.json')
            subprocess.run([f'{b}/load/rosetta-load', '--transport', 'tcp', '--address', server.tcp,
                            '--connections', str(args.connections), '--inflight', str(args.streams),
                            '--duration', str(seconds), '--warmup', '1', '--payload', body,
                            '--from', 'json', '--to', 'cbor', '--quiet', '--json', out] +
                           (['--tls', '--tls-ca', cert] if tls else []), check=True, stdout=subprocess.DEVNULL)
            r = json.load(open(out))
            if r.get('errors'):
                sys.exit('frontends_bench: rosetta-load saw errors: %r' % r['errors'])
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
                ('rosettad HTTP/1.1 pipelined', rosettad,
                 lambda: wrk(rosettad.http, body, args.connections, args.streams, seconds), 1),
                ('rosettad HTTP/1.1 one per connection', rosettad,
                 lambda: wrk(rosettad.http, body, args.connections * args.streams, 1, seconds), 1),
                ('rosettad TCP', rosettad, lambda: tcp(rosettad), 1),
                ('TLS: rosettad unary', secure,
                 lambda: (h2load(secure.grpc, path, unary, args.requests, args.connections, args.streams, tls=True),
                          args.requests), 1),
                ('TLS: rosettad HTTP/1.1 pipelined', secure,
                 lambda: wrk(secure.http, body, args.connections, args.streams, seconds, tls=True), 1),
                ('TLS: rosettad TCP', secure, lambda: tcp(secure, tls=True), 1),
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
    s, t = med['rosettad TranscodeStream'], med['rosettad TCP']
    h, h1 = med['rosettad HTTP/1.1 pipelined'], med['rosettad HTTP/1.1 one per connection']
    print(f'\nrosettad / rosetta-echo, unary: {r[0] / e[0]:.2f}x the calls per second, '
          f'{r[1] / e[1]:.2f}x the server CPU per call; TranscodeStream / TCP pipelining: '
          f'{s[0] / t[0]:.2f}x the messages per second.')
    print(f'HTTP/1.1 keep-alive, pipelined: {h[0] / r[0]:.2f}x the gRPC unary rate and {h[0] / t[0]:.2f}x the TCP '
          f'rate; one request in flight per connection: {h1[0] / r[0]:.2f}x the gRPC unary rate '
          f'({h1[1]:.2f} us server CPU per request against gRPC\'s {r[1]:.2f}).')
    for name, plain in (('unary', r), ('HTTP/1.1 pipelined', h), ('TCP', t)):
        tls = med['TLS: rosettad ' + name]
        print(f'TLS, {name}: {tls[0] / plain[0]:.2f}x the plaintext rate ({100 * (1 - tls[0] / plain[0]):.0f}% '
              f'less), {tls[1]:.2f} us server CPU per request against {plain[1]:.2f}.')

if __name__ == '__main__':
    main()
