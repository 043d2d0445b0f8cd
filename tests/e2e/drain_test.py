"""SIGTERM drain of a real rosettad (DESIGN.md "Server", docs/service.md "Drain").

Before SIGTERM: a gRPC health Watch (SERVING), an idle TCP connection, and a TCP
connection with half a frame sent. After SIGTERM: the Watch sees NOT_SERVING, the idle
connection is closed, new TCP connections are refused, the half-sent frame can still be
completed and is answered, and rosettad exits 0 within 5 s of the last client letting go.

usage: drain_test.py ROSETTAD
"""
import os
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'support'))
from rosettad_process import Rosettad, tcp_frame, tcp_response  # noqa: E402

HEALTH_PROTO_DIR = '/usr/share/grpc-proto/grpc/health/v1'
failures = []


def check(ok, what):
    print('%-4s %s' % ('ok' if ok else 'FAIL', what))
    if not ok:
        failures.append(what)
    return ok


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix='rosetta-drain-') as tmp, Rosettad(binary) as server:
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
        busy.sendall(frame[:9])  # half a frame: this connection is busy
        time.sleep(0.2)

        server.proc.send_signal(15)
        if watch is not None:
            status = next(watch).status
            check(status == health_pb2.HealthCheckResponse.NOT_SERVING, 'health Watch after SIGTERM: %d (NOT_SERVING)' % status)
            # An open stream holds gRPC's shutdown until drain_timeout_ms: let it go.
            watch.cancel()
            channel.close()
        idle.settimeout(5)
        try:
            check(idle.recv(1) == b'', 'idle TCP connection closed by the drain')
        except OSError as e:
            check(False, 'idle TCP connection: %s' % e)
        deadline = time.monotonic() + 2
        refused = False
        while time.monotonic() < deadline and not refused:
            try:
                socket.create_connection(addr, timeout=1).close()
                time.sleep(0.05)
            except OSError:
                refused = True
        check(refused, 'new TCP connections refused while draining')
        check(server.proc.poll() is None, 'rosettad still running while a frame is in flight')
        busy.sendall(frame[9:])
        status, rid, data = tcp_response(busy)
        check((status, rid, data) == (0, 2, bytes.fromhex('a165647261696e820102')),
              'in-flight TCP frame answered after SIGTERM: %s' % ((status, rid, data.hex()),))
        busy.settimeout(5)
        check(busy.recv(1) == b'', 'busy TCP connection closed once its frames are answered')
        t0 = time.monotonic()
        try:
            code = server.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        check(code == 0, 'rosettad exit %s within 5 s of its last client (%.1f s)' % (code, time.monotonic() - t0))
        idle.close()
        busy.close()
    print('drain_test: %s' % ('ok' if not failures else '%d failures' % len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
