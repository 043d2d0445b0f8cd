#!/usr/bin/env bash
# Builds and runs the codec benchmarks (load/) and prints docs/benchmarks.md's tables.
#   scripts/bench.sh                 # 5 repetitions, medians
#   REPS=3 MIN_TIME=0.2 scripts/bench.sh
# Output: markdown on stdout, also in build-bench/bench/report.md; raw results in
# build-bench/bench/codec_benchmark.json and peak_memory.txt.
#   CODEC_REV=HEAD scripts/bench.sh  # the codec as committed, not the working tree
# CODEC_REV: the project at that revision (git archive) with today's load/ is built in
# build-bench/rev-REV/, so uncommitted edits under codec/ do not enter the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
REPS=${REPS:-5}
MIN_TIME=${MIN_TIME:-0.5}
export ROSETTA_DATA_DIR=${ROSETTA_DATA_DIR:-$(cd "$ROOT/.." && pwd)/shared/data}
if [ -n "${CODEC_REV:-}" ]; then
  REV=$(git rev-parse --short "$CODEC_REV")
  SRC=build-bench/rev-$REV/src
  rm -rf "$SRC" && mkdir -p "$SRC"
  git archive "$REV" | tar -x -C "$SRC"
  rm -rf "$SRC/load" && cp -r load "$SRC/load"
  # Today's load/ counts heap calls with codec/heap: a revision from before it gets it too.
  if [ ! -d "$SRC/codec/heap" ]; then
    cp -r codec/heap "$SRC/codec/heap"
    printf '%s\n' 'add_library(rosetta_heap_counter STATIC heap/heap_counter.cc)' \
      'target_include_directories(rosetta_heap_counter PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})' \
      >>"$SRC/codec/CMakeLists.txt"
  fi
  cd "$SRC"
  BUILD=$ROOT/build-bench/rev-$REV/build
else
  BUILD=build-bench
fi
OUT=$BUILD/bench

# The service is not needed here: its gRPC build would dominate a 2-core machine.
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DROSETTA_BUILD_BENCHMARKS=ON \
  -DROSETTA_BUILD_TESTS=OFF -DROSETTA_BUILD_SERVICE=OFF >/dev/null
ninja -C "$BUILD" -j2 rosetta-codec-benchmark rosetta-peak-memory rosetta >&2
test -f "$BUILD/codec/librosetta_codec_protobuf.a" || ninja -C "$BUILD" -j2 rosetta_codec_protobuf >&2
mkdir -p "$OUT"

"$BUILD/load/rosetta-codec-benchmark" --benchmark_repetitions="$REPS" \
  --benchmark_report_aggregates_only=true --benchmark_min_time="$MIN_TIME" \
  --benchmark_out="$OUT/codec_benchmark.json" --benchmark_out_format=json >&2

: >"$OUT/peak_memory.txt"
for file in twitter citm_catalog canada; do
  for pair in "json cbor" "cbor json" "json msgpack" "msgpack json" "cbor msgpack"; do
    set -- $pair
    path="$ROSETTA_DATA_DIR/corpus/$file.json"
    # Default options first; if the codec refuses the document, again with duplicate keys
    # allowed, and the row says so.
    "$BUILD/load/rosetta-peak-memory" --from "$1" --to "$2" "$path" >>"$OUT/peak_memory.txt" 2>"$OUT/peak_err.txt" ||
      { echo "refused=$(tr ' ' '_' <"$OUT/peak_err.txt")" >&2
        "$BUILD/load/rosetta-peak-memory" --from "$1" --to "$2" --allow-duplicate-keys "$path" >>"$OUT/peak_memory.txt"; }
  done
done

# .text: the "text" column of size(1) (code + read-only data), and the .text* sections alone.
text_column() { size "$@" | awk 'NR > 1 { s += $1 } END { print s }'; }
text_sections() { size -A "$@" | awk '$1 ~ /^\.text/ { s += $2 } END { print s }'; }
{
  echo "codec_text_column=$(text_column $BUILD/codec/librosetta_codec.a)"
  echo "codec_text_sections=$(text_sections $BUILD/codec/librosetta_codec.a)"
  echo "protobuf_text_column=$(text_column $BUILD/codec/librosetta_codec_protobuf.a)"
  echo "protobuf_text_sections=$(text_sections $BUILD/codec/librosetta_codec_protobuf.a)"
  echo "cli_text_column=$(text_column $BUILD/codec/rosetta)"
  echo "cli_text_sections=$(text_sections $BUILD/codec/rosetta)"
  echo "build_dir=${BUILD#$ROOT/}"
  echo "nproc=$(nproc)"
  echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  if [ -n "${CODEC_REV:-}" ]; then
    echo "commit=$REV"
    echo "codec_dirty=0"
  else
    echo "commit=$(git rev-parse --short HEAD)"
    echo "codec_dirty=$(git status --porcelain -- codec | wc -l)"
  fi
  echo "loadavg=$(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUT/machine.txt"

REPS=$REPS python3 - "$OUT" <<'PY' | tee "$OUT/report.md"
import json, os, sys

out = sys.argv[1]
data = json.load(open(os.path.join(out, "codec_benchmark.json")))
machine = dict(l.rstrip("\n").split("=", 1) for l in open(os.path.join(out, "machine.txt")))

runs, errors = {}, {}
for b in data["benchmarks"]:
    name = b.get("run_name", b["name"])
    if b.get("error_occurred"):
        errors[name] = b.get("error_message", "error")
    elif b.get("aggregate_name") == "median" or (b.get("run_type") == "iteration" and name not in runs):
        runs[name] = b

def mbps(name):
    b = runs.get(name)
    return b["bytes_per_second"] / 1e6 if b else None

def cell(v, fmt="{:.0f}"):
    return fmt.format(v) if v is not None else "—"

files = ["twitter", "citm_catalog", "canada"]
pairs = ["json_to_cbor", "cbor_to_json", "json_to_msgpack", "msgpack_to_json", "cbor_to_msgpack", "json_to_json"]
ctx = data["context"]
print(f"Run {ctx['date']} on {machine['nproc']} x {machine['cpu']} (load average {machine['loadavg']}), "
      f"commit {machine['commit']}" + (f" + {machine['codec_dirty']} uncommitted codec/ files" if machine['codec_dirty'] != '0' else "")
      + ". Medians of " + os.environ.get("REPS", "5") + " repetitions (CPU time); MB = 10^6 bytes of input.\n")

print("| pair | file | input bytes | rosetta MB/s | rosetta µs/doc | rosetta, dup. keys allowed MB/s | nlohmann MB/s | RapidJSON SAX MB/s | rosetta/nlohmann | rosetta/RapidJSON |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
rapid_note = False
for p in pairs:
    for f in files:
        base = f"{p}/{f}/"
        r, ra, n = mbps(base + "rosetta"), mbps(base + "rosetta_dupkeys_allowed"), mbps(base + "nlohmann")
        rj = mbps(f"json_to_json/{f}/rapidjson_sax_minify") if p.startswith("json_to") else None
        b = runs.get(base + "rosetta") or runs.get(base + "rosetta_dupkeys_allowed")
        size = b["bytes_per_second"] * b["cpu_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[b["time_unit"]] if b else None
        us = b["cpu_time"] * {"ns": 1e-3, "us": 1, "ms": 1e3, "s": 1e6}[b["time_unit"]] if b else None
        rosetta_cell = cell(r) if r is not None else ("**fails: " + errors.get(base + "rosetta", "?").split(":")[0] + "**")
        ref = r if r is not None else ra
        mark = "" if r is not None else " †"
        print(f"| {p} | {f} | {cell(size)} | {rosetta_cell} | {cell(us, '{:.0f}')}{mark} | {cell(ra)} | {cell(n)} | {cell(rj)} | "
              f"{cell(ref / n if ref and n else None, '{:.1f}x')}{mark if ref and n else ''} | "
              f"{cell(ref / rj if ref and rj else None, '{:.2f}x')}{mark if ref and rj else ''} |")
print("\n† rosetta refused the document with its default options (see errors below); the figure is the run with "
      "duplicate keys allowed.")
print("RapidJSON: rapidjson::Reader (kParseDefaultFlags) into rapidjson::Writer<StringBuffer>, i.e. JSON to minified JSON, "
      "compared only with pairs that read JSON. With kParseValidateEncodingFlag | kParseFullPrecisionFlag "
      "(the checks rosetta always makes): "
      + ", ".join(f"{f} {cell(mbps(f'json_to_json/{f}/rapidjson_sax_minify_strict'))} MB/s" for f in files) + ".")
if errors:
    print("\nErrors:\n")
    for k, v in sorted(errors.items()):
        print(f"- `{k}`: {v}")

print("\n### Bars\n")
print("| bar | measured | met |")
print("|---|---:|---|")
def rosetta(p, f):
    r = mbps(f"{p}/{f}/rosetta")
    return (r, "") if r is not None else (mbps(f"{p}/{f}/rosetta_dupkeys_allowed"), " †")
def bar(label, value, mark, target, ratio):
    shown = "—" if value is None else (f"{value:.2f}x" if ratio else f"{value:.0f} MB/s")
    met = "—" if value is None else ("yes" if value >= target else "**no**")
    print(f"| {label} | {shown}{mark if value is not None else ''} | {met} |")
for f, t in (("twitter", 1000), ("citm_catalog", 1000), ("canada", 400)):
    bar(f"json_to_cbor {f} >= {t} MB/s", *rosetta("json_to_cbor", f), t, False)
bar("cbor_to_json citm_catalog >= 1000 MB/s", *rosetta("cbor_to_json", "citm_catalog"), 1000, False)
for p in pairs[:5]:
    for f in files:
        (r, mark), n = rosetta(p, f), mbps(f"{p}/{f}/nlohmann")
        bar(f"{p} {f} >= 8x nlohmann", r / n if r and n else None, mark, 8, True)
for p in ("json_to_cbor", "json_to_msgpack", "json_to_json"):
    for f in files:
        (r, mark), rj = rosetta(p, f), mbps(f"json_to_json/{f}/rapidjson_sax_minify")
        bar(f"{p} {f} >= 1.5x RapidJSON SAX", r / rj if r and rj else None, mark, 1.5, True)
for f in ("twitter", "citm_catalog"):
    (r, mark), d = rosetta("json_to_cbor", f), mbps(f"json_to_cbor/{f}/rosetta_deterministic")
    bar(f"json_to_cbor {f}, deterministic >= 0.5x plain", d / r if r and d else None, mark, 0.5, True)

print("\n### Refusing a 12-byte input that claims 4 GiB\n")
print("| input | OutputBuffer | refusal ns | code | TranscodeStats.allocated_bytes | peak_bytes | heap allocations | heap bytes |")
print("|---|---|---:|---|---:|---:|---:|---:|")
for fmt, hexs in (("cbor", "5b 00 00 00 01 00 00 00 00 00 00 00"), ("msgpack", "c6 ff ff ff ff 00 00 00 00 00 00 00")):
    for v in ("reused_output", "fresh_output"):
        b = runs.get(f"refuse_4gib/{fmt}/{v}")
        if not b:
            print(f"| {fmt} `{hexs}` | {v} | — | {errors.get(f'refuse_4gib/{fmt}/{v}', '?')} | | | | |")
            continue
        ns = b["cpu_time"] * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
        print(f"| {fmt} `{hexs}` | {v.replace('_output', '')} | {ns:.0f} | {b.get('label', '') or 'refused'} | "
              f"{b['allocated_bytes']:.0f} | {b['peak_bytes']:.0f} | {b['heap_allocs']:.0f} | {b['heap_bytes']:.0f} |")

print("\n### Peak memory of one transcode\n")
print("| file | pair | input bytes | output bytes | budget peak_bytes | RSS growth, 1st transcode | RSS growth, 2nd | 2nd − output | <= output + 64 KiB |")
print("|---|---|---:|---:|---:|---:|---:|---:|---|")
for line in open(os.path.join(out, "peak_memory.txt")):
    kv = dict(x.split("=", 1) for x in line.split() if "=" in x)
    if "file" not in kv:
        continue
    name = os.path.basename(kv["file"]).removesuffix(".json")
    dup = " ‡" if kv.get("duplicate_keys") == "allowed" else ""
    print(f"| {name} | {kv['from']}_to_{kv['to']}{dup} | {kv['input_bytes']} | {kv['output_bytes']} | {kv['budget_peak_bytes']} | "
          f"{kv['rss_delta_first']} | {kv['rss_delta_second']} | {kv['second_minus_output']} | {kv['within_bound']} |")
print("\n‡ refused with default options; measured with duplicate keys allowed. RSS growth: VmHWM after a reset "
      "(/proc/self/clear_refs) minus VmRSS before, page granular.")

print("\n### Code size\n")
print("| binary | size(1) text column | .text* sections |")
print("|---|---:|---:|")
b = machine["build_dir"]
print(f"| {b}/codec/librosetta_codec.a (sum over objects) | {machine['codec_text_column']} | {machine['codec_text_sections']} |")
print(f"| {b}/codec/librosetta_codec_protobuf.a (sum over objects) | {machine['protobuf_text_column']} | {machine['protobuf_text_sections']} |")
print(f"| {b}/codec/rosetta (CLI, with the protobuf format; simdjson and libprotobuf are shared libraries) | {machine['cli_text_column']} | {machine['cli_text_sections']} |")
PY
