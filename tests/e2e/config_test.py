"""rosettad's settings as an operator meets them (docs/service.md).

- `rosettad --help` lists every setting of service/config.cc with its flag and
  ROSETTA_* variable, and docs/service.md documents each one (flag, variable, JSON key);
- a bad value in a flag, a variable or the JSON file, an unknown flag and an unknown JSON
  key each exit 2 at once with one message naming the setting;
- precedence is flags > environment > file > defaults, observed on a live server
  through the TCP frame maximum (10 + 65535 + max_input_bytes) that an oversized frame's
  error reports.

usage: config_test.py ROSETTAD SOURCE_DIR
"""
import json
import os
import re
import socket
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'support'))
from rosettad_process import Rosettad, tcp_response  # noqa: E402

failures = []


def check(ok, what):
    print('%-4s %s' % ('ok' if ok else 'FAIL', what))
    if not ok:
        failures.append(what)
    return ok


def settings_in_source(source_dir):
    """(name, kind) of every Option in service/config.cc, kind in listen | uint | list."""
    with open(os.path.join(source_dir, 'service/config.cc')) as f:
        text = f.read()
    found = []
    for kind, name in re.findall(r'\b(Listen|Limit|Uint)\(\s*"([a-z0-9-]+)"', text):
        found.append((name, 'listen' if kind == 'Listen' else 'uint'))
    for name in re.findall(r'\{\s*"([a-z0-9-]+)",\s*"[^"]*",\s*Option::kList', text):
        found.append((name, 'list'))
    # The limits are the rows of the codec's limit table, one setting each.
    with open(os.path.join(source_dir, 'codec/include/rosetta/codec/limits.h')) as f:
        for name in re.findall(r'Row<&Limits::\w+>\("([a-z_]+)"', f.read()):
            found.append((name.replace('_', '-'), 'uint'))
    return found


def env_name(name):
    return 'ROSETTA_' + name.upper().replace('-', '_')


def run(binary, *args, env_extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith('ROSETTA_')}
    env.update(env_extra or {})
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=10, env=env)


def frame_maximum(server):
    """The connection's frame maximum, from the error an oversized prefix gets."""
    with socket.create_connection(server.tcp_host_port(), timeout=5) as s:
        s.sendall(struct.pack('>I', 0xFFFFFFFF))
        status, rid, data = tcp_response(s)
    m = re.search(rb"maximum of (\d+)", data)
    return int(m.group(1)) if status == 5 and rid == 0 and m else None


def main():
    binary, source_dir = sys.argv[1:3]
    settings = settings_in_source(source_dir)
    check(len(settings) >= 18, 'service/config.cc declares %d settings' % len(settings))

    p = run(binary, '--help')
    check(p.returncode == 0, '--help exits 0 (%d)' % p.returncode)
    help_text = p.stdout
    with open(os.path.join(source_dir, 'docs/service.md')) as f:
        doc = f.read()
    for name, _ in settings:
        line = next((l for l in help_text.splitlines() if l.strip().startswith('--%s ' % name)), '')
        check(env_name(name) in line, '--help lists --%s with %s' % (name, env_name(name)))
        for text in ('`--%s`' % name, '`%s`' % env_name(name), '`%s`' % name.replace('-', '_')):
            check(text in doc, 'docs/service.md documents %s' % text)
    check('--config' in help_text, '--help lists --config')

    bad = {'listen': 'no-port', 'uint': '12x', 'list': ''}
    for name, kind in settings:
        value = bad[kind]
        p = run(binary, '--%s=%s' % (name, value))
        check(p.returncode == 2 and '--%s' % name in p.stderr and p.stderr.count('\n') == 1,
              '--%s=%r exits 2 naming it: %d %r' % (name, value, p.returncode, p.stderr.strip()))
        p = run(binary, env_extra={env_name(name): value})
        check(p.returncode == 2 and env_name(name) in p.stderr,
              '%s=%r exits 2 naming it: %d %r' % (env_name(name), value, p.returncode, p.stderr.strip()))
    for args, needle in ((['--max-depth', 'abc'], '--max-depth'), (['--no-such-setting', '1'], '--no-such-setting'),
                         (['--max-depth'], '--max-depth'), (['stray'], 'stray'), (['--max-depth', '0'], '--max-depth')):
        p = run(binary, *args)
        check(p.returncode == 2 and needle in p.stderr, '%s exits 2 naming %s: %d %r' %
              (' '.join(args), needle, p.returncode, p.stderr.strip()))

    with tempfile.TemporaryDirectory(prefix='rosetta-config-') as tmp:
        def config_file(obj, name='c.json'):
            path = os.path.join(tmp, name)
            with open(path, 'w') as f:
                f.write(obj if isinstance(obj, str) else json.dumps(obj))
            return path
        for obj, needle in (({'max_depht': 3}, 'max_depht'), ({'max_depth': 'x'}, 'max_depth'),
                            ({'max_depth': -1}, 'max_depth'), ('[1, 2]', 'not a JSON object'),
                            ({'descriptor_set': [1]}, 'descriptor_set')):
            p = run(binary, '--config', config_file(obj))
            check(p.returncode == 2 and needle in p.stderr, 'config %s exits 2 naming %s: %d %r' %
                  (obj, needle, p.returncode, p.stderr.strip()))
        p = run(binary, '--config', os.path.join(tmp, 'missing.json'))
        check(p.returncode == 2 and 'missing.json' in p.stderr, 'a missing config file exits 2 naming it: %r' %
              p.stderr.strip())

        # Precedence, on live servers: file 1000 < env 2000 < flag 3000.
        path = config_file({'max_input_bytes': 1000, 'tcp_linger_ms': 0})
        base = {k: v for k, v in os.environ.items() if not k.startswith('ROSETTA_')}
        cases = [
            ('defaults', [], {}, 10 + 65535 + (4 << 20)),
            ('file', ['--config', path], {}, 10 + 65535 + 1000),
            ('ROSETTA_CONFIG', [], {'ROSETTA_CONFIG': path}, 10 + 65535 + 1000),
            ('env over file', ['--config', path], {'ROSETTA_MAX_INPUT_BYTES': '2000'}, 10 + 65535 + 2000),
            ('flag over env and file', ['--config', path, '--max-input-bytes', '3000'],
             {'ROSETTA_MAX_INPUT_BYTES': '2000'}, 10 + 65535 + 3000),
        ]
        for what, args, env, want in cases:
            with Rosettad(binary, *args, env={**base, **env}) as server:
                got = frame_maximum(server)
                check(got == want, 'precedence, %s: frame maximum %s (want %d)' % (what, got, want))
                check(server.terminate() == 0, 'precedence, %s: exit 0 after SIGTERM' % what)
        # The environment's listen address is overridden by the flags Rosettad passes.
        with Rosettad(binary, env={**base, 'ROSETTA_TCP_LISTEN': '127.0.0.1:1'}) as server:
            check(not server.tcp.endswith(':1'), 'flag --tcp-listen over ROSETTA_TCP_LISTEN (%s)' % server.tcp)
            server.terminate()

    print('config_test: %s' % ('ok' if not failures else '%d failures' % len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
