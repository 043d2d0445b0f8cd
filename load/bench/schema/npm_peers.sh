#!/usr/bin/env bash
# Installs the JSON Schema benchmark's node peers (package.json / package-lock.json beside this
# script: ajv 8.17.1, ajv-formats 3.0.1, @hyperjump/json-schema 1.18.0 and what they pin) into
# PREFIX/node_modules with `npm ci`, unless PREFIX already holds this very lock file.
#   load/bench/schema/npm_peers.sh [PREFIX]     (default build/npm)
# Needs node >= 18 and npm, and the npm registry (once; later runs reuse PREFIX).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PREFIX=${1:-build/npm}
mkdir -p "$PREFIX"
if [ -d "$PREFIX/node_modules" ] && cmp -s "$HERE/package-lock.json" "$PREFIX/package-lock.json.installed"; then
  exit 0
fi
cp "$HERE/package.json" "$HERE/package-lock.json" "$PREFIX/"
(cd "$PREFIX" && npm ci --no-audit --no-fund --loglevel=error >&2)
cp "$HERE/package-lock.json" "$PREFIX/package-lock.json.installed"
echo "npm_peers: installed into $PREFIX/node_modules" >&2
