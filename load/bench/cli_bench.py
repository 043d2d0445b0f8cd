#!/usr/bin/python3
"""Whole-process CLI benchmark: `rosetta transcode` and `rosetta validate` as a user runs them
(process start, reading the file or a pipe, the transcode, writing the output), side by side
with the peer libraries' whole-file paths (rosetta-cli-peers), on the same files in the same run.

Each command runs --runs times (default 5) after one untimed warm-up run (the inputs stay in
the page cache); the rounds rotate through every command, so a drift in the machine's load
touches every row alike. Per command: the median wall time of the process from fork to exit
(for `cat FILE | rosetta ...`, rosetta's; it cannot end before cat has written everything), MB/s
of input (10^6 bytes), and the process's peak RSS from wait4's rusage (ru_maxrss), median over
the runs. Both are taken by `rosetta-cli-peers run`, which forks the command.
The bars are reported, met or not; nothing here fails on speed.

Data (made once, reused when present; env ROSETTA_CLI_BENCH_DATA or --data):
  corpus3.json       the simdjson corpus' twitter, citm_catalog, canada, gsoc-2018, mesh,
                     github_events, update-center, instruments, three times over, in one array
  corpus3.cbor/.msgpack   the same converted once by the rosetta under test
  bytes256.cbor      one CBOR byte string of 256 MiB (head 0x5a + 4-byte length)
  logs.jsonl         JSON Lines of log records, 1 GiB (rosetta-cli-peers jsonl-logs, --seed)
  logs.cbor-seq, logs.msgpack-seq   the same as a CBOR sequence / MessagePack values, made
                     with `rosetta transcode --seq` (rows n/a while rosetta has no --seq)
  logs_doc.json/.cbor/.msgpack   the first 56 MB of those records as one array, so that a
                     sequence's MB/s can be set beside the same records as one document

usage: cli_bench.py --rosetta build-bench/codec/rosetta --peers build-bench/load/rosetta-cli-peers
                    [--data build-bench/cli] [--corpus ../shared/data/corpus] [--runs 5]
                    [--seed 42] [--jsonl-bytes 1073741824] [--out FILE]
"""
import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

MIB = 1 << 20
CORPUS = ['twitter', 'citm_catalog', 'canada', 'gsoc-2018', 'mesh', 'github_events', 'update-center',
          'instruments']
# The 256 MiB byte string needs limits above the CLI's defaults (64 MiB input and string,
# 256 MiB output): the row measures the transcode, not a refusal.
BIG_LIMITS = ['--max-input-bytes', '1073741824', '--max-string-bytes', '1073741824',
              '--max-output-bytes', '1073741824', '--max-alloc-bytes', '1073741824']
# The log records as one document too, so that a sequence's MB/s can be set beside the same
# records' (the corpus document's MB/s differ by data shape as much as by mode).
LOGS_DOC_BYTES = 56 * 10**6


def made(path, make):
    """Makes `path` with make(tmp) unless it exists; a run cut short leaves no partial file."""
    if not os.path.exists(path):
        tmp = path + '.partial'
        print('cli_bench: making %s' % path, file=sys.stderr)
        make(tmp)
        os.replace(tmp, path)
    return path


def run(peers, argv, stdin_file=None):
    """One process (or `cat stdin_file | argv`): wall seconds, peak RSS bytes, exit code, stderr
    line, CPU seconds (user + system).

    The process is started by `rosetta-cli-peers run`: a child's ru_maxrss starts from the RSS
    of the process it was forked from (the kernel keeps the old mm's high-water mark across
    exec), which for this Python runner would be 10 MiB or more."""
    with tempfile.TemporaryFile() as err, tempfile.NamedTemporaryFile('r') as result:
        cat = subprocess.Popen(['cat', stdin_file], stdout=subprocess.PIPE) if stdin_file else None
        p = subprocess.Popen([peers, 'run', result.name] + argv, stdin=cat.stdout if cat else subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=err)
        if cat:
            cat.stdout.close()  # the child holds the only read end: cat sees EPIPE if it stops
        p.wait()
        if cat:
            cat.wait()
        err.seek(0)
        message = err.read().decode(errors='replace').strip().splitlines()
        fields = result.read().split()
    if p.returncode != 0 or len(fields) != 5:
        raise RuntimeError('rosetta-cli-peers run failed: %s' % (message[0] if message else p.returncode))
    return (float(fields[0]), int(fields[1]) * 1024, int(fields[2]), message[0] if message else '',
            float(fields[3]) + float(fields[4]))


def check(argv, what):
    p = subprocess.run(argv, capture_output=True)
    if p.returncode != 0:
        raise RuntimeError('%s: exit %d: %s' % (what, p.returncode, p.stderr.decode(errors='replace').strip()))


def has_seq(rosetta):
    p = subprocess.run([rosetta, 'transcode', '--seq', '--from', 'json', '--to', 'json', '-'],
                       input=b'{"a":1}\n\n{"b":[2]}\n', capture_output=True)
    return p.returncode == 0 and p.stdout.split() == [b'{"a":1}', b'{"b":[2]}']


class Row:
    def __init__(self, key, label, argv, input_path, pipe=False, note=''):
        self.key, self.label, self.argv, self.input, self.pipe, self.note = key, label, argv, input_path, pipe, note
        self.size = os.path.getsize(input_path) if input_path and os.path.exists(input_path) else 0
        self.runs, self.error = [], None  # (seconds, rss bytes, cpu seconds)

    def seconds(self):
        return statistics.median(x[0] for x in self.runs) if self.runs and not self.error else None

    def rss(self):
        return statistics.median(x[1] for x in self.runs) if self.runs and not self.error else None

    def cpu(self):
        return statistics.median(x[2] for x in self.runs) if self.runs and not self.error else None

    def mbps(self):
        s = self.seconds()
        return self.size / s / 1e6 if s else None


def fmt(v, spec, missing='—'):
    return missing if v is None else format(v, spec)


def main():
    root = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--rosetta', required=True)
    ap.add_argument('--peers', required=True, help='rosetta-cli-peers')
    ap.add_argument('--data', default=os.environ.get('ROSETTA_CLI_BENCH_DATA', os.path.join(root, 'build-bench', 'cli')))
    ap.add_argument('--corpus', default=os.path.join(
        os.environ.get('ROSETTA_DATA_DIR', os.path.join(os.path.dirname(root), 'shared', 'data')), 'corpus'))
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--seed', type=int, default=42)
    ap.add_argument('--jsonl-bytes', type=int, default=1 << 30)
    ap.add_argument('--out', help='the markdown also goes here (default DATA/cli_bench.md)')
    args = ap.parse_args()
    rosetta, peers, data = os.path.abspath(args.rosetta), os.path.abspath(args.peers), os.path.abspath(args.data)
    out = os.path.join(data, 'out')
    os.makedirs(out, exist_ok=True)
    D = lambda name: os.path.join(data, name)  # noqa: E731
    O = lambda name: os.path.join(out, name)  # noqa: E731

    # The data.
    def corpus3(tmp):
        docs = [open(os.path.join(args.corpus, n + '.json'), 'rb').read().strip() for n in CORPUS]
        with open(tmp, 'wb') as f:
            f.write(b'[' + b','.join(docs * 3) + b']\n')

    def bytes256(tmp):
        block = random.Random(args.seed).randbytes(MIB)
        with open(tmp, 'wb') as f:
            f.write(b'\x5a' + (256 * MIB).to_bytes(4, 'big'))
            for _ in range(256):
                f.write(block)

    made(D('corpus3.json'), corpus3)
    for fmt_ in ('cbor', 'msgpack'):
        try:
            made(D('corpus3.' + fmt_), lambda tmp: check(
                [rosetta, 'transcode', '--from', 'json', '--to', fmt_, D('corpus3.json'), '-o', tmp],
                'making corpus3.' + fmt_))
        except RuntimeError as e:
            print('cli_bench: %s' % e, file=sys.stderr)
    made(D('bytes256.cbor'), bytes256)
    made(D('logs.jsonl'), lambda tmp: check([peers, 'jsonl-logs', tmp, str(args.jsonl_bytes), str(args.seed)],
                                            'making logs.jsonl'))

    def logs_doc(tmp):  # the first records of logs.jsonl as one array, under the default 64 MiB input limit
        lines, size = [], 0
        with open(D('logs.jsonl'), 'rb') as f:
            for line in f:
                if size + len(line) > LOGS_DOC_BYTES:
                    break
                lines.append(line.rstrip(b'\n'))
                size += len(line)
        with open(tmp, 'wb') as f:
            f.write(b'[' + b','.join(lines) + b']\n')

    made(D('logs_doc.json'), logs_doc)
    for fmt_ in ('cbor', 'msgpack'):
        try:
            made(D('logs_doc.' + fmt_), lambda tmp: check(
                [rosetta, 'transcode', '--from', 'json', '--to', fmt_, D('logs_doc.json'), '-o', tmp],
                'making logs_doc.' + fmt_))
        except RuntimeError as e:
            print('cli_bench: %s' % e, file=sys.stderr)
    seq = has_seq(rosetta)
    if seq:
        for fmt_ in ('cbor', 'msgpack'):
            try:
                made(D('logs.%s-seq' % fmt_), lambda tmp: check(
                    [rosetta, 'transcode', '--seq', '--from', 'json', '--to', fmt_, D('logs.jsonl'), '-o', tmp],
                    'making logs.%s-seq' % fmt_))
            except RuntimeError as e:
                print('cli_bench: %s' % e, file=sys.stderr)

    # The commands.
    R = lambda *a: [rosetta] + list(a)  # noqa: E731
    rows = [
        Row('json_cbor', 'rosetta transcode --from json --to cbor FILE -o OUT',
            R('transcode', '--from', 'json', '--to', 'cbor', D('corpus3.json'), '-o', O('corpus3.cbor')), D('corpus3.json')),
        Row('nlohmann', 'rosetta-cli-peers nlohmann-json-cbor FILE OUT',
            [peers, 'nlohmann-json-cbor', D('corpus3.json'), O('nlohmann.cbor')], D('corpus3.json')),
        Row('simdjson', 'rosetta-cli-peers simdjson-dom-parse FILE (writes nothing)',
            [peers, 'simdjson-dom-parse', D('corpus3.json')], D('corpus3.json')),
        Row('json_json', 'rosetta transcode --from json --to json FILE -o OUT',
            R('transcode', '--from', 'json', '--to', 'json', D('corpus3.json'), '-o', O('corpus3.json')), D('corpus3.json')),
        Row('rapidjson', 'rosetta-cli-peers rapidjson-json-json FILE OUT (in situ)',
            [peers, 'rapidjson-json-json', D('corpus3.json'), O('rapidjson.json')], D('corpus3.json')),
        Row('rapidjson_stream', 'rosetta-cli-peers rapidjson-stream-json-json FILE OUT (FileReadStream)',
            [peers, 'rapidjson-stream-json-json', D('corpus3.json'), O('rapidjson_stream.json')], D('corpus3.json')),
        Row('cbor_json', 'rosetta transcode --from cbor --to json FILE -o OUT',
            R('transcode', '--from', 'cbor', '--to', 'json', D('corpus3.cbor'), '-o', O('corpus3.cbor.json')),
            D('corpus3.cbor')),
        Row('msgpack_json', 'rosetta transcode --from msgpack --to json FILE -o OUT',
            R('transcode', '--from', 'msgpack', '--to', 'json', D('corpus3.msgpack'), '-o', O('corpus3.msgpack.json')),
            D('corpus3.msgpack')),
        Row('cbor_msgpack', 'rosetta transcode --from cbor --to msgpack FILE -o OUT',
            R('transcode', '--from', 'cbor', '--to', 'msgpack', D('corpus3.cbor'), '-o', O('corpus3.msgpack')),
            D('corpus3.cbor')),
        Row('bytes_msgpack', 'rosetta transcode --from cbor --to msgpack LIMITS FILE -o OUT',
            R('transcode', '--from', 'cbor', '--to', 'msgpack', *BIG_LIMITS, D('bytes256.cbor'), '-o',
              O('bytes256.msgpack')), D('bytes256.cbor')),
        Row('bytes_dd', 'dd if=FILE of=OUT bs=16M (the same 256 MiB copied into a new file: the machine\'s own rate)',
            ['dd', 'if=' + D('bytes256.cbor'), 'of=' + O('dd.bin'), 'bs=16M', 'status=none'], D('bytes256.cbor')),
        Row('bytes_validate', 'rosetta validate --format cbor LIMITS FILE',
            R('validate', '--format', 'cbor', *BIG_LIMITS, D('bytes256.cbor')), D('bytes256.cbor')),
        Row('doc_json_cbor', 'rosetta transcode --from json --to cbor FILE -o OUT',
            R('transcode', '--from', 'json', '--to', 'cbor', D('logs_doc.json'), '-o', O('logs_doc.cbor')),
            D('logs_doc.json')),
        Row('doc_cbor_json', 'rosetta transcode --from cbor --to json FILE -o OUT',
            R('transcode', '--from', 'cbor', '--to', 'json', D('logs_doc.cbor'), '-o', O('logs_doc.cbor.json')),
            D('logs_doc.cbor')),
        Row('doc_msgpack_json', 'rosetta transcode --from msgpack --to json FILE -o OUT',
            R('transcode', '--from', 'msgpack', '--to', 'json', D('logs_doc.msgpack'), '-o', O('logs_doc.msgpack.json')),
            D('logs_doc.msgpack')),
        Row('seq_json_cbor', 'cat FILE | rosetta transcode --seq --from json --to cbor - -o OUT',
            R('transcode', '--seq', '--from', 'json', '--to', 'cbor', '-', '-o', O('logs.cbor-seq')),
            D('logs.jsonl'), pipe=True),
        Row('seq_cbor_json', 'cat FILE | rosetta transcode --seq --from cbor --to json - -o OUT',
            R('transcode', '--seq', '--from', 'cbor', '--to', 'json', '-', '-o', O('logs.cbor-seq.jsonl')),
            D('logs.cbor-seq'), pipe=True),
        Row('seq_msgpack_json', 'cat FILE | rosetta transcode --seq --from msgpack --to json - -o OUT',
            R('transcode', '--seq', '--from', 'msgpack', '--to', 'json', '-', '-o', O('logs.msgpack-seq.jsonl')),
            D('logs.msgpack-seq'), pipe=True),
    ]
    by = {r.key: r for r in rows}
    for r in rows:
        if r.key.startswith('seq_') and not seq:
            r.error = 'n/a (rosetta has no --seq)'
        elif not os.path.exists(r.input):
            r.error = 'n/a (no %s: its conversion failed)' % os.path.basename(r.input)

    # Warm-up, then the rounds. Every run starts without its output file: the previous one is
    # removed after each run, so no run replaces an older file and dirty pages do not pile up.
    # Then sync(2), outside the timing: no run starts while the kernel's flusher threads still
    # write back an earlier run's output (a 1 GiB sequence's) on the same 2 cores.
    def clean(r):
        for a in r.argv:
            a = a[3:] if a.startswith('of=') else a
            if a.startswith(out + os.sep) and os.path.exists(a):
                os.remove(a)
        os.sync()

    # The page cache of this VM does not keep files for long (minutes after a run, a 28 MB
    # input is found with none of its pages cached), so each run's input is read through
    # once just before it, outside the timing: every run starts with its input cached.
    def warm(r):
        if r.input and os.path.exists(r.input):
            with open(r.input, 'rb', buffering=0) as f:
                while f.read(16 << 20):
                    pass
        # This VM hands free memory back to its host (free page reporting, a few seconds
        # after it is freed) and gets it back on first touch, slowly: a run that needs
        # 256 MiB of new page cache took 0.07 s or 0.4 s depending on whether the row
        # before it had just freed that much. So before every run 512 MiB are touched and
        # freed here, and every run starts with memory the guest holds.
        touched = b'\x01' * (512 << 20)
        del touched

    live = [r for r in rows if not r.error]
    for r in live:
        _, _, code, message, _ = run(peers, r.argv, r.input if r.pipe else None)
        clean(r)
        if code != 0:
            r.error = 'fails: exit %d: %s' % (code, message)
    live = [r for r in live if not r.error]
    raw = open(D('cli_bench.tsv'), 'w')
    raw.write('round\trow\tseconds\tmaxrss_bytes\tcpu_seconds\n')
    for i in range(args.runs):
        for r in live[i % len(live):] + live[:i % len(live)]:
            warm(r)
            seconds, rss, code, message, cpu = run(peers, r.argv, r.input if r.pipe else None)
            clean(r)
            if code != 0:
                r.error = 'fails: exit %d: %s' % (code, message)
            r.runs.append((seconds, rss, cpu))
            raw.write('%d\t%s\t%.6f\t%d\t%.6f\n' % (i, r.key, seconds, rss, cpu))
    raw.close()

    # The bars: (row, text, measured text, met or None).
    bars = []

    def ratio_bar(key, peer_key, target, text):
        r, p = by[key], by[peer_key]
        if r.seconds() and p.seconds():
            x = p.seconds() / r.seconds()
            by_cpu = ', by CPU time %.2fx' % (p.cpu() / r.cpu()) if r.cpu() and p.cpu() else ''
            bars.append((key, text, '%.2fx (%.3f s vs %.3f s%s)' % (x, r.seconds(), p.seconds(), by_cpu), x >= target))
        else:
            bars.append((key, text, r.error or p.error or '—', None))

    def rss_bar(key, limit, text):
        r = by[key]
        if r.rss() is not None:
            bars.append((key, text + ' (%.0f MiB)' % (limit / MIB), '%.1f MiB' % (r.rss() / MIB), r.rss() <= limit))
        else:
            bars.append((key, text, r.error or '—', None))

    def speed_bar(key, target_mbps, text):
        r = by[key]
        if r.mbps() is not None:
            bars.append((key, text, '%.0f MB/s' % r.mbps(), r.mbps() >= target_mbps))
        else:
            bars.append((key, text, r.error or '—', None))

    def fraction_bar(key, base_key, fraction, text):
        r, b = by[key], by[base_key]
        if r.mbps() is not None and b.mbps() is not None:
            x = r.mbps() / b.mbps()
            met = 'context' if fraction is None else x >= fraction
            bars.append((key, text, '%.0f%% (%.0f vs %.0f MB/s)' % (100 * x, r.mbps(), b.mbps()), met))
        else:
            bars.append((key, text, r.error or b.error or '—', None))

    ratio_bar('json_cbor', 'nlohmann', 5, 'JSON -> CBOR >= 5x nlohmann (parse + to_cbor + write)')
    ratio_bar('json_cbor', 'simdjson', 1, "JSON -> CBOR no slower than simdjson's DOM parse alone")
    ratio_bar('json_json', 'rapidjson', 2, 'JSON -> JSON >= 2x RapidJSON Reader -> Writer')
    for key in ('json_cbor', 'json_json'):
        rss_bar(key, by[key].size * 2.5, '%s: peak RSS <= input + 1.5x input' % key.replace('_', ' -> '))
    for key in ('cbor_json', 'msgpack_json', 'cbor_msgpack'):
        rss_bar(key, by[key].size + 16 * MIB, '%s: peak RSS <= input + 16 MiB' % key.replace('_', ' -> '))
    for key, what in (('bytes_msgpack', '256 MiB byte string CBOR -> MessagePack'),
                      ('bytes_validate', '256 MiB byte string, validate --format cbor')):
        speed_bar(key, 1000, what + ' >= 1 GB/s')
        rss_bar(key, by[key].size + 16 * MIB, what + ': peak RSS <= input + 16 MiB')
    r, dd = by['bytes_msgpack'], by['bytes_dd']
    if r.mbps() and dd.mbps():
        bars.append(('bytes_msgpack', '256 MiB byte string CBOR -> MessagePack, beside dd writing the same bytes to a new file',
                     '%.0f vs %.0f MB/s (%.0f%%)' % (r.mbps(), dd.mbps(), 100 * r.mbps() / dd.mbps()), 'context'))
    for key, base, what in (('seq_json_cbor', 'json_cbor', 'JSON Lines -> CBOR sequence'),
                            ('seq_cbor_json', 'cbor_json', 'CBOR sequence -> JSON Lines'),
                            ('seq_msgpack_json', 'msgpack_json', 'MessagePack sequence -> JSON Lines')):
        rss_bar(key, 64 * MIB, what + ' from a pipe: peak RSS < 64 MiB')
        pair = base.replace('_', ' -> ').replace('json', 'JSON').replace('cbor', 'CBOR').replace('msgpack', 'MessagePack')
        fraction_bar(key, base, 0.7, what + ' from a pipe >= 70%% of the corpus document\'s %s' % pair)
        fraction_bar(key, 'doc_' + base, None, what + ' from a pipe, beside the same records as one document '
                     '(logs_doc, %s)' % pair)

    peer_of = {'json_cbor': 'nlohmann', 'json_json': 'rapidjson'}
    rel = lambda a: os.path.relpath(a, root) if os.path.isabs(a) and a.startswith(os.path.dirname(root)) else a  # noqa: E731
    lines = []
    p = lines.append
    commit = subprocess.run(['git', '-C', root, 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()
    dirty = len(subprocess.run(['git', '-C', root, 'status', '--porcelain', '--', 'codec'], capture_output=True,
                               text=True).stdout.splitlines())
    if dirty:
        commit += ' + %d uncommitted codec/ files' % dirty
    cpu = next((l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo') if l.startswith('model name')), '?')
    p('Run %s on %d x %s, commit %s (working tree); rosetta: `%s`; load average %s after. Medians of %d runs (wall time of the whole '
      'process; its input read through just before it, so that it is in the page cache; each run writes a new output file, after sync(2)), rounds rotating through the rows; MB/s = 10^6 bytes of input per second; '
      'RSS = the process\'s peak resident set (wait4 ru_maxrss), in MiB.' % (
          time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), os.cpu_count(), cpu, commit, rel(rosetta),
          ' '.join(open('/proc/loadavg').read().split()[:3]), args.runs))
    p('')
    doc_records = open(D('logs_doc.json'), 'rb').read().count(b'{"ts":')
    p('Inputs: `corpus3.json` (%s bytes: the corpus\' %s, three times over, in one array), `corpus3.cbor` (%s) and '
      '`corpus3.msgpack` (%s) made from it by rosetta; `bytes256.cbor` (%s: one byte string of 256 MiB); '
      '`logs.jsonl` (%s bytes, %s log records, seed %d), `logs.cbor-seq` (%s) and `logs.msgpack-seq` (%s) made '
      'from it by `rosetta transcode --seq`; `logs_doc.json` (%s bytes: its first %s records in one array), '
      '`logs_doc.cbor` (%s) and `logs_doc.msgpack` (%s). LIMITS: `%s`.' % (
          f"{by['json_cbor'].size:,}", ', '.join(CORPUS), f"{by['cbor_json'].size:,}", f"{by['msgpack_json'].size:,}",
          f"{by['bytes_msgpack'].size:,}", f"{by['seq_json_cbor'].size:,}",
          f"{sum(1 for _ in open(D('logs.jsonl'), 'rb')):,}", args.seed,
          f"{by['seq_cbor_json'].size:,}" if by['seq_cbor_json'].size else 'n/a',
          f"{by['seq_msgpack_json'].size:,}" if by['seq_msgpack_json'].size else 'n/a',
          f"{by['doc_json_cbor'].size:,}", f"{doc_records:,}",
          f"{by['doc_cbor_json'].size:,}", f"{by['doc_msgpack_json'].size:,}",
          ' '.join(BIG_LIMITS)))
    p('')
    p('| command | input | median s | range s | CPU s | MB/s | peak RSS MiB | RSS − input MiB | vs peer | bars met |')
    p('|---|---|---:|---:|---:|---:|---:|---:|---:|---|')
    for r in rows:
        name = os.path.basename(r.input)
        if r.error:
            p('| `%s` | %s | %s | | | | | | | |' % (r.label.replace('|', '\\|'), name, r.error))
            continue
        s = r.seconds()
        span = '%.3f–%.3f' % (min(x[0] for x in r.runs), max(x[0] for x in r.runs))
        rss = r.rss()
        vs = ''
        if r.key in peer_of and s and by[peer_of[r.key]].seconds():
            vs = '%.2fx %s' % (by[peer_of[r.key]].seconds() / s, peer_of[r.key])
        if r.key == 'json_cbor' and s and by['simdjson'].seconds():
            vs += ', %.2fx simdjson' % (by['simdjson'].seconds() / s)
        mine = [b for b in bars if b[0] == r.key]
        met = ', '.join('yes' if b[3] is True else ('**no**' if b[3] is False else '—') for b in mine
                        if b[3] != 'context')
        p('| `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            r.label.replace('|', '\\|'), name, fmt(s, '.3f'), span, fmt(r.cpu(), '.3f'), fmt(r.mbps(), ',.0f'),
            fmt(rss / MIB if rss is not None else None, '.1f'),
            fmt((rss - r.size) / MIB if rss is not None else None, '.1f'), vs, met))
    p('')
    p('| bar | measured | met |')
    p('|---|---|---|')
    for _, text, measured, met in bars:
        p('| %s | %s | %s |' % (text, measured, 'yes' if met is True else ('**no**' if met is False else (
            'context, not a bar' if met == 'context' else '—'))))
    p('')
    p('CPU s: the process\'s user + system time (median); where it is well below the wall time, the process '
      'waited for a core or for I/O. Vs peer: the peer\'s median wall time over rosetta\'s (above 1: rosetta is '
      'faster). Bars are on wall time. Commands run:')
    p('')
    p('```sh')
    for r in rows:
        p(('cat %s | ' % rel(r.input) if r.pipe else '') + ' '.join(rel(a) for a in r.argv))
    p('```')
    text = '\n'.join(lines) + '\n'
    sys.stdout.write(text)
    with open(args.out or D('cli_bench.md'), 'w') as f:
        f.write(text)


if __name__ == '__main__':
    main()
