"""Starts and stops rosettad (and rosetta-echo) from Python: the one launcher of the
end-to-end tests, the load smoke test and the service benchmarks (a context manager).

Every listener is on 127.0.0.1 port 0 unless the caller names one, so runs can go side by
side; the bound addresses come from the one line a server prints once all its listeners
are bound ("rosettad listening grpc=HOST:PORT tcp=HOST:PORT http=HOST:PORT metrics=HOST:PORT", each
NAME=ADDRESS pair read by name).
"""
import os
import re
import select
import signal
import socket
import struct
import subprocess
import time

_PAIR = re.compile(rb'(\w+)=(\S+)')
CLK_TCK = os.sysconf('SC_CLK_TCK')


class Server:
    """A server binary that prints "NAME listening KEY=ADDRESS ..." once it is ready.

    The addresses are in `listening` (a dict, e.g. listening['grpc']). stderr goes to a
    pipe read at failure, or to the file `stderr_path` when given (long runs)."""

    def __init__(self, args, name, env=None, start_timeout=10.0, stderr_path=None):
        self.args = list(args)
        self.name = name
        self.env = env
        self.start_timeout = start_timeout
        self.stderr_path = stderr_path
        self.proc = None
        self.listening = {}
        self.exit_code = None

    def __enter__(self):
        err = open(self.stderr_path, 'w') if self.stderr_path else subprocess.PIPE
        self.proc = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=err, env=self.env)
        line = self._read_line(self.start_timeout).rstrip(b'\n')
        prefix = self.name.encode() + b' listening '
        if not line.startswith(prefix):
            self.proc.kill()
            _, err_text = self.proc.communicate(timeout=5)
            raise RuntimeError('%s printed %r instead of its listening line; stderr: %s' %
                               (self.name, line, (err_text or b'').decode(errors='replace')))
        self.listening = {k.decode(): v.decode() for k, v in _PAIR.findall(line[len(prefix):])}
        return self

    def __exit__(self, *exc):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        return False

    @property
    def pid(self):
        return self.proc.pid

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
        """Sends SIGTERM; returns the exit code, or None if it is still running after `within` s."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.exit_code = self.proc.wait(timeout=within)
        except subprocess.TimeoutExpired:
            return None
        return self.exit_code

    def stop(self, within=30.0):
        """SIGTERM, then SIGKILL if it has not exited after `within` s; returns the exit code."""
        if self.proc.poll() is not None:
            self.exit_code = self.proc.returncode
            return self.exit_code
        if self.terminate(within) is None:
            self.proc.kill()
            self.exit_code = self.proc.wait()
        return self.exit_code

    def cpu_seconds(self):
        """User + system CPU time the process has used so far."""
        with open('/proc/%d/stat' % self.proc.pid) as f:
            fields = f.read().rsplit(')', 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

    def rss_kib(self):
        with open('/proc/%d/status' % self.proc.pid) as f:
            for line in f:
                if line.startswith('VmRSS:'):
                    return int(line.split()[1])
        return 0


class Rosettad(Server):
    """rosettad with every listener on 127.0.0.1 port 0 (unless `extra_args` names one)."""

    def __init__(self, binary, *extra_args, env=None, start_timeout=10.0, stderr_path=None):
        args = [binary, '--grpc-listen', '127.0.0.1:0', '--tcp-listen', '127.0.0.1:0',
                '--http-listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0', *extra_args]
        super().__init__(args, 'rosettad', env=env, start_timeout=start_timeout,
                         stderr_path=stderr_path)
        self.binary = binary

    @property
    def grpc(self):
        return self.listening.get('grpc')

    @property
    def tcp(self):
        return self.listening.get('tcp')

    @property
    def http(self):
        return self.listening.get('http')

    @property
    def metrics(self):
        return self.listening.get('metrics')

    def tcp_host_port(self):
        host, port = self.tcp.rsplit(':', 1)
        return host, int(port)


class Echo(Server):
    """rosetta-echo (load/: the gRPC baseline of the service benchmarks) on 127.0.0.1 port 0."""

    def __init__(self, binary, stderr_path=None):
        super().__init__([binary, '--listen', '127.0.0.1:0'], 'rosetta-echo',
                         stderr_path=stderr_path)

    @property
    def grpc(self):
        return self.listening.get('grpc')


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


def grpc_transcode_request(payload, input_format=1, output_format=2):
    """A rosetta.v1.TranscodeRequest framed as one gRPC message (the 5-byte prefix and the
    protobuf bytes), for clients that speak HTTP/2 themselves (h2, h2load)."""
    def varint(n):
        out = b''
        while n >= 0x80:
            out += bytes([(n & 0x7f) | 0x80])
            n >>= 7
        return out + bytes([n])
    msg = b'\x08' + varint(input_format) + b'\x10' + varint(output_format) + b'\x1a' + varint(len(payload)) + payload
    return b'\x00' + struct.pack('>I', len(msg)) + msg
