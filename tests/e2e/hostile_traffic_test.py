"""Hostile traffic against the real rosettad: oversized prefixes in every format on both
transports, 1,000 stalled connections, a flood past the connection cap, clients that
never read, random garbage frames, and a soak of mixed valid and invalid load with RSS
sampled every second. Nothing may crash, every valid request must be answered
correctly, every refusal must carry an expected code, and RSS must plateau.

usage: hostile_traffic_test.py ROSETTAD PROJECT_DIR [--soak SECONDS]   (default 20 s)
"""
import json, os, random, resource, socket, struct, sys, tempfile, threading, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'support'))
from rosettad_process import Rosettad, tcp_frame  # noqa: E402

ROSETTAD, PROJECT = sys.argv[1], sys.argv[2]
SOAK = int(sys.argv[sys.argv.index('--soak') + 1]) if '--soak' in sys.argv else 20
# A rosettad built with AddressSanitizer keeps freed memory in its quarantine, so RSS says
# nothing about leaks or bounds there: the memory checks are made on the Release build.
SANITIZED = '--sanitized' in sys.argv
JSON, CBOR, MSGPACK, PROTOBUF = 1, 2, 3, 4
STATUS = {1: 'truncated', 2: 'syntax', 3: 'invalid_utf8', 4: 'depth_exceeded', 5: 'input_too_large',
          6: 'output_too_large', 7: 'string_too_large', 8: 'too_many_items', 9: 'budget_exceeded',
          10: 'duplicate_key', 11: 'unrepresentable', 12: 'schema_mismatch', 13: 'unknown_message_type',
          14: 'trailing_data', 15: 'unsupported'}
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print('FAIL:', what, flush=True)
    return ok


def rss_kib(pid):
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])


def recv_exact(s, n):
    b = b''
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise EOFError('closed after %d of %d bytes' % (len(b), n))
        b += c
    return b


def read_response(s):
    n, = struct.unpack('>I', recv_exact(s, 4))
    body = recv_exact(s, n)
    return body[1], struct.unpack('>I', body[2:6])[0], body[6:]


def transcode(host, port, payload, fin=JSON, fout=CBOR):
    with socket.create_connection((host, port), timeout=10) as s:
        s.sendall(tcp_frame(1, 1, payload, fin, fout))
        return read_response(s)


def closed_by_server(s, within=3.0):
    s.settimeout(within)
    try:
        while True:
            if not s.recv(65536):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def main():
    # Enough descriptors for 1,000+ connections on the client side too.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    args = ['--max-input-bytes', '65536', '--tcp-max-connections', '1500', '--tcp-frame-timeout-ms', '3000',
            '--tcp-idle-timeout-ms', '60000', '--tcp-max-pending-bytes', '262144', '--io-threads', '2']
    with Rosettad(ROSETTAD, *args) as d:
        host, port = d.tcp_host_port()
        pid = d.proc.pid
        good = b'{"id":1,"tags":["a","b"],"n":-5,"x":1.5}'
        good_cbor = bytes.fromhex('a4' '626964' '01' '6474616773' '82' '6161' '6162' '616e' '24' '6178' 'f93e00')  # RFC 8949 by hand
        status, rid, out = transcode(host, port, good)
        check(status == 0 and out == good_cbor, 'baseline transcode: %s %s' % (status, out.hex()))

        # 1. Oversized prefixes: every format, and payloads whose inner claims are 4 GiB.
        before = rss_kib(pid)
        for fmt in (JSON, CBOR, MSGPACK, PROTOBUF):
            s = socket.create_connection((host, port), timeout=5)
            s.sendall(struct.pack('>I', 0xFFFFFFFF) + struct.pack('>BBIBB', 1, 1, 9, fmt, JSON))
            st, rid, data = read_response(s)
            check(st == 5 and rid == 0 and data.startswith(b'input_too_large'), 'oversized prefix fmt %d: %s' % (fmt, data[:60]))
            check(closed_by_server(s), 'oversized prefix fmt %d: connection left open' % fmt)
            s.close()
        claims = {CBOR: bytes.fromhex('5bffffffff00000000') + b'\0' * 3, MSGPACK: bytes.fromhex('c6ffffffff') + b'\0' * 7,
                  JSON: b'[' * 100000}
        for fmt, payload in claims.items():
            st, _, data = transcode(host, port, payload[:65536], fmt, JSON)
            check(st in (1, 4, 5, 7), 'inner claim fmt %d: status %d %s' % (fmt, st, data[:60]))
        check(SANITIZED or rss_kib(pid) - before < 4096, 'claims grew RSS by %d KiB' % (rss_kib(pid) - before))

        # 2. 1,000 stalled connections while another connection is served.
        stalled = []
        for _ in range(1000):
            c = socket.create_connection((host, port), timeout=5)
            c.sendall(b'\x00\x00')
            stalled.append(c)
        t0 = time.perf_counter()
        st, _, out = transcode(host, port, good)
        check(st == 0 and out == good_cbor, 'request beside 1000 stalled connections: %d' % st)
        print('request beside 1,000 stalled connections: %.2f ms; RSS %d KiB' % ((time.perf_counter() - t0) * 1000, rss_kib(pid)))
        # They are cut at the frame deadline (3 s).
        time.sleep(4)
        closed = sum(closed_by_server(c, 0.5) for c in stalled[:50])
        check(closed == 50, 'stalled connections past the frame deadline: %d of 50 closed' % closed)
        for c in stalled:
            c.close()

        # 3. A flood past the cap (1,500): the extras are closed at once, service goes on.
        flood = []
        for _ in range(1700):
            try:
                flood.append(socket.create_connection((host, port), timeout=5))
            except OSError:
                break
        time.sleep(0.5)
        refused = sum(closed_by_server(c, 0.05) for c in flood[-150:])
        check(refused >= 100, 'connections past the cap closed: %d of the last 150' % refused)
        for c in flood:
            c.close()
        time.sleep(0.5)
        st, _, out = transcode(host, port, good)
        check(st == 0 and out == good_cbor, 'request after the flood: %d' % st)

        # 4. Clients that never read: many large responses unread; memory stays bounded.
        big = json.dumps({'k%d' % i: 'v' * 200 for i in range(200)}).encode()  # ~45 KB of JSON
        before = rss_kib(pid)
        lazy = []
        for _ in range(20):
            c = socket.create_connection((host, port), timeout=5)
            c.setblocking(False)
            frame = tcp_frame(1, 7, big, JSON, JSON)
            sent = 0
            try:
                for _ in range(400):
                    sent += c.send(frame)
            except (BlockingIOError, socket.timeout):
                pass
            lazy.append(c)
        time.sleep(1)
        grew = rss_kib(pid) - before
        check(SANITIZED or grew < 64 * 1024, 'clients that never read grew RSS by %d KiB' % grew)
        print('20 clients that never read: RSS +%d KiB' % grew)
        st, _, out = transcode(host, port, good)
        check(st == 0 and out == good_cbor, 'request beside clients that never read: %d' % st)
        for c in lazy:
            c.close()

        # 5. Random garbage frames: error answers with known codes, or a close; never a crash.
        rng = random.Random(7)
        for i in range(300):
            c = socket.create_connection((host, port), timeout=5)
            n = rng.randrange(0, 200)
            body = bytes(rng.randrange(256) for _ in range(n))
            if rng.random() < 0.7:  # a well-formed frame around random bytes
                c.sendall(struct.pack('>I', len(body)) + body)
            else:
                c.sendall(body)
            c.shutdown(socket.SHUT_WR)
            try:
                while True:
                    st, rid, data = read_response(c)
                    code = data.split(b' ', 1)[0].decode(errors='replace')
                    check(st == 0 or (STATUS.get(st) == code), 'garbage frame %d: status %d data %r' % (i, st, data[:40]))
            except (EOFError, ConnectionResetError, socket.timeout, struct.error):
                pass
            c.close()
        st, _, out = transcode(host, port, good)
        check(st == 0 and out == good_cbor, 'request after garbage: %d' % st)

        # 6. Soak: mixed valid and invalid load, RSS every second.
        bad = [b'{"a":[1,2,}', b'[' * 300 + b']' * 300, b'{"a":1,"a":2}', b'"\xff"', b'[1e999]']
        bad_codes = {'syntax', 'depth_exceeded', 'duplicate_key', 'invalid_utf8', 'unrepresentable'}
        stop = time.monotonic() + SOAK
        counts = {'ok': 0, 'refused': 0}
        samples = []
        lock = threading.Lock()

        def worker(seed):
            r = random.Random(seed)
            s = socket.create_connection((host, port), timeout=10)
            rid = 0
            while time.monotonic() < stop:
                batch = []
                for _ in range(16):
                    rid += 1
                    if r.random() < 0.7:
                        batch.append((rid, True))
                        s.sendall(tcp_frame(1, rid, good, JSON, CBOR))
                    else:
                        batch.append((rid, False))
                        s.sendall(tcp_frame(1, rid, r.choice(bad), JSON, CBOR))
                for want, valid in batch:
                    st, got, out = read_response(s)
                    ok = got == want and ((valid and st == 0 and out == good_cbor) or
                                          (not valid and st != 0 and out.split(b' ', 1)[0].decode() in bad_codes))
                    with lock:
                        counts['ok' if valid else 'refused'] += 1
                    if not ok:
                        check(False, 'soak answer for %d: status %d %r' % (want, st, out[:60]))
                        return
            s.close()

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        while time.monotonic() < stop:
            samples.append(rss_kib(pid))
            time.sleep(1)
        for t in threads:
            t.join()
        early = samples[max(0, min(len(samples) - 1, 60 if SOAK >= 300 else len(samples) // 5))]
        late = samples[-1]
        print('soak %d s: %d valid answered, %d invalid refused; RSS at %s %d KiB, at the end %d KiB, max %d KiB' %
              (SOAK, counts['ok'], counts['refused'], '1 min' if SOAK >= 300 else '1/5', early, late, max(samples)))
        check(counts['ok'] > 0 and counts['refused'] > 0, 'soak made no traffic')
        check(SANITIZED or late <= early * 1.10 + 1024, 'RSS did not plateau: %d KiB -> %d KiB' % (early, late))
        check(d.proc.poll() is None, 'rosettad exited during the test')
        check(d.terminate(10) == 0, 'rosettad did not exit 0 on SIGTERM')
    print('%d passed, %d failed' % (0 if failures else 1, 1 if failures else 0))
    sys.exit(1 if failures else 0)


main()
