"""The CLI's input and output paths as a user meets them (docs/cli.md): -o written through a
temporary file and renamed (no file, and an older file untouched, when the input is
refused), streamed output of a large blob in bounded memory, --seq from a pipe that
delivers records slowly, the progress line (on a terminal only), --keep-going, and
varint-delimited protobuf sequences against Python's protobuf encoding.

usage: cli_stream_test.py ROSETTA SOURCE_DIR [--sanitized]
  --sanitized: a sanitizer build (its memory is not the program's: RSS bounds not checked)
"""
import hashlib
import json
import os
import pty
import random
import select
import struct
import subprocess
import sys
import tempfile
import threading
import time

failures = []


def check(ok, what):
    print('%-4s %s' % ('ok' if ok else 'FAIL', what))
    if not ok:
        failures.append(what)
    return ok


def run(rosetta, args, data=b'', **kw):
    return subprocess.run([rosetta] + args, input=data, capture_output=True, **kw)


def peak_rss(rosetta, args, stdin_path=None):
    """Runs rosetta, output to /dev/null; returns (exit code, peak RSS in bytes)."""
    with open(stdin_path or os.devnull, 'rb') as fin, open(os.devnull, 'wb') as fout:
        p = subprocess.Popen([rosetta] + args, stdin=fin, stdout=fout, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        return p.returncode, usage.ru_maxrss * 1024


def slow_writer(pipe, chunks, seconds):
    """Writes the chunks into pipe spread over `seconds`, then closes it."""
    def go():
        pause = seconds / max(1, len(chunks))
        for c in chunks:
            pipe.write(c)
            pipe.flush()
            time.sleep(pause)
        pipe.close()
    t = threading.Thread(target=go)
    t.start()
    return t


def main():
    rosetta, source_dir = sys.argv[1:3]
    sanitized = '--sanitized' in sys.argv[3:]
    help_text = run(rosetta, ['--help']).stdout.decode()
    with tempfile.TemporaryDirectory(prefix='rosetta-cli-') as tmp:
        # ---- -o: a temporary file beside OUTPUT, renamed when done
        out = os.path.join(tmp, 'out.cbor')
        r = run(rosetta, ['transcode', '--from', 'json', '--to', 'cbor', '-', '-o', out], b'{"a":[1,2]}')
        check(r.returncode == 0 and open(out, 'rb').read() == bytes.fromhex('a161618201 02'.replace(' ', '')),
              '-o writes the output (exit %d)' % r.returncode)
        check(sorted(os.listdir(tmp)) == ['out.cbor'], '-o leaves no temporary file: %r' % os.listdir(tmp))
        mode = os.stat(out).st_mode & 0o777
        check(mode == 0o666 & ~current_umask(), '-o file mode is a plain create\'s (%o)' % mode)
        r = run(rosetta, ['transcode', '--from', 'json', '--to', 'cbor', '-', '-o', out], b'{"a":[1,2}')
        check(r.returncode == 1 and r.stderr.startswith(b'rosetta: syntax at byte'),
              'refused input: exit 1 and the error line (%r)' % r.stderr[:60])
        check(open(out, 'rb').read() == bytes.fromhex('a16161820102'),
              'refused input: the older OUTPUT is untouched')
        check(sorted(os.listdir(tmp)) == ['out.cbor'], 'refused input: no temporary file left')
        fresh = os.path.join(tmp, 'fresh.json')
        r = run(rosetta, ['transcode', '--from', 'cbor', '--to', 'json', '-', '-o', fresh], bytes.fromhex('82 01'.replace(' ', '')))
        check(r.returncode == 1 and not os.path.exists(fresh), 'truncated input: no OUTPUT file at all')
        r = run(rosetta, ['transcode', '--from', 'json', '--to', 'cbor', '-', '-o', os.path.join(tmp, 'no', 'dir', 'x')], b'1')
        check(r.returncode == 2 and b'cannot create' in r.stderr, 'unwritable -o: exit 2 (%r)' % r.stderr[:60])

        # ---- a large blob streams in bounded memory: CBOR byte string -> MessagePack bin 32
        n = 64 << 20
        blob = os.path.join(tmp, 'blob.cbor')
        # A body with no period (a byte from the wrong offset shows), written and hashed 1 MiB
        # at a time: this process never holds 64 MiB while the RSS checks fork rosetta (a
        # child's ru_maxrss starts from its parent's RSS).
        rng = random.Random(5)
        h = hashlib.sha256(b'\xc6' + struct.pack('>I', n))
        shifted = os.path.join(tmp, 'shifted.cbor')
        with open(blob, 'wb') as f, open(shifted, 'wb') as g:
            f.write(b'\x5a' + struct.pack('>I', n))
            g.write(b'skipped' + b'\x5a' + struct.pack('>I', n))
            for _ in range(n >> 20):
                chunk = rng.randbytes(1 << 20)
                f.write(chunk)
                g.write(chunk)
                h.update(chunk)
        want = h.digest()

        def digest(stream):
            d = hashlib.sha256()
            while True:
                chunk = stream.read(1 << 20)
                if not chunk:
                    return d.digest()
                d.update(chunk)

        limits = ['--max-input-bytes', str(n + 100), '--max-output-bytes', str(n + 100),
                  '--max-string-bytes', str(n), '--max-alloc-bytes', str(4 * n)]
        to_mp = ['transcode', '--from', 'cbor', '--to', 'msgpack'] + limits
        out_mp = os.path.join(tmp, 'blob.mp')
        if not sanitized:
            code, rss = peak_rss(rosetta, to_mp + [blob])
            check(code == 0 and rss < n + (16 << 20),
                  '64 MiB blob to stdout: peak RSS %.1f MiB <= input + 16 MiB' % (rss / 2**20))
            code, rss = peak_rss(rosetta, to_mp + ['-'], blob)
            check(code == 0 and rss < n + (16 << 20),
                  'the same blob on stdin (a file): peak RSS %.1f MiB' % (rss / 2**20))
        # The body goes from the input file by copy_file_range (-o), sendfile (a pipe) or
        # write (an output opened O_APPEND takes neither): every way, every byte.
        r = run(rosetta, to_mp + [blob, '-o', out_mp])
        with open(out_mp, 'rb') as f:
            got = digest(f)
        check(r.returncode == 0 and got == want, '64 MiB byte string -> bin 32, -o (exit %d)' % r.returncode)
        os.unlink(out_mp)
        p = subprocess.Popen([rosetta] + to_mp + [blob], stdout=subprocess.PIPE)
        got = digest(p.stdout)
        check(p.wait() == 0 and got == want, 'the same to stdout, a pipe (exit %d)' % p.returncode)
        with open(out_mp, 'wb') as f:
            f.write(b'before')
        with open(out_mp, 'ab') as f:
            code = subprocess.run([rosetta] + to_mp + [blob], stdout=f).returncode
        with open(out_mp, 'rb') as f:
            check(code == 0 and f.read(6) == b'before' and digest(f) == want,
                  'the same appended to a file opened O_APPEND (exit %d)' % code)
        os.unlink(out_mp)
        with open(shifted, 'rb') as f:
            f.seek(7)  # stdin is the file from byte 7 on
            code = subprocess.run([rosetta] + to_mp + ['-', '-o', out_mp], stdin=f).returncode
        with open(out_mp, 'rb') as f:
            got = digest(f)
        check(code == 0 and got == want, 'the same from stdin, a file read from byte 7 (exit %d)' % code)
        os.unlink(out_mp)
        os.unlink(shifted)
        os.unlink(blob)

        # ---- --seq from a pipe, records arriving slowly over 2.5 s
        records = [json.dumps({'i': i, 'msg': 'x' * (i % 50), 'tags': [i, str(i)]}, separators=(',', ':')).encode()
                   for i in range(400)]
        lines = [r + b'\n' for r in records]
        chunks = [b''.join(lines[k:k + 10]) for k in range(0, len(lines), 10)]
        # cut across records: every chunk boundary moved 7 bytes
        stream = b''.join(chunks)
        chunks = [stream[k:k + 337] for k in range(0, len(stream), 337)]
        p = subprocess.Popen([rosetta, 'transcode', '--seq', '--from', 'json', '--to', 'json', '-'],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        t = slow_writer(p.stdin, chunks, 2.5)
        got = p.stdout.read()
        err = p.stderr.read()
        p.wait()
        t.join()
        check(p.returncode == 0 and got == stream, '--seq from a slow pipe: every record, in order')
        check(err == b'', 'no progress line when stderr is not a terminal (%r)' % err[:80])

        # the progress line on a terminal: stderr is a pty
        master, slave = pty.openpty()
        p = subprocess.Popen([rosetta, 'transcode', '--seq', '--from', 'json', '--to', 'cbor', '-'],
                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=slave)
        os.close(slave)
        t = slow_writer(p.stdin, chunks, 3.5)
        seen = b''
        while True:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    data = os.read(master, 4096)
                except OSError:
                    break
                if not data:
                    break
                seen += data
            elif p.poll() is not None:
                break
        p.wait()
        t.join()
        os.close(master)
        check(p.returncode == 0 and b'records' in seen and b'MB/s' in seen,
              'a progress line on a terminal after two seconds (%r)' % seen[-80:])

        # ---- --keep-going, -o and exit codes
        seq_out = os.path.join(tmp, 'seq.mp')
        bad = b'[1]\n{"a":}\n[3]\n'
        r = run(rosetta, ['transcode', '--seq', '--from', 'json', '--to', 'msgpack', '-', '-o', seq_out], bad)
        check(r.returncode == 1 and not os.path.exists(seq_out),
              '--seq refused record without --keep-going: exit 1, no file')
        r = run(rosetta, ['transcode', '--seq', '--keep-going', '--from', 'json', '--to', 'msgpack', '-', '-o', seq_out], bad)
        check(r.returncode == 1 and open(seq_out, 'rb').read() == b'\x91\x01\x91\x03'
              and r.stderr.decode().count('\n') == 1 and '(/1/a)' in r.stderr.decode(),
              '--keep-going: the good records kept, one line for the bad one (%r)' % r.stderr[:80])
        r = run(rosetta, ['validate', '--seq', '--format', 'cbor', '-'], bytes.fromhex('8101a16161018103'))
        check(r.returncode == 0, 'validate --seq: a good CBOR sequence')
        r = run(rosetta, ['validate', '--seq', '--keep-going', '--format', 'cbor', '-'],
                bytes.fromhex('8101a1616161ff8103a2616101616102'))
        lines_err = r.stderr.decode().splitlines()
        check(r.returncode == 1 and len(lines_err) == 2 and '(/1/a)' in lines_err[0] and 'duplicate_key' in lines_err[1]
              and '(/3' in lines_err[1], 'validate --seq --keep-going: one line per bad record (%r)' % lines_err)
        r = run(rosetta, ['transcode', '--keep-going', '--from', 'json', '--to', 'cbor', '-'], b'1')
        check(r.returncode == 2, '--keep-going without --seq is a usage error')
        if '--pretty' in help_text:
            r = run(rosetta, ['transcode', '--seq', '--pretty', '--from', 'cbor', '--to', 'json', '-'], b'\x01')
            check(r.returncode == 2, '--pretty with --seq into JSON Lines is a usage error')

        # ---- protobuf: each message after its varint length
        proto_dir = os.path.join(source_dir, 'proto')
        desc = os.path.join(tmp, 'transcoder.binpb')
        subprocess.run([sys.executable, '-m', 'grpc_tools.protoc', '-I', proto_dir, '--include_imports',
                        '--descriptor_set_out=' + desc, '--python_out=' + tmp, 'rosetta/v1/transcoder.proto'],
                       check=True, cwd=proto_dir)
        sys.path.insert(0, tmp)
        from rosetta.v1 import transcoder_pb2  # noqa: E402
        from google.protobuf.internal.encoder import _VarintBytes  # noqa: E402
        msgs = []
        for i in range(300):
            m = transcoder_pb2.Error(code='c%d' % i, offset=i * 1000, path='/p/%d' % i, message='m' * (i % 200))
            msgs.append(m)
        want = b''.join(_VarintBytes(m.ByteSize()) + m.SerializeToString() for m in msgs)
        pb = ['--descriptor-set', desc, '--message-type', 'rosetta.v1.Error']
        jsonl = b''.join(json.dumps({'code': m.code, 'offset': str(m.offset), 'path': m.path, 'message': m.message}).encode() + b'\n'
                         for m in msgs)
        r = run(rosetta, ['transcode', '--seq', '--from', 'json', '--to', 'protobuf'] + pb + ['-'], jsonl)
        check(r.returncode == 0 and r.stdout == want, 'JSON Lines -> delimited protobuf equals Python\'s encoding (%r)' % r.stderr[:80])
        r = run(rosetta, ['transcode', '--seq', '--from', 'protobuf', '--to', 'cbor'] + pb + ['-'], want)
        back = run(rosetta, ['transcode', '--seq', '--from', 'cbor', '--to', 'protobuf'] + pb + ['-'], r.stdout)
        check(r.returncode == 0 and back.returncode == 0 and back.stdout == want,
              'delimited protobuf -> CBOR sequence -> delimited protobuf is the same bytes')
        r = run(rosetta, ['transcode', '--seq', '--keep-going', '--from', 'protobuf', '--to', 'json', '--max-input-bytes', '150']
                + pb + ['-'], want)
        big = sum(1 for m in msgs if m.ByteSize() > 150)
        out_lines = r.stdout.decode().splitlines()
        check(r.returncode == 1 and len(out_lines) == len(msgs) - big and
              r.stderr.decode().count('input_too_large') == big,
              'records past --max-input-bytes refused alone: %d of %d (%d lines)' % (big, len(msgs), len(out_lines)))

        # ---- fixed records: packed here with struct, independently of rosetta
        fixed_dir = os.path.join(source_dir, 'tests', 'codec', 'fixed', 'testdata')
        fdesc = os.path.join(tmp, 'fixed.binpb')
        # protoc of the build (grpc_tools' older one refuses proto3 `optional` fields).
        subprocess.run(['protoc', '-I', fixed_dir, '--include_imports',
                        '--descriptor_set_out=' + fdesc, 'fixed.proto'], check=True, cwd=fixed_dir)
        fx = ['--descriptor-set', fdesc, '--message-type', 'rosetta.fixedtest.Sample']
        samples = [(i, i * 0.5, i % 2 == 0, -i * 1000) for i in range(500)]
        packed = b''.join(struct.pack('<If?q', *s) for s in samples)
        lines = b''.join(json.dumps({'id': s[0], 'temp': s[1], 'ok': s[2], 'at': s[3]}).encode() + b'\n'
                         for s in samples)
        r = run(rosetta, ['transcode', '--seq', '--from', 'json', '--to', 'fixed'] + fx + ['-'], lines)
        check(r.returncode == 0 and r.stdout == packed, 'JSON Lines -> fixed records: struct.pack\'s bytes (%r)' % r.stderr[:80])
        r = run(rosetta, ['transcode', '--seq', '--from', 'fixed', '--to', 'json'] + fx + ['-'], packed)
        back = [json.loads(l) for l in r.stdout.decode().splitlines()]
        check(r.returncode == 0 and back == [{'id': s[0], 'temp': s[1], 'ok': s[2], 'at': s[3]} for s in samples],
              'fixed records -> JSON Lines: every record\'s values')
        r = run(rosetta, ['transcode', '--from', 'fixed', '--to', 'json'] + fx + ['-'], packed[:17])
        check(r.returncode == 0 and json.loads(r.stdout) == {'id': 0, 'temp': 0.0, 'ok': True, 'at': 0},
              'one fixed record without --seq')
        r = run(rosetta, ['transcode', '--from', 'fixed', '--to', 'json'] + fx + ['-'], packed[:20])
        check(r.returncode == 1 and r.stderr.startswith(b'rosetta: trailing_data at byte 17'),
              'a record and 3 more bytes: trailing_data (%r)' % r.stderr[:60])
        r = run(rosetta, ['transcode', '--seq', '--keep-going', '--from', 'fixed', '--to', 'json'] + fx + ['-'],
                packed[:17] + packed[17:25] + b'\x07' + packed[26:34] + packed[34:51] + packed[51:60])
        check(r.returncode == 1 and len(r.stdout.splitlines()) == 2 and b'(/1/ok)' in r.stderr
              and b'truncated' in r.stderr, 'fixed --seq --keep-going: a bad bool and a short last record (%r)' % r.stderr)
        r = run(rosetta, ['transcode', '--from', 'json', '--to', 'fixed', '--descriptor-set', fdesc,
                          '--message-type', 'rosetta.fixedtest.Labeled', '-'], b'{}')
        check(r.returncode == 1 and b'unrepresentable at byte 0 (/position/label): string field has no fixed size' in r.stderr,
              'a type with a string field refused for fixed, with the path (%r)' % r.stderr[:100])

    print('%d failures' % len(failures))
    return 1 if failures else 0


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


if __name__ == '__main__':
    sys.exit(main())
