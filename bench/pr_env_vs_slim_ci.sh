#!/usr/bin/env bash
# PR environments: `ods state pr` against dbt's "slim CI" on the same scripted pull requests of
# examples/shop (DuckDB), measured in the same run (docs/ci.md, "PR environments").
#
#   bench/pr_env_vs_slim_ci.sh [REPS] [NODES]   (REPS default 1: each PR is measured REPS times,
#                                               medians printed)
#
# With NODES (e.g. 1000): the project is bench/gen_project.py's of NODES nodes instead of
# examples/shop, with a `pr` target (schema pr) beside `dev`, and two pull requests: a model edit
# (gen_project.py --changed: the middle model of the middle layer gets one more column) and a
# comment-only edit (one staging model).
#
# Production: examples/shop plus a local package (shop_utils, installed by `dbt deps`, whose macro
# region_label dim_customers calls), generated and run twice by `ods state run` (target dev, the
# second run being the incremental model's steady state), with a digest key (env-reading hooks
# fingerprinted);
# its manifest kept as slim CI's --state. Then each pull request, on two fresh copies of that
# production (project, DuckDB file and state), once per tool:
#   ODS:     ods state pr --target dev --pr-target pr                 (defer, favor-state)
#   slim CI: dbt build --select state:modified+ --defer --favor-state --state <prod manifest> --target pr
# Prints per PR the nodes (models, seeds, snapshots) each built, each one's wall seconds and the
# ratio, and the nodes ODS built that state:modified missed (and the reverse), as a Markdown table.
# Needs: `make bench-programs` (or any build of ods; $ODS overrides), ./.venv (make setup).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=$root/bench
# shellcheck source=bench/common.sh
source "$bench/common.sh"
reps=${1:-1}
nodes=${2:-}
[[ -z $nodes || $nodes =~ ^[0-9]+$ ]] || { log "NODES must be a number, not '$nodes'"; exit 2; }
ods=${ODS:-$root/build/bin/ods}
venv=$root/.venv/bin
py=$venv/python
[[ -x $ods ]] || { log "no ods at $ods: build it first (make bench-programs)"; exit 1; }
[[ -x $venv/dbt ]] || { log "no dbt in $venv: run make setup"; exit 1; }
export PATH=$venv:$PATH ODS_DBT=$venv/dbt DBT_SEND_ANONYMOUS_USAGE_STATS=false DO_NOT_TRACK=1
export ODS_DIGEST_KEY=bench-pr-environment-digest-key-0123456789 SHOP_AUDIT_TAG=none
export ODS_STATE= # the project's own SQLite file
work=$(mktemp -d "${TMPDIR:-/tmp}/ods-bench-pr.XXXXXX")
trap 'rm -rf "$work"' EXIT

prod=$work/prod
what_project="examples/shop (DuckDB)"
# run_production: production's two runs (the second the incremental model's steady state), its
# manifest kept for slim CI's --state.
run_production() {
  for i in 1 2; do
    (cd "$prod" && run_logged "$work/prod$i.log" "$ods" state run --project-dir . --profiles-dir . --target dev --write-manifest)
  done
  mkdir -p "$work/prod-manifest"
  cp "$prod/target/manifest.json" "$work/prod-manifest/manifest.json"
}

# shop_production: examples/shop and its package in $prod, run twice; its manifest kept.
shop_production() {
  mkdir -p "$prod"
  (cd "$root/examples/shop" && tar --exclude=./target --exclude=./logs --exclude=./.ods --exclude='./*.duckdb*' -cf - .) |
    tar -xf - -C "$prod"
  log "production: examples/shop with the package shop_utils, generated and run twice by ods state run (target dev)"
  mkdir -p "$prod/pkgs/shop_utils/macros"
  printf 'name: shop_utils\nversion: "1.0.0"\nconfig-version: 2\n' >"$prod/pkgs/shop_utils/dbt_project.yml"
  echo "{% macro region_label(col) %}upper({{ col }}){% endmacro %}" >"$prod/pkgs/shop_utils/macros/region_label.sql"
  printf 'packages:\n  - local: pkgs/shop_utils\n' >"$prod/packages.yml"
  sed -i 's/^    cc.region,$/    cc.region,\n    {{ shop_utils.region_label("cc.region") }} as region_label,/' "$prod/models/marts/dim_customers.sql"
  grep -q region_label "$prod/models/marts/dim_customers.sql" || { log "dim_customers.sql changed: the package's call was not added"; exit 1; }
  (cd "$prod" && run_logged "$work/deps.log" "$venv/dbt" deps --profiles-dir .)
  # dbt deps links a local package by its absolute path; a relative link keeps each copy's own.
  ln -sfn ../pkgs/shop_utils "$prod/dbt_packages/shop_utils"
  (cd "$prod" && run_logged "$work/gen.log" "$py" scripts/generate_data.py)
  run_production
}

# generated_production: bench/gen_project.py's project of $nodes nodes in $prod, with a `pr`
# target, run twice; its manifest kept.
generated_production() {
  what_project="bench/gen_project.py, $nodes nodes (DuckDB)"
  log "production: a generated project of $nodes nodes, run twice by ods state run (target dev)"
  mkdir -p "$prod"
  run_logged "$work/gen.log" "$py" "$bench/gen_project.py" "$nodes" "$prod"
  add_pr_target "$prod"
  (cd "$prod" && run_logged "$work/raw.log" "$venv/dbt" run-operation bench_create_raw --project-dir . --profiles-dir .)
  run_production
}

# add_pr_target DIR: a `pr` output (the same DuckDB file, schema pr) in DIR's generated profiles.yml.
add_pr_target() {
  local db
  db=$(sed -n 's/^ *path: "\(.*\)"$/\1/p' "$1/profiles.yml" | head -n 1)
  printf '    pr:\n      type: duckdb\n      path: "%s"\n      schema: pr\n      threads: 2\n' "$db" >>"$1/profiles.yml"
}

if [[ -n $nodes ]]; then generated_production; else shop_production; fi

# The scripted pull requests: NAME and the edit (a shell line run in the PR's copy); env lines
# (NAME=value) the PR's job sets.
prs=(model macro package var hook format)
declare -A what edit pr_env
what[model]="a model edit (fct_orders: one more column)"
edit[model]="sed -i 's/^    o.loaded_at\$/    o.loaded_at,\n    1 as pr_marker/' models/marts/fct_orders.sql"
what[macro]="a project macro edit (cents_to_dollars rounds to 3 places)"
edit[macro]="sed -i 's/scale=2/scale=3/' macros/cents_to_dollars.sql"
what[package]="a package macro edit (shop_utils.region_label: upper -> lower)"
edit[package]="sed -i 's/upper(/lower(/' pkgs/shop_utils/macros/region_label.sql"
what[var]="a var change (min_order_amount 5 -> 6 in dbt_project.yml)"
edit[var]="sed -i 's/min_order_amount: 5/min_order_amount: 6/' dbt_project.yml"
what[hook]="an env-reading hook's input (SHOP_AUDIT_TAG, read by dim_customers' pre-hook)"
edit[hook]="true"
pr_env[hook]="SHOP_AUDIT_TAG=pr-audit"
what[format]="a comment-only edit (stg_orders)"
edit[format]="sed -i '1i -- reviewed in this PR' models/staging/stg_orders.sql"

if [[ -n $nodes ]]; then
  prs=(model format)
  what[model]="a model edit (the middle model of the middle layer: one more column)"
  edit[model]="\"$py\" \"$bench/gen_project.py\" $nodes . --changed >/dev/null && add_pr_target ."
  what[format]="a comment-only edit (one staging model)"
  edit[format]="sed -i '1i -- reviewed in this PR' models/staging/stg_00001.sql"
fi

# copy_prod DIR: a fresh copy of production (project, DuckDB file, state); a generated profile's
# absolute path to the DuckDB file names the copy's.
copy_prod() { rm -rf "$1" && cp -a "$prod" "$1" && sed -i "s|$prod/|$1/|" "$1/profiles.yml"; }

# built_nodes FILE KIND: the names of the models, seeds and snapshots a run built, sorted.
built_nodes() {
  "$py" - "$1" "$2" <<'PY'
import json, sys
path, kind = sys.argv[1], sys.argv[2]
d = json.load(open(path))
if kind == "ods":
    names = [e["name"] for e in d["pr"]["built"]]
else:
    names = [r["unique_id"].split(".")[-1] for r in d["results"]
             if r["unique_id"].split(".")[0] in ("model", "seed", "snapshot") and r["status"] != "skipped"]
print(" ".join(sorted(names)) or "-")
PY
}

# measure PR TOOL REP: one run on a fresh copy; appends "seconds|nodes" to $work/PR.TOOL.
measure() {
  local pr=$1 tool=$2 dir=$work/$1.$2 t0 code=0
  copy_prod "$dir"
  (cd "$dir" && eval "${edit[$pr]}")
  local envs=()
  [[ -n ${pr_env[$pr]:-} ]] && envs=("${pr_env[$pr]}")
  t0=$(now)
  if [[ $tool == ods ]]; then
    (cd "$dir" && env "${envs[@]}" "$ods" state pr --project-dir . --profiles-dir . --target dev --pr-target pr \
      --upstream defer --format json >"$dir.json" 2>"$dir.err") || code=$?
  else
    (cd "$dir" && env "${envs[@]}" "$venv/dbt" build --project-dir . --profiles-dir . --target pr \
      --select state:modified+ --defer --favor-state --state "$work/prod-manifest" >"$dir.err" 2>&1) || code=$?
    cp "$dir/target/run_results.json" "$dir.json" 2>/dev/null || echo '{"results": []}' >"$dir.json"
  fi
  local secs
  secs=$(awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.2f", b - a}')
  if ((code != 0)); then
    log "$tool on PR $pr exited $code:"
    tail -n 20 "$dir.err" >&2
  fi
  echo "$secs|$(built_nodes "$dir.json" "$tool")" >>"$work/$pr.$tool.times"
  log "PR $pr, $tool: $secs s, built $(tail -n 1 "$work/$pr.$tool.times" | cut -d'|' -f2)"
  rm -rf "$dir"
}

for ((rep = 1; rep <= reps; rep++)); do
  for pr in "${prs[@]}"; do
    # Alternate the order, so neither tool always runs on a warmer cache.
    if ((rep % 2)); then measure "$pr" ods "$rep"; measure "$pr" slim "$rep"; else measure "$pr" slim "$rep"; measure "$pr" ods "$rep"; fi
  done
done

# words_minus A B: the words of A not in B ("-" when none).
words_minus() { comm -23 <(tr ' ' '\n' <<<"$1" | grep -v '^-$' | sort) <(tr ' ' '\n' <<<"$2" | sort) | paste -sd' ' | sed 's/^$/-/'; }
count_words() { if [[ $1 == - ]]; then echo 0; else wc -w <<<"$1"; fi; }

echo "$what_project, $reps rep(s), load $(cut -d' ' -f1 /proc/loadavg), $(date -u +%Y-%m-%d)"
echo
echo "| pull request | ODS built | slim CI built | ODS s | slim CI s | ODS/slim | state:modified+ misses (ODS builds) | only slim CI builds |"
echo "|---|---:|---:|---:|---:|---:|---|---|"
for pr in "${prs[@]}"; do
  ods_s=$(cut -d'|' -f1 "$work/$pr.ods.times" | median_of_lines)
  slim_s=$(cut -d'|' -f1 "$work/$pr.slim.times" | median_of_lines)
  ods_nodes=$(tail -n 1 "$work/$pr.ods.times" | cut -d'|' -f2)
  slim_nodes=$(tail -n 1 "$work/$pr.slim.times" | cut -d'|' -f2)
  ratio=$(awk -v a="$ods_s" -v b="$slim_s" 'BEGIN {printf "%.2f", a / b}')
  echo "| ${what[$pr]} | $(count_words "$ods_nodes") | $(count_words "$slim_nodes") | $ods_s | $slim_s | $ratio |" \
    "$(words_minus "$ods_nodes" "$slim_nodes") | $(words_minus "$slim_nodes" "$ods_nodes") |"
done
