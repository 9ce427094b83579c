#!/usr/bin/env bash
# Benchmarks `ods state run` on data of 0.1 to 10 GB (docs/benchmarks.md, "Data at scale").
#
#   bench/data_scale.sh [duckdb|postgres|both] [GB...]      default: both 0.1 1
#
# For each warehouse and size, the project in bench/data_scale/ (3 large sources, 2 mid-sized,
# 25 small; 20 models: views over the large ones, aggregates, dimensions, reports), its sources
# generated inside the warehouse (macros/bench_data.sql; about GB gigabytes as PostgreSQL stores
# them, the same rows in DuckDB) and kept for the next run of the script, then these steps, each
# followed by one `ods state run` (schema ods) and, in the same run on the same warehouse, by
# plain dbt on a copy of the project (schema peer): `dbt build --select` of what ods built, and
# `dbt build` of everything:
#   first         nothing recorded: everything builds
#   same          nothing changed
#   small_append  one row appended to raw.ref_07 (a small source)
#   large_append  raw.events appended by 1% of its rows
#   large_update  raw.payments: 1% of its rows updated in place (row count unchanged)
#   large_reload  raw.orders truncated and loaded again with the same rows
# Each row: ODS's wall seconds, the probe's and early cutoff's content measurement's (from the
# run's JSON timings), dbt's two builds, the ratios, what ods built and what the change needed
# (the models downstream of the changed source; for large_reload nothing, the rows being the
# same), and the load average. Then the targets of issue 38 against the figures.
#
# Environment:
#   ODS_BIN         the ods binary (default: <repo>/build/bin/ods)
#   BENCH_DATA_DIR  projects and DuckDB files (default ~/.cache/ods/bench-data)
#   BENCH_PG_DIR    the PostgreSQL cluster (default /var/tmp/ods-bench-pg/data-scale: as root the
#                   server runs as the postgres user, who cannot reach root's home)
#   BENCH_PG_BIN    the server's bin/ folder (default: the newest /usr/lib/postgresql/<v>/bin)
#   BENCH_FRESH     1: generate the sources again instead of reusing them
#   BENCH_STEPS     the steps to run, in order (default: all six above; `first` must come first)
# Each step's `ods state run --format json` document is kept in $BENCH_DATA_DIR/<wh>-<GB>/runs/<step>.json.
# Generating 10 GB takes minutes: run it with `nice`, as the other bench scripts on a shared machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=$root/bench
warehouses=(duckdb postgres)
case ${1:-both} in
  duckdb | postgres) warehouses=("$1"); shift ;;
  both) (($#)) && shift ;;
esac
if (($#)); then sizes=("$@"); else sizes=(0.1 1); fi
for gb in "${sizes[@]}"; do
  if ! [[ $gb =~ ^[0-9]+(\.[0-9]+)?$ ]] || [[ $gb =~ ^0+(\.0+)?$ ]]; then
    echo "data_scale: '$gb' is no size in GB (usage: bench/data_scale.sh [duckdb|postgres|both] [GB...], e.g. 0.1 1 10)" >&2
    exit 2
  fi
done
read -r -a steps <<<"${BENCH_STEPS:-first same small_append large_append large_update large_reload}"
data=${BENCH_DATA_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ods/bench-data}
pg_dir=${BENCH_PG_DIR:-/var/tmp/ods-bench-pg/data-scale}
pg_bin=${BENCH_PG_BIN:-$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -n 1)}
ods=${ODS_BIN:-$root/build/bin/ods}
py=$root/.venv/bin/python
dbt=$root/.venv/bin/dbt
[ -x "$ods" ] || { echo "bench: no ods binary at $ods (run 'make build', or set ODS_BIN)" >&2; exit 1; }
[ -x "$dbt" ] || { echo "bench: no $dbt (run scripts/setup.sh)" >&2; exit 1; }
export ODS_DBT=$dbt DBT_SEND_ANONYMOUS_USAGE_STATS=false
mkdir -p "$data"
tmp=$(mktemp -d)
pg_running=0
cleanup() {
  ((pg_running)) && pg_stop "$pg_bin" "$pg_dir"
  rm -rf "$tmp"
}
trap cleanup EXIT

# log, run_logged, now, timed, ods_run, field, built_names
# shellcheck source=bench/common.sh
source "$bench/common.sh"
# pg_start, pg_stop, pg_as_owner
# shellcheck source=bench/pg_server.sh
source "$bench/pg_server.sh"
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# dbt_in P ARGS...: dbt ARGS on project P (its profiles), output in $tmp/timed.log; prints wall s.
dbt_in() {
  local p=$1
  shift
  (cd "$p" && timed "$dbt" "$@" --project-dir "$p" --profiles-dir "$p")
}


# needed STEP Q: the models STEP's change needs built (dbt ls on the peer copy Q; no warehouse).
needed() {
  local src
  case $1 in
    first) src=raw ;; small_append) src=raw.ref_07 ;; large_append) src=raw.events ;; large_update) src=raw.payments ;;
    *) return 0 ;;
  esac
  (cd "$2" && "$dbt" --quiet ls --select "source:$src+" --resource-type model --output name \
    --project-dir "$2" --profiles-dir "$2" | sort | tr '\n' ' ')
}

# project WH GB DIR: a fresh copy of bench/data_scale in DIR, set to GB.
project() {
  rm -rf "$3"
  mkdir -p "$(dirname "$3")"
  cp -r "$bench/data_scale" "$3"
  sed -i "s/^  bench_gb: .*/  bench_gb: $2/" "$3/dbt_project.yml"
}

# sources WH GB P: the sources generated (or kept from an earlier run), appended rows removed,
# the outputs of earlier runs dropped.
sources() {
  local t0
  t0=$(now)
  log "$1 $2 GB: generating the sources that are missing (load $(loadavg))"
  run_logged "$tmp/gen.log" dbt_in "$3" run-operation bench_create_raw
  grep -h 'bench: generating' "$tmp/gen.log" >&2 || true
  run_logged "$tmp/gen.log" dbt_in "$3" run-operation bench_change --args '{change: reset}'
  run_logged "$tmp/gen.log" dbt_in "$3" run-operation bench_drop_outputs
  if [ "$1" = postgres ]; then
    run_logged "$tmp/vacuum.log" psql -X -v ON_ERROR_STOP=1 -d "$BENCH_PG_DB" -c 'vacuum analyze'
    size=$(psql -X -At -d "$BENCH_PG_DB" -c "select round(sum(pg_total_relation_size(c.oid)) / 1e9, 2)
      from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'raw' and c.relkind = 'r'")
  else
    size=$(awk -v b="$(stat -c %s "$BENCH_DUCKDB")" 'BEGIN {printf "%.2f", b / 1e9}')
  fi
  log "$1 $2 GB: sources ready in $(awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.0f", b - a}') s, $size GB stored"
}

# source_sizes WH: "table rows bytes" of each source (DuckDB: its row estimate, bytes 0 = unknown).
source_sizes() {
  if [ "$1" = postgres ]; then
    psql -X -At -F' ' -d "$BENCH_PG_DB" -c "select relname, reltuples::bigint, pg_total_relation_size(oid)
      from pg_class where relnamespace = 'raw'::regnamespace and relkind = 'r'"
  else
    "$py" - "$BENCH_DUCKDB" <<'PY'
import duckdb, sys
sql = "select table_name, estimated_size, 0 from duckdb_tables() where schema_name = 'raw'"
for row in duckdb.connect(sys.argv[1], read_only=True).execute(sql).fetchall():
    print(*row)
PY
  fi
}

# fingerprint_costs WH GB RUN_JSON: what the probe's exact fingerprint of each large source cost in
# RUN_JSON (its per-source seconds), per GB stored and per 10M rows.
fingerprint_costs() {
  source_sizes "$1" >"$tmp/sizes"
  "$py" - "$1" "$2" "$3" "$tmp/sizes" <<'PY' | tee -a "$tmp/costs"
import json, sys
wh, gb, run, sizes = sys.argv[1:]
seconds = json.load(open(run))["run"]["probe_seconds"]
for line in open(sizes):
    table, rows, size = line.split()
    rows, size = int(float(rows)), int(size)
    s = seconds.get("source.data_scale.raw." + table)
    if s is None or table not in ("orders", "events", "payments"):
        continue
    per_gb = "%.2f s/GB" % (s / (size / 1e9)) if size else "bytes unknown"
    print("%s %s GB: raw.%s %.1fM rows%s: fingerprint %.2f s, %s, %.2f s per 10M rows"
          % (wh, gb, table, rows / 1e6, " (%.2f GB)" % (size / 1e9) if size else "", s, per_gb, s / rows * 1e7))
PY
}

# bench_size WH GB: the steps on one warehouse and size, a table row each.
bench_size() {
  local wh=$1 gb=$2 dir=$data/$1-$2 step
  export BENCH_WAREHOUSE=$wh BENCH_DUCKDB=$data/${wh}_${gb//./_}.duckdb BENCH_PG_DB=bench_${gb//./_}
  if [ "$wh" = postgres ] && ! psql -X -At -d postgres -c "select 1 from pg_database where datname = '$BENCH_PG_DB'" | grep -q 1; then
    psql -X -q -d postgres -c "create database $BENCH_PG_DB"
  fi
  project "$wh" "$gb" "$dir/ods"
  project "$wh" "$gb" "$dir/peer"
  sources "$wh" "$gb" "$dir/ods"
  for step in "${steps[@]}"; do
    case $step in
      first | same) ;;
      *) run_logged "$tmp/change.log" dbt_in "$dir/ods" run-operation bench_change --args "{change: $step}" ;;
    esac
    log "$wh $gb GB: $step: ods state run (load $(loadavg))"
    local t_ods t_sel t_full names selection
    t_ods=$(ods_run "$dir/ods" "$tmp/ods.json")
    names=$(field "$tmp/ods.json" "$built_names")
    # Each step's run document is kept (its timings say where the seconds went).
    mkdir -p "$dir/runs"
    cp "$tmp/ods.json" "$dir/runs/$step.json"
    log "$wh $gb GB: $step: timings $(field "$tmp/ods.json" 'json.dumps({k: round(v, 2) for k, v in d["run"]["timings"].items()})')"
    read -r -a selection <<<"$names"
    log "$wh $gb GB: $step: dbt build --select of what ods built, then dbt build (peer)"
    # When ods built all 20 models, `dbt build --select` of them is `dbt build`: measured once.
    t_sel=0
    ((${#selection[@]} && ${#selection[@]} < 20)) &&
      t_sel=$(dbt_in "$dir/peer" build --target "${wh}_peer" --select "${selection[@]}")
    t_full=$(dbt_in "$dir/peer" build --target "${wh}_peer")
    ((${#selection[@]} == 20)) && t_sel=$t_full
    [ "$step" = same ] && fingerprint_costs "$wh" "$gb" "$tmp/ods.json" >&2
    "$py" - "$wh" "$gb ($size)" "$step" "$t_ods" "$t_sel" "$t_full" "$names" "$(needed "$step" "$dir/peer")" "$(loadavg)" \
      "$(field "$tmp/ods.json" 'd["run"]["timings"].get("probe", 0)')" \
      "$(field "$tmp/ods.json" 'd["run"]["timings"].get("content", 0)')" <<'PY' | tee -a "$tmp/rows"
import sys
wh, size, step, ods, sel, full, built, needed, load, probe, content = sys.argv[1:]
ods, sel, full, probe, content = map(float, (ods, sel, full, probe, content))
def short(names):
    n = names.split()
    return "all %d" % len(n) if len(n) == 20 else (", ".join(n) if n else "none")
print("| %s | %s | %s | %.1f | %.2f | %.2f | %.1f | %.1f | %.2f | %s | %s | %s | %s |" % (
    wh, size, step, ods, probe, content, full, sel, ods / full, "%.2f" % (ods / (sel + probe)) if sel else "-",
    short(built), short(needed), load))
PY
  done
}

echo "| warehouse | GB (stored) | run | ODS s | probe s | cutoff content s | dbt build s | dbt build --select s | ODS / dbt build | ODS / (select + probe) | ods built | needed | load |"
echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|"
for wh in "${warehouses[@]}"; do
  if [ "$wh" = postgres ]; then
    [ "${BENCH_FRESH:-0}" = 1 ] && rm -rf "$pg_dir"
    pg_start "$pg_bin" "$pg_dir"
    pg_running=1
  fi
  for gb in "${sizes[@]}"; do
    [ "${BENCH_FRESH:-0}" = 1 ] && rm -f "$data/${wh}_${gb//./_}.duckdb"
    bench_size "$wh" "$gb"
  done
  if [ "$wh" = postgres ]; then pg_stop "$pg_bin" "$pg_dir"; pg_running=0; fi
done
echo
cat "$tmp/costs" 2>/dev/null || true
"$py" - "$tmp/rows" <<'PY'
import sys
for line in open(sys.argv[1]):
    c = [x.strip() for x in line.strip().strip("|").split("|")]
    wh, size, step, ods, probe, ratio, ratio_sel = c[0], c[1], c[2], float(c[3]), float(c[4]), float(c[8]), c[9]
    if step == "same":
        ok = ratio <= 0.1 and probe <= 2
        print("%s %s GB, nothing changed: ODS %.1f s = %.2f x dbt build (target <= 0.1), probe %.2f s (target <= 2): %s"
              % (wh, size, ods, ratio, probe, "met" if ok else "NOT met"))
    if step == "large_append" and ratio_sel != "-":
        print("%s %s GB, 1%% appended: ODS = %s x (dbt build --select + probe) (target <= 1.1): %s"
              % (wh, size, ratio_sel, "met" if float(ratio_sel) <= 1.1 else "NOT met"))
PY
