#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine: install, build, test.
set -euo pipefail
cd "$(dirname "$0")/.."
export ROSETTA_DATA_DIR=${ROSETTA_DATA_DIR:-$(cd .. && pwd)/shared/data}
scripts/install-deps.sh
BUILD_DIR=build scripts/build.sh -DROSETTA_BUILD_TESTS=ON
ctest --test-dir build --output-on-failure -j "$(nproc)"
echo "== contract-check"
../shared/tools/contract-check build
