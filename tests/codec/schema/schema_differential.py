#!/usr/bin/python3
"""Differential test of `rosetta validate --schema` against python3-jsonschema (no network).

  schema_differential.py ROSETTA DATA_DIR [--count N] [--keep DIR] [--only NAMES]

DATA_DIR is load/bench/schema: the five data sets' schemas (schemas/*.schema.json, draft
2020-12) and the generators (schemadata.py, differential.py). For each schema, N instances
(default 2000; schemadata.py differential, seed 7: valid instances of the data set, seven in
eight of them mutated: members dropped or added, types changed, numbers out of range, strings
that break patterns, duplicated array items, ...) are written as JSON Lines, as a CBOR sequence
and as a MessagePack sequence into a temporary folder, and

  ROSETTA validate --format FMT --seq --keep-going --schema NAME.schema.json FILE

must give every record the verdict python3-jsonschema (Debian 12: 4.10.3, format as an
annotation) gives it: invalid exactly when one of its error lines names the record's index
("rosetta: schema_violation at byte OFFSET (/INDEX/...): ..."). Disagreements are printed with
the instance and python-jsonschema's reason. Needs /usr/bin/python3 with python3-jsonschema,
python3-cbor2 and python3-msgpack, and the corpus (../shared/data/corpus, or
$ROSETTA_DATA_DIR/corpus). Exit 0: all agree; 1: a disagreement; 2: an error; 77 (ctest's
SKIP_RETURN_CODE): this rosetta has no --schema option.
"""
import argparse
import os
import subprocess
import sys
import tempfile


def has_schema_option(rosetta, tmp):
    schema = os.path.join(tmp, 'probe.schema.json')
    with open(schema, 'w') as f:
        f.write('{}\n')
    p = subprocess.run([rosetta, 'validate', '--format', 'json', '--seq', '--schema', schema, '-'],
                       input=b'{}\n', capture_output=True)
    return not (p.returncode == 2 and b"unknown option '--schema'" in p.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('rosetta')
    ap.add_argument('data_dir')
    ap.add_argument('--count', type=int, default=int(os.environ.get('ROSETTA_SCHEMA_DIFF_COUNT', '2000')))
    ap.add_argument('--keep', help='write the instances and verdicts here (kept) instead of a temporary folder')
    ap.add_argument('--only', help='comma-separated data set names (package, workflow, geojson, twitter, citm)')
    args = ap.parse_args()
    sys.path.insert(0, os.path.abspath(args.data_dir))
    try:
        import differential
    except ImportError as e:
        print('schema_differential: cannot load %s/differential.py: %s' % (args.data_dir, e))
        return 2
    with tempfile.TemporaryDirectory(prefix='rosetta-schema-diff-') as tmp:
        if not has_schema_option(args.rosetta, tmp):
            print('schema_differential: skipped: %s has no --schema option' % args.rosetta)
            return 77
        argv = ['--data', args.keep or tmp, '--oracles', 'jsonschema,rosetta', '--reference', 'jsonschema',
                '--rosetta', os.path.abspath(args.rosetta), '--rosetta-formats', 'json,cbor,msgpack',
                '--count', str(args.count)]
        if args.only:
            argv += ['--only', args.only]
        return differential.main(argv)


if __name__ == '__main__':
    sys.exit(main())
