"""Runs examples/grpc_client.py, tcp_client.py and http_client.py against a real rosettad, then
checks that SIGTERM makes it exit 0 within 5 s.

usage: run_examples.py ROSETTAD SOURCE_DIR
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'support'))
from rosettad_process import Rosettad  # noqa: E402

PYTHON = '/usr/bin/python3'


def main():
    binary, source_dir = sys.argv[1:3]
    examples = os.path.join(source_dir, 'examples')
    failures = []
    with Rosettad(binary) as server:
        runs = [
            ('grpc_client', [PYTHON, os.path.join(examples, 'grpc_client.py'), '--grpc', server.grpc,
                             '--proto-dir', os.path.join(source_dir, 'proto')]),
            ('tcp_client', [PYTHON, os.path.join(examples, 'tcp_client.py'), '--tcp', server.tcp]),
            ('http_client', [PYTHON, os.path.join(examples, 'http_client.py'), '--http', server.http]),
        ]
        for name, argv in runs:
            p = subprocess.run(argv, capture_output=True, text=True, timeout=60)
            sys.stdout.write(p.stdout)
            sys.stderr.write(p.stderr)
            if p.returncode != 0:
                failures.append('%s exited %d' % (name, p.returncode))
        code = server.terminate(within=5.0)
        if code != 0:
            failures.append('rosettad after SIGTERM: %s' % ('still running after 5 s' if code is None
                                                           else 'exit %d' % code))
    for f in failures:
        print('FAIL', f)
    print('run_examples: %s' % ('ok' if not failures else '%d failures' % len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
