"""SIGTERM drain of a real rosettad (DESIGN.md "Server" and "Drain without loss on TCP",
docs/service.md "Drain", docs/tcp-protocol.md "Drain").

1. Before SIGTERM: a gRPC health Watch (SERVING), an idle TCP connection, and a TCP
   connection with a ping answered and half a frame sent. After SIGTERM: the Watch sees
   NOT_SERVING; each TCP connection gets one going-away answer (status 20) naming the last
   request answered on it (0 on the idle one, the ping on the busy one), then the end of
   the stream; the half-sent frame does not hold the drain; new connections are refused;
   rosettad exits 0.
2. Under load: four connections of examples/tcp_client.py's FrameClient, each pipelining
   thousands of transcodes to server A with server B as the next address; A is sent
   SIGTERM mid-way. Every request gets exactly one answer, correct and in order: those A
   received before the signal from A, the rest from B after the going-away. Nothing lost.
3. The same over TLS: the frames A had received are answered, then going-away, then end.

usage: drain_test.py ROSETTAD
"""
import os
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'support'))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'examples'))
from rosettad_process import Rosettad, tcp_frame, tcp_response  # noqa: E402
from tcp_client import FrameClient  # noqa: E402

HEALTH_PROTO_DIR = '/usr/share/grpc-proto/grpc/health/v1'
GOING_AWAY = 20
failures = []


def check(ok, what):
    print('%-4s %s' % ('ok' if ok else 'FAIL', what))
    if not ok:
        failures.append(what)
    return ok


def read_to_end(sock, within=5.0):
    """Bytes until the server ends the stream (b'' closed cleanly), or None on a reset/timeout."""
    sock.settimeout(within)
    data = b''
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return data
            data += chunk
    except OSError:
        return None


def wait_exit(server, within):
    t0 = time.monotonic()
    try:
        code = server.proc.wait(timeout=within)
    except subprocess.TimeoutExpired:
        code = None
    return code, time.monotonic() - t0


def basic_drain(binary, tmp):
    with Rosettad(binary) as server:
        watch = None
        if os.path.exists(os.path.join(HEALTH_PROTO_DIR, 'health.proto')):
            subprocess.run([sys.executable, '-m', 'grpc_tools.protoc', '-I', HEALTH_PROTO_DIR, '--python_out=' + tmp,
                            '--grpc_python_out=' + tmp, 'health.proto'], check=True)
            sys.path.insert(0, tmp)
            import grpc
            import health_pb2
            import health_pb2_grpc
            channel = grpc.insecure_channel(server.grpc)
            watch = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest(service=''), timeout=30)
            first = next(watch).status
            check(first == health_pb2.HealthCheckResponse.SERVING, 'health Watch before SIGTERM: %d (SERVING)' % first)
        else:
            print('skip health Watch (no %s/health.proto: apt-get install grpc-proto)' % HEALTH_PROTO_DIR)

        addr = server.tcp_host_port()
        idle = socket.create_connection(addr, timeout=5)
        busy = socket.create_connection(addr, timeout=5)
        busy.sendall(tcp_frame(3, 1, b'before'))
        check(tcp_response(busy) == (0, 1, b'before'), 'TCP ping before SIGTERM')
        frame = tcp_frame(1, 2, b'{"drain":[1,2]}', 1, 2)
        busy.sendall(frame[:9])  # half a frame
        time.sleep(0.2)

        server.proc.send_signal(15)
        if watch is not None:
            status = next(watch).status
            check(status == health_pb2.HealthCheckResponse.NOT_SERVING, 'health Watch after SIGTERM: %d (NOT_SERVING)' % status)
            # An open stream holds gRPC's shutdown until drain_timeout_ms: let it go.
            watch.cancel()
            channel.close()
        idle.settimeout(5)
        status, rid, data = tcp_response(idle)
        check((status, rid) == (GOING_AWAY, 0) and data.startswith(b'going_away at byte 0: '),
              'idle TCP connection: going-away, last request answered 0 (%d, %d, %r)' % (status, rid, data[:60]))
        check(read_to_end(idle) == b'', 'idle TCP connection: then the end of the stream')
        busy.settimeout(5)
        status, rid, data = tcp_response(busy)
        check((status, rid) == (GOING_AWAY, 1),
              'busy TCP connection: going-away naming the ping (1) as the last answered (%d, %d)' % (status, rid))
        check(read_to_end(busy) == b'', 'busy TCP connection: then the end of the stream, the half frame not awaited')
        refused = False
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline and not refused:
            try:
                socket.create_connection(addr, timeout=1).close()
                time.sleep(0.05)
            except OSError:
                refused = True
        check(refused, 'new TCP connections refused while draining')
        idle.close()
        busy.close()
        code, took = wait_exit(server, 5)
        check(code == 0, 'rosettad exit %s within 5 s of its last client (%.1f s)' % (code, took))


def transcodes(server):
    """TCP transcodes the server has answered, from its metrics."""
    with urllib.request.urlopen('http://%s/metrics' % server.metrics, timeout=5) as r:
        text = r.read().decode()
    return sum(float(line.rsplit(' ', 1)[1]) for line in text.splitlines()
               if line.startswith('rosetta_requests_total{') and 'transport="tcp"' in line
               and 'op="transcode"' in line)


def drain_under_load(binary):
    """FrameClients pipeline to A (B next); SIGTERM to A mid-way; every request answered once."""
    n_conn, n_frames = 4, 30000
    with Rosettad(binary) as a, Rosettad(binary) as b:
        results = [None] * n_conn
        errors = []
        started = threading.Barrier(n_conn + 1)
        clients = []

        def run(i):
            host_a, port_a = a.tcp_host_port()
            host_b, port_b = b.tcp_host_port()
            client = FrameClient([(host_a, port_a), (host_b, port_b)], timeout=10)
            clients.append(client)
            frames = [tcp_frame(1, k, b'{"c":%d,"k":%d,"text":"%s"}' % (i, k, b'x' * (k % 300)), 1, 3)
                      for k in range(1, n_frames + 1)]
            try:
                client.call([tcp_frame(3, 0, b'warm')])  # connected to A before the barrier
                started.wait()
                results[i] = client.call(frames)
            except Exception as e:  # noqa: BLE001 (reported as a failure)
                errors.append('connection %d: %r' % (i, e))
            finally:
                client.close()

        threads = [threading.Thread(target=run, args=(i,)) for i in range(n_conn)]
        for t in threads:
            t.start()
        started.wait()
        # Mid-way: some answered by A, some in its socket, some not yet sent.
        deadline = time.monotonic() + 30
        while transcodes(a) < n_conn * n_frames // 20 and time.monotonic() < deadline:
            time.sleep(0.01)
        a.proc.send_signal(15)
        for t in threads:
            t.join(120)
        code, took = wait_exit(a, 10)
        check(code == 0, 'under load: A exits 0 after SIGTERM (%s, %.1f s)' % (code, took))
        check(not errors, 'under load: every FrameClient finished (%s)' % '; '.join(errors))
        moved = sum(c.moves for c in clients)
        check(moved == n_conn, 'under load: every connection got going-away and moved to B (%d of %d)' %
              (moved, n_conn))
        lost = wrong = 0
        for i, answers in enumerate(results):
            if answers is None:
                lost += n_frames
                continue
            if [rid for _, rid, _ in answers] != list(range(1, n_frames + 1)):
                lost += n_frames - len(answers)
                wrong += 1
                continue
            for status, k, data in answers:
                text = b'x' * (k % 300)
                # MessagePack of {"c": i, "k": k, "text": text}
                want = (b'\x83\xa1c' + bytes([i]) + b'\xa1k' +
                        (bytes([k]) if k < 128 else b'\xcc' + bytes([k]) if k < 256 else b'\xcd' + struct.pack('>H', k)) +
                        b'\xa4text' +
                        (bytes([0xa0 | len(text)]) if len(text) < 32 else
                         (b'\xd9' + bytes([len(text)]) if len(text) < 256 else b'\xda' + struct.pack('>H', len(text)))) +
                        text)
                if status != 0 or data != want:
                    wrong += 1
        total = n_conn * n_frames
        check(lost == 0 and wrong == 0, 'under load: %d requests, %d lost, %d wrong answers' % (total, lost, wrong))
        on_b = transcodes(b)
        check(0 < on_b < total, 'under load: B answered what A had not received (%d of %d)' % (on_b, total))


def tls_drain(binary, tmp):
    cert, key = os.path.join(tmp, 'cert.pem'), os.path.join(tmp, 'key.pem')
    p = subprocess.run(['openssl', 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
                        '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1',
                        '-keyout', key, '-out', cert], capture_output=True, text=True)
    if p.returncode != 0:
        check(False, 'TLS: openssl req: %s' % p.stderr.strip())
        return
    with Rosettad(binary, '--tls-cert', cert, '--tls-key', key) as server:
        ctx = ssl.create_default_context(cafile=cert)
        sock = ctx.wrap_socket(socket.create_connection(server.tcp_host_port(), timeout=5), server_hostname='127.0.0.1')
        n = 500
        sock.sendall(b''.join(tcp_frame(1, k, b'[%d]' % k, 1, 2) for k in range(1, n + 1)))
        first = tcp_response(sock)
        server.proc.send_signal(15)
        last, wrong = first[1], first[0] != 0
        while True:
            status, rid, _ = tcp_response(sock)
            if status == GOING_AWAY:
                break
            wrong |= status != 0 or rid != last + 1
            last = rid
        check(not wrong and rid == last,
              'TLS: answers in order, then going-away naming the last (%d, %d of %d answered)' % (rid, last, n))
        check(last == n, 'TLS: every frame received before SIGTERM answered (%d of %d)' % (last, n))
        sock.close()
        code, took = wait_exit(server, 5)
        check(code == 0, 'TLS: rosettad exit %s (%.1f s)' % (code, took))


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix='rosetta-drain-') as tmp:
        basic_drain(binary, tmp)
        drain_under_load(binary)
        tls_drain(binary, tmp)
    print('drain_test: %s' % ('ok' if not failures else '%d failures' % len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
