"""Measures the TCP front-end bars of the rosettad issue against the real binary: memory per
idle and per stalled connection (1,000 of each), a request beside them, and the time and
RSS cost of refusing a 4 GiB frame prefix (20 times). Sends only to 127.0.0.1.
usage: /usr/bin/python3 load/tcp_limits_probe.py build/service/rosettad"""
import socket, struct, subprocess, sys, time, os
p = subprocess.Popen([sys.argv[1], '--grpc-listen', '127.0.0.1:0', '--tcp-listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0'], stdout=subprocess.PIPE)
line = p.stdout.readline().decode()
tcp = line.split('tcp=')[1].split()[0]; host, port = tcp.rsplit(':', 1); port = int(port)
def rss():
    for l in open('/proc/%d/status' % p.pid):
        if l.startswith('VmRSS'): return int(l.split()[1])
def frame(op, rid, fin, fout, payload):
    body = struct.pack('>BBIBBH', 1, op, rid, fin, fout, 0) + payload
    return struct.pack('>I', len(body)) + body
def recv_exact(s, n):
    b = b''
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c: raise EOFError
        b += c
    return b
def resp(s):
    n, = struct.unpack('>I', recv_exact(s, 4)); return recv_exact(s, n)
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
p.terminate(); print('exit', p.wait())
