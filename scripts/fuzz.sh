#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for SECONDS
# (default 30) from seeds made of ../shared/data, under the production default limits and
# -malloc_limit_mb=128 (an allocation driven by a claim is a crash). Prints executions
# per target. Longer runs: scripts/fuzz.sh 600; one target: scripts/fuzz.sh 600 fuzz_cbor_reader
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-30}
ONLY=${2:-}
DATA=${ROSETTA_DATA_DIR:-$(cd .. && pwd)/shared/data}
BUILD=build-fuzz
CC=clang-14 CXX=clang++-14 cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DROSETTA_BUILD_FUZZERS=ON -DROSETTA_BUILD_TESTS=OFF -DROSETTA_BUILD_SERVICE=OFF >/dev/null
cmake --build "$BUILD" -j "$(nproc)"
rm -rf "$BUILD/seeds" && python3 tests/fuzz/make_seeds.py "$DATA" "$BUILD/seeds"
status=0
passed=0
failed=0
for target in "$BUILD"/tests/fuzz/fuzz_*; do
  name=$(basename "$target")
  [ -x "$target" ] && [ -f "$target" ] || continue
  [ -z "$ONLY" ] || [ "$name" = "$ONLY" ] || continue
  corpus="$BUILD/corpus/$name"
  mkdir -p "$corpus" "$BUILD/artifacts/$name"
  log="$BUILD/$name.log"
  if "$target" "$corpus" "$BUILD/seeds/$name" -max_total_time="$SECONDS_PER_TARGET" -malloc_limit_mb=128 \
       -rss_limit_mb=1024 -max_len=65536 -timeout=10 -print_final_stats=1 \
       -artifact_prefix="$BUILD/artifacts/$name/" >"$log" 2>&1; then
    execs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
    echo "$name: ok, ${execs:-?} executions in ${SECONDS_PER_TARGET}s"
    passed=$((passed + 1))
  else
    echo "$name: FAILED (log: $log)"; tail -n 30 "$log"; status=1
    failed=$((failed + 1))
  fi
done
echo "fuzz: $passed passed, $failed failed"
exit $status
