#!/usr/bin/env bash
# The main job on the embedded default: examples/shop on DuckDB, state in
# examples/shop/.ods/state.db. Fresh data, then `ods state run` twice (the second reuses what
# is unchanged), then new rows in one source and a third run that builds only their readers.
# The ods binary: $ODS_BIN, else <repo>/$BUILD_DIR/bin/ods (BUILD_DIR defaults to build, as in
# the Makefile: `make demo BUILD_DIR=build-x` uses build-x).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ods="${ODS_BIN:-$root/${BUILD_DIR:-build}/bin/ods}"
project="$root/examples/shop"
[ -x "$ods" ] || { echo "demo: $ods not found; run 'make build' (or set ODS_BIN)" >&2; exit 1; }
cd "$project"
export DBT_PROFILES_DIR="$project"
export ODS_DBT="$root/.venv/bin/dbt"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "generating the demo data (scripts/generate_data.py --fresh) and forgetting earlier state"
"$root/.venv/bin/python" scripts/generate_data.py --fresh
rm -rf .ods target

step "first ods state run: nothing is recorded yet, so everything builds"
"$ods" state run

step "second ods state run: nothing changed, so what can be reused is reused (dbt builds the rest)"
"$ods" state run

step "25 new orders arrive in raw.orders (and their payments in raw.payments)"
"$root/.venv/bin/python" scripts/generate_data.py --append-orders 25

step "third ods state run: only the readers of the changed sources build"
"$ods" state run

step "the recorded runs (examples/shop/.ods/state.db)"
"$ods" state history --limit 5
