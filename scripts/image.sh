#!/usr/bin/env bash
# Builds the images, as a user would with Docker: rosettad (the top-level Dockerfile) and
# rosetta-load (deploy/overlays/load/Dockerfile), then starts rosettad's image the way the
# manifests run it (read-only root, uid 10001, no capabilities) and stops it. Fails if an
# image does not build, does not start, does not stop cleanly, or if rosettad's image is
# over the size bar. Starts a Docker daemon when none runs (its pid in $DOCKERD_PID_FILE)
# and makes the Debian base images locally when they are missing (scripts/base-image.sh).
#
#   scripts/image.sh                # rosettad:0.1.0, rosettad-build:0.1.0, rosetta-load:0.1.0
#
# rosettad's build context is a temporary folder: what the Dockerfile copies from the
# sources, and the JSON Schema metaschemas ($METASCHEMAS, ../shared/data outside the
# repository), which rosettad builds in as data.
set -euo pipefail
cd "$(dirname "$0")/.."
DOCKER=${DOCKER:-/usr/bin/docker}
TAG=${TAG:-0.1.0}
MAX_IMAGE_MB=${MAX_IMAGE_MB:-110}
DOCKERD_PID_FILE=${DOCKERD_PID_FILE:-/run/rosetta-dockerd.pid}
METASCHEMAS=${METASCHEMAS:-../shared/data/json-schema-metaschemas}
ls "$METASCHEMAS"/*.json >/dev/null 2>&1 ||
  { echo "image: no JSON Schema metaschemas in $METASCHEMAS (set METASCHEMAS)" >&2; exit 2; }
context=$(mktemp -d)
name=
cleanup() {
  rm -rf "$context"
  if [ -n "$name" ]; then "$DOCKER" rm -f "$name" >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

if ! "$DOCKER" info >/dev/null 2>&1; then
  command -v dockerd >/dev/null || { echo "image: no dockerd (scripts/install-deps.sh installs docker.io)" >&2; exit 2; }
  echo "image: starting dockerd (log /var/log/rosetta-dockerd.log)"
  dockerd >/var/log/rosetta-dockerd.log 2>&1 &
  echo $! >"$DOCKERD_PID_FILE"
  for _ in $(seq 60); do "$DOCKER" info >/dev/null 2>&1 && break; sleep 0.5; done
  "$DOCKER" info >/dev/null 2>&1 || { tail -n 20 /var/log/rosetta-dockerd.log >&2; exit 1; }
fi
scripts/base-image.sh

t0=$SECONDS
# cp -a keeps modes and times, so Docker's layer cache sees the same files as last time.
cp -a Dockerfile .dockerignore CMakeLists.txt codec proto service load "$context/"
mkdir "$context/scripts"
cp -a scripts/install-deps.sh "$context/scripts/"
cp -a "$METASCHEMAS" "$context/json-schema-metaschemas"
"$DOCKER" build -q -t "rosettad:$TAG" "$context" >/dev/null
"$DOCKER" build -q --target build -t "rosettad-build:$TAG" "$context" >/dev/null  # from the cache
echo "image: rosettad:$TAG built in $((SECONDS - t0)) s"
t1=$SECONDS
"$DOCKER" build -q -f deploy/overlays/load/Dockerfile --build-arg "BUILD_IMAGE=rosettad-build:$TAG" \
  -t "rosetta-load:$TAG" . >/dev/null
echo "image: rosetta-load:$TAG built in $((SECONDS - t1)) s"

mb() { "$DOCKER" image inspect -f '{{.Size}}' "$1" | awk '{printf "%.1f", $1 / 1e6}'; }
size=$(mb "rosettad:$TAG")
echo "image: rosettad:$TAG $size MB (debian:12-slim $(mb debian:12-slim) MB), rosetta-load:$TAG $(mb "rosetta-load:$TAG") MB"
awk -v s="$size" -v m="$MAX_IMAGE_MB" 'BEGIN { exit !(s <= m) }' ||
  { echo "image: FAIL rosettad:$TAG is $size MB, over the bar of $MAX_IMAGE_MB MB" >&2; exit 1; }

# It starts and stops as the manifests run it.
name=rosetta-image-check-$$
"$DOCKER" run -d --name "$name" --read-only --user 10001:10001 --cap-drop ALL \
  --security-opt no-new-privileges "rosettad:$TAG" >/dev/null
for _ in $(seq 100); do
  "$DOCKER" logs "$name" 2>/dev/null | grep -q '^rosettad listening ' && break
  [ "$("$DOCKER" inspect -f '{{.State.Running}}' "$name")" = true ] || break
  sleep 0.1
done
line=$("$DOCKER" logs "$name" 2>/dev/null | grep '^rosettad listening ' || true)
[ -n "$line" ] || { "$DOCKER" logs "$name" >&2; echo "image: FAIL rosettad did not start" >&2; exit 1; }
echo "image: $line"
"$DOCKER" stop -t 10 "$name" >/dev/null
code=$("$DOCKER" inspect -f '{{.State.ExitCode}}' "$name")
[ "$code" = 0 ] || { "$DOCKER" logs "$name" >&2; echo "image: FAIL exit $code after docker stop" >&2; exit 1; }
echo "image: started read-only as uid 10001 without capabilities, stopped with exit 0"

# The metaschemas are built in: a schema whose $ref is the 2020-12 metaschema loads (without
# them it resolves nowhere and rosettad exits 2).
mkdir -m 755 "$context/schemas"
echo '{"$ref": "https://json-schema.org/draft/2020-12/schema"}' >"$context/schemas/meta.json"
chmod 644 "$context/schemas/meta.json"
out=$("$DOCKER" run --rm --read-only --user 10001:10001 --cap-drop ALL -v "$context/schemas:/schemas:ro" \
  --entrypoint /usr/bin/timeout "rosettad:$TAG" 3 /usr/local/bin/rosettad --schema-dir /schemas \
  --grpc-listen 127.0.0.1:0 --tcp-listen 127.0.0.1:0 --http-listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 2>&1 || true)
grep -q '^rosettad: JSON Schemas loaded from /schemas (1)$' <<<"$out" ||
  { echo "$out" >&2; echo "image: FAIL a \$ref to a metaschema does not load (are they built in?)" >&2; exit 1; }
echo "image: the JSON Schema metaschemas are built in (a \$ref to the 2020-12 metaschema loads)"
