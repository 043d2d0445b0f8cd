#!/usr/bin/env bash
# Installs every Debian 12 package rosetta needs to build, test and run. Idempotent.
#   scripts/install-deps.sh           everything: builds, tests, benchmarks, the image and the
#                                     pod emulation (Docker, debootstrap)
#   scripts/install-deps.sh --image   only what building rosettad and rosetta-load needs (the
#                                     Dockerfile's build stages)
set -euo pipefail
# Building the service and the load generator (the whole CMake configure needs them all).
BUILD_PACKAGES=(
  cmake ninja-build g++ pkg-config ca-certificates
  libsimdjson-dev                                   # codec: JSON reader
  libfmt-dev                                        # codec: shortest double digits (Dragonbox)
  libzstd-dev                                       # the format report (load/, configured with the service)
  libprotobuf-dev protobuf-compiler                 # protobuf format (descriptors), rosetta_proto
  libnghttp2-dev zlib1g-dev                         # rosettad's gRPC: HTTP/2, grpc-encoding gzip
  libgrpc++-dev protobuf-compiler-grpc              # gRPC clients: tests, rosetta-load, rosetta-echo
  grpc-proto                                        # health.proto, reflection.proto (rosettad serves both)
  libboost-dev libboost-system-dev                  # rosettad TCP front-end (Asio)
  libssl-dev                                        # TLS (Asio's ssl)
  prometheus-cpp-dev                                # metrics
  libre2-dev                                        # JSON Schema: pattern, patternProperties (linear time)
  libidn2-dev libunistring-dev                      # JSON Schema: the idn-hostname and idn-email formats
)
PACKAGES=(
  "${BUILD_PACKAGES[@]}" curl
  libgtest-dev libgmock-dev libbenchmark-dev        # tests, benchmarks
  nlohmann-json3-dev rapidjson-dev                  # benchmark peers
  nghttp2-client python3-h2 wrk                     # h2load, wrk (front-end benchmarks), the HTTP/2 attack suite
  openssl                                           # the tests' certificates
  prometheus                                        # promtool and a real Prometheus in tests
  python3 python3-grpcio python3-grpc-tools python3-protobuf  # examples, e2e, contract-check
  python3-pkg-resources                             # grpc_tools.protoc imports it (not a dependency in Debian)
  clang-14 libclang-rt-14-dev llvm-14               # fuzzers, sanitizers, the clang build
  clang-format-14                                   # the format check (.clang-format)
  valgrind                                          # independent count behind the allocation metrics
  docker.io debootstrap                             # the image (scripts/base-image.sh) and the pod emulation
  python3-yaml                                      # deploy/emulate.py reads the rendered manifests
  python3-jsonschema python3-cbor2 python3-msgpack  # JSON Schema: the differential test's oracle and encodings
)
# deploy/validate (the manifests against Kubernetes' schemas) runs on Node.js with npm: Debian's,
# unless the machine has its own (a nodejs package from elsewhere conflicts with Debian's npm).
command -v npm >/dev/null || PACKAGES+=(nodejs npm)
[ "${1:-}" = "--image" ] && PACKAGES=("${BUILD_PACKAGES[@]}")
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
