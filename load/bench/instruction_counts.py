#!/usr/bin/python3
"""Instructions one transcode executes, for two builds of the rosetta CLI side by side.

On a shared machine timings swing by tens of percent from run to run; the instructions a
transcode executes do not. Each pair of the corpus benchmark (docs/benchmarks.md) runs
once per build under valgrind's callgrind, counting only inside codec::Transcode (reading
the file and writing the output are left out). A change that adds work to a hot path shows
here to the instruction, where a timing could not resolve it. It is no substitute for the
timed benchmark (cache misses and branch mispredictions are not instructions), but it pairs
perfectly.

usage: instruction_counts.py --a CLI_BEFORE --b CLI_AFTER [--data DIR]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

PAIRS = [('json', 'cbor'), ('cbor', 'json'), ('json', 'msgpack'), ('msgpack', 'json'), ('cbor', 'msgpack'),
         ('json', 'json'), ('cbor', 'cbor'), ('msgpack', 'cbor')]
FILES = ['twitter', 'citm_catalog', 'canada']


def instructions(cli, src, dst, path, tmp):
    p = subprocess.run(['valgrind', '--tool=callgrind', '--callgrind-out-file=' + os.path.join(tmp, 'cg.out'),
                        '--toggle-collect=rosetta::codec::Transcode*', cli, 'transcode', '--from', src, '--to', dst,
                        '--allow-duplicate-keys', path, '-o', os.path.join(tmp, 'out.bin')],
                       capture_output=True, text=True)
    m = re.search(r'Collected : (\d+)', p.stderr)
    if p.returncode != 0 or not m:
        sys.exit('instruction_counts: %s failed: %s' % (cli, p.stderr[-500:]))
    return int(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--a', required=True, help='the rosetta CLI before')
    ap.add_argument('--b', required=True, help='the rosetta CLI after')
    ap.add_argument('--data', default=os.environ.get('ROSETTA_DATA_DIR', os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'shared', 'data')))
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix='instruction_counts_')
    inputs = {}
    for f in FILES:
        inputs[(f, 'json')] = os.path.join(args.data, 'corpus', f + '.json')
        for fmt in ('cbor', 'msgpack'):  # made once, by build A
            out = os.path.join(tmp, '%s.%s' % (f, fmt))
            subprocess.run([args.a, 'transcode', '--from', 'json', '--to', fmt, '--allow-duplicate-keys',
                            inputs[(f, 'json')], '-o', out], check=True)
            inputs[(f, fmt)] = out
    print('| pair | file | A instructions | B instructions | B/A |')
    print('|---|---|---:|---:|---:|')
    worst = 0
    for src, dst in PAIRS:
        for f in FILES:
            a = instructions(args.a, src, dst, inputs[(f, src)], tmp)
            b = instructions(args.b, src, dst, inputs[(f, src)], tmp)
            worst = max(worst, b / a)
            print('| %s_to_%s | %s | %s | %s | %.3f |' % (src, dst, f, format(a, ','), format(b, ','), b / a),
                  flush=True)
    print('\nlargest B/A: %.3f' % worst)


if __name__ == '__main__':
    main()
