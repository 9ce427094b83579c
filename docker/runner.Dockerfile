# syntax=docker/dockerfile:1
# The runner image a DbtProject names in spec.image (docs/kubernetes.md, "Images"): the `ods`
# binary, and dbt with its adapters in a virtual environment pinned exactly as scripts/setup.sh
# pins .venv (requirements/dbt.txt with requirements/constraints.txt). From the repository root:
#   docker build -f docker/runner.Dockerfile -t ods-runner:0.1.0 .
# (here, without a registry or Docker: `make images`, scripts/images.sh).
# Build arguments:
#   DEBIAN_IMAGE, DEBIAN_SLIM_IMAGE  the bases (scripts/images.sh passes one it made with mmdebstrap)
#   EXTRA_PIP_PACKAGES               more adapters for the venv, pinned, e.g. "dbt-snowflake==1.10.8"
#                                    (installed with requirements/constraints.txt, so dbt-core stays)
# Build secret `build_ca` (optional): a CA bundle pip trusts during the build only (a network whose
# TLS goes through its own CA); it is mounted for that one step and is in no layer.
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
 && cmake --build /build --target ods \
 && strip /build/bin/ods

FROM ${DEBIAN_SLIM_IMAGE} AS runtime
# python3-venv for dbt's environment, git for git sources and dbt packages, and the shared
# libraries `ods` links.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates git python3 python3-venv \
      libc6 libgcc-s1 libstdc++6 libssl3 libsqlite3-0 libpq5 libcpprest2.10 libyaml-cpp0.7 \
 && rm -rf /var/lib/apt/lists/*
COPY requirements/dbt.txt requirements/constraints.txt /opt/ods/requirements/
ARG EXTRA_PIP_PACKAGES=
RUN --mount=type=secret,id=build_ca,required=false \
    if [ -f /run/secrets/build_ca ]; then export PIP_CERT=/run/secrets/build_ca; fi \
 && python3 -m venv /opt/ods/venv \
 && /opt/ods/venv/bin/pip install --no-cache-dir --disable-pip-version-check \
      -r /opt/ods/requirements/dbt.txt -c /opt/ods/requirements/constraints.txt $EXTRA_PIP_PACKAGES
COPY --from=build /build/bin/ods /usr/local/bin/ods
RUN groupadd --system --gid 65532 ods \
 && useradd --system --uid 65532 --gid ods --home-dir /home/ods --create-home --shell /usr/sbin/nologin ods
# `ods` runs the venv's dbt (ODS_DBT; also first on PATH).
ENV PATH=/opt/ods/venv/bin:$PATH ODS_DBT=/opt/ods/venv/bin/dbt
USER 65532:65532
WORKDIR /home/ods
ENTRYPOINT ["/usr/local/bin/ods"]
