"""Measures the TCP front-end bars of the rosettad issue against the real binary: memory per
idle and per stalled connection (1,000 of each), a request beside them, and the time and
RSS cost of refusing a 4 GiB frame prefix (20 times). Sends only to 127.0.0.1.
usage: /usr/bin/python3 load/tools/tcp_limits_probe.py build/service/rosettad"""
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests', 'support'))
from rosettad_process import Rosettad, recv_exact  # noqa: E402


def frame(op, rid, fin, fout, payload):
    body = struct.pack('>BBIBBH', 1, op, rid, fin, fout, 0) + payload
    return struct.pack('>I', len(body)) + body


def resp(s):
    n, = struct.unpack('>I', recv_exact(s, 4))
    return recv_exact(s, n)


server = Rosettad(sys.argv[1]).__enter__()
host, port = server.tcp_host_port()
rss = server.rss_kib
# warm up
s = socket.create_connection((host, port)); s.sendall(frame(1, 1, 1, 2, b'[1,2,3]')); resp(s); s.close()
time.sleep(0.2)
base = rss()
conns = []
for i in range(1000):
    c = socket.create_connection((host, port)); conns.append(c)
time.sleep(0.5)
idle = rss()
for c in conns: c.sendall(b'\x00\x00')
time.sleep(0.5)
stalled = rss()
t0 = time.perf_counter()
s = socket.create_connection((host, port)); s.sendall(frame(1, 1, 1, 2, b'{"a":[true]}')); r = resp(s)
print('request beside 1000 stalled: %.2f ms, status %d' % ((time.perf_counter()-t0)*1000, r[1]))
print('RSS base %d KiB, 1000 idle %d KiB (%.2f KiB/conn), 1000 stalled(2 bytes) %d KiB (%.2f KiB/conn)' % (base, idle, (idle-base)/1000, stalled, (stalled-base)/1000))
for c in conns: c.close()
time.sleep(0.3)
before = rss(); times = []
for claim in [0xFFFFFFFF] * 20:
    t0 = time.perf_counter()
    c = socket.create_connection((host, port)); c.sendall(struct.pack('>I', claim) + b'\x01\x01')
    r = resp(c); assert c.recv(1) == b''
    times.append((time.perf_counter() - t0) * 1000)
    c.close()
times.sort()
print('4 GiB prefix: median %.3f ms max %.3f ms (connect+answer+close), RSS %+d KiB' % (times[10], times[-1], rss() - before))
print('exit', server.stop())
