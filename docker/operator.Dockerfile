# syntax=docker/dockerfile:1
# The ods-operator image (docs/kubernetes.md, "Images"). From the repository root:
#   docker build -f docker/operator.Dockerfile -t ods-operator:0.1.0 .
# Debian bookworm in both stages: the runtime libraries are the ones the build linked.
# tests/images/check_dockerfiles.sh keeps the package lists in step with scripts/setup.sh and
# with the libraries the binaries link (ctest -R dockerfiles).

FROM debian:bookworm AS build
# scripts/setup.sh's Debian packages, without the ones only its tests and demo use.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build pkg-config git \
      libgtest-dev libgmock-dev nlohmann-json3-dev libyaml-cpp-dev libsqlite3-dev libssl-dev libpq-dev \
      libcpprest-dev prometheus-cpp-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release \
 && cmake --build /build --target ods-operator \
 && strip /build/bin/ods-operator

FROM debian:bookworm-slim AS runtime
# Only the shared libraries ods-operator links (and CA certificates for the API server and
# PostgreSQL over TLS).
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates libc6 libgcc-s1 libstdc++6 libssl3 libsqlite3-0 libpq5 \
      libcpprest2.10 libprometheus-cpp-core1.0 libyaml-cpp0.7 \
 && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 65532 ods \
 && useradd --system --uid 65532 --gid ods --home-dir /nonexistent --no-create-home --shell /usr/sbin/nologin ods
COPY --from=build /build/bin/ods-operator /usr/local/bin/ods-operator
USER 65532:65532
# /metrics /healthz /readyz; the callback server runner pods report to.
EXPOSE 8080 8081
ENTRYPOINT ["/usr/local/bin/ods-operator"]
