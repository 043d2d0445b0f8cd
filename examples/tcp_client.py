#!/usr/bin/python3
"""A plain-socket client of rosettad's TCP frame protocol (docs/tcp-protocol.md).

usage: /usr/bin/python3 examples/tcp_client.py --tcp 127.0.0.1:50052

Sends, pipelined on one connection: a transcode (JSON -> CBOR), a malformed transcode,
a validate of a bad MessagePack payload, a ping, a set-limits that lowers max_depth to 2,
a transcode that now passes that depth, and a set-limits with a bad payload. Then, on a
second connection, a frame whose length prefix claims 4 GiB. Prints every answer and
exits 1 if any is not the expected one, so it doubles as an end-to-end check.
"""
import argparse
import socket
import struct
import sys

# Format numbers are the proto enum's (rosetta.v1.Format).
JSON, CBOR, MSGPACK, PROTOBUF = 1, 2, 3, 4
TRANSCODE, VALIDATE, PING, SET_LIMITS = 1, 2, 3, 4

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
    return STATUS_NAMES[status] if status < len(STATUS_NAMES) else 'status %d' % status


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--tcp', required=True, metavar='HOST:PORT', help="rosettad's TCP listener")
    parser.add_argument('--timeout', type=float, default=5.0, help='socket timeout in seconds')
    args = parser.parse_args()
    host, port = args.tcp.rsplit(':', 1)
    host = host.strip('[]')

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
    with socket.create_connection((host, int(port)), timeout=args.timeout) as sock:
        # Pipelined: every request is written before any answer is read; answers come back
        # in request order, so request ids 1..N are expected in sequence.
        sock.sendall(b''.join(c[0] for c in cases))
        for request_id, (_, want_status, check, what) in enumerate(cases, start=1):
            status, rid, data = read_response(sock)
            ok = status == want_status and rid == request_id and check(data)
            shown = data.hex() if status == 0 and data and not data.isascii() else data.decode('utf-8', 'replace')
            print('%-4s #%d %-45s status=%d (%s) data=%s' % ('ok' if ok else 'FAIL', rid, what, status,
                                                             status_name(status), shown))
            failures += not ok

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
