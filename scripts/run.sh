#!/usr/bin/env bash
# Installs, builds and runs rosettad with its defaults (gRPC 127.0.0.1:50051, TCP
# 127.0.0.1:50052, metrics 127.0.0.1:9464). Extra arguments go to rosettad.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
BUILD_DIR=build scripts/build.sh -DROSETTA_BUILD_TESTS=OFF
exec build/service/rosettad "$@"
