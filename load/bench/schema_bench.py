#!/usr/bin/python3
"""JSON Schema benchmark: `rosetta validate --seq --schema` as a user runs it, beside ajv 8 (node)
and valijson 1.0 (C++), on five data sets (load/bench/schema: a package manifest, a CI workflow,
GeoJSON cut from canada.json, twitter.json's statuses, citm_catalog.json's events and
performances; about a thousand records each, one in twenty invalid, from a seed).

Per data set, each command below runs --runs times (default 5) after one untimed warm-up run,
rounds rotating through the commands; the median wall time of the whole process (fork to exit,
`rosetta-cli-peers run`, which also gives its peak RSS from wait4) makes MB/s (10^6 bytes of
that command's input) and records/s:
  rosetta validate --format json|cbor|msgpack --seq --keep-going --schema NAME.schema.json FILE
  rosetta validate --format json|cbor|msgpack --seq --keep-going FILE     (no schema: the 1.5x bar)
  rosetta ... --all-errors (JSON); rosetta ... --format-assertion (JSON, schemas with format)
  node ajv_peer.cjs once NAME.schema.json FILE     (ajv 8.17.1, 2020-12; also --formats when
                                                   the schema has format: ajv-formats asserted)
  rosetta-schema-valijson once NAME.draft7.schema.json FILE   (valijson knows draft 7 at most)
Then in-process and warm, on the data set itself (not repeated: the schema compiled once, the
file read and split once, a second of warm-up passes, then --warm-runs timed passes of parse +
validate of every line; the median; --warm-procs processes of each, default 3, by turns, the
median one reported): node ajv_peer.cjs warm, rosetta-schema-valijson warm,
and rosetta itself, rosetta-schema-warm warm (the CLI's `validate --seq --keep-going` run
in-process over the file in memory: JSON with and without the schema, CBOR and MessagePack with
it). The peers' compile times are the median of 5 compilations; rosetta's schema load is the
whole-process time of a one-record input with the schema less the same without it. The warm
harnesses also report the memory a loaded schema holds (schema_heap_bytes: the malloc heap for
rosetta and valijson, the JS heap for ajv; rosetta's compiled_bytes too).

Every command's verdicts are checked: rosetta's error lines must name exactly the records the
data set's verdicts (python3-jsonschema's, made with the data) say are invalid, the peers'
counts must match; a row that does not is marked in the table (its time still stands).

The inputs are the data set repeated --repeat times (default 10: 10,000 records, 12 to 47 MB
of JSON), so that the process start is a small part of a run; NAME.jsonl, NAME.cbor-seq and
NAME.msgpack-seq hold the same records.

usage: schema_bench.py --rosetta build-bench/codec/rosetta --peers build-bench/load/rosetta-cli-peers
                       [--valijson build-bench/load/rosetta-schema-valijson] [--modules build-bench/npm/node_modules]
                       [--warm-rosetta build-bench/load/rosetta-schema-warm]
                       [--data build-bench/schema] [--runs 5] [--warm-runs 10] [--warm-procs 3] [--repeat 10]
                       [--seed 42]
                       [--count 1000] [--only NAMES] [--out FILE]
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_DIR = os.path.join(HERE, 'schema')
sys.path.insert(0, SCHEMA_DIR)
import schemadata  # noqa: E402

MIB = 1 << 20
ERROR_LINE = re.compile(r'^rosetta: (\S+) at byte (\d+) \(/(\d+)')
FORMATS = (('json', 'jsonl', 'JSON'), ('cbor', 'cbor-seq', 'CBOR'), ('msgpack', 'msgpack-seq', 'MessagePack'))
# rosetta-schema-warm's runs: key, with the schema, file, --format.
WARM_ROSETTA = (('rosetta', True, 'jsonl', 'json'), ('rosetta_plain', False, 'jsonl', 'json'),
                ('rosetta_cbor', True, 'cbor-seq', 'cbor'), ('rosetta_msgpack', True, 'msgpack-seq', 'msgpack'))
WARM_EXT = {key: ext for key, _, ext, _ in WARM_ROSETTA}
BAR = 1.5  # validate --seq --schema may take at most 1.5x validate --seq without one


def run(peers, argv):
    """One process: (wall s, peak RSS bytes, exit code, stdout, stderr, CPU s)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile('r') as result:
        p = subprocess.Popen([peers, 'run', result.name] + argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        p.wait()
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(errors='replace'), err.read().decode(errors='replace')
        fields = result.read().split()
    if p.returncode != 0 or len(fields) != 5:
        raise RuntimeError('rosetta-cli-peers run failed: %s' % (stderr.strip()[:300] or p.returncode))
    return float(fields[0]), int(fields[1]) * 1024, int(fields[2]), stdout, stderr, float(fields[3]) + float(fields[4])


def has_schema(rosetta):
    with tempfile.NamedTemporaryFile('w', suffix='.schema.json') as s:
        s.write('{"type": "object"}\n')
        s.flush()
        p = subprocess.run([rosetta, 'validate', '--format', 'json', '--seq', '--keep-going', '--schema', s.name, '-'],
                           input=b'{"a":1}\n[]\n', capture_output=True)
    return p.returncode == 1 and ERROR_LINE.match(p.stderr.decode(errors='replace')) is not None


def uses_format(schema):
    if isinstance(schema, dict):
        return 'format' in schema and isinstance(schema['format'], str) or any(uses_format(v) for v in schema.values())
    if isinstance(schema, list):
        return any(uses_format(v) for v in schema)
    return False


class Row:
    def __init__(self, key, label, argv, path, records, expect_invalid, check):
        self.key, self.label, self.argv, self.path = key, label, argv, path
        self.size = os.path.getsize(path)
        self.records, self.expect_invalid, self.check = records, expect_invalid, check
        self.runs, self.error, self.verdict = [], None, None

    def med(self, i):
        return statistics.median(x[i] for x in self.runs) if self.runs and not self.error else None

    def seconds(self):
        return self.med(0)

    def rss(self):
        return self.med(1)

    def mbps(self):
        s = self.seconds()
        return self.size / s / 1e6 if s else None

    def rps(self):
        s = self.seconds()
        return self.records / s if s else None


def check_rosetta(row, code, stdout, stderr):
    """'ok' or what differs: the records rosetta's error lines name against the expected count."""
    named, other = set(), []
    for line in stderr.splitlines():
        m = ERROR_LINE.match(line)
        if m and m.group(1) == 'schema_violation':
            named.add(int(m.group(3)))
        elif line.strip():
            other.append(line)
    want_code = 1 if row.expect_invalid else 0
    if other:
        return 'other errors: %s' % other[0][:120]
    if len(named) != row.expect_invalid or code != want_code:
        return '%d records invalid, exit %d (expected %d, exit %d)' % (len(named), code, row.expect_invalid, want_code)
    return 'ok'


def check_peer(row, code, stdout, stderr):
    try:
        got = json.loads(stdout.strip().splitlines()[-1])['invalid']
    except (ValueError, IndexError, KeyError):
        return 'no result: %s' % (stderr.strip()[:120] or stdout.strip()[:120])
    want_code = 1 if row.expect_invalid else 0
    if got != row.expect_invalid or code != want_code:
        return '%d records invalid, exit %d (expected %d, exit %d)' % (got, code, row.expect_invalid, want_code)
    return 'ok'


def fmt(v, spec, missing='—'):
    return missing if v is None else format(v, spec)


def ratio(a, b, spec='.2f'):
    return '%sx' % format(a / b, spec) if a and b else '—'


def main():
    root = os.path.abspath(os.path.join(HERE, '..', '..'))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--rosetta', required=True)
    ap.add_argument('--peers', required=True, help='rosetta-cli-peers (its `run` times a process)')
    ap.add_argument('--valijson', help='rosetta-schema-valijson (no valijson rows without it)')
    ap.add_argument('--warm-rosetta', help='rosetta-schema-warm (no rosetta warm rows without it)')
    ap.add_argument('--modules', default=os.path.join(root, 'build-bench', 'npm', 'node_modules'),
                    help='node_modules with ajv (load/bench/schema/npm_peers.sh); no ajv rows without it')
    ap.add_argument('--data', default=os.path.join(root, 'build-bench', 'schema'))
    ap.add_argument('--corpus', default=schemadata.DEFAULT_CORPUS)
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--warm-runs', type=int, default=10)
    ap.add_argument('--warm-procs', type=int, default=3)
    ap.add_argument('--repeat', type=int, default=10)
    ap.add_argument('--seed', type=int, default=42)
    ap.add_argument('--count', type=int, default=1000)
    ap.add_argument('--only', help='comma-separated data set names')
    ap.add_argument('--out', help='the markdown also goes here (default DATA/schema_bench.md)')
    args = ap.parse_args()
    rosetta, peers = os.path.abspath(args.rosetta), os.path.abspath(args.peers)
    valijson = os.path.abspath(args.valijson) if args.valijson and os.path.exists(args.valijson) else None
    warm_rosetta = (os.path.abspath(args.warm_rosetta)
                    if args.warm_rosetta and os.path.exists(args.warm_rosetta) else None)
    modules = os.path.abspath(args.modules) if os.path.isdir(args.modules) else None
    names = args.only.split(',') if args.only else schemadata.DATASETS
    data = os.path.abspath(args.data)
    base = os.path.join(data, 'base')

    # The data: made once per seed and count (schemadata.py bench), then repeated.
    manifest_path = os.path.join(base, 'manifest.json')
    manifest = json.load(open(manifest_path)) if os.path.exists(manifest_path) else {}
    stale = [n for n in names if manifest.get(n, {}).get('seed') != args.seed or
             manifest.get(n, {}).get('records') != args.count or
             manifest.get(n, {}).get('source') != schemadata.fingerprint(n)]
    if stale:
        print('schema_bench: making the data sets %s in %s' % (', '.join(stale), base), file=sys.stderr)
        subprocess.run([sys.executable, os.path.join(SCHEMA_DIR, 'schemadata.py'), 'bench', '--out', base,
                        '--seed', str(args.seed), '--count', str(args.count), '--corpus', args.corpus,
                        '--only', ','.join(stale)], check=True)
        manifest = json.load(open(manifest_path))
        for old in os.listdir(data):  # the repeated inputs of the old data
            if re.fullmatch(r'x[0-9]+', old):
                for name in stale:
                    for ext in ('jsonl', 'cbor-seq', 'msgpack-seq', 'one.jsonl'):
                        path = os.path.join(data, old, '%s.%s' % (name, ext))
                        if os.path.exists(path):
                            os.remove(path)
    rep = os.path.join(data, 'x%d' % args.repeat)
    os.makedirs(rep, exist_ok=True)
    for name in names:
        for _, ext, _ in FORMATS:
            dst = os.path.join(rep, '%s.%s' % (name, ext))
            if not os.path.exists(dst):
                blob = open(os.path.join(base, '%s.%s' % (name, ext)), 'rb').read()
                with open(dst + '.partial', 'wb') as f:
                    for _ in range(args.repeat):
                        f.write(blob)
                os.replace(dst + '.partial', dst)
        one = os.path.join(rep, name + '.one.jsonl')
        if not os.path.exists(one):  # the first valid record
            with open(os.path.join(base, name + '.jsonl'), 'rb') as f, open(os.path.join(base, name + '.verdicts')) as v:
                first = next(line for line, ok in zip(f, v) if ok.strip() == '1')
            with open(one, 'wb') as f:
                f.write(first)

    schema_ok = has_schema(rosetta)
    if not schema_ok:
        print('schema_bench: %s has no working --schema option: its schema rows are n/a' % rosetta, file=sys.stderr)
    node_ok = modules is not None and shutil.which('node') is not None
    if not node_ok:
        print('schema_bench: no node or no %s: no ajv rows (run load/bench/schema/npm_peers.sh)' % args.modules,
              file=sys.stderr)
    if not valijson:
        print('schema_bench: no rosetta-schema-valijson: no valijson rows', file=sys.stderr)

    results = {}
    ajv_script = os.path.join(SCHEMA_DIR, 'ajv_peer.cjs')
    for name in names:
        m = manifest[name]
        schema = os.path.join(base, name + '.schema.json')
        draft7 = os.path.join(base, name + '.draft7.schema.json')
        with open(schema) as f:
            has_formats = uses_format(json.load(f))
        records, invalid = m['records'] * args.repeat, m['invalid'] * args.repeat
        P = lambda ext: os.path.join(rep, '%s.%s' % (name, ext))  # noqa: E731
        B = lambda ext: os.path.join(base, '%s.%s' % (name, ext))  # noqa: E731
        rows = []
        for f_, ext, label in FORMATS:
            rows.append(Row('rosetta_' + f_, 'rosetta validate --format %s --seq --keep-going --schema S' % f_,
                            [rosetta, 'validate', '--format', f_, '--seq', '--keep-going', '--schema', schema, P(ext)],
                            P(ext), records, invalid, check_rosetta))
        for f_, ext, label in FORMATS:
            rows.append(Row('plain_' + f_, 'rosetta validate --format %s --seq --keep-going (no schema)' % f_,
                            [rosetta, 'validate', '--format', f_, '--seq', '--keep-going', P(ext)],
                            P(ext), records, 0, check_rosetta))
        rows.append(Row('rosetta_all_errors', 'rosetta validate --format json --seq --keep-going --all-errors --schema S',
                        [rosetta, 'validate', '--format', 'json', '--seq', '--keep-going', '--all-errors', '--schema',
                         schema, P('jsonl')], P('jsonl'), records, invalid, check_rosetta))
        if has_formats:
            rows.append(Row('rosetta_format_assertion',
                            'rosetta validate --format json --seq --keep-going --format-assertion --schema S',
                            [rosetta, 'validate', '--format', 'json', '--seq', '--keep-going', '--format-assertion',
                             '--schema', schema, P('jsonl')], P('jsonl'), records, invalid, check_rosetta))
        rows.append(Row('load_schema', 'rosetta validate --format json --seq --schema S ONE (1 record)',
                        [rosetta, 'validate', '--format', 'json', '--seq', '--schema', schema, P('one.jsonl')],
                        P('one.jsonl'), 1, None, None))
        rows.append(Row('load_plain', 'rosetta validate --format json --seq ONE (1 record)',
                        [rosetta, 'validate', '--format', 'json', '--seq', P('one.jsonl')], P('one.jsonl'), 1, None, None))
        if node_ok:
            rows.append(Row('ajv', 'node ajv_peer.cjs once S (ajv, JSON.parse + validate per line)',
                            ['node', ajv_script, '--modules', modules, 'once', schema, P('jsonl')], P('jsonl'),
                            records, invalid, check_peer))
            if has_formats:
                rows.append(Row('ajv_formats', 'node ajv_peer.cjs once --formats S (ajv-formats asserted)',
                                ['node', ajv_script, '--modules', modules, 'once', '--formats', schema, P('jsonl')],
                                P('jsonl'), records, invalid, check_peer))
        if valijson:
            rows.append(Row('valijson', 'rosetta-schema-valijson once S7 (draft 7; RapidJSON parse per line)',
                            [valijson, 'once', draft7, P('jsonl')], P('jsonl'), records, invalid, check_peer))
        for r in rows:
            if not schema_ok and '--schema' in r.argv and r.argv[0] == rosetta:
                r.error = 'n/a (rosetta has no --schema)'
        live = [r for r in rows if not r.error]
        print('schema_bench: %s: %d commands x %d runs' % (name, len(live), args.runs), file=sys.stderr)
        for r in live:  # the warm-up run, and the verdicts
            _, _, code, out, err, _ = run(peers, r.argv)
            if r.check:
                r.verdict = r.check(r, code, out, err)
            elif code != 0:
                r.error = 'fails: exit %d: %s' % (code, err.strip()[:200])
        live = [r for r in live if not r.error]
        for i in range(args.runs):
            for r in live[i % len(live):] + live[:i % len(live)]:
                seconds, rss, code, _, _, cpu = run(peers, r.argv)
                r.runs.append((seconds, rss, cpu))
        # The warm harnesses: --warm-procs processes each, by turns; the one with the median pass
        # stands (a burst of load on the shared machine then spoils one process, not the row).
        warm_cmds = {}
        if node_ok:
            warm_cmds['ajv'] = ['node', ajv_script, '--modules', modules, 'warm', schema, B('jsonl')]
        if valijson:
            warm_cmds['valijson'] = [valijson, 'warm', draft7, B('jsonl')]
        if warm_rosetta:
            for key, s, ext, fmt_ in WARM_ROSETTA:
                warm_cmds[key] = [warm_rosetta, 'warm', schema if s else '-', B(ext), '--format', fmt_]
        got = {key: [] for key in warm_cmds}
        for _ in range(args.warm_procs):
            for key, argv in warm_cmds.items():
                p = subprocess.run(argv + ['--runs', str(args.warm_runs)], capture_output=True, text=True)
                got[key].append(json.loads(p.stdout) if p.returncode == 0 else {'error': p.stderr.strip()[:200]})
        warm = {}
        for key, outs in got.items():
            good = sorted((o for o in outs if 'median_s' in o), key=lambda o: o['median_s'])
            warm[key] = good[len(good) // 2] if len(good) == len(outs) else next(o for o in outs if 'error' in o)
        for key, w in warm.items():
            if 'invalid' in w:  # the warm loops read the data set once (not repeated)
                expected = 0 if key == 'rosetta_plain' else m['invalid']
                w['verdict'] = 'ok' if w['invalid'] == expected else '%d records invalid (expected %d)' % (
                    w['invalid'], expected)
        results[name] = (rows, warm, m, has_formats)

    # The report.
    rel = lambda a: os.path.relpath(a, root) if os.path.isabs(a) and a.startswith(os.path.dirname(root)) else a  # noqa: E731
    lines = []
    p = lines.append
    commit = subprocess.run(['git', '-C', root, 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()
    dirty = len(subprocess.run(['git', '-C', root, 'status', '--porcelain', '--', 'codec'], capture_output=True,
                               text=True).stdout.splitlines())
    if dirty:
        commit += ' + %d uncommitted codec/ files' % dirty
    cpu = next((l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo') if l.startswith('model name')), '?')
    node_v = subprocess.run(['node', '--version'], capture_output=True, text=True).stdout.strip() if node_ok else 'n/a'
    vj = subprocess.run(['dpkg-query', '-W', '-f=${Version}', 'libvalijson-dev'], capture_output=True, text=True).stdout
    p('Run %s on %d x %s, commit %s; rosetta: `%s`; load average %s after. Medians of %d runs (wall time of the '
      'whole process, warm page cache), rounds rotating through a data set\'s commands; warm rows: one process '
      'each (the median of %d such processes, run by turns), the median of %d timed runs (each as many passes '
      'over the data set as take 0.2 s) after 1 s of warm-up. MB/s = 10^6 bytes of the command\'s own input per second; '
      'RSS = peak resident set (wait4 ru_maxrss; warm rows: the process\'s own figure). Peers: ajv 8.17.1 on node %s '
      '(2020-12, strict off, format an annotation unless --formats: ajv-formats 3.0.1), valijson %s over RapidJSON '
      '1.1.0 (draft-7 versions of the schemas, format dropped: schemadata.py to_draft7).' % (
          time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), os.cpu_count(), cpu, commit, rel(rosetta),
          ' '.join(open('/proc/loadavg').read().split()[:3]), args.runs, args.warm_procs, args.warm_runs, node_v,
          vj or 'n/a'))
    p('')
    p('Data sets (seed %d, each repeated %d times in the timed inputs; "invalid" records are mutated ones '
      'python3-jsonschema refuses, and every command must refuse exactly those):' % (args.seed, args.repeat))
    p('')
    p('| data set | schema | records | invalid | JSON bytes | CBOR bytes | MessagePack bytes | draft-7 version |')
    p('|---|---|---:|---:|---:|---:|---:|---|')
    for name in names:
        m = results[name][2]
        notes = '; '.join(m.get('draft7_notes') or []) or 'exact'
        p('| %s | `load/bench/schema/schemas/%s.schema.json` | %s | %s | %s | %s | %s | %s |' % (
            name, name, f"{m['records'] * args.repeat:,}", f"{m['invalid'] * args.repeat:,}",
            f"{m['bytes']['jsonl'] * args.repeat:,}", f"{m['bytes']['cbor-seq'] * args.repeat:,}",
            f"{m['bytes']['msgpack-seq'] * args.repeat:,}", notes))
    p('')
    p('Summary (ratios of whole-process wall times unless marked warm; above 1: rosetta is faster, or the second '
      'is slower):')
    p('')
    p('| data set | rosetta JSON MB/s | records/s | vs ajv | vs ajv warm | vs valijson | vs valijson warm | '
      'schema / no schema: JSON | CBOR | MessagePack | bar <= %.1fx | CBOR / JSON time | MessagePack / JSON time |' % BAR)
    p('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|')
    warm_lines = []
    bars = []
    for name in names:
        rows, warm, m, _ = results[name]
        by = {r.key: r for r in rows}
        rj = by['rosetta_json']
        t = lambda k: by[k].seconds() if k in by else None  # noqa: E731
        aw, vw = warm.get('ajv', {}), warm.get('valijson', {})
        cost = {f_: (t('rosetta_' + f_) / t('plain_' + f_) if t('rosetta_' + f_) and t('plain_' + f_) else None)
                for f_, _, _ in FORMATS}
        met = [c <= BAR for c in cost.values() if c is not None]
        bar = '—' if not met else 'yes' if all(met) else '**no**'
        bars.append((name, cost, bar))
        p('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            name, fmt(rj.mbps(), ',.0f'), fmt(rj.rps(), ',.0f'),
            ratio(t('ajv'), t('rosetta_json')),
            ratio(rj.mbps(), aw.get('mbps')),
            ratio(t('valijson'), t('rosetta_json')),
            ratio(rj.mbps(), vw.get('mbps')),
            fmt(cost['json'], '.2f'), fmt(cost['cbor'], '.2f'), fmt(cost['msgpack'], '.2f'), bar,
            ratio(t('rosetta_cbor'), t('rosetta_json')), ratio(t('rosetta_msgpack'), t('rosetta_json'))))
        rw, pw = warm.get('rosetta', {}), warm.get('rosetta_plain', {})
        cw, mw = warm.get('rosetta_cbor', {}), warm.get('rosetta_msgpack', {})
        warm_lines.append('| %s | %s | %s | %s | %s | %s | %s |' % (
            name, fmt(rw.get('mbps'), ',.0f'), ratio(rw.get('mbps'), aw.get('mbps')),
            ratio(rw.get('mbps'), vw.get('mbps')), ratio(rw.get('median_s'), pw.get('median_s')),
            ratio(cw.get('median_s'), rw.get('median_s')), ratio(mw.get('median_s'), rw.get('median_s'))))
    p('')
    if warm_rosetta:
        p('Warm against warm (every side in-process: the schema compiled and the data set read once, the median '
          'pass over its records; rosetta: rosetta-schema-warm, the CLI\'s `validate --seq --keep-going` without '
          'the process start and the file read):')
        p('')
        p('| data set | rosetta warm JSON MB/s | vs ajv warm | vs valijson warm | schema / no schema, warm | '
          'CBOR / JSON time, warm | MessagePack / JSON time, warm |')
        p('|---|---:|---:|---:|---:|---:|---:|')
        lines.extend(warm_lines)
        p('')
    p('Schema load / compile, ms (rosetta: a one-record run with the schema less the same without, 0 when within '
      'the noise; ajv: '
      '`ajv.compile`, median of 5, in a fresh Ajv each; valijson: RapidJSON parse of the schema + '
      '`SchemaParser::populateSchema`, median of 5):')
    p('')
    p('| data set | rosetta | ajv | valijson | rosetta 1-record process ms | peak RSS MiB: rosetta JSON | no schema | ajv | '
      'ajv warm | valijson | valijson warm |')
    p('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    for name in names:
        rows, warm, m, _ = results[name]
        by = {r.key: r for r in rows}
        ls, lp = by['load_schema'].seconds(), by['load_plain'].seconds()
        rss = lambda k: by[k].rss() / MIB if k in by and by[k].rss() else None  # noqa: E731
        aw, vw = warm.get('ajv', {}), warm.get('valijson', {})
        p('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            name, fmt(max(0.0, (ls - lp) * 1e3) if ls and lp else None, '.2f'), fmt(aw.get('compile_ms'), '.2f'),
            fmt(vw.get('compile_ms'), '.2f'), fmt(ls * 1e3 if ls else None, '.2f'),
            fmt(rss('rosetta_json'), '.1f'), fmt(rss('plain_json'), '.1f'), fmt(rss('ajv'), '.1f'),
            fmt(aw['rss_bytes'] / MIB if 'rss_bytes' in aw else None, '.1f'), fmt(rss('valijson'), '.1f'),
            fmt(vw['peak_rss_kib'] / 1024 if 'peak_rss_kib' in vw else None, '.1f')))
    p('')
    p('Memory a loaded schema holds, KiB (from the warm harnesses; rosetta and valijson: the malloc heap in use '
      '(mallinfo2) after a second load of the schema, kept, less before it; rosetta compiled: what that load '
      'counts against max_schema_bytes; ajv: the JS heap (heapUsed after full collections) that 10 more '
      'compilations, each run once on a record, hold, over 10):')
    p('')
    p('| data set | rosetta | rosetta compiled | ajv | valijson |')
    p('|---|---:|---:|---:|---:|')
    for name in names:
        warm = results[name][1]
        kib = lambda w, k: w[k] / 1024 if k in w else None  # noqa: E731
        rw, aw, vw = warm.get('rosetta', {}), warm.get('ajv', {}), warm.get('valijson', {})
        p('| %s | %s | %s | %s | %s |' % (
            name, fmt(kib(rw, 'schema_heap_bytes'), ',.0f'), fmt(kib(rw, 'compiled_bytes'), ',.0f'),
            fmt(kib(aw, 'schema_heap_bytes'), ',.0f'), fmt(kib(vw, 'schema_heap_bytes'), ',.0f')))
    p('')
    for name in names:
        rows, warm, m, has_formats = results[name]
        p('### %s' % name)
        p('')
        p('| command | input | median s | range s | MB/s | records/s | peak RSS MiB | verdicts |')
        p('|---|---|---:|---:|---:|---:|---:|---|')
        for r in rows:
            if r.key.startswith('load_'):
                continue
            input_name = os.path.basename(r.path)
            if r.error:
                p('| `%s` | %s | %s | | | | | |' % (r.label, input_name, r.error))
                continue
            span = '%.3f–%.3f' % (min(x[0] for x in r.runs), max(x[0] for x in r.runs))
            verdict = r.verdict if r.verdict == 'ok' else '**%s**' % r.verdict
            p('| `%s` | %s | %.3f | %s | %s | %s | %s | %s |' % (
                r.label, input_name, r.seconds(), span, fmt(r.mbps(), ',.0f'), fmt(r.rps(), ',.0f'),
                fmt(r.rss() / MIB, '.1f'), verdict))
        for key, label in (('ajv', 'ajv warm, in-process (JSON.parse + validate per line)'),
                           ('valijson', 'valijson warm, in-process (RapidJSON parse + validate per line)'),
                           ('rosetta', 'rosetta warm, in-process (validate --seq --schema S, JSON)'),
                           ('rosetta_plain', 'rosetta warm, in-process (validate --seq, no schema, JSON)'),
                           ('rosetta_cbor', 'rosetta warm, in-process (validate --seq --schema S, CBOR)'),
                           ('rosetta_msgpack', 'rosetta warm, in-process (validate --seq --schema S, MessagePack)')):
            w = warm.get(key)
            if w is None:
                continue
            input_name = '%s.%s' % (name, WARM_EXT.get(key, 'jsonl'))
            if 'error' in w:
                p('| %s | %s | fails: %s | | | | | |' % (label, input_name, w['error']))
                continue
            runs = w.get('runs_s') or [w['median_s']]
            rss = w.get('rss_bytes', w.get('peak_rss_kib', 0) * 1024)
            verdict = w['verdict'] if w['verdict'] == 'ok' else '**%s**' % w['verdict']
            p('| %s | %s (once, not repeated) | %.3f | %.3f–%.3f | %s | %s | %s | %s |' % (
                label, input_name, w['median_s'], min(runs), max(runs), fmt(w['mbps'], ',.0f'),
                fmt(w['records_per_s'], ',.0f'), fmt(rss / MIB, '.1f'), verdict))
        p('')
    p('Bar: `validate --seq --schema` within %.1fx of `validate --seq` without a schema, per format (wall time):' % BAR)
    p('')
    p('| data set | JSON | CBOR | MessagePack | met |')
    p('|---|---:|---:|---:|---|')
    for name, cost, bar in bars:
        p('| %s | %s | %s | %s | %s |' % (name, fmt(cost['json'], '.2f'), fmt(cost['cbor'], '.2f'),
                                         fmt(cost['msgpack'], '.2f'), bar))
    p('')
    p('Commands (S: `%s/NAME.schema.json`, S7: its draft-7 version, FILE: `%s/NAME.{jsonl,cbor-seq,msgpack-seq}`):' % (
        rel(base), rel(rep)))
    p('')
    p('```sh')
    p('/usr/bin/python3 load/bench/schema/schemadata.py bench --out %s --seed %d --count %d' % (
        rel(base), args.seed, args.count))
    for r in results[names[0]][0]:
        p(' '.join(rel(a) for a in r.argv))
    if node_ok:
        p('node load/bench/schema/ajv_peer.cjs --modules %s warm S %s/NAME.jsonl --runs %d' % (
            rel(modules), rel(base), args.warm_runs))
    if valijson:
        p('%s warm S7 %s/NAME.jsonl --runs %d' % (rel(valijson), rel(base), args.warm_runs))
    if warm_rosetta:
        for _, s, ext, fmt_ in WARM_ROSETTA:
            p('%s warm %s %s/NAME.%s --format %s --runs %d' % (rel(warm_rosetta), 'S' if s else '-', rel(base), ext,
                                                               fmt_, args.warm_runs))
    p('```')
    text = '\n'.join(lines) + '\n'
    sys.stdout.write(text)
    with open(args.out or os.path.join(data, 'schema_bench.md'), 'w') as f:
        f.write(text)


if __name__ == '__main__':
    main()
