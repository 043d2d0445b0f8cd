#!/usr/bin/env bash
# Installs, builds and runs the main job: a sample document through the CLI, JSON ->
# CBOR -> JSON. (Once rosettad exists, this starts the service with its defaults.)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
BUILD_DIR=build scripts/build.sh -DROSETTA_BUILD_TESTS=OFF
echo '{"service":"rosetta","formats":["json","cbor","msgpack"],"n":18446744073709551616}' |
  build/codec/rosetta transcode --from json --to cbor | tee /tmp/rosetta-sample.cbor |
  build/codec/rosetta transcode --from cbor --to json
echo
