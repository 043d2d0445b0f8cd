#!/usr/bin/env bash
# The benchmark suite: builds (Release, benchmarks on), generates the data sets, runs the
# format report, the service benchmarks (rosettad vs rosetta-echo, driven by rosetta-load),
# the front-ends benchmark (h2load) and the whole-process CLI benchmark, and writes the
# "## Service", "## Front-ends", "## Overload", "## Datasets" and "## Whole-process CLI"
# sections of docs/benchmarks.md (others are left as they are).
#   scripts/benchmarks.sh                        # everything (about 10 minutes; REPS=5: 15)
#   ONLY=service scripts/benchmarks.sh           # or ONLY=frontends, ONLY=overload, ONLY=datasets, ONLY=codec,
#                                                # ONLY=fixed (printed: docs/benchmarks.md "Fixed records")
#   ONLY=cli scripts/benchmarks.sh               # whole-process CLI vs peers ("## Whole-process CLI"; its own
#                                                # Release tree CLI_BUILD_DIR, default build-bench, no service)
#   ONLY=schema scripts/benchmarks.sh            # JSON Schema validation vs ajv and valijson ("## JSON Schema";
#                                                # CLI_BUILD_DIR's tree, node peers from npm into it; not in "all")
#   REPS=5 DURATION=20 scripts/benchmarks.sh     # longer runs
# Knobs: BUILD_DIR (build-benchmarks), SEED (42), REPS (3), DURATION (10), WARMUP (2),
# CONNECTIONS (4), INFLIGHT (16), OPEN_INFLIGHT (64), RATE_FRACTIONS (0.7,0.35: open-loop rates as
# fractions of echo's closed-loop maximum; the first is the latency bar's), RUNS (5, format report), MIN_TIME
# (0.2), ROSETTA_DATA_DIR (../shared/data), NO_DOC=1 (print only, leave docs/ alone).
# ONLY=cli: CLI_RUNS (5), CLI_ROSETTA (a rosetta binary to measure instead of CLI_BUILD_DIR's),
# ROSETTA_CLI_BENCH_DATA (its generated inputs, about 3 GB; default CLI_BUILD_DIR/cli).
# Raw results: $BUILD_DIR/benchmarks/.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${BUILD_DIR:-build-benchmarks}
OUT=$BUILD/benchmarks
ONLY=${ONLY:-all}
export ROSETTA_DATA_DIR=${ROSETTA_DATA_DIR:-$(cd "$ROOT/.." && pwd)/shared/data}

mkdir -p "$OUT"
# -DNAME=OFF for a tree these benchmarks configure, unless the tree is already configured
# with NAME on (a test or service tree pointed at by BUILD_DIR / CLI_BUILD_DIR keeps what
# it has; only the benchmark targets are added).
off_unless_on() {
  if grep -q "^$2:BOOL=ON" "$1/CMakeCache.txt" 2>/dev/null; then echo "-D$2=ON"; else echo "-D$2=OFF"; fi
}
if [ "$ONLY" != cli ] && [ "$ONLY" != schema ]; then  # these build their own tree, without the service
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DROSETTA_BUILD_BENCHMARKS=ON \
    "$(off_unless_on "$BUILD" ROSETTA_BUILD_TESTS)" -DROSETTA_BUILD_SERVICE=ON >/dev/null
  ninja -C "$BUILD" -j"${JOBS:-2}" rosettad rosetta-compare rosetta-load rosetta-echo rosetta-datasets >&2

  "$BUILD/load/rosetta-datasets" --out "$BUILD/datasets" --seed "${SEED:-42}" >"$OUT/manifest.tsv"
fi

machine() {
  echo "$(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), commit $(git rev-parse --short HEAD)"
}

if [ "$ONLY" = all ] || [ "$ONLY" = datasets ]; then
  {
    echo "Run $(date -u '+%Y-%m-%d %H:%M UTC') on $(machine); load average $(cut -d' ' -f1-3 /proc/loadavg) before."
    echo "The data sets are shaped like those of the Rust serialization benchmark"
    echo "(github.com/djkoloski/rust_serialization_benchmark): \`log\` (10,000 HTTP log records), \`mesh\`"
    echo "(125,000 triangles of float32 vertices and normals), \`minecraft_savedata\` (500 players: nested"
    echo "items, positions, enums as strings, optional fields), \`mk48\` (1,000 game updates with terrain"
    echo "bytes). rosetta-datasets writes them as JSON from a seed and converts each with rosetta"
    echo "(JSON -> CBOR, MessagePack, protobuf with load/tools/proto/*.proto):"
    echo
    echo '```sh'
    echo "$BUILD/load/rosetta-datasets --out $BUILD/datasets --seed ${SEED:-42}"
    echo "/usr/bin/python3 load/bench/format_report.py --compare $BUILD/load/rosetta-compare --datasets $BUILD/datasets --runs ${RUNS:-5} --min-time ${MIN_TIME:-0.2}"
    echo "$BUILD/load/rosetta-compare --descriptor-set $BUILD/datasets/datasets.desc --message-type rosetta.bench.log.Logs $BUILD/datasets/log.json   # one document"
    echo '```'
    echo
    /usr/bin/python3 load/bench/format_report.py --compare "$BUILD/load/rosetta-compare" --datasets "$BUILD/datasets" \
      --runs "${RUNS:-5}" --min-time "${MIN_TIME:-0.2}" --raw "$OUT/format_report.tsv"
    echo
    echo "What the figures say, and what they do not:"
    echo
    echo "- Floats. JSON carries a float32 as its shortest decimal (\`0.6135566\`), as a typed producer writes it;"
    echo "  read without a schema it is a float64 (the decimal is not exactly a float32), so CBOR and"
    echo "  MessagePack spend 9 bytes on it where protobuf's \`float\` spends 4. That is most of mesh's"
    echo "  CBOR/MessagePack size, and why their zstd sizes there are above JSON's."
    echo "- Bytes. mk48's terrain bytes are base64 text in JSON; schemaless CBOR/MessagePack keep that text"
    echo "  (there is no way to know it was bytes), protobuf stores the bytes."
    echo "- encode MB/s includes reading the CBOR source, so it is a transcode figure; MB/s are of each format's"
    echo "  own size, so compare µs per document across formats."
    echo "- Times are the thread's CPU time, so other work on the shared machine does not count as ours; it still"
    echo "  competes for caches and memory bandwidth: three repeated reports of one document agreed within ~5%."
  } >"$OUT/datasets.md"
  cat "$OUT/datasets.md"
fi

if [ "$ONLY" = all ] || [ "$ONLY" = service ]; then
  /usr/bin/python3 load/bench/service_bench.py --build "$BUILD" --datasets "$BUILD/datasets" --out "$OUT" \
    --reps "${REPS:-3}" --duration "${DURATION:-10}" --warmup "${WARMUP:-2}" \
    --connections "${CONNECTIONS:-4}" --inflight "${INFLIGHT:-16}" --open-inflight "${OPEN_INFLIGHT:-64}" \
    --rate-fractions "${RATE_FRACTIONS:-0.7,0.35}" \
    >"$OUT/service.md"
  cat "$OUT/service.md"
fi

if [ "$ONLY" = all ] || [ "$ONLY" = frontends ]; then
  {
    echo "Run $(date -u '+%Y-%m-%d %H:%M UTC') on $(machine). Clients that do not decode what they get, one"
    echo "thread each, so that a client's cost does not hide the servers': h2load (nghttp2-client) for gRPC, 4"
    echo "connections x 16 streams; wrk for HTTP/1.1, 4 connections x 16 pipelined requests (h2load cannot pipeline"
    echo "requests with a body), and 64 connections with one request each; rosetta-load for TCP, 4 connections x 16"
    echo "pipelined. Payload \`log_1k.json\` (957 bytes), JSON -> CBOR. rosetta-echo is the same gRPC service on the"
    echo "gRPC C++ library's callback API, answering the payload unchanged (it does no work). TranscodeStream: 100"
    echo "requests in each call's body, one response each. TLS rows: a second rosettad with --tls-cert/--tls-key (an"
    echo "EC P-256 certificate made for the run), TLS 1.3, handshakes before the measured window."
    echo "Medians of ${REPS:-3} rounds in alternating order; server CPU from /proc/PID/stat around each run."
    echo
    echo "\`\`\`sh"
    echo "ONLY=frontends scripts/benchmarks.sh   # or: /usr/bin/python3 load/bench/frontends_bench.py --build BUILD --datasets DIR"
    echo "\`\`\`"
    echo
    /usr/bin/python3 load/bench/frontends_bench.py --build "$BUILD" --datasets "$BUILD/datasets" --reps "${REPS:-3}"
  } >"$OUT/frontends.md"
  cat "$OUT/frontends.md"
fi

if [ "$ONLY" = all ] || [ "$ONLY" = overload ]; then
  {
    echo "Run $(date -u '+%Y-%m-%d %H:%M UTC') on $(machine). A legitimate client (rosetta-load, gRPC unary"
    echo "Transcode of \`log_1k.json\`, open loop at 2,000 requests/s on 2 connections, 8 s) beside a flood: h2load"
    echo "on 64 connections, each sending 3.5 MiB JSON -> CBOR Transcode calls back to back, one in flight per"
    echo "connection. rosettad with 2 I/O threads and --max-inflight-bytes as in the row; the flood's answered"
    echo "and refused calls from rosettad's own metrics; peak RSS is VmHWM over the RSS before the run."
    echo
    echo "\`\`\`sh"
    echo "ONLY=overload scripts/benchmarks.sh   # or: /usr/bin/python3 load/bench/overload_bench.py --build BUILD --datasets DIR"
    echo "\`\`\`"
    echo
    /usr/bin/python3 load/bench/overload_bench.py --build "$BUILD" --datasets "$BUILD/datasets" --seconds 8
  } >"$OUT/overload.md"
  cat "$OUT/overload.md"
fi

if [ "$ONLY" = all ] || [ "$ONLY" = cli ]; then
  CLI_BUILD=${CLI_BUILD_DIR:-build-bench}
  cmake -S . -B "$CLI_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DROSETTA_BUILD_BENCHMARKS=ON \
    "$(off_unless_on "$CLI_BUILD" ROSETTA_BUILD_TESTS)" \
    "$(off_unless_on "$CLI_BUILD" ROSETTA_BUILD_SERVICE)" >/dev/null
  if [ -n "${CLI_ROSETTA:-}" ]; then
    ninja -C "$CLI_BUILD" -j"${JOBS:-2}" rosetta-cli-peers >&2
  else
    ninja -C "$CLI_BUILD" -j"${JOBS:-2}" rosetta rosetta-cli-peers >&2
  fi
  CLI_ROSETTA=${CLI_ROSETTA:-$CLI_BUILD/codec/rosetta}
  CLI_DATA=${ROSETTA_CLI_BENCH_DATA:-$CLI_BUILD/cli}
  {
    echo "Each command below is one process, as a user runs it: start-up, reading the file (or the pipe),"
    echo "the transcode, writing the output. Peers, one program (load/bench/cli_peers.cc), each on its library's"
    echo "documented fastest whole-file path: nlohmann::json 3.11.2 \`json::parse\` of the file read at once, then"
    echo "\`json::to_cbor\` into a vector, written; RapidJSON 1.1.0 \`Reader\` (kParseInsituFlag, otherwise default"
    echo "flags: no UTF-8 validation, its fast inexact doubles; RAPIDJSON_SSE42) on the file read at once, into"
    echo "\`Writer<StringBuffer>\`, written (its streaming \`FileReadStream\` -> \`Writer<FileWriteStream>\` path is the"
    echo "row after it); simdjson 3.0.1 \`dom::parser::load\`, which parses and writes nothing. rosetta: default"
    echo "limits and options (I-JSON duplicate-key refusal, UTF-8 validation and exact doubles on), except LIMITS"
    echo "where a row shows them. Wall time and peak RSS of each process come from \`rosetta-cli-peers run\`, which"
    echo "forks it and reads wait4's ru_maxrss (a Python runner cannot: a child's ru_maxrss starts from the RSS of"
    echo "the process it was forked from; \`/bin/true\` measures 1 MiB this way). The JSON Lines log records"
    echo "(\`rosetta-cli-peers jsonl-logs\`, about 900 bytes each) come from a fixed seed."
    echo
    echo '```sh'
    echo "ONLY=cli scripts/benchmarks.sh   # or:"
    echo "/usr/bin/python3 load/bench/cli_bench.py --rosetta $CLI_BUILD/codec/rosetta --peers $CLI_BUILD/load/rosetta-cli-peers --data $CLI_BUILD/cli"
    echo '```'
    echo
    /usr/bin/python3 load/bench/cli_bench.py --rosetta "$CLI_ROSETTA" --peers "$CLI_BUILD/load/rosetta-cli-peers" \
      --data "$CLI_DATA" --runs "${CLI_RUNS:-5}" --seed "${SEED:-42}"
  } >"$OUT/cli.md"
  cat "$OUT/cli.md"
fi

if [ "$ONLY" = schema ]; then  # load/bench/schema_bench.py; SCHEMA_RUNS (5), SCHEMA_REPEAT (10)
  SCHEMA_BUILD=${CLI_BUILD_DIR:-build-bench}
  # valijson, the C++ peer: a benchmark-only package (it pulls in Qt, Poco and more), so it is
  # installed here rather than by install-deps.sh.
  dpkg -s libvalijson-dev >/dev/null 2>&1 || apt-get install -y --no-install-recommends libvalijson-dev >&2
  cmake -S . -B "$SCHEMA_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DROSETTA_BUILD_BENCHMARKS=ON \
    "$(off_unless_on "$SCHEMA_BUILD" ROSETTA_BUILD_TESTS)" \
    "$(off_unless_on "$SCHEMA_BUILD" ROSETTA_BUILD_SERVICE)" >/dev/null
  ninja -C "$SCHEMA_BUILD" -j"${JOBS:-2}" rosetta rosetta-cli-peers rosetta-schema-warm >&2
  VALIJSON=()  # a target once load/CMakeLists.txt adds bench/schema and libvalijson-dev is there
  if ninja -C "$SCHEMA_BUILD" -t targets all | grep '^rosetta-schema-valijson:' >/dev/null; then
    ninja -C "$SCHEMA_BUILD" -j"${JOBS:-2}" rosetta-schema-valijson >&2
    VALIJSON=(--valijson "$SCHEMA_BUILD/load/rosetta-schema-valijson")
  fi
  load/bench/schema/npm_peers.sh "$SCHEMA_BUILD/npm"
  /usr/bin/python3 load/bench/schema_bench.py --rosetta "$SCHEMA_BUILD/codec/rosetta" \
    --peers "$SCHEMA_BUILD/load/rosetta-cli-peers" "${VALIJSON[@]}" \
    --warm-rosetta "$SCHEMA_BUILD/load/rosetta-schema-warm" --modules "$SCHEMA_BUILD/npm/node_modules" \
    --data "$SCHEMA_BUILD/schema" --runs "${SCHEMA_RUNS:-5}" --repeat "${SCHEMA_REPEAT:-10}" --seed "${SEED:-42}" \
    >"$OUT/schema.md"
  cat "$OUT/schema.md"
fi

[ "${NO_DOC:-0}" = 1 ] && exit 0
# Replace (or append) only our two sections of docs/benchmarks.md.
/usr/bin/python3 - "$OUT" "$ONLY" <<'PY'
import os, re, sys
out, only = sys.argv[1], sys.argv[2]
path = "docs/benchmarks.md"
doc = open(path).read() if os.path.exists(path) else "# Benchmarks\n"
sections = []
if only in ("all", "service"):
    sections.append(("## Service", open(os.path.join(out, "service.md")).read()))
if only in ("all", "frontends"):
    sections.append(("## Front-ends", open(os.path.join(out, "frontends.md")).read()))
if only in ("all", "overload"):
    sections.append(("## Overload", open(os.path.join(out, "overload.md")).read()))
if only in ("all", "datasets"):
    sections.append(("## Datasets", open(os.path.join(out, "datasets.md")).read()))
if only in ("all", "cli"):
    sections.append(("## Whole-process CLI", open(os.path.join(out, "cli.md")).read()))
if only == "schema":
    sections.append(("## JSON Schema", open(os.path.join(out, "schema.md")).read()))
for heading, body in sections:
    text = f"{heading}\n\n<!-- written by scripts/benchmarks.sh; edits here are overwritten -->\n\n{body.strip()}\n\n"
    m = re.search(rf"^{re.escape(heading)}[ \t]*\n", doc, flags=re.M)
    if m:
        nxt = re.search(r"^## ", doc[m.end():], flags=re.M)
        end = m.end() + nxt.start() if nxt else len(doc)
        doc = doc[:m.start()] + text + doc[end:]
    else:
        doc = doc.rstrip("\n") + "\n\n" + text
open(path, "w").write(doc.rstrip("\n") + "\n")
print(f"benchmarks.sh: wrote {', '.join(h for h, _ in sections)} of {path}", file=sys.stderr)
PY

# Fixed records beside protobuf, libprotobuf and memcpy (docs/benchmarks.md "Fixed records"):
# printed for the page.
if [ "$ONLY" = all ] || [ "$ONLY" = fixed ]; then
  ninja -C "$BUILD" -j"${JOBS:-2}" rosetta-fixed-benchmark >&2
  "$BUILD/load/rosetta-fixed-benchmark" --benchmark_repetitions="${REPS:-3}" \
    --benchmark_report_aggregates_only=true --benchmark_min_time="${MIN_TIME:-0.3}" \
    --benchmark_out="$OUT/fixed.json" --benchmark_out_format=json >&2
  /usr/bin/python3 load/bench/fixed_report.py "$OUT/fixed.json" | tee "$OUT/fixed.md"
fi

# The codec tables (docs/benchmarks.md "Results"), then the same table on the data sets
# ("Codec table on the data sets"): printed for the page, by scripts/bench.sh.
if [ "$ONLY" = all ] || [ "$ONLY" = codec ]; then
  scripts/bench.sh > "$OUT/codec.md"
  if [ -f "$BUILD/datasets/log.json" ]; then  # made by the datasets part above
    ROSETTA_BENCH_DOCS="$BUILD/datasets:log,mesh,minecraft_savedata,mk48" REPS=3 MIN_TIME=0.2 \
      scripts/bench.sh > "$OUT/codec_datasets.md"
  fi
  echo "benchmarks.sh: codec tables in $OUT/codec.md and $OUT/codec_datasets.md" >&2
fi
