"""docs/tcp-protocol.md against the real rosettad: its worked hex example is replayed
byte for byte (the answers must begin with the bytes shown), and its status table must
list the codec's ErrorCode enum (codec/include/rosetta/codec/status.h) in order, then the
drain's going-away status.

usage: tcp_protocol_doc_test.py ROSETTAD SOURCE_DIR
"""
import os
import re
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'support'))
from rosettad_process import Rosettad, recv_exact  # noqa: E402

failures = []


def check(ok, what):
    print('%-4s %s' % ('ok' if ok else 'FAIL', what))
    if not ok:
        failures.append(what)
    return ok


def code_block_after(text, marker):
    start = text.index(marker)
    open_ = text.index('```', start)
    body_start = text.index('\n', open_) + 1
    return text[body_start:text.index('```', body_start)]


def hex_lines(block):
    """Each line's leading hex bytes (up to '...' or any other text)."""
    out = []
    for line in block.splitlines():
        line = re.sub(r'^\s*(client|server):', '', line)
        m = re.match(r'\s*((?:[0-9a-f]{2}\s+)*[0-9a-f]{2})(?:\s|$)', line)
        if m:
            out.append(bytes.fromhex(m.group(1)))
    return out


def read_frame(sock):
    n = int.from_bytes(recv_exact(sock, 4), 'big')
    return n.to_bytes(4, 'big') + recv_exact(sock, n)


def main():
    binary, source_dir = sys.argv[1:3]
    with open(os.path.join(source_dir, 'docs/tcp-protocol.md')) as f:
        doc = f.read()

    # The status table against the enum, in order.
    with open(os.path.join(source_dir, 'codec/include/rosetta/codec/status.h')) as f:
        header = f.read()
    enum = re.search(r'enum class ErrorCode[^{]*\{(.*?)\};', header, re.S).group(1)
    names = [re.sub(r'(?<!^)([A-Z0-9])', r'_\1', n[1:]).lower().replace('utf_8', 'utf8')
             for n in re.findall(r'\b(k[A-Z][A-Za-z0-9]*)\b', enum)]  # not kCount_, the count
    # After the codes, the drain's going-away status, numbered next (service/tcp_server.cc
    # kGoingAwayStatus; the build refuses an error code that would take its number).
    names.append('going_away')
    rows = re.findall(r'^\| (\d+) \| `([a-z_0-9]+)` \|', doc, re.M)
    check([int(n) for n, _ in rows] == list(range(len(names))), 'status table numbers 0..%d' % (len(names) - 1))
    check([c for _, c in rows] == names, 'status table codes follow ErrorCode, then going_away: %s' %
          [c for _, c in rows])

    requests = hex_lines(code_block_after(doc, 'five pipelined requests'))
    answers = hex_lines(code_block_after(doc, 'The five answers'))
    oversized = hex_lines(code_block_after(doc, 'claims 4 GiB'))
    check(len(requests) == 5 and len(answers) == 5 and len(oversized) == 2,
          'doc example has 5 requests, 5 answers, 1 oversized exchange')

    with Rosettad(binary) as server:
        with socket.create_connection(server.tcp_host_port(), timeout=5) as s:
            s.sendall(b''.join(requests))
            for i, want in enumerate(answers):
                got = read_frame(s)
                check(got.startswith(want), 'answer %d begins %s (got %s)' % (i + 1, want.hex(' '), got[:len(want) + 4].hex(' ')))
        with socket.create_connection(server.tcp_host_port(), timeout=5) as s:
            s.sendall(oversized[0])
            got = read_frame(s)
            check(got.startswith(oversized[1]), 'oversized answer begins %s (got %s)' % (oversized[1].hex(' '), got[:20].hex(' ')))
            check(s.recv(1) == b'', 'oversized: end of stream after the answer')
        check(server.terminate() == 0, 'rosettad exit 0 after SIGTERM')
    print('tcp_protocol_doc_test: %s' % ('ok' if not failures else '%d failures' % len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
