"""docs/benchmarks.md "Fixed records" from rosetta-fixed-benchmark's JSON output (medians of
CPU time; 10,000 records per iteration). usage: fixed_report.py RESULTS.json"""
import json, sys

rows = {}
for b in json.load(open(sys.argv[1]))['benchmarks']:
    if b.get('aggregate_name') != 'median':
        continue
    name, kind = b['run_name'].split('/')
    rows[(name[3:], 'mesh' if kind == 'mesh:1' else 'log')] = b
def ns(name, kind):  # CPU ns per record
    b = rows[(name, kind)]
    scale = {'ns': 1, 'us': 1e3, 'ms': 1e6}[b['time_unit']]
    return b['cpu_time'] * scale / 10000
def gbps(name, kind):
    return rows[(name, kind)]['bytes_per_second'] / 1e9

print('| records | fixed -> MessagePack | fixed -> CBOR | fixed -> JSON | protobuf -> JSON (rosetta / libprotobuf) | '
      'JSON array -> fixed | JSON Lines -> fixed | JSON -> protobuf (rosetta / libprotobuf) | fixed -> fixed | memcpy |')
print('| --- |' + ' ---: |' * 9)
for kind, label in (('mesh', 'mesh (Triangle, 48 B)'), ('log', 'log (LogRecord, 81 B)')):
    cells = [label]
    for n in ('FixedToMsgpack', 'FixedToCbor'):
        cells.append('%.1f ns, %.2f GB/s' % (ns(n, kind), gbps(n, kind)))
    cells.append('%.0f ns' % ns('FixedToJson', kind))
    cells.append('%.0f / %.0f ns' % (ns('ProtobufToJson_Rosetta', kind), ns('ProtobufToJson_LibprotobufBinary', kind)))
    cells.append('%.0f ns' % ns('JsonToFixed', kind))
    cells.append('%.0f ns' % ns('JsonLinesToFixed', kind))
    cells.append('%.0f / %.0f ns' % (ns('JsonToProtobuf_Rosetta', kind), ns('JsonToProtobuf_LibprotobufBinary', kind)))
    cells.append('%.2f ns' % ns('FixedToFixed', kind))
    cells.append('%.2f ns' % ns('Memcpy', kind))
    print('| ' + ' | '.join(cells) + ' |')
print()
print('| bar | mesh | log | met |')
print('| --- | ---: | ---: | --- |')
def bar(text, f, want, higher=True):
    m, l = f('mesh'), f('log')
    ok = all((v >= want) if higher else (v <= want) for v in (m, l))
    print('| %s | %.2f | %.2f | %s |' % (text, m, l, 'yes' if ok else 'no'))
bar('fixed -> MessagePack, GB/s of input (>= 2)', lambda k: gbps('FixedToMsgpack', k), 2)
bar('fixed -> CBOR, GB/s of input (>= 2)', lambda k: gbps('FixedToCbor', k), 2)
bar('fixed -> JSON vs rosetta protobuf -> JSON, x (>= 3)', lambda k: ns('ProtobufToJson_Rosetta', k) / ns('FixedToJson', k), 3)
bar('fixed -> JSON vs libprotobuf BinaryToJsonString, x (>= 3)', lambda k: ns('ProtobufToJson_LibprotobufBinary', k) / ns('FixedToJson', k), 3)
bar('JSON -> fixed vs rosetta JSON -> protobuf, x (>= 2)', lambda k: ns('JsonToProtobuf_Rosetta', k) / ns('JsonToFixed', k), 2)
bar('JSON -> fixed vs libprotobuf JsonToBinaryString, x (>= 2)', lambda k: ns('JsonToProtobuf_LibprotobufBinary', k) / ns('JsonToFixed', k), 2)
bar('fixed -> fixed / memcpy, x (<= 2)', lambda k: ns('FixedToFixed', k) / ns('Memcpy', k), 2, higher=False)
