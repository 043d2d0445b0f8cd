#!/usr/bin/env bash
# The libFuzzer targets (tests/fuzz), built with clang (ASan + UBSan) into build-fuzz/, run
# under the production default limits with -malloc_limit_mb=128 (an allocation driven by a
# claim is a crash). Every run first replays each target's committed regression inputs
# (tests/fuzz/regressions/<target>/) and committed corpus (tests/fuzz/corpus/<target>/),
# then the seeds made from ../shared/data (tests/fuzz/make_seeds.py).
#
#   scripts/fuzz.sh --ci                   the test command's step: reproducible. Each target
#                                          runs a fixed number of executions (CI_RUNS below)
#                                          from a fixed -seed and a fresh corpus folder, so the
#                                          same commit always gives the same verdict.
#   scripts/fuzz.sh [SECONDS] [TARGET]     discovery: random seeds, SECONDS per target
#                                          (default 300); the corpus grows in build-fuzz/corpus/.
#   scripts/fuzz.sh --merge [TARGET]       folds what discovery found into tests/fuzz/corpus/:
#                                          only inputs that add coverage beyond the seeds and
#                                          the committed corpus (libFuzzer -merge=1).
#
# A finding is written to build-fuzz/artifacts/<target>/: fix it, then commit the input as
# tests/fuzz/regressions/<target>/<what-it-is> (every later run replays it) and a test that
# holds it byte for byte.
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=discover
case "${1:-}" in
  --ci) MODE=ci; shift ;;
  --merge) MODE=merge; shift ;;
esac
if [ "$MODE" = discover ]; then
  SECONDS_PER_TARGET=${1:-300}
  ONLY=${2:-}
else
  ONLY=${1:-}
fi
DATA=${ROSETTA_DATA_DIR:-$(cd .. && pwd)/shared/data}
BUILD=build-fuzz
COMMITTED=tests/fuzz

# Executions per target in --ci: 35-90 s each on a 2-core machine of this project (the
# whole step took about 7 min in three runs, replay of the committed inputs included).
declare -A CI_RUNS=(
  [fuzz_cbor_reader]=500000
  [fuzz_deterministic]=300000
  [fuzz_fast_to_json]=1500000
  [fuzz_fixed]=400000
  [fuzz_json_reader]=90000
  [fuzz_json_schema]=150000
  [fuzz_msgpack_reader]=600000
  [fuzz_protobuf_reader]=700000
  [fuzz_regex]=400000
  [fuzz_roundtrip]=700000
  [fuzz_tcp_frames]=1500000
  [fuzz_transcode]=450000
)
CI_SEED=20261201

CC=clang-14 CXX=clang++-14 cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DROSETTA_BUILD_FUZZERS=ON -DROSETTA_BUILD_TESTS=OFF -DROSETTA_BUILD_SERVICE=OFF >/dev/null
cmake --build "$BUILD" -j "$(nproc)"
rm -rf "$BUILD/seeds" && python3 tests/fuzz/make_seeds.py "$DATA" "$BUILD/seeds"

COMMON=(-malloc_limit_mb=128 -rss_limit_mb=1024 -max_len=65536 -print_final_stats=1)
status=0
passed=0
failed=0
for target in "$BUILD"/tests/fuzz/fuzz_*; do
  name=$(basename "$target")
  [ -x "$target" ] && [ -f "$target" ] || continue
  [ -z "$ONLY" ] || [ "$name" = "$ONLY" ] || continue
  regressions="$COMMITTED/regressions/$name"
  committed="$COMMITTED/corpus/$name"
  mkdir -p "$BUILD/artifacts/$name"
  inputs=()
  for dir in "$regressions" "$committed" "$BUILD/seeds/$name"; do
    [ -d "$dir" ] && inputs+=("$dir")
  done
  log="$BUILD/$name.log"

  if [ "$MODE" = merge ]; then
    # New inputs are those the merge copies into a folder that starts with everything
    # already replayed; they are then moved into the committed corpus.
    work=$(mktemp -d)
    mkdir -p "$work/all" "$committed"
    for dir in "${inputs[@]}"; do cp "$dir"/* "$work/all/" 2>/dev/null || true; done
    ls "$work/all" | sort >"$work/before"
    # Edges only (no hit counters): the inputs that reach code the others do not, which
    # keeps the committed corpus small.
    "$target" -merge=1 -use_counters=0 "$work/all" "$BUILD/corpus/$name" "${COMMON[@]}" -max_len=16384 >"$log" 2>&1
    ls "$work/all" | sort >"$work/after"
    added=$(comm -13 "$work/before" "$work/after")
    for f in $added; do mv "$work/all/$f" "$committed/$f"; done
    echo "$name: $(printf '%s\n' $added | grep -c . || true) inputs added to $committed ($(ls "$committed" | wc -l) in all)"
    rm -rf "$work"
    continue
  fi

  if [ "$MODE" = ci ]; then
    runs=${CI_RUNS[$name]:?"no CI_RUNS entry for $name in scripts/fuzz.sh"}
    corpus=$(mktemp -d)
    # A fixed seed and a fixed count: the same inputs every time. libFuzzer 14 is repeatable
    # only without what it does by the clock: the corpus reload (-reload), the allocator
    # purge and the RSS thread (a malloc_limit still holds), and the entropic schedule;
    # with them off, two runs of fuzz_tcp_frames made the same corpus file for file. The
    # time bound is a backstop for a machine far slower than this one (reported if it ends
    # a run).
    args=(-seed="$CI_SEED" -runs="$runs" -reload=0 -purge_allocator_interval=-1 -rss_limit_mb=0
          -entropic=0 -max_total_time=300 -timeout=60)
    # And without address randomization: some of the codec's paths depend on where a buffer
    # lies (measured: fuzz_cbor_reader made different corpora run to run with it, the same
    # without it).
    run=(setarch "$(uname -m)" -R)
  else
    corpus="$BUILD/corpus/$name"
    mkdir -p "$corpus"
    args=(-max_total_time="$SECONDS_PER_TARGET" -timeout=10)
    run=()
  fi
  if "${run[@]}" "$target" "$corpus" "${inputs[@]}" "${COMMON[@]}" "${args[@]}" \
       -artifact_prefix="$BUILD/artifacts/$name/" >"$log" 2>&1; then
    execs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
    cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -n 1)
    if [ "$MODE" = ci ]; then
      note=""
      [ "${execs:-0}" -ge "$runs" ] || note=" (stopped by the time backstop: not the fixed count)"
      made=$(ls "$corpus" | sort | md5sum | cut -c1-12)  # file names are content hashes
      echo "$name: ok, ${execs:-?} executions from seed $CI_SEED, $cov, corpus $made$note"
    else
      echo "$name: ok, ${execs:-?} executions in ${SECONDS_PER_TARGET}s, $cov"
    fi
    passed=$((passed + 1))
  else
    echo "$name: FAILED (log: $log)"; tail -n 30 "$log"; status=1
    failed=$((failed + 1))
  fi
  [ "$MODE" = ci ] && rm -rf "$corpus"
done
[ "$MODE" = merge ] && exit 0
echo "fuzz: $passed passed, $failed failed"
exit $status
