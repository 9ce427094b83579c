# syntax=docker/dockerfile:1
# The ods-operator image (docs/kubernetes.md, "Images"). From the repository root:
#   docker build -f docker/operator.Dockerfile -t ods-operator:0.1.0 .
# (here, without a registry or Docker: `make images`, scripts/images.sh). Build arguments
# DEBIAN_IMAGE and DEBIAN_SLIM_IMAGE: the bases (scripts/images.sh passes one it made with mmdebstrap).
# Debian bookworm in both stages: the runtime libraries are the ones the build linked.
# tests/images/check_dockerfiles.sh keeps the package lists in step with scripts/setup.sh and
# with the libraries the binaries link (ctest -R dockerfiles).

ARG DEBIAN_IMAGE=debian:bookworm
ARG DEBIAN_SLIM_IMAGE=debian:bookworm-slim

FROM ${DEBIAN_IMAGE} AS build
# scripts/setup.sh's Debian packages, without the ones only its tests and demo use (ccache: the
# compile below keeps its output in a cache mount, so a rebuild recompiles only what changed).
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build pkg-config git ccache \
      libgtest-dev libgmock-dev nlohmann-json3-dev libyaml-cpp-dev libsqlite3-dev libssl-dev libpq-dev \
      libcpprest-dev prometheus-cpp-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN --mount=type=cache,id=ods-ccache,target=/root/.cache/ccache \
    cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release \
 && cmake --build /build --target ods-operator \
 && strip /build/bin/ods-operator

FROM ${DEBIAN_SLIM_IMAGE} AS runtime
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
