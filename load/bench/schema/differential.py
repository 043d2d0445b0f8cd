#!/usr/bin/python3
"""Differential check of JSON Schema validators: the same instances (schemadata.py differential:
valid instances of the five data sets, most of them mutated) through several validators, one
verdict per instance each; every validator must agree with the reference on every line.

  differential.py --data DIR [--oracles jsonschema,hyperjump,ajv,valijson,rosetta] [--reference jsonschema]
                  [--rosetta BIN] [--rosetta-formats json,cbor,msgpack] [--modules build/npm/node_modules]
                  [--valijson BIN] [--only NAMES] [--seed 7] [--count 3000] [--show 10]

DIR gets NAME.diff.jsonl and NAME.schema.json (made when missing, from --seed and --count),
NAME.draft7.schema.json (valijson's), NAME.diff.cbor-seq / .msgpack-seq (rosetta's other
formats) and, per validator, NAME.ORACLE.verdicts. Validators:
  jsonschema  python3-jsonschema (Debian 12: 4.10.3), in this process (run with /usr/bin/python3)
  hyperjump   @hyperjump/json-schema (node hyperjump_verdicts.mjs; npm_peers.sh installs it)
  ajv         ajv 8 (node ajv_peer.cjs verdicts)
  valijson    rosetta-schema-valijson verdicts on the draft-7 version of the schema (a draft-7
              peer: its verdicts say as much about schemadata.to_draft7 as about valijson)
  rosetta     `rosetta validate --format FMT --seq --keep-going --schema S FILE`: a record is
              invalid when an error line names its index (`rosetta: CODE at byte N (/INDEX/...)`);
              once per --rosetta-formats (the same records as CBOR and MessagePack sequences too)
format is an annotation for every validator (no format assertion anywhere). Exit 0 when every
verdict agrees, 1 when one does not (the first --show disagreements of each are printed, with
python-jsonschema's reason when it is one of the validators), 2 on an error.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import schemadata  # noqa: E402

ERROR_LINE = re.compile(r'^rosetta: (\S+) at byte (\d+) \(/(\d+)(?:/[^\n]*?)?\)')


def run(argv, what, ok=(0,)):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode not in ok:
        raise RuntimeError('%s: exit %d: %s' % (what, p.returncode, p.stderr.decode(errors='replace').strip()[:2000]))
    return p


def read_bools(text, what):
    out = []
    for line in text.splitlines():
        if line == 'true':
            out.append(True)
        elif line == 'false':
            out.append(False)
        else:
            raise RuntimeError('%s: unexpected output line %r' % (what, line[:200]))
    return out


def verdicts_jsonschema(schema_path, lines):
    with open(schema_path, encoding='utf-8') as f:
        validator = schemadata.python_validator(json.load(f))
    return [validator.is_valid(json.loads(line)) for line in lines]


def verdicts_node(script, modules, schema_path, data_path, extra=()):
    argv = ['node', os.path.join(HERE, script), '--modules', modules] + list(extra) + [schema_path, data_path]
    return read_bools(run(argv, script).stdout.decode(), script)


def verdicts_rosetta(rosetta, fmt, schema_path, data_path, count):
    """One verdict per record from `rosetta validate --seq --keep-going`'s error lines."""
    argv = [rosetta, 'validate', '--format', fmt, '--seq', '--keep-going', '--schema', schema_path, data_path]
    p = run(argv, 'rosetta validate --format %s' % fmt, ok=(0, 1))
    valid = [True] * count
    other = []
    for line in p.stderr.decode(errors='replace').splitlines():
        m = ERROR_LINE.match(line)
        if not m:
            other.append(line)
            continue
        index = int(m.group(3))
        if index >= count:
            raise RuntimeError('rosetta named record %d of %d: %s' % (index, count, line))
        if m.group(1) != 'schema_violation':
            raise RuntimeError('rosetta refused record %d for another reason than the schema: %s' % (index, line))
        valid[index] = False
    if other:
        raise RuntimeError('rosetta printed lines that are not error lines: %s' % ' | '.join(other[:5]))
    if (p.returncode == 1) != (False in valid):
        raise RuntimeError('rosetta exited %d but its error lines name %d invalid records' % (
            p.returncode, valid.count(False)))
    return valid


def reason(schema_path, line):
    """python-jsonschema's best error for one instance (for the report)."""
    import jsonschema
    with open(schema_path, encoding='utf-8') as f:
        validator = schemadata.python_validator(json.load(f))
    err = jsonschema.exceptions.best_match(validator.iter_errors(json.loads(line)))
    if err is None:
        return 'valid'
    while err.context:
        err = jsonschema.exceptions.best_match(err.context)
    return '%s at %s: %s' % ('/'.join(str(x) for x in err.absolute_schema_path),
                             '/' + '/'.join(str(x) for x in err.absolute_path), err.message[:200])


def prepare(data, name, seed, count, corpus, need_sequences):
    """The instances and schemas of one data set in DIR (made once)."""
    jsonl = os.path.join(data, name + '.diff.jsonl')
    schema = os.path.join(data, name + '.schema.json')
    draft7 = os.path.join(data, name + '.draft7.schema.json')
    if not os.path.exists(jsonl) or not os.path.exists(schema):
        os.makedirs(data, exist_ok=True)
        s = schemadata.load_schema(name)
        records = schemadata.differential_records(name, seed, count, corpus, schemadata.Pool(s))
        with open(schema, 'w', encoding='utf-8') as f:
            json.dump(s, f, indent=2, ensure_ascii=False)
        with open(jsonl + '.partial', 'w', encoding='utf-8') as f:
            for r in records:
                f.write(schemadata.dumps(r) + '\n')
        os.replace(jsonl + '.partial', jsonl)
    if not os.path.exists(draft7):
        with open(schema, encoding='utf-8') as f:
            converted, _ = schemadata.to_draft7(json.load(f))
        with open(draft7, 'w', encoding='utf-8') as f:
            json.dump(converted, f, indent=2, ensure_ascii=False)
    with open(jsonl, encoding='utf-8') as f:
        lines = [line.rstrip('\n') for line in f if line.strip()]
    if need_sequences and not os.path.exists(os.path.join(data, name + '.diff.msgpack-seq')):
        schemadata.write_sequences([json.loads(line) for line in lines], os.path.join(data, name + '.diff'))
    return jsonl, schema, draft7, lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--data', required=True)
    ap.add_argument('--oracles', default='jsonschema,hyperjump,ajv')
    ap.add_argument('--reference', default='jsonschema')
    ap.add_argument('--rosetta')
    ap.add_argument('--rosetta-formats', default='json,cbor,msgpack')
    ap.add_argument('--modules', default=os.path.join(HERE, '..', '..', '..', 'build', 'npm', 'node_modules'))
    ap.add_argument('--valijson')
    ap.add_argument('--only')
    ap.add_argument('--seed', type=int, default=7)
    ap.add_argument('--count', type=int, default=3000)
    ap.add_argument('--corpus', default=schemadata.DEFAULT_CORPUS)
    ap.add_argument('--show', type=int, default=10)
    args = ap.parse_args(argv)
    oracles = args.oracles.split(',')
    if args.reference not in oracles:
        oracles.insert(0, args.reference)
    unknown = set(oracles) - {'jsonschema', 'hyperjump', 'ajv', 'valijson', 'rosetta'}
    if unknown:
        ap.error('unknown validators: %s' % ', '.join(sorted(unknown)))
    if 'rosetta' in oracles and not args.rosetta:
        ap.error('--rosetta BIN is needed for the rosetta validator')
    if 'valijson' in oracles and not args.valijson:
        ap.error('--valijson BIN is needed for the valijson validator')
    modules = os.path.abspath(args.modules)
    if {'hyperjump', 'ajv'} & set(oracles) and not os.path.isdir(modules):
        ap.error('no node_modules at %s: run load/bench/schema/npm_peers.sh first' % modules)
    rosetta_formats = args.rosetta_formats.split(',')

    names = args.only.split(',') if args.only else schemadata.DATASETS
    passed = failed = 0
    for name in names:
        try:
            jsonl, schema, draft7, lines = prepare(args.data, name, args.seed, args.count, args.corpus,
                                                   'rosetta' in oracles and set(rosetta_formats) - {'json'})
            results = {}  # label -> verdicts
            for oracle in oracles:
                t0 = time.monotonic()
                if oracle == 'jsonschema':
                    labels = {oracle: verdicts_jsonschema(schema, lines)}
                elif oracle == 'hyperjump':
                    labels = {oracle: verdicts_node('hyperjump_verdicts.mjs', modules, schema, jsonl)}
                elif oracle == 'ajv':
                    labels = {oracle: verdicts_node('ajv_peer.cjs', modules, schema, jsonl, ['verdicts'])}
                elif oracle == 'valijson':
                    labels = {'valijson (draft 7)': read_bools(
                        run([args.valijson, 'verdicts', draft7, jsonl], 'valijson').stdout.decode(), 'valijson')}
                else:
                    labels = {}
                    for fmt in rosetta_formats:
                        path = jsonl if fmt == 'json' else os.path.join(args.data, '%s.diff.%s-seq' % (name, fmt))
                        labels['rosetta %s' % fmt] = verdicts_rosetta(args.rosetta, fmt, schema, path, len(lines))
                for label, v in labels.items():
                    if len(v) != len(lines):
                        raise RuntimeError('%s gave %d verdicts for %d instances' % (label, len(v), len(lines)))
                    results[label] = v
                    with open(os.path.join(args.data, '%s.%s.verdicts' % (name, label.replace(' ', '_').replace(
                            '(', '').replace(')', ''))), 'w') as f:
                        f.write(''.join('%s\n' % ('true' if x else 'false') for x in v))
                print('differential: %s: %s: %.1f s' % (name, oracle, time.monotonic() - t0), file=sys.stderr)
        except RuntimeError as e:
            print('differential: %s: %s' % (name, e))
            failed += 1
            continue
        ref = results[args.reference]
        print('%s: %d instances, %d valid by %s' % (name, len(lines), ref.count(True), args.reference))
        for label, v in results.items():
            if label == args.reference:
                continue
            bad = [i for i in range(len(lines)) if v[i] != ref[i]]
            if not bad:
                print('  %-20s agrees on all %d' % (label, len(lines)))
                passed += 1
                continue
            failed += 1
            print('  %-20s DISAGREES on %d: lines %s%s' % (label, len(bad), ', '.join(str(i) for i in bad[:20]),
                                                           ' ...' if len(bad) > 20 else ''))
            if label.startswith('rosetta') and len(bad) > 1:
                shifted = all(v[i] == ref[i + 1] for i in range(len(lines) - 1))
                if shifted:
                    print('    (every verdict matches the next line\'s: are record indexes 1-based?)')
            for i in bad[:args.show]:
                line = lines[i]
                others = ', '.join('%s %s' % (k, 'valid' if r[i] else 'invalid') for k, r in results.items())
                print('    line %d (record index %d): %s' % (i + 1, i, others))
                print('      instance: %s' % (line if len(line) <= 400 else line[:400] + '...'))
                if 'jsonschema' in results:
                    print('      jsonschema: %s' % reason(schema, line))
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
