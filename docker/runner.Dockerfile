# syntax=docker/dockerfile:1
# The runner image a DbtProject names in spec.image (docs/kubernetes.md, "Images"): the `ods`
# binary, and dbt with its adapters in a virtual environment pinned exactly as scripts/setup.sh
# pins .venv (requirements/dbt.txt with requirements/constraints.txt). From the repository root:
#   docker build -f docker/runner.Dockerfile -t ods-runner:0.1.0 .
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
 && cmake --build /build --target ods \
 && strip /build/bin/ods

FROM debian:bookworm-slim AS runtime
# python3-venv for dbt's environment, git for git sources and dbt packages, and the shared
# libraries `ods` links.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates git python3 python3-venv \
      libc6 libgcc-s1 libstdc++6 libssl3 libsqlite3-0 libpq5 libcpprest2.10 libyaml-cpp0.7 \
 && rm -rf /var/lib/apt/lists/*
COPY requirements/dbt.txt requirements/constraints.txt /opt/ods/requirements/
RUN python3 -m venv /opt/ods/venv \
 && /opt/ods/venv/bin/pip install --no-cache-dir --disable-pip-version-check \
      -r /opt/ods/requirements/dbt.txt -c /opt/ods/requirements/constraints.txt
COPY --from=build /build/bin/ods /usr/local/bin/ods
RUN groupadd --system --gid 65532 ods \
 && useradd --system --uid 65532 --gid ods --home-dir /home/ods --create-home --shell /usr/sbin/nologin ods
# `ods` runs the venv's dbt (ODS_DBT; also first on PATH).
ENV PATH=/opt/ods/venv/bin:$PATH ODS_DBT=/opt/ods/venv/bin/dbt
USER 65532:65532
WORKDIR /home/ods
ENTRYPOINT ["/usr/local/bin/ods"]
