#!/usr/bin/env bash
# Installs everything ODS needs to build, demo and test, and is quick when it is all there:
#   - Debian packages (compiler tool chain, clang 16 with libFuzzer and the sanitizer runtimes for
#     scripts/fuzz.sh and scripts/sanitize.sh, libraries, PostgreSQL server for the tests,
#     patchelf for `make dist`, shellcheck for scripts/lint.sh);
#   - ./.venv, a link to a cached venv with the pinned dbt-core and adapters
#     (requirements/dbt.txt + constraints.txt), built when its pins are new.
# Idempotent and quick when everything is there. Tier 2 (`make test-all`) needs more:
# scripts/setup-tier2.sh.
#
# PostgreSQL: the tests start their own server (initdb into a temp dir, pg_ctl on a free
# loopback port, run as the `postgres` system user the Debian package creates; see
# tests/harness/postgres_server.h). Nothing has to run before the tests: the package's own
# cluster (`main`, port 5432) and its service are not used; on a fresh install we ask
# postgresql-common not to create that cluster at all.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

debian_packages=(
  build-essential cmake ninja-build pkg-config git
  libgtest-dev libgmock-dev nlohmann-json3-dev libyaml-cpp-dev libsqlite3-dev sqlite3 libssl-dev libpq-dev
  python3-venv
  libcpprest-dev prometheus-cpp-dev
  postgresql postgresql-client time clang-format clang-tidy-16 ccache patchelf
  libsimdjson-dev prometheus prometheus-pushgateway rsync clang-16 libclang-rt-16-dev
)
# The lint's own tools (scripts/lint.sh), installed with the rest; apart because no image builds
# with them (tests/images/check_dockerfiles.sh holds the images' build stage to debian_packages).
lint_packages=(shellcheck)

missing=()
for p in "${debian_packages[@]}" "${lint_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
  if [ ! -e /etc/postgresql-common/createcluster.conf ]; then
    # Before postgresql-common is installed: no auto-created `main` cluster (the tests initdb their own).
    $sudo mkdir -p /etc/postgresql-common/createcluster.d
    echo "create_main_cluster = false" | $sudo tee /etc/postgresql-common/createcluster.d/ods.conf >/dev/null
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Node.js and npm for the CI-step tests' npm tools (tests/ci/install_npm_tools.sh). A Node.js from
# elsewhere (NodeSource's package carries npm) is fine when npm is on PATH.
if ! command -v npm >/dev/null; then
  echo "setup: installing Debian packages: nodejs npm"
  if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi

# ./.venv is a link to a venv outside the clone, keyed by the pins
# (${XDG_CACHE_HOME:-$HOME/.cache}/ods/venvs/<digest of requirements/dbt.txt and constraints.txt>),
# so a fresh clone (CI's) links the one already built (scripts/lib/cached_venv.sh). A real
# directory at ./.venv (an older checkout's) is replaced by the link.
install_dbt_venv() {
  echo "setup: creating $venv with pinned dbt (requirements/dbt.txt)"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r requirements/dbt.txt -c requirements/constraints.txt
}
. scripts/lib/cached_venv.sh
cached_venv venvs "$(cat requirements/dbt.txt requirements/constraints.txt | sha256sum | cut -c1-16)" install_dbt_venv
if [ "$(readlink .venv 2>/dev/null)" != "$venv" ]; then
  rm -rf .venv
  ln -s "$venv" .venv
fi
pg_bin=$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -1)  # the pattern itself when none: fails below
if [ -z "$pg_bin" ] || [ ! -x "$pg_bin/initdb" ] || ! getent passwd postgres >/dev/null; then
  echo "setup: PostgreSQL server binaries (/usr/lib/postgresql/*/bin) or the postgres user are missing" >&2
  exit 1
fi
echo "setup: ok ($(.venv/bin/dbt --version 2>/dev/null | grep -m1 -i 'installed' | tr -s ' '))"
