#!/usr/bin/python3
"""Checks rosettad's per-request allocation metrics against an independent count.

The metric (rosetta_request_allocations / _allocated_bytes) is read by the malloc
interposer on the handling thread (docs/metrics.md). The independent count is valgrind
memcheck's "total heap usage" of the whole process: rosettad is run under valgrind twice,
with N and with 3N requests of one kind after the same warm-up, and the difference divided
by 2N is what one request costs the whole process (startup, warm-up and exit cancel out;
under valgrind the interposer is bypassed, so the two counts share no code).

usage: load/tools/alloc_agreement.py ROSETTAD [N]      (needs valgrind; one TCP connection)
Prints one line per request kind, and exits 1 if a metric and its count disagree.
"""
import os
import re
import socket
import struct
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests', 'support'))
from rosettad_process import Rosettad, tcp_frame  # noqa: E402

JSON, CBOR = 1, 2
SMALL = b'{"id":12345,"name":"rosetta","tags":["a","b","c"],"values":[1,2,3,4.5],"nested":{"k":"' + b'x' * 900 + b'","ok":true}}'
# 60,003 bytes of CBOR (an array of 60,000 `false`) that become 360,001 bytes of JSON: an
# answer larger than the 64 KiB a connection keeps between answers, so each request
# allocates its answer anew. The input stays under the 64 KiB a connection keeps for
# reading: larger inputs grow the read buffer as the bytes arrive, which depends on how
# they arrive (valgrind's slower server reads bigger pieces), so two runs cannot agree.
FALSES = b'\x99\xea\x60' + b'\xf4' * 60000
KINDS = [
    ('ok: 1 KiB JSON->CBOR', SMALL, JSON, CBOR, 0),
    ('error: JSON syntax error', b'{"a":[1,2,}', JSON, CBOR, 2),
    ('ok: 60 KB CBOR->360 KB JSON', FALSES, CBOR, JSON, 0),
]
WARMUP = 200


class Client:
    def __init__(self, address):
        host, port = address.rsplit(':', 1)
        self.s = socket.create_connection((host, int(port)))

    def call(self, payload, source, target, expect_status):
        self.s.sendall(tcp_frame(1, 7, payload, source, target))
        head = self._read(4)
        body = self._read(struct.unpack('>I', head)[0])
        if body[1] != expect_status:
            raise SystemExit('unexpected status %d: %r' % (body[1], body[:200]))

    def _read(self, n):
        out = b''
        while len(out) < n:
            chunk = self.s.recv(n - len(out))
            if not chunk:
                raise SystemExit('connection closed')
            out += chunk
        return out


def scrape(server):
    text = urllib.request.urlopen('http://%s/metrics' % server.metrics, timeout=10).read().decode()
    def value(name):
        m = re.search(r'^%s\{op="transcode",transport="tcp"\} (\S+)$' % name, text, re.M)
        return float(m.group(1))
    return value('rosetta_request_allocations_sum'), value('rosetta_request_allocated_bytes_sum')


def metric_per_request(binary, kind, n):
    _, payload, source, target, status = kind
    with Rosettad(binary, '--io-threads', '1') as server:
        c = Client(server.tcp)
        for _ in range(WARMUP):
            c.call(payload, source, target, status)
        a0, b0 = scrape(server)
        for _ in range(n):
            c.call(payload, source, target, status)
        a1, b1 = scrape(server)
        return (a1 - a0) / n, (b1 - b0) / n


HEAP = re.compile(rb'total heap usage: ([\d,]+) allocs, [\d,]+ frees, ([\d,]+) bytes allocated')


def valgrind_total(binary, kind, n):
    _, payload, source, target, status = kind
    server = Rosettad(binary, '--io-threads', '1', start_timeout=120)
    server.args = ['valgrind', '--tool=memcheck', '--leak-check=no'] + server.args
    with server:
        c = Client(server.tcp)
        for _ in range(WARMUP + n):
            c.call(payload, source, target, status)
        server.proc.send_signal(2)
        _, err = server.proc.communicate(timeout=300)
    m = HEAP.search(err)
    if not m:
        raise SystemExit('no heap summary from valgrind: %r' % err[-500:])
    return int(m.group(1).replace(b',', b'')), int(m.group(2).replace(b',', b''))


def main():
    binary = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    failed = False
    for kind in KINDS:
        name = kind[0]
        count = n if len(kind[1]) < 10000 else max(n // 5, 20)
        metric_allocs, metric_bytes = metric_per_request(binary, kind, count)
        a1, b1 = valgrind_total(binary, kind, count)
        a3, b3 = valgrind_total(binary, kind, 3 * count)
        vg_allocs, vg_bytes = (a3 - a1) / (2 * count), (b3 - b1) / (2 * count)
        agree = abs(vg_allocs - metric_allocs) < 0.05 and abs(vg_bytes - metric_bytes) <= max(8, 0.01 * metric_bytes)
        failed |= not agree
        print('%-30s metric %6.2f allocations %10.1f B | valgrind (%d vs %d requests) %6.2f allocations %10.1f B  %s' %
              (name, metric_allocs, metric_bytes, 3 * count, count, vg_allocs, vg_bytes, 'agree' if agree else 'DISAGREE'))
        sys.stdout.flush()
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
