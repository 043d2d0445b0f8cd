#!/usr/bin/env bash
# Installs every Debian 12 package rosetta needs to build, test and run. Idempotent.
set -euo pipefail
PACKAGES=(
  cmake ninja-build g++ pkg-config ca-certificates curl
  libsimdjson-dev                                   # codec: JSON reader
  libfmt-dev                                        # codec: shortest double digits (Dragonbox)
  libgtest-dev libgmock-dev libbenchmark-dev        # tests, benchmarks
  nlohmann-json3-dev rapidjson-dev libzstd-dev      # benchmark peers, format report
  libprotobuf-dev protobuf-compiler                 # protobuf format (descriptors), rosetta_proto
  libnghttp2-dev zlib1g-dev                         # rosettad's gRPC: HTTP/2, grpc-encoding gzip
  libgrpc++-dev protobuf-compiler-grpc              # gRPC clients: tests, rosetta-load, rosetta-echo
  nghttp2-client python3-h2 wrk                     # h2load, wrk (front-end benchmarks), the HTTP/2 attack suite
  libboost-dev libboost-system-dev                  # rosettad TCP front-end (Asio)
  libssl-dev openssl                                # TLS (Asio's ssl); the tests' certificates
  prometheus-cpp-dev prometheus                     # metrics, promtool and a real Prometheus in tests
  python3 python3-grpcio python3-grpc-tools python3-protobuf grpc-proto  # examples, e2e, contract-check
  python3-pkg-resources                             # grpc_tools.protoc imports it (not a dependency in Debian)
  clang-14 libclang-rt-14-dev llvm-14               # fuzzers, sanitizers, the clang build
  clang-format-14                                   # the format check (.clang-format)
  valgrind                                          # independent count behind the allocation metrics
)
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
