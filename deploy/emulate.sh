#!/usr/bin/env bash
# Pod emulation: the manifests of deploy/ run as Docker containers on this machine, with the
# kubelet's settings, probes and termination (deploy/emulate.py; docs/deploy.md "Pod
# emulation"). Needs the images of scripts/image.sh and a running Docker daemon.
#
#   deploy/emulate.sh                          # base, gateway (rolling restart), sidecar
#   deploy/emulate.sh --only gateway --json figures.json
set -euo pipefail
cd "$(dirname "$0")/.."
exec /usr/bin/python3 deploy/emulate.py "$@"
