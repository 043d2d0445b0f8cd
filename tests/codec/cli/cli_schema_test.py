"""`rosetta validate --schema` and `transcode --schema` as a user meets them (DESIGN.md
"JSON Schema", docs/schema.md): the error line, --all-errors in input order, exit 2 for a
schema that does not load (not JSON, a backtracking pattern, a $ref that resolves nowhere, a
$ref cycle), output only for a valid payload, the same verdicts from CBOR and MessagePack,
--format-assertion, and sequences with --keep-going.

usage: cli_schema_test.py ROSETTA
"""
import json
import os
import subprocess
import sys
import tempfile

failures = []


def check(ok, what):
    print('%-4s %s' % ('ok' if ok else 'FAIL', what))
    if not ok:
        failures.append(what)
    return ok


def run(rosetta, args, data=b''):
    return subprocess.run([rosetta] + args, input=data, capture_output=True)


PERSON = {
    '$schema': 'https://json-schema.org/draft/2020-12/schema',
    'type': 'object',
    'required': ['id', 'name'],
    'properties': {
        'id': {'type': 'integer', 'minimum': 0},
        'name': {'type': 'string', 'minLength': 1},
        'email': {'type': 'string', 'format': 'email'},
        'tags': {'type': 'array', 'items': {'$ref': 'tag.json'}, 'uniqueItems': True},
    },
    'additionalProperties': False,
}
TAG = {'type': 'string', 'pattern': '^[a-z]+$'}


def main():
    rosetta = sys.argv[1]
    with tempfile.TemporaryDirectory() as d:
        person = os.path.join(d, 'person.json')
        with open(person, 'w') as f:
            json.dump(PERSON, f)
        with open(os.path.join(d, 'tag.json'), 'w') as f:
            json.dump(TAG, f)
        base = ['--schema', person, '--schema-dir', d]

        good = b'{"id": 7, "name": "ann", "tags": ["a", "b"]}'
        r = run(rosetta, ['validate', '--format', 'json'] + base, good)
        check(r.returncode == 0 and r.stderr == b'', 'a valid payload: exit 0, nothing said')

        bad = b'{"id": -3, "name": "x", "tags": ["a", "B", "a"], "extra": 1}'
        r = run(rosetta, ['validate', '--format', 'json'] + base, bad)
        check(r.returncode == 1, 'an invalid payload: exit 1')
        check(r.stderr == b'rosetta: schema_violation at byte 7 (/id): /properties/id/minimum: '
              b'-3 is below the minimum 0\n', 'the first violation in input order: ' + repr(r.stderr))

        r = run(rosetta, ['validate', '--format', 'json', '--all-errors'] + base, bad)
        lines = r.stderr.decode().splitlines()
        expected = [
            'rosetta: schema_violation at byte 7 (/id): /properties/id/minimum: -3 is below the '
            'minimum 0',
            'rosetta: schema_violation at byte 32 (/tags): /properties/tags/uniqueItems: items 0 '
            'and 2 are equal',
            'rosetta: schema_violation at byte 38 (/tags/1): ' + os.path.join(d, 'tag.json') +
            '#/pattern: "B" does not match the pattern "^[a-z]+$"',
            'rosetta: schema_violation at byte 49 (/extra): /additionalProperties: property '
            '"extra" is not allowed (additionalProperties is false)',
        ]
        check(r.returncode == 1 and lines == expected,
              '--all-errors: every violation, in input order: ' + repr(lines))
        r = run(rosetta, ['validate', '--format', 'json', '--all-errors', '--max-violations', '2'] +
                base, bad)
        check(len(r.stderr.decode().splitlines()) == 2, '--max-violations 2: two lines')

        # A schema read from a pipe, as `--schema <(...)` gives it (no size to read by):
        # all of it, 40 KB.
        piped = {'properties': {'n': {'minimum': 0}}, 'description': 'x' * 40000}
        r_fd, w_fd = os.pipe()
        os.write(w_fd, json.dumps(piped).encode())
        os.close(w_fd)
        r = subprocess.run([rosetta, 'validate', '--format', 'json', '--schema',
                            '/dev/fd/%d' % r_fd], input=b'{"n": -1}', capture_output=True,
                           pass_fds=(r_fd,))
        os.close(r_fd)
        check(r.returncode == 1 and b'/properties/n/minimum: -1 is below the minimum 0' in r.stderr,
              'a schema from a pipe: ' + repr(r.stderr))

        missing = b'{"id": 1}'
        r = run(rosetta, ['validate', '--format', 'json'] + base, missing)
        check(r.stderr == b'rosetta: schema_violation at byte 0: /required: missing required '
              b'property "name"\n', 'required, at the root (no path): ' + repr(r.stderr))

        # The same payloads as CBOR and MessagePack: the same verdicts.
        for fmt in ('cbor', 'msgpack'):
            for payload, valid in ((good, True), (bad, False), (missing, False)):
                t = run(rosetta, ['transcode', '--from', 'json', '--to', fmt], payload)
                r = run(rosetta, ['validate', '--format', fmt] + base, t.stdout)
                check((r.returncode == 0) == valid and r.returncode in (0, 1),
                      '%s: %s is %s' % (fmt, payload[:20], 'valid' if valid else 'invalid'))

        # transcode --schema: output only for a valid payload.
        r = run(rosetta, ['transcode', '--from', 'json', '--to', 'json'] + base, good)
        check(r.returncode == 0 and json.loads(r.stdout) == json.loads(good),
              'transcode: a valid payload is written')
        r = run(rosetta, ['transcode', '--from', 'json', '--to', 'cbor'] + base, bad)
        check(r.returncode == 1 and r.stdout == b'', 'transcode: nothing written for an invalid one')
        out = os.path.join(d, 'out.cbor')
        r = run(rosetta, ['transcode', '--from', 'json', '--to', 'cbor', '-o', out] + base, bad)
        check(r.returncode == 1 and not os.path.exists(out), 'transcode -o: no file when invalid')

        # format is an annotation unless asserted.
        mail = b'{"id": 1, "name": "a", "email": "not an address"}'
        r = run(rosetta, ['validate', '--format', 'json'] + base, mail)
        check(r.returncode == 0, 'format: an annotation by default')
        r = run(rosetta, ['validate', '--format', 'json', '--format-assertion'] + base, mail)
        check(r.returncode == 1 and b'/properties/email/format' in r.stderr,
              '--format-assertion: asserted: ' + repr(r.stderr))

        # Sequences: each record judged alone, its index first in the path.
        lines = b'{"id":1,"name":"a"}\n{"id":2}\n{"id":3,"name":"c","q":1}\n{"id":4,"name":"d"}\n'
        r = run(rosetta, ['transcode', '--from', 'json', '--to', 'json', '--seq', '--keep-going'] +
                base, lines)
        check(r.returncode == 1 and r.stdout == b'{"id":1,"name":"a"}\n{"id":4,"name":"d"}\n',
              '--seq --keep-going: the valid records written: ' + repr(r.stdout))
        err = r.stderr.decode().splitlines()
        check(err == ['rosetta: schema_violation at byte 20 (/1): /required: missing required '
                      'property "name"',
                      'rosetta: schema_violation at byte 48 (/2/q): /additionalProperties: '
                      'property "q" is not allowed (additionalProperties is false)'],
              '--seq: one line per bad record, offsets in the whole input: ' + repr(err))

        # Schemas that do not load: exit 2, one line naming the file and the location.
        broken = {
            'pattern.json': ({'pattern': '(a)\\1'}, '/pattern: backreference'),
            'lookahead.json': ({'properties': {'a': {'pattern': 'x(?=y)'}}},
                               '/properties/a/pattern: '),
            'nowhere.json': ({'$ref': 'missing.json'}, '/$ref: $ref'),
            'cycle.json': ({'$defs': {'a': {'$ref': '#/$defs/b'}, 'b': {'$ref': '#/$defs/a'}},
                            '$ref': '#/$defs/a'}, 'a $ref cycle that consumes no input'),
            'type.json': ({'type': 'strnig'}, '/type: unknown type'),
        }
        for name, (schema, what) in broken.items():
            path = os.path.join(d, 'broken', name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, 'w') as f:
                json.dump(schema, f)
            r = run(rosetta, ['validate', '--format', 'json', '--schema', path], b'"x"')
            line = r.stderr.decode()
            check(r.returncode == 2 and line.startswith('rosetta: ' + path + ': ') and what in line
                  and line.count('\n') == 1, 'broken %s: exit 2, %r' % (name, line))
        with open(os.path.join(d, 'broken', 'notjson.json'), 'w') as f:
            f.write('{"type": ')
        r = run(rosetta, ['validate', '--format', 'json', '--schema',
                          os.path.join(d, 'broken', 'notjson.json')], b'"x"')
        check(r.returncode == 2 and b'notjson.json: not JSON' in r.stderr, 'not JSON: exit 2')
        r = run(rosetta, ['validate', '--format', 'json', '--all-errors'], b'"x"')
        check(r.returncode == 2, '--all-errors without --schema: a usage error')

    if failures:
        print('%d failed' % len(failures))
        sys.exit(1)
    print('all passed')


if __name__ == '__main__':
    main()
