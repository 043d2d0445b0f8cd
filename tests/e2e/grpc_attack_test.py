"""HTTP/2 attacks on rosettad's gRPC port, each while a legitimate client runs beside it.

Each probe is bounded in count and time and runs against the real binary on 127.0.0.1:
rapid reset (requests reset right after they are sent, and resets with no request), 10,000
streams that send nothing, a 16 MB header, 64 stalled messages, trickled and silent
connections, and the process out of file descriptors. During each, rosetta-load sends
1 KiB Transcode calls at a fixed rate on its own connection, and the bars are checked:
the legitimate client gets no error and a p99 under 50 ms (100 ms for the header and the
stalled messages), the server's RSS stays under 256 MB, and the port serves a new
connection right after. The figures are printed for docs/security.md.

usage: grpc_attack_test.py ROSETTAD ROSETTA_LOAD [--sanitized]
"""
import json
import os
import resource
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import hpack

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'support'))
from rosettad_process import Rosettad, grpc_transcode_request, tcp_frame  # noqa: E402

ROSETTAD, LOAD = sys.argv[1], sys.argv[2]
# Under AddressSanitizer memory is quarantined and everything runs several times slower:
# the RSS bar is not checked and the latency bars are relaxed.
SANITIZED = '--sanitized' in sys.argv
RSS_BAR_KIB = 256 * 1024
PAYLOAD = json.dumps({'logs': [{'address': {'x0': 10, 'x1': 0, 'x2': 0, 'x3': 1}, 'identity': '-',
                                'userid': 'frank', 'date': '10/Oct/2000:13:55:36 -0700',
                                'request': 'GET /apache_pb.gif HTTP/1.0', 'code': 200, 'size': 2326}] * 6})
failures = []
figures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print('FAIL:', what, flush=True)
    return ok


REQUEST_HEADERS = [(':method', 'POST'), (':scheme', 'http'), (':path', '/rosetta.v1.Transcoder/Transcode'),
                   (':authority', '127.0.0.1'), ('content-type', 'application/grpc'), ('te', 'trailers')]


def h2_client():
    config = h2.config.H2Configuration(client_side=True, header_encoding='utf-8',
                                       validate_outbound_headers=False, normalize_outbound_headers=False,
                                       validate_inbound_headers=False)
    conn = h2.connection.H2Connection(config=config)
    conn.initiate_connection()
    return conn


def connect(address):
    host, port = address.rsplit(':', 1)
    s = socket.create_connection((host, int(port)), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


class Sampler:
    """The server's peak RSS and its CPU time, sampled every 50 ms while alive."""

    def __init__(self, server):
        self.server, self.peak, self.stop = server, 0, threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stop.is_set():
            try:
                self.peak = max(self.peak, self.server.rss_kib())
            except OSError:
                return
            time.sleep(0.05)

    def __enter__(self):
        self.cpu0 = self.server.cpu_seconds()
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
        self.cpu = self.server.cpu_seconds() - self.cpu0
        return False


class Legit:
    """rosetta-load at a fixed rate on its own connection, for the duration of a probe."""

    def __init__(self, server, tmp, seconds, rate=200):
        self.out = os.path.join(tmp, 'legit_%d.json' % time.monotonic_ns())
        self.proc = subprocess.Popen(
            [LOAD, '--transport', 'grpc', '--address', server.grpc, '--mode', 'open', '--rate', str(rate),
             '--connections', '1', '--inflight', '8', '--duration', '%g' % seconds, '--warmup', '0.5',
             '--payload', os.path.join(tmp, 'payload.json'), '--quiet', '--json', self.out],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def result(self):
        _, err = self.proc.communicate(timeout=120)
        if self.proc.returncode != 0:
            return None, err
        return json.load(open(self.out)), err


def serves_new_connection(server):
    """A fresh connection gets a correct answer to one Transcode."""
    try:
        s = connect(server.grpc)
        conn = h2_client()
        sid = conn.get_next_available_stream_id()
        conn.send_headers(sid, REQUEST_HEADERS)
        conn.send_data(sid, grpc_transcode_request(b'[1,2,3]'), end_stream=True)
        s.sendall(conn.data_to_send())
        status, data, deadline = None, b'', time.monotonic() + 5
        while status is None and time.monotonic() < deadline:
            chunk = s.recv(65536)
            if not chunk:
                break
            for e in conn.receive_data(chunk):
                if isinstance(e, h2.events.DataReceived) and e.stream_id == sid:
                    data += e.data
                    conn.acknowledge_received_data(e.flow_controlled_length, sid)
                elif isinstance(e, (h2.events.TrailersReceived, h2.events.ResponseReceived)) and e.stream_id == sid:
                    status = dict(e.headers).get('grpc-status', status)
            s.sendall(conn.data_to_send())
        s.close()
        # TranscodeResponse{payload = a1 61 61 83 01 02 03}? [1,2,3] as CBOR is 83 01 02 03.
        return status == '0' and data.endswith(b'\x83\x01\x02\x03')
    except (OSError, h2.exceptions.ProtocolError):
        return False


def probe(server, tmp, name, attack, seconds, p99_bar_ms):
    legit = Legit(server, tmp, seconds + 1)
    time.sleep(0.7)  # its warm-up
    with Sampler(server) as sample:
        detail = attack(seconds)
    report, err = legit.result()
    cpu0 = server.cpu_seconds()
    time.sleep(1)
    cpu_after = server.cpu_seconds() - cpu0
    check(cpu_after < 0.3, '%s: the server still used %.2f s of CPU in the second after the attack' %
          (name, cpu_after))
    ok = check(server.proc.poll() is None, '%s: rosettad died (exit %s)' % (name, server.proc.poll()))
    if not ok:
        return
    if check(report is not None, '%s: the legitimate client failed: %s' % (name, err)):
        p99_ms = report['latency_us']['p99'] / 1000
        bar = p99_bar_ms * (4 if SANITIZED else 1)
        check(report['errors'] == 0 and report['connections_lost'] == 0,
              '%s: the legitimate client saw errors %s, %d connection(s) lost' %
              (name, report['errors_by_code'], report['connections_lost']))
        check(report['ok'] > 0, '%s: the legitimate client got no answer' % name)
        check(p99_ms < bar, '%s: legitimate p99 %.1f ms, bar %d ms' % (name, p99_ms, bar))
    else:
        p99_ms = float('nan')
    if not SANITIZED:
        check(sample.peak < RSS_BAR_KIB, '%s: server RSS reached %d KiB' % (name, sample.peak))
    check(serves_new_connection(server), '%s: the port did not serve a new connection after' % name)
    line = '%-34s peak RSS %6.1f MB, server CPU %5.2f s over %.0f s (%.2f s the second after), ' \
           'legit p99 %5.1f ms, %s' % (name, sample.peak / 1024, sample.cpu, seconds, cpu_after, p99_ms, detail)
    figures.append(line)
    print(line, flush=True)


# ---- the attacks

def drain_socket(s, stop):
    try:
        s.settimeout(0.2)
    except OSError:
        return  # already closed by the attacker's loop
    while not stop.is_set():
        try:
            if not s.recv(1 << 20):
                return
        except socket.timeout:
            continue
        except OSError:
            return


def rapid_reset(server, with_request):
    """Streams opened and reset at once, as fast as one client can, for the whole probe: the
    server's GOAWAY (reset_flood) ends a connection, and the attacker connects again."""
    block = hpack.Encoder().encode(REQUEST_HEADERS)
    body = grpc_transcode_request(b'[1,2,3]')

    def attack(seconds):
        sent, connections, end = 0, 0, time.monotonic() + seconds
        while time.monotonic() < end:
            s = connect(server.grpc)
            connections += 1
            stop = threading.Event()
            reader = threading.Thread(target=drain_socket, args=(s, stop), daemon=True)
            reader.start()
            sid = 1
            try:
                s.sendall(h2_client().data_to_send())
                while time.monotonic() < end and reader.is_alive():
                    batch = []
                    for _ in range(200):
                        # The same header block each time: literal fields with indexing, valid
                        # (each one enters the server's HPACK table again).
                        batch.append(frame(0x1, 0x4, sid, block))  # HEADERS, END_HEADERS
                        if with_request:
                            batch.append(frame(0x0, 0x1, sid, body))  # DATA, END_STREAM
                        batch.append(frame(0x3, 0, sid, struct.pack('>I', 8)))  # RST_STREAM CANCEL
                        sid += 2
                    s.sendall(b''.join(batch))
                    sent += 200
            except OSError:
                pass
            stop.set()
            s.close()
            reader.join()
        return '%d streams sent on %d connections' % (sent, connections)
    return attack


def frame(ftype, flags, sid, payload):
    return struct.pack('>I', len(payload))[1:] + bytes([ftype, flags]) + struct.pack('>I', sid) + payload


def idle_streams(server, connections, streams):
    def attack(seconds):
        socks = []
        for _ in range(connections):
            s = connect(server.grpc)
            conn = h2_client()
            encoder = hpack.Encoder()
            out = [conn.data_to_send()]
            for i in range(streams):
                out.append(frame(0x1, 0x4, 1 + 2 * i, encoder.encode(REQUEST_HEADERS)))  # no END_STREAM
            s.sendall(b''.join(out))
            socks.append(s)
        time.sleep(seconds)
        alive = 0
        for s in socks:
            s.setblocking(False)
            try:
                alive += s.recv(1 << 20) != b''
            except BlockingIOError:
                alive += 1
            except OSError:
                pass
            s.close()
        return '%d connections x %d silent streams' % (connections, streams)
    return attack


def huge_header(server, parallel, size):
    def one():
        try:
            s = connect(server.grpc)
            conn = h2_client()
            block = hpack.Encoder().encode(REQUEST_HEADERS + [('x-big', 'a' * size)], huffman=False)
            out = [conn.data_to_send(), frame(0x1, 0, 1, block[:16384])]  # HEADERS, no END_HEADERS
            for at in range(16384, len(block), 16384):
                last = at + 16384 >= len(block)
                out.append(frame(0x9, 0x4 if last else 0, 1, block[at:at + 16384]))  # CONTINUATION
            data = b''.join(out)
            for at in range(0, len(data), 1 << 20):
                s.sendall(data[at:at + (1 << 20)])
        except OSError:
            pass  # the server closed the connection, as it should, before the header was whole

    def attack(seconds):
        end, rounds = time.monotonic() + seconds, 0
        while time.monotonic() < end:
            threads = [threading.Thread(target=one) for _ in range(parallel)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            rounds += 1
        return '%d x %d parallel headers of %d MB' % (rounds, parallel, size >> 20)
    return attack


def stalled_messages(server, streams, claim, send):
    def attack(seconds):
        s = connect(server.grpc)
        conn = h2_client()
        s.sendall(conn.data_to_send())
        ids = []
        for _ in range(streams):
            sid = conn.get_next_available_stream_id()
            conn.send_headers(sid, REQUEST_HEADERS)
            ids.append(sid)
        sent = {sid: 0 for sid in ids}
        prefix = b'\x00' + struct.pack('>I', claim)
        end = time.monotonic() + seconds
        s.settimeout(0.1)
        while time.monotonic() < end:
            progress = False
            for sid in ids:
                try:
                    room = min(conn.local_flow_control_window(sid), conn.max_outbound_frame_size)
                except (h2.exceptions.StreamClosedError, KeyError):
                    continue
                want = send - sent[sid]
                if room <= 0 or want <= 0:
                    continue
                chunk = min(room, want)
                data = (prefix if sent[sid] == 0 else b'') + b'x' * chunk
                data = data[:chunk]
                try:
                    conn.send_data(sid, data)
                except (h2.exceptions.ProtocolError, h2.exceptions.FlowControlError):
                    continue
                sent[sid] += len(data)
                progress = True
            try:
                s.sendall(conn.data_to_send())
                chunk = s.recv(1 << 20)
                if not chunk:
                    break
                conn.receive_data(chunk)
                s.sendall(conn.data_to_send())
            except socket.timeout:
                pass
            except (OSError, h2.exceptions.ProtocolError):
                break
            if not progress:
                time.sleep(0.02)
        s.close()
        return '%d streams claiming %d bytes, %.1f MB sent in all (window credit stops the rest)' % (
            streams, claim, sum(sent.values()) / 1e6)
    return attack


def slow_connections(server, count, trickle):
    def attack(seconds):
        socks = []
        for _ in range(count):
            s = connect(server.grpc)
            if trickle:
                conn = h2_client()
                block = hpack.Encoder().encode(REQUEST_HEADERS)
                s.sendall(conn.data_to_send() + frame(0x1, 0, 1, block))  # HEADERS without END_HEADERS
            socks.append(s)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            time.sleep(0.5)
            if trickle:
                for s in socks:
                    try:
                        s.sendall(frame(0x9, 0, 1, b''))  # an empty CONTINUATION: progress, never whole
                    except OSError:
                        pass
        closed = sum(closed_now(s) for s in socks)
        for s in socks:
            s.close()
        check(closed == count, '%s connections: %d of %d closed by the server after %d s' % (
            'trickling' if trickle else 'silent', closed, count, seconds))
        return '%d %s connections, %d closed by the server' % (count, 'trickling' if trickle else 'silent', closed)
    return attack


def closed_now(s):
    s.settimeout(0.5)
    try:
        while True:
            if not s.recv(65536):
                return True
    except socket.timeout:
        return False
    except OSError:
        return True


def rejected(server):
    text = urllib.request.urlopen('http://%s/metrics' % server.metrics, timeout=5).read().decode()
    out = {}
    for line in text.splitlines():
        if line.startswith('rosetta_rejected_total{') and 'transport="grpc"' in line:
            reason = line.split('reason="')[1].split('"')[0]
            out[reason] = float(line.rsplit(' ', 1)[1])
    return out


def descriptor_exhaustion(tmp):
    """rosettad with 200 descriptors: 400 silent connections to its gRPC port, then a TCP
    connection, must neither wedge a listener nor end the process; both ports serve once the
    connections go."""
    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (200, 200))
    args = [ROSETTAD, '--grpc-listen', '127.0.0.1:0', '--tcp-listen', '127.0.0.1:0', '--http-listen', '127.0.0.1:0',
            '--metrics-listen', '127.0.0.1:0', '--io-threads', '2', '--grpc-handshake-timeout-ms', '60000']
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=limit)
    line = proc.stdout.readline().decode()
    grpc_addr = line.split('grpc=')[1].split()[0]
    tcp_addr = line.split('tcp=')[1].split()[0]
    socks = []
    for _ in range(400):
        try:
            socks.append(connect(grpc_addr))
        except OSError:
            break
    time.sleep(0.5)
    try:
        t = connect(tcp_addr)  # the TCP port while descriptors are out: must not end the process
        t.close()
    except OSError:
        pass
    time.sleep(0.5)
    check(proc.poll() is None, 'out of descriptors: rosettad exited %s: %s' % (
        proc.poll(), proc.stderr.read().decode() if proc.poll() is not None else ''))
    shed = sum(closed_now(s) for s in socks[-50:])
    for s in socks:
        s.close()
    time.sleep(0.5)

    class Addr:
        grpc = grpc_addr
    ok = check(serves_new_connection(Addr), 'out of descriptors: the gRPC port did not serve again')
    host, port = tcp_addr.rsplit(':', 1)
    try:
        with socket.create_connection((host, int(port)), timeout=5) as t:
            t.sendall(tcp_frame(3, 7, b'ping'))
            t.settimeout(5)
            tcp_ok = len(t.recv(64)) > 0
    except OSError:
        tcp_ok = False
    check(tcp_ok, 'out of descriptors: the TCP port did not serve again')
    proc.terminate()
    proc.wait(timeout=15)
    line = 'out of descriptors (limit 200)      400 connections: the last 50 were %d closed at once; ' \
           'both ports served after: %s' % (shed, ok and tcp_ok)
    figures.append(line)
    print(line, flush=True)


def main():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    with tempfile.TemporaryDirectory(prefix='rosetta-h2-') as tmp:
        with open(os.path.join(tmp, 'payload.json'), 'w') as f:
            f.write(PAYLOAD)
        with Rosettad(ROSETTAD, '--io-threads', '2', '--grpc-handshake-timeout-ms', '2000',
                      '--grpc-message-timeout-ms', '3000', stderr_path=os.path.join(tmp, 'stderr')) as server:
            before = rejected(server)
            probe(server, tmp, 'rapid reset: request + RST', rapid_reset(server, True), 5, 50)
            probe(server, tmp, 'rapid reset: HEADERS + RST only', rapid_reset(server, False), 3, 50)
            probe(server, tmp, '10,000 silent streams x 5 conns', idle_streams(server, 5, 10000), 3, 50)
            probe(server, tmp, '16 MB header x 3 parallel', huge_header(server, 3, 16 << 20), 4, 100)
            probe(server, tmp, '64 stalled 4 MB messages', stalled_messages(server, 64, 4_000_000, 3_900_000), 5,
                  100)
            probe(server, tmp, '500 trickling header blocks', slow_connections(server, 500, True), 4, 50)
            probe(server, tmp, '500 silent connections', slow_connections(server, 500, False), 4, 50)
            after = rejected(server)
            grew = {r: after.get(r, 0) - before.get(r, 0) for r in after}
            print('rosetta_rejected_total{transport="grpc"} grew by', {r: v for r, v in grew.items() if v}, flush=True)
            for reason in ('reset_flood', 'handshake_timeout', 'protocol_error', 'message_timeout'):
                check(grew.get(reason, 0) > 0, 'no grpc rejection counted as %s' % reason)
            check(server.stop(20) == 0, 'rosettad did not drain cleanly')
        descriptor_exhaustion(tmp)
    print('\n'.join(figures))
    if failures:
        print('FAIL: %d check(s)' % len(failures))
        return 1
    print('PASS')
    return 0


if __name__ == '__main__':
    sys.exit(main())
