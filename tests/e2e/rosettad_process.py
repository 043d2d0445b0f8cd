"""Starts and stops a real rosettad for the end-to-end tests (a context manager).

Every listener is on 127.0.0.1 port 0, so tests can run side by side; the bound
addresses come from the one line rosettad prints once they are all bound
("rosettad listening grpc=HOST:PORT tcp=HOST:PORT metrics=HOST:PORT").
"""
import os
import re
import select
import signal
import socket
import struct
import subprocess
import time

LISTENING = re.compile(rb'^rosettad listening grpc=(\S+) tcp=(\S+) metrics=(\S+)$')


class Rosettad:
    def __init__(self, binary, *extra_args, env=None, start_timeout=10.0):
        self.binary = binary
        self.args = [binary, '--grpc-listen', '127.0.0.1:0', '--tcp-listen', '127.0.0.1:0',
                     '--metrics-listen', '127.0.0.1:0', *extra_args]
        self.env = env
        self.start_timeout = start_timeout
        self.proc = None
        self.grpc = self.tcp = self.metrics = None
        self.exit_code = None

    def __enter__(self):
        self.proc = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env)
        line = self._read_line(self.start_timeout)
        m = LISTENING.match(line.rstrip(b'\n'))
        if not m:
            self.proc.kill()
            _, err = self.proc.communicate(timeout=5)
            raise RuntimeError('rosettad printed %r instead of its listening line; stderr: %s' %
                               (line, err.decode(errors='replace')))
        self.grpc, self.tcp, self.metrics = (g.decode() for g in m.groups())
        return self

    def __exit__(self, *exc):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        return False

    def _read_line(self, timeout):
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        line = b''
        while not line.endswith(b'\n'):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                break
            chunk = os.read(fd, 1)
            if not chunk:
                break
            line += chunk
        return line

    def terminate(self, within=5.0):
        """Sends SIGTERM; returns rosettad's exit code, or None if it is still running after `within` s."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.exit_code = self.proc.wait(timeout=within)
        except subprocess.TimeoutExpired:
            return None
        return self.exit_code

    def tcp_host_port(self):
        host, port = self.tcp.rsplit(':', 1)
        return host, int(port)


def tcp_frame(op, request_id, payload=b'', input_format=0, output_format=0, message_type=b''):
    body = struct.pack('>BBIBBH', 1, op, request_id, input_format, output_format, len(message_type))
    body += message_type + payload
    return struct.pack('>I', len(body)) + body


def recv_exact(sock, n):
    data = b''
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError('connection closed after %d of %d bytes' % (len(data), n))
        data += chunk
    return data


def tcp_response(sock):
    """(status, request_id, data) of the next response frame."""
    (length,) = struct.unpack('>I', recv_exact(sock, 4))
    body = recv_exact(sock, length)
    _, status, request_id = struct.unpack('>BBI', body[:6])
    return status, request_id, body[6:]


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]
