#!/usr/bin/env bash
# The main job on the embedded default: examples/shop on DuckDB, state in .ods/state.db.
# dbt build, then `ods state record`, then `ods state plan` (until `ods state run` exists).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ods="$root/build/bin/ods"
dbt="$root/.venv/bin/dbt"
project="$root/examples/shop"
cd "$project"
export DBT_PROFILES_DIR="$project"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "generating the demo data (examples/shop/scripts/generate_data.py)"
"$root/.venv/bin/python" scripts/generate_data.py
rm -rf .ods

for run in first second; do
  step "dbt source freshness, then the $run dbt build, then ods state record"
  # Freshness before the build: record() uses sources.json only when taken before the run.
  "$dbt" --quiet source freshness || true
  "$dbt" --quiet build
  "$ods" state record --project-dir . --target dev
done
# (Two builds: an incremental model's SQL differs on its very first build; see docs/cli.md.)

step "dbt source freshness + dbt compile (fresh evidence and the current code)"
"$dbt" --quiet source freshness || true
"$dbt" --quiet compile

step "ods state plan (nothing changed: what can be reused is reused, and each decision says why)"
"$ods" state plan --project-dir . --target dev

step "edit a model's SQL (stg_orders) and plan again"
cp models/staging/stg_orders.sql /tmp/ods-demo-stg_orders.sql
trap 'cp /tmp/ods-demo-stg_orders.sql "$project/models/staging/stg_orders.sql"' EXIT
sed -i 's/^select/select 1 as ods_demo_edit,/' models/staging/stg_orders.sql
"$dbt" --quiet compile
"$ods" state plan --project-dir . --target dev
"$ods" state explain stg_orders --project-dir . --target dev
