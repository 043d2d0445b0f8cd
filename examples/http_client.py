#!/usr/bin/python3
"""A client of rosettad's HTTP front-end in plain Python: http.client, nothing generated.

usage: /usr/bin/python3 examples/http_client.py --http 127.0.0.1:8080

On one kept-alive connection it sends: a transcode (JSON -> CBOR), a malformed transcode
(the error as application/problem+json), a transcode past a limit given as a query
parameter, a validate of a bad MessagePack payload, a validate of good JSON, and the
health and readiness checks. It prints every answer and exits 1 if any is not the
expected one, so it doubles as an end-to-end check.
"""
import argparse
import http.client
import json
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--http', default='127.0.0.1:8080', help='rosettad HTTP listener HOST:PORT')
    args = ap.parse_args()
    host, port = args.http.rsplit(':', 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    failures = 0

    def call(method, path, body=None, content_type='application/json', accept=None):
        headers = {'Content-Type': content_type} if body is not None else {}
        if accept:
            headers['Accept'] = accept
        conn.request(method, path, body=body, headers=headers)
        r = conn.getresponse()
        return r.status, r.getheader('Content-Type'), r.read()

    def show(name, ok, text):
        nonlocal failures
        failures += not ok
        print('%-4s %-40s %s' % ('ok' if ok else 'FAIL', name, text))

    status, ctype, body = call('POST', '/v1/transcode', b'{"a":[1,2,3]}', accept='application/cbor')
    show('transcode JSON -> CBOR', status == 200 and body == bytes.fromhex('a1616183010203'),
         '%d %s %s' % (status, ctype, body.hex()))

    status, ctype, body = call('POST', '/v1/transcode', b'{"a":[1,2,}', accept='application/cbor')
    problem = json.loads(body) if ctype == 'application/problem+json' else {}
    show('transcode malformed JSON', status == 400 and problem.get('title') == 'syntax' and problem.get('offset') == 10,
         '%d %s' % (status, json.dumps(problem)))

    status, ctype, body = call('POST', '/v1/transcode?max_depth=2', b'[[[1]]]', accept='application/msgpack')
    problem = json.loads(body) if ctype == 'application/problem+json' else {}
    show('transcode past ?max_depth=2', status == 422 and problem.get('title') == 'depth_exceeded',
         '%d %s: %s' % (status, problem.get('title'), problem.get('detail')))

    status, ctype, body = call('POST', '/v1/validate', bytes.fromhex('a2c328'), content_type='application/msgpack')
    problem = json.loads(body) if ctype == 'application/problem+json' else {}
    show('validate bad MessagePack', status == 400 and problem.get('title') == 'invalid_utf8',
         '%d %s at byte %s' % (status, problem.get('title'), problem.get('offset')))

    status, ctype, body = call('POST', '/v1/validate', b'{"ok":true}')
    show('validate good JSON', status == 204 and body == b'', '%d' % status)

    for path in ('/healthz', '/readyz'):
        status, ctype, body = call('GET', path)
        show('GET ' + path, status == 200, '%d %r' % (status, body))

    conn.close()
    print('http_client: %s' % ('every answer as expected' if not failures else '%d unexpected' % failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
