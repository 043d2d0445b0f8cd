# rosettad in a container: built on Debian 12 with the project's own scripts, shipped on
# debian:12-slim with only the shared libraries rosettad links, running as a non-root user.
#
#   scripts/image.sh                                   (or by hand, from the project root:)
#   cp -r ../shared/data/json-schema-metaschemas . && docker build -t rosettad:0.1.0 .
#   docker run --rm -p 127.0.0.1:50051:50051 -p 127.0.0.1:50052:50052 -p 127.0.0.1:9464:9464 rosettad:0.1.0
#
# The build context must hold json-schema-metaschemas/: the official JSON Schema
# metaschemas, built into rosettad as data (codec/CMakeLists.txt, ROSETTA_METASCHEMA_DIR) so
# that a $ref to one resolves without a fetch. They live outside the repository
# (../shared/data), which no build context reaches: scripts/image.sh builds from a
# temporary context that holds them beside the sources.
#
# Where no registry is reachable, scripts/base-image.sh makes debian:12 and debian:12-slim
# locally (debootstrap). The load generator's image is deploy/overlays/load/Dockerfile.
#
# ROSETTA_MARCH (default x86-64-v3, as in CMakeLists.txt) picks simdjson's SIMD kernel at
# compile time; build with --build-arg ROSETTA_MARCH= for CPUs older than Haswell, at a
# large cost in JSON speed.

FROM debian:12 AS build
WORKDIR /src
# The dependency layer first: it changes only when the package list does. Only what the
# build of rosettad needs (install-deps.sh --image), not the tests' and benchmarks' tools.
COPY scripts/install-deps.sh scripts/install-deps.sh
RUN scripts/install-deps.sh --image && rm -rf /var/lib/apt/lists/*
# Only what the configure and the service build read (.dockerignore keeps build folders out).
COPY CMakeLists.txt ./
COPY codec codec
COPY proto proto
COPY service service
COPY load load
COPY json-schema-metaschemas json-schema-metaschemas
ARG ROSETTA_MARCH=x86-64-v3
# rosettad alone: the CLI, the load generator and the other programs are not built here.
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DROSETTA_BUILD_TESTS=OFF \
        -DROSETTA_BUILD_BENCHMARKS=OFF -DROSETTA_MARCH="${ROSETTA_MARCH}" \
        -DROSETTA_METASCHEMA_DIR=/src/json-schema-metaschemas >/dev/null \
 && cmake --build /build --target rosettad \
 && install -D -s /build/service/rosettad /out/usr/local/bin/rosettad \
 && /out/usr/local/bin/rosettad --help >/dev/null

FROM debian:12-slim AS runtime
# The runtime libraries of rosettad (ldd of the binary, by Debian package):
#   libnghttp2-14 zlib1g       gRPC's HTTP/2 (rosettad's own layer) and grpc-encoding gzip
#   libssl3                    TLS on the gRPC, TCP and HTTP listeners
#   libprotobuf32              protobuf messages (and descriptors)
#   libprometheus-cpp-core1.0 libprometheus-cpp-pull1.0 libcivetweb1   /metrics
#   libsimdjson14              the JSON reader
#   libre2-9                   JSON Schema pattern / patternProperties (linear time)
#   libidn2-0 libunistring2    JSON Schema format idn-hostname / idn-email (IDNA 2008)
#   libstdc++6 libgcc-s1 libc6 (already in the base image)
# Boost.Asio is header-only here: no Boost library at run time; no gRPC library either.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
        libnghttp2-14 zlib1g libssl3 libprotobuf32 \
        libprometheus-cpp-core1.0 libprometheus-cpp-pull1.0 libcivetweb1 \
        libsimdjson14 libre2-9 libidn2-0 libunistring2 libstdc++6 libgcc-s1 \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 rosetta \
 && useradd --system --uid 10001 --gid rosetta --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin rosetta
COPY --from=build /out/ /
# Fails the build if a library is missing from the list above.
RUN ! ldd /usr/local/bin/rosettad | grep 'not found' && rosettad --help >/dev/null
USER 10001:10001
# gRPC, TCP frames, HTTP, Prometheus metrics (docs/service.md).
EXPOSE 50051 50052 8080 9464
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/rosettad"]
# Every interface inside the container. Kubernetes manifests replace these arguments with
# --config (deploy/base); flags win over ROSETTA_* variables, so set listeners here or there.
CMD ["--grpc-listen", "0.0.0.0:50051", "--tcp-listen", "0.0.0.0:50052", "--http-listen", "0.0.0.0:8080", "--metrics-listen", "0.0.0.0:9464"]
