"""Seed corpora for the fuzz targets, made from ../shared/data (never copied into the
project): writes OUT/<target>/ files. usage: make_seeds.py DATA_DIR OUT_DIR"""
import base64, json, os, random, struct, sys

data, out = sys.argv[1], sys.argv[2]
def put(target, name, blob):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(blob)

suite = os.path.join(data, 'conformance/JSONTestSuite/test_parsing')
json_docs = []
for name in sorted(os.listdir(suite)):
    blob = open(os.path.join(suite, name), 'rb').read()
    put('fuzz_json_reader', name, blob)
    json_docs.append(blob)
corpus = os.path.join(data, 'corpus')
for name in sorted(os.listdir(corpus)):
    blob = open(os.path.join(corpus, name), 'rb').read()
    if len(blob) <= 64 * 1024:
        put('fuzz_json_reader', name, blob)
        json_docs.append(blob)

# AsciiDfa against RE2: every pattern of the suite's regex files (byte 0 its length), with
# each string of its file as the text.
schema_suite = os.path.join(data, 'conformance/json-schema-test-suite/tests/draft2020-12')
for fname in ['pattern.json', 'patternProperties.json', 'optional/ecmascript-regex.json']:
    patterns, strings = [], []
    def walk(v, key_is_pattern=False):
        if isinstance(v, dict):
            for k, x in v.items():
                if k == 'pattern' and isinstance(x, str):
                    patterns.append(x)
                if key_is_pattern:
                    patterns.append(k)
                if isinstance(x, str):
                    strings.append(x)
                walk(x, k == 'patternProperties')
        elif isinstance(v, list):
            for x in v:
                walk(x)
    walk(json.load(open(os.path.join(schema_suite, fname))))
    for i, p in enumerate(dict.fromkeys(patterns)):
        pb = p.encode()
        if len(pb) > 255:
            continue
        for j, s in enumerate(strings[:8]):
            put('fuzz_regex', '%s_%d_%d' % (fname.replace('/', '_'), i, j),
                bytes([len(pb)]) + pb + s.encode())

# JSON Schema: the corpus' small documents against each schema, and hand-made instances.
for i, blob in enumerate(json_docs[:200]):
    put('fuzz_json_schema', 'doc_%03d' % i, bytes([(i % 8) << 2]) + blob)
for i, blob in enumerate([b'{"id":1,"name":"ab","tags":["a",1,null,{"x":1}],"x-1":true}',
                          b'[["s",1,2],{"a":1,"b":2}]', b'{"a":1,"c":"x","d":1,"e":2,"z":"q"}',
                          b'{"v":1.5,"kids":[{"v":2,"kids":[]}]}',
                          b'{"data":1,"children":[{"data":[1],"children":[]}]}',
                          b'[{"abc":1},null,true,{"abcd":2}]', b'{"n":9,"a":1,"b":2,"c":{"d":"1.2.3.4"}}',
                          b'"2024-01-01T00:00:00+01:00"']):
    put('fuzz_json_schema', 'case_%d' % i, bytes([i << 2]) + blob)
    put('fuzz_json_schema', 'case_%d_assert' % i, bytes([i << 2 | 32]) + blob)
# Schemas 8 (draft 7 contentMediaType) and 9 (names down nested maps): byte 0 bit 6.
for i, (fmt, blob) in enumerate([
        (0, b'{"k\\n": ["[\\"\\u0041\\u0042\\u0043\\"]", 5], "a": "[0,0,0,0,0,0,0,0]"}'),
        (0, b'["{\\"x\\": [1, 2.5, null]}", true, "[", "{}"]'),
        (1, bytes.fromhex('a2d8344401020304a1d834440506070861786163') + b'\x42\x5b\x5d'),
        (0, b'{"a": {"b": {"c": {"d": 1}}}, "e": 2}'),
        (1, bytes.fromhex('a1d83444010203045f420102420304ff')),
        (1, b''.join(bytes([0xa1, k]) for k in range(1, 20)) + b'\x61x')]):
    which = 8 if i < 2 else 9
    put('fuzz_json_schema', 'names_%d' % i, bytes([fmt | (which & 7) << 2 | 64]) + blob)

cbor = [bytes.fromhex(v['hex']) for v in json.load(open(os.path.join(data, 'conformance/cbor/appendix_a.json')))]
for i, blob in enumerate(cbor):
    put('fuzz_cbor_reader', 'appendix_a_%02d' % i, blob)

mp = []
for group, cases in json.load(open(os.path.join(data, 'conformance/msgpack/msgpack-test-suite.json'))).items():
    for c in cases:
        for enc in c['msgpack']:
            mp.append(bytes.fromhex(enc.replace('-', '')))
for i, blob in enumerate(mp):
    put('fuzz_msgpack_reader', 'suite_%03d' % i, blob)

# transcode / roundtrip: the first byte picks the pair (from = b % 3, to = b / 3 % 3).
seeds = [(0, d) for d in json_docs[:120]] + [(1, d) for d in cbor] + [(2, d) for d in mp]
for i, (fmt, blob) in enumerate(seeds):
    for to in range(3):
        put('fuzz_transcode', 'seed_%04d_%d' % (i, to), bytes([fmt + 3 * to]) + blob)
    put('fuzz_roundtrip', 'seed_%04d' % i, bytes([fmt]) + blob)
    put('fuzz_deterministic', 'seed_%04d' % i, bytes([fmt]) + blob)

# fixed: byte 0 = type (bits 0-1: LogRecord, Triangle, Sprite, Sample) | 4 for the writer
# direction | the other format's number - 1 in bits 3-4. Records: sizes 81, 48, 16, 17.
sizes = [81, 48, 16, 17]
for t, n in enumerate(sizes):
    for f in range(3):
        put('fuzz_fixed', 'records_%d_%d' % (t, f), bytes([t | f << 3]) + bytes(range(n)) * 2)
# Forty records at once (the encoder's batched paths: groups of 16, many records a call):
# triangles of floats no shorter form takes, and random bytes of each type's size.
rng = random.Random(7)
triangles = b''.join(struct.pack('<12f', *[rng.uniform(-100, 100) for _ in range(12)])
                     for _ in range(40))
for f in range(3):
    put('fuzz_fixed', 'triangles_%d' % f, bytes([1 | f << 3]) + triangles)
for t, n in enumerate(sizes):
    blob = bytes(rng.randrange(256) for _ in range(n * 40))
    for f in range(3):
        put('fuzz_fixed', 'many_%d_%d' % (t, f), bytes([t | f << 3]) + blob)
put('fuzz_fixed', 'sample_json', bytes([3 | 4]) + b'{"id":7,"temp":21.5,"ok":true,"at":-2}')
put('fuzz_fixed', 'samples_json', bytes([3 | 4]) + b'[{"id":1},{"id":2,"ok":true}]')
put('fuzz_fixed', 'sprite_json', bytes([2 | 4]) + b'{"at":{"color":"BLUE","x":3,"y":4},"scale":0.5}')
put('fuzz_fixed', 'log_json', bytes([0 | 4]) + b'{"ts":"1","level":"WARN","userId":2,"cpu":"NaN","ok":null}')
put('fuzz_fixed', 'triangle_cbor', bytes([1 | 4 | 1 << 3]) + bytes.fromhex('a16161a3617801617902617a03'))

# fast_to_json: bit 0 of the first byte picks CBOR (1) or MessagePack (0).
for i, blob in enumerate(cbor):
    put('fuzz_fast_to_json', 'cbor_%02d' % i, bytes([1]) + blob)
for i, blob in enumerate(mp):
    put('fuzz_fast_to_json', 'msgpack_%03d' % i, bytes([0]) + blob)
put('fuzz_fast_to_json', 'cbor_doc', bytes([1]) + bytes.fromhex('a2626964187b646e616d6583f563c3a978f93e00'))
put('fuzz_fast_to_json', 'msgpack_doc', bytes([0]) + bytes.fromhex('82a26964cd01c8a46e616d6593c3c0cb3ff8000000000000'))

def frame(op, rid, fin, fout, payload, mtype=b''):
    body = struct.pack('>BBIBBH', 1, op, rid, fin, fout, len(mtype)) + mtype + payload
    return struct.pack('>I', len(body)) + body
put('fuzz_tcp_frames', 'pipelined', bytes([200, 3]) + frame(1, 7, 1, 2, b'{"a":[1,2,3]}') + frame(3, 8, 0, 0, b'hi') +
    frame(4, 9, 0, 0, b'{"max_depth":2}'))
put('fuzz_tcp_frames', 'oversized', bytes([1, 0]) + struct.pack('>I', 0xFFFFFFFF) + b'\x01\x01')
put('fuzz_tcp_frames', 'typed', bytes([255, 31]) + frame(1, 1, 4, 1, b'\x08\x01', b'rosetta.fuzz.Root'))

# protobuf: a few hand-made messages of rosetta.fuzz.Root (see fuzz_schema.proto).
def varint(v):
    b = b''
    while v >= 0x80:
        b += bytes([v & 0x7f | 0x80]); v >>= 7
    return b + bytes([v])
def field(n, wire, payload):
    return varint(n << 3 | wire) + payload
def ld(n, payload):
    return field(n, 2, varint(len(payload)) + payload)
leaf = ld(1, b'leaf') + ld(2, b'\x00\x01')
root = (field(3, 0, varint(150)) + field(4, 0, varint(2**64 - 1)) + ld(14, b'text') + field(16, 0, varint(1)) +
        ld(18, varint(1) + varint(300)) + field(19, 0, varint(5)) + field(19, 0, varint(6)) + ld(21, leaf) +
        ld(22, ld(1, b'k') + field(2, 0, varint(7))) + ld(23, field(1, 0, varint(9)) + ld(2, leaf)) +
        ld(27, field(1, 0, varint(1700000000)) + field(2, 0, varint(5))) + ld(34, field(3, 0, varint(1))))
put('fuzz_protobuf_reader', 'root', root)
put('fuzz_protobuf_reader', 'leaf_in_choice', ld(26, leaf))
put('fuzz_protobuf_reader', 'struct', ld(29, ld(1, ld(1, b'a') + ld(2, field(2, 1, struct.pack('<d', 1.5))))))
