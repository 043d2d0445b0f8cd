#!/usr/bin/python3
"""A plain-socket client of rosettad's TCP frame protocol (docs/tcp-protocol.md).

usage: /usr/bin/python3 examples/tcp_client.py --tcp 127.0.0.1:50052[,HOST:PORT...]

Sends, pipelined on one connection: a transcode (JSON -> CBOR), a malformed transcode,
a validate of a bad MessagePack payload, a ping, a set-limits that lowers max_depth to 2,
a transcode that now passes that depth, and a set-limits with a bad payload. Then, on a
second connection, a frame whose length prefix claims 4 GiB. Prints every answer and
exits 1 if any is not the expected one, so it doubles as an end-to-end check.

The pipelined requests go through FrameClient, which survives a server's drain: when the
server answers "going away" (status 20, with the id of the last request it answered), the
client connects again (to the next --tcp address) and sends what was not answered, after
the connection's own settings (set-limits, set-options).
"""
import argparse
import select
import socket
import struct
import sys
import time

# Format numbers are the proto enum's (rosetta.v1.Format).
JSON, CBOR, MSGPACK, PROTOBUF = 1, 2, 3, 4
TRANSCODE, VALIDATE, PING, SET_LIMITS, SET_OPTIONS = 1, 2, 3, 4, 5
GOING_AWAY = 20  # a draining server's last answer (docs/tcp-protocol.md "Drain")

# Status byte of a response: 0 is success, any other value is codec::ErrorCode.
STATUS_NAMES = [
    'ok', 'truncated', 'syntax', 'invalid_utf8', 'depth_exceeded', 'input_too_large',
    'output_too_large', 'string_too_large', 'too_many_items', 'budget_exceeded',
    'duplicate_key', 'unrepresentable', 'schema_mismatch', 'unknown_message_type',
    'trailing_data', 'unsupported',
]


def frame(op, request_id, payload=b'', input_format=0, output_format=0, message_type=b''):
    """length:u32 | version:u8=1 op:u8 request_id:u32 in:u8 out:u8 type_len:u16 type payload."""
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


def read_response(sock):
    """Returns (status, request_id, data) of the next response frame."""
    (length,) = struct.unpack('>I', recv_exact(sock, 4))
    body = recv_exact(sock, length)
    version, status, request_id = struct.unpack('>BBI', body[:6])
    if version != 1:
        raise ValueError('response version %d' % version)
    return status, request_id, body[6:]


def status_name(status):
    if status == GOING_AWAY:
        return 'going_away'
    return STATUS_NAMES[status] if status < len(STATUS_NAMES) else 'status %d' % status


class FrameClient:
    """Pipelined requests whose answers survive a server's drain.

    `call(frames)` writes every frame, then reads one answer per frame, in order. When the
    server drains, its last answer is "going away" (status 20) under the id of the last
    request it answered; nothing sent after that request was read, so those requests go
    again, on a new connection (the next address, round robin), after the connection's
    settings (set-limits, set-options) answered so far, which belong to a connection and do
    not move with it. Transcode and validate are idempotent, so sending again is safe.
    """

    def __init__(self, addresses, timeout=5.0, connect_for=10.0):
        self.addresses = list(addresses)  # [(host, port), ...]
        self.timeout = timeout
        self.connect_for = connect_for  # how long to keep trying to connect after a drain
        self.next = 0
        self.sock = None
        self.settings = []  # set-limits / set-options frames answered on this connection
        self.moves = 0  # connections left after a going-away answer
        self.last_id = 0  # the request id of the last answer on this connection

    def close(self):
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def _connect(self):
        """Connects to the next address that accepts, trying them all until connect_for."""
        deadline = time.monotonic() + self.connect_for
        delay = 0.05
        while True:
            for _ in range(len(self.addresses)):
                host, port = self.addresses[self.next % len(self.addresses)]
                self.next += 1
                try:
                    self.sock = socket.create_connection((host, port), timeout=self.timeout)
                    self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    self.last_id = 0
                    return
                except OSError as e:
                    error = e
            if time.monotonic() > deadline:
                raise ConnectionError('no address of %s accepts a connection: %s' % (self.addresses, error))
            time.sleep(delay)
            delay = min(delay * 2, 1.0)

    def call(self, frames):
        """Sends `frames` pipelined; returns their answers [(status, request_id, data)], in order."""
        if self.sock is None:
            self._connect()
        answers = []
        todo = list(frames)
        while todo:
            got, gone = self._exchange(todo)
            for f, answer in zip(todo, got):
                if f[5] in (SET_LIMITS, SET_OPTIONS) and answer[0] == 0:
                    self.settings.append(f)
            answers += got
            todo = todo[len(got):]
            if gone:  # the last request answered here is the last of `got`: the rest move
                self._move()
        return answers

    def _exchange(self, todo):
        """Writes the frames while reading their answers (a server that drains stops reading,
        so writing everything first could block); returns (answers, went_away)."""
        sock, out, sent, buf, got = self.sock, b''.join(todo), 0, b'', []
        sock.setblocking(False)
        try:
            while len(got) < len(todo):
                writing = sent < len(out)
                readable, writable, _ = select.select([sock], [sock] if writing else [], [], self.timeout)
                if not readable and not writable:
                    raise TimeoutError('no answer within %.1f s' % self.timeout)
                if writable:
                    try:
                        sent += sock.send(out[sent:sent + 65536])
                    except BlockingIOError:
                        pass
                    except OSError:
                        sent = len(out)  # the server closed its reading side: read what it answered
                if readable:
                    chunk = sock.recv(65536)
                    if not chunk:
                        raise EOFError('connection closed after %d of %d answers' % (len(got), len(todo)))
                    buf += chunk
                    while len(buf) >= 4 and len(buf) >= 4 + struct.unpack('>I', buf[:4])[0]:
                        n = struct.unpack('>I', buf[:4])[0]
                        version, status, rid = struct.unpack('>BBI', buf[4:10])
                        data, buf = buf[10:4 + n], buf[4 + n:]
                        if status == GOING_AWAY:
                            if rid != self.last_id:
                                raise ValueError('going-away names request %d, the last answered was %d' %
                                                 (rid, self.last_id))
                            return got, True
                        got.append((status, rid, data))
                        self.last_id = rid
            return got, False
        finally:
            sock.setblocking(True)
            sock.settimeout(self.timeout)

    def _move(self):
        self.close()
        self.moves += 1
        self._connect()
        settings, self.settings = self.settings, []
        for f in settings:  # the connection's settings again, before the requests
            self.sock.sendall(f)
            status, self.last_id, data = read_response(self.sock)
            if status != 0:
                raise ValueError('setting %r refused on the new connection: %s' % (f, data))
            self.settings.append(f)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--tcp', required=True, metavar='HOST:PORT[,HOST:PORT...]',
                        help="rosettad's TCP listener (several: where to go when one drains)")
    parser.add_argument('--timeout', type=float, default=5.0, help='socket timeout in seconds')
    args = parser.parse_args()
    addresses = []
    for one in args.tcp.split(','):
        host, port = one.rsplit(':', 1)
        addresses.append((host.strip('[]'), int(port)))
    host, port = addresses[0]

    # (request bytes, expected status, check of the data, what it shows)
    cbor = bytes.fromhex('a1616183010203')  # {"a": [1, 2, 3]} in CBOR
    cases = [
        (frame(TRANSCODE, 1, b'{"a":[1,2,3]}', JSON, CBOR), 0, lambda d: d == cbor,
         'transcode JSON -> CBOR'),
        (frame(TRANSCODE, 2, b'[1,}', JSON, CBOR), 2, lambda d: d.startswith(b'syntax at byte 3'),
         'transcode of malformed JSON'),
        (frame(VALIDATE, 3, bytes.fromhex('a2c328'), MSGPACK), 3, lambda d: d.startswith(b'invalid_utf8 at byte '),
         'validate MessagePack with a bad UTF-8 string'),
        (frame(VALIDATE, 4, b'{"ok":true}', JSON), 0, lambda d: d == b'', 'validate good JSON'),
        (frame(PING, 5, b'hello'), 0, lambda d: d == b'hello', 'ping (echoes its payload)'),
        (frame(SET_LIMITS, 6, b'{"max_depth": 2}'), 0, lambda d: d == b'', 'set-limits max_depth=2'),
        (frame(TRANSCODE, 7, b'[[[1]]]', JSON, MSGPACK), 4, lambda d: d.startswith(b'depth_exceeded at byte '),
         'transcode 3 levels deep after set-limits'),
        (frame(SET_LIMITS, 8, b'{"max_depth": "deep"}'), 12, lambda d: d.startswith(b'schema_mismatch at byte 0: '),
         'set-limits with a bad value'),
        (frame(TRANSCODE, 9, b'{"a":1}', JSON, 9), 15, lambda d: d.startswith(b'unsupported'),
         'transcode to an unknown format number'),
    ]
    failures = 0
    client = FrameClient(addresses, timeout=args.timeout)
    try:
        # Pipelined: every request is written before any answer is read; answers come back
        # in request order, so request ids 1..N are expected in sequence.
        answers = client.call([c[0] for c in cases])
        for request_id, ((_, want_status, check, what), (status, rid, data)) in enumerate(zip(cases, answers),
                                                                                         start=1):
            ok = status == want_status and rid == request_id and check(data)
            shown = data.hex() if status == 0 and data and not data.isascii() else data.decode('utf-8', 'replace')
            print('%-4s #%d %-45s status=%d (%s) data=%s' % ('ok' if ok else 'FAIL', rid, what, status,
                                                             status_name(status), shown))
            failures += not ok
        if client.moves:
            print('     (the server drained: %d move(s) to another connection, the rest sent again)' % client.moves)
    finally:
        client.close()

    # A length prefix over the connection's maximum: one error (request id 0), then the
    # server closes; the 4 GiB it claims are never allocated.
    with socket.create_connection((host, int(port)), timeout=args.timeout) as sock:
        sock.sendall(struct.pack('>I', 0xFFFFFFFF) + b'\x01\x01')
        status, rid, data = read_response(sock)
        closed = sock.recv(1) == b''
        ok = status == 5 and rid == 0 and data.startswith(b'input_too_large at byte 0') and closed
        print('%-4s #%d %-45s status=%d (%s) data=%s; closed=%s' % ('ok' if ok else 'FAIL', rid, 'frame claiming 4 GiB',
                                                                   status, status_name(status), data.decode(), closed))
        failures += not ok

    print('tcp_client: %d of %d answers as expected' % (len(cases) + 1 - failures, len(cases) + 1))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
