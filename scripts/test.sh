#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine: install, build, test.
#  1. Release build: every GoogleTest (codec, conformance, protobuf, service), the e2e tests
#     against the real rosettad (Python clients, a real Prometheus, hostile traffic), the
#     load smoke test, then ../shared/tools/contract-check as an outside client.
#     Then the images (scripts/image.sh: Docker from Debian, base images by debootstrap),
#     the manifests rendered and validated (deploy/validate.sh), and the pod emulation
#     (deploy/emulate.sh: base, gateway rolling restart under load, sidecar).
#  2. Every C++ file formatted as .clang-format says; the whole tree (tests, service,
#     benchmarks) built with clang-14 and -Werror too.
#  3. The same suite built with ROSETTA_SANITIZE=address,undefined.
#  4. Each libFuzzer target: its committed regression inputs and corpus replayed, then a
#     fixed number of executions from a fixed seed (scripts/fuzz.sh --ci: reproducible).
set -euo pipefail
cd "$(dirname "$0")/.."
export ROSETTA_DATA_DIR=${ROSETTA_DATA_DIR:-$(cd .. && pwd)/shared/data}
JOBS=$(nproc)
scripts/install-deps.sh

echo "== Release build and tests"
BUILD_DIR=build scripts/build.sh -DROSETTA_BUILD_TESTS=ON -DROSETTA_BUILD_BENCHMARKS=ON
ctest --test-dir build --output-on-failure -j "$JOBS"

echo "== contract-check"
../shared/tools/contract-check build

echo "== image and pod emulation (Docker; docs/deploy.md)"
t0=$SECONDS
export DOCKERD_PID_FILE=/run/rosetta-dockerd.pid
rm -f "$DOCKERD_PID_FILE"
scripts/image.sh
deploy/validate.sh
deploy/emulate.sh --json build/emulation.json
if [ -s "$DOCKERD_PID_FILE" ]; then kill "$(cat "$DOCKERD_PID_FILE")" 2>/dev/null || true; fi
echo "image and pod emulation: $((SECONDS - t0)) s"

echo "== format (clang-format-14, .clang-format)"
git ls-files '*.cc' '*.h' | xargs clang-format-14 --dry-run --Werror

echo "== clang-14 build of everything (-Werror)"
CC=clang-14 CXX=clang++-14 BUILD_DIR=build-clang scripts/build.sh -DROSETTA_BUILD_TESTS=ON -DROSETTA_BUILD_BENCHMARKS=ON

echo "== sanitizers: address,undefined"
BUILD_DIR=build-asan BUILD_TYPE=RelWithDebInfo scripts/build.sh -DROSETTA_SANITIZE=address,undefined \
  -DROSETTA_BUILD_TESTS=ON -DROSETTA_BUILD_BENCHMARKS=OFF
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$(pwd)/tests/lsan.supp}
ctest --test-dir build-asan --output-on-failure -j "$JOBS" --timeout 900

echo "== fuzzing (reproducible: fixed seed and executions per target)"
scripts/fuzz.sh --ci
