"""rosettad's HTTP/1.1 front-end as outside clients see it (http.client and raw sockets).

Every status code and media type DESIGN.md names, bodies split at every byte, pipelined
requests answered in order, a Content-Length of 2^63 refused without reading, oversized
headers, a slow-headers client, /healthz and /readyz through a drain, and the same error for
the same payload over HTTP, gRPC and TCP.

usage: http_test.py ROSETTAD PROJECT_DIR
"""
import http.client
import importlib
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'support'))
from rosettad_process import Rosettad, tcp_frame, tcp_response  # noqa: E402

failures = []


def check(ok, what):
    print('%-4s %s' % ('ok' if ok else 'FAIL', what), flush=True)
    if not ok:
        failures.append(what)
    return ok


def host_port(address):
    h, p = address.rsplit(':', 1)
    return h, int(p)


def post(address, path, body, content_type='application/json', accept=None, headers=None):
    c = http.client.HTTPConnection(*host_port(address), timeout=10)
    h = {'Content-Type': content_type}
    if accept:
        h['Accept'] = accept
    h.update(headers or {})
    c.request('POST', path, body=body, headers=h)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r, data


def problem(r, data):
    try:
        return json.loads(data) if 'application/problem+json' in (r.getheader('Content-Type') or '') else None
    except ValueError:
        return None


def raw(address, data, read_for=2.0, pieces=None, delay=0.0):
    """Sends `data` (or `pieces` one by one, `delay` apart) on a new connection; returns what
    came back until the server closed or `read_for` passed."""
    s = socket.create_connection(host_port(address), timeout=5)
    for piece in (pieces or [data]):
        s.sendall(piece)
        if delay:
            time.sleep(delay)
    s.settimeout(0.2)
    out, end = b'', time.monotonic() + read_for
    closed = False
    while time.monotonic() < end:
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            closed = True
            break
        if not chunk:
            closed = True
            break
        out += chunk
    s.close()
    return out, closed


def statuses(blob):
    # Responses follow each other directly (a binary body is not followed by a line break).
    return [int(m) for m in re.findall(rb'HTTP/1\.1 (\d{3}) ', blob)]


def main():
    binary, project = sys.argv[1:3]
    proto_dir = os.path.join(os.path.abspath(project), 'proto')
    with tempfile.TemporaryDirectory(prefix='rosetta-http-') as tmp:
        subprocess.run([sys.executable, '-m', 'grpc_tools.protoc', '-I', proto_dir, '--python_out=' + tmp,
                        '--grpc_python_out=' + tmp, 'rosetta/v1/transcoder.proto'], check=True, cwd=proto_dir)
        sys.path.insert(0, tmp)
        import grpc
        pb = importlib.import_module('rosetta.v1.transcoder_pb2')
        pbg = importlib.import_module('rosetta.v1.transcoder_pb2_grpc')
        with Rosettad(binary, '--max-input-bytes', '65536', '--http-header-timeout-ms', '1000',
                      '--http-max-header-bytes', '4096') as server:
            a = server.http
            doc = b'{"a":[1,2,3]}'
            cbor = bytes.fromhex('a1616183010203')
            msgpack = bytes.fromhex('81a16193010203')
            # Every media type, both ways.
            for ctype, accept, body, want in [
                    ('application/json', 'application/cbor', doc, cbor),
                    ('application/json', 'application/msgpack', doc, msgpack),
                    ('application/json', 'application/vnd.msgpack', doc, msgpack),
                    ('application/cbor', 'application/json', cbor, doc),
                    ('application/msgpack', 'application/json', msgpack, doc),
                    ('application/vnd.msgpack; charset=binary', 'application/cbor', msgpack, cbor),
                    ('application/json', None, doc, doc),
                    ('application/json', '*/*', doc, doc),
                    ('application/json', 'text/html;q=0.9, application/cbor', doc, cbor)]:
                r, data = post(a, '/v1/transcode', body, ctype, accept)
                check(r.status == 200 and data == want, '%s -> %s: %d %s' % (ctype, accept, r.status, data.hex()))
                if accept and accept.startswith('application/') and ',' not in accept:
                    check(r.getheader('Content-Type') == accept, '  Content-Type %s' % r.getheader('Content-Type'))
            r, data = post(a, '/v1/transcode?message_type=rosetta.v1.Limits', doc, 'application/json',
                           'application/x-protobuf')
            pr = problem(r, data)
            check(r.status == 422 and pr and pr['title'] == 'unknown_message_type',
                  'x-protobuf without loaded descriptors: 422 unknown_message_type (%d)' % r.status)
            # Validate.
            r, data = post(a, '/v1/validate', doc)
            check(r.status == 204 and data == b'' and r.getheader('Content-Length') is None, 'validate: 204, no body')
            r, data = post(a, '/v1/validate', bytes.fromhex('a2c328'), 'application/msgpack')
            pr = problem(r, data)
            check(r.status == 400 and pr and pr['title'] == 'invalid_utf8', 'validate invalid: 400 invalid_utf8')
            # Status codes of refusals, with problem+json bodies.
            for what, path, body, ctype, accept, status, title in [
                    ('malformed', '/v1/transcode', b'{"a":[1,2,}', 'application/json', None, 400, 'syntax'),
                    ('truncated', '/v1/transcode', b'[1,', 'application/json', None, 400, 'truncated'),
                    ('a limit', '/v1/transcode?max_depth=1', b'[[1]]', 'application/json', None, 422,
                     'depth_exceeded'),
                    ('unrepresentable', '/v1/transcode', bytes.fromhex('c249010000000000000000'),
                     'application/cbor', 'application/msgpack', 422, 'unrepresentable'),
                    ('unknown schema', '/v1/transcode?schema=nope', doc, 'application/json', None, 422,
                     'unknown_schema'),
                    ('415', '/v1/transcode', doc, 'text/plain', None, 415, 'unsupported_media_type'),
                    ('406', '/v1/transcode', doc, 'application/json', 'text/html', 406, 'not_acceptable'),
                    ('404', '/v2/nothing', doc, 'application/json', None, 404, 'not_found'),
                    ('unknown query', '/v1/transcode?colour=red', doc, 'application/json', None, 400, 'bad_query'),
                    ('413 body', '/v1/transcode', b'"' + b'x' * 70000 + b'"', 'application/json', None, 413,
                     'input_too_large')]:
                r, data = post(a, path, body, ctype, accept)
                pr = problem(r, data)
                check(r.status == status and pr is not None and pr.get('title') == title and pr.get('status') == status,
                      '%s: %d %s (%s)' % (what, r.status, title, data[:80]))
            r, data = post(a, '/v1/transcode?allow_duplicate_keys=true', b'{"a":1,"a":2}')
            check(r.status == 200, 'an option as a query parameter (allow_duplicate_keys)')
            r, data = post(a, '/v1/transcode', b'{"a":1,"a":2}')
            check(r.status == 400 and problem(r, data)['title'] == 'duplicate_key', 'duplicate keys refused by default')
            c = http.client.HTTPConnection(*host_port(a), timeout=5)
            c.request('GET', '/v1/transcode')
            r = c.getresponse()
            r.read()
            check(r.status == 405, 'GET /v1/transcode: 405')
            # Offset and path are those of the other transports.
            bad = b'{"k":[true,nul]}'
            r, data = post(a, '/v1/transcode', bad, 'application/json', 'application/cbor')
            hp = problem(r, data)
            stub = pbg.TranscoderStub(grpc.insecure_channel(server.grpc))
            gerr, gline = None, None
            try:
                stub.Transcode(pb.TranscodeRequest(input_format=1, output_format=2, payload=bad), timeout=5)
            except grpc.RpcError as e:
                gerr = pb.Error()
                gerr.ParseFromString(dict(e.trailing_metadata())['rosetta-error-bin'])
                gline = e.details()
            with socket.create_connection(server.tcp_host_port(), timeout=5) as s:
                s.sendall(tcp_frame(1, 7, bad, 1, 2))
                status, _, tdata = tcp_response(s)
            hline = '%s at byte %d: %s' % (hp['title'], hp['offset'], hp['detail'])
            check(gerr is not None and (hp['title'], hp['offset'], hp['path']) == (gerr.code, gerr.offset, gerr.path)
                  and hline == gline == tdata.decode(),
                  'the same error on HTTP, gRPC and TCP: %r / %r / %r' % (hline, gline, tdata))

            # Bodies split at every byte: the same answer.
            head = b'POST /v1/transcode HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' \
                   b'Accept: application/cbor\r\nContent-Length: %d\r\n\r\n' % len(doc)
            whole = head + doc
            answers = set()
            for cut in range(1, len(whole)):
                out, _ = raw(a, None, read_for=0.3, pieces=[whole[:cut], whole[cut:]], delay=0.01)
                answers.add(out.endswith(cbor) and out.startswith(b'HTTP/1.1 200'))
            check(answers == {True}, 'a request split at each of its %d bytes is answered the same' % len(whole))
            # Chunked bodies, and pipelining: three requests in one write, three answers in order.
            chunked = b'POST /v1/transcode HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' \
                      b'Accept: application/cbor\r\nTransfer-Encoding: chunked\r\n\r\n' \
                      b'5\r\n{"a":\r\n8\r\n[1,2,3]}\r\n0\r\n\r\n'
            bad_one = b'POST /v1/transcode HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' \
                      b'Content-Length: 3\r\n\r\n[1,'
            health = b'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'
            nowhere = b'POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n[1,2]'
            out, _ = raw(a, chunked + bad_one + nowhere + health, read_for=1.0)
            check(statuses(out) == [200, 400, 404, 200] and cbor in out,
                  'pipelined: answered in order, a 404 body read past %s' % statuses(out))
            # The claim rule: 2^63 declared, refused before any body is read, the connection closed.
            huge = b'POST /v1/transcode HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' \
                   b'Content-Length: 9223372036854775808\r\n\r\n'
            started = time.monotonic()
            out, closed = raw(a, huge + b'[1', read_for=2)
            check(statuses(out) == [413] and b'input_too_large' in out and closed and time.monotonic() - started < 1.5,
                  'Content-Length 2^63: 413 at once, connection closed (%s)' % statuses(out))
            # Oversized headers; too many header fields.
            out, _ = raw(a, b'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ' + b'a' * 8000 + b'\r\n\r\n', read_for=1)
            check(statuses(out) == [431], 'a header over http_max_header_bytes: 431 (%s)' % statuses(out))
            many = b''.join(b'X-%d: 1\r\n' % i for i in range(150))
            out, _ = raw(a, b'GET /healthz HTTP/1.1\r\nHost: x\r\n' + many + b'\r\n', read_for=1)
            check(statuses(out) == [431], '150 header fields: 431 (%s)' % statuses(out))
            # A slow client that never finishes its header is closed after the header timeout.
            started = time.monotonic()
            out, closed = raw(a, None, read_for=4, pieces=[b'GET /healthz HTTP/1.1\r\n', b'Host: x\r\n'], delay=0.3)
            took = time.monotonic() - started
            check(closed and out == b'' and took < 3.5, 'slow headers: closed after %.1f s, no answer' % took)
            metrics = http.client.HTTPConnection(*host_port(server.metrics), timeout=5)
            metrics.request('GET', '/metrics')
            text = metrics.getresponse().read().decode()
            for reason in ('header_timeout', 'header_too_large', 'input_too_large', 'bad_request'):
                line = [l for l in text.splitlines()
                        if l.startswith('rosetta_rejected_total{') and 'transport="http"' in l and
                        'reason="%s"' % reason in l]
                check(line and float(line[0].rsplit(' ', 1)[1]) >= 1, 'rejected{transport="http",reason="%s"}' % reason)
            check('rosetta_requests_total{' in text and 'transport="http"' in text, 'requests counted as transport="http"')

            # Health through a drain. A request whose body is still arriving keeps the drain
            # open; meanwhile the listener still serves (one request per connection):
            # /readyz is 503, /healthz 200, and the slow request is answered when it completes.
            r = http.client.HTTPConnection(*host_port(a), timeout=5)
            r.request('GET', '/readyz')
            resp = r.getresponse()
            check(resp.status == 200 and resp.read() == b'ok\n', 'readyz: 200 while serving')
            slow = socket.create_connection(host_port(a), timeout=5)
            slow.sendall(head + doc[:4])
            time.sleep(0.2)
            server.proc.send_signal(15)
            time.sleep(0.3)
            out, _ = raw(a, b'GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n', read_for=1)
            check(statuses(out) == [503] and b'Connection: close' in out, 'readyz: 503 once the drain starts (%s)'
                  % statuses(out))
            out, _ = raw(a, b'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', read_for=1)
            check(statuses(out) == [200], 'healthz: 200 during the drain')
            slow.sendall(doc[4:])
            slow.settimeout(5)
            answer = b''
            while True:
                chunk = slow.recv(65536)
                if not chunk:
                    break
                answer += chunk
            check(statuses(answer) == [200] and answer.endswith(cbor), 'the request in flight at the drain is answered')
            check(server.proc.wait(timeout=15) == 0, 'rosettad drains and exits 0')
    if failures:
        print('FAIL: %d check(s)' % len(failures))
        return 1
    print('PASS')
    return 0


if __name__ == '__main__':
    sys.exit(main())
