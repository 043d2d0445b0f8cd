#!/usr/bin/env bash
# Every kustomization of deploy/ rendered with kubectl kustomize, and every object checked
# against Kubernetes' API schemas with unknown fields refused (validate/validate.mjs, on the
# npm packages pinned in validate/package-lock.json: installed here by npm ci, nothing
# fetched at run time). docs/deploy.md "How the manifests are checked".
set -euo pipefail
cd "$(dirname "$0")"
command -v kubectl >/dev/null || { echo "validate: needs kubectl (its kustomize renders the overlays)" >&2; exit 2; }
command -v npm >/dev/null || { echo "validate: needs Node.js and npm (scripts/install-deps.sh)" >&2; exit 2; }
(cd validate && npm ci --no-audit --no-fund --ignore-scripts --engine-strict=false --loglevel=error >/dev/null)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for k in base overlays/gateway overlays/sidecar overlays/load; do
  out="$tmp/${k//\//-}.yaml"
  kubectl kustomize "$k" >"$out"
  echo "validate: kubectl kustomize deploy/$k: $(grep -c '^kind:' "$out") objects"
done
node validate/validate.mjs "$tmp"/*.yaml
