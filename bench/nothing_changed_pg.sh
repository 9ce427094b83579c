#!/usr/bin/env bash
# Nothing changed on PostgreSQL, with and without the parse's fast path (issue 41: "Nothing changed
# at 10k on PostgreSQL: <= 1 s end to end, <= 0.1x of today's path, measured in the same run";
# docs/benchmarks.md, "Nothing changed on PostgreSQL: no dbt process").
#
#   bench/nothing_changed_pg.sh [SIZES...]      default: 1000 10000
#
# Starts a PostgreSQL server of its own (bench/pg_server.sh, kept in $BENCH_PG_DIR). For each size
# N: a generated project of N nodes for PostgreSQL (bench/gen_project.py --adapter postgres) in
# $BENCH_DIR/pg<N>, built into its own database bench_<N> (source tables created by
# `dbt run-operation bench_create_raw`), `ods state run` until a run builds nothing (the first
# builds every node). Then, nothing changed, $BENCH_ROUNDS (default 3) rounds of three
# `ods state run --format json` each, alternating so load drifts hit all alike:
#     fast path:  ODS_PARSE_FAST_PATH=on (the default): no dbt process when nothing changed
#     off:        ODS_PARSE_FAST_PATH=off: dbt starts and parses (warm, in the ods dbt driver);
#                 the probe is still native (libpq)
#     off, dbt show probe: ODS_PARSE_FAST_PATH=off ODS_NATIVE_PROBE=off: the path before issue 41
#                 (dbt parse, the probe's one dbt show call)
# Each run's wall seconds are measured here, process start to exit (end to end), beside the run's
# own `run.timings.total`; whether dbt started is read from its step lines. Prints one row per
# run, then per size the medians, the ratios fast / off and fast / (off, dbt show probe), and the
# load average (1 min) at each median's runs.
#
# BENCH_REUSE=1 keeps a project and database an earlier run built (skips generation and the
# first build when its state exists). A 10k first build takes many minutes on a small machine.
#
# Environment:
#   ODS_BIN       the ods binary (default: <repo>/build/bin/ods)
#   BENCH_DIR     work folder (default: <repo>/.cache/bench, git-ignored)
#   BENCH_PG_DIR  the server's folder (default /var/tmp/ods-bench-pg/nothing-changed)
#   BENCH_PG_BIN  PostgreSQL's bin/ (default: the newest /usr/lib/postgresql/*/bin)
#   BENCH_ROUNDS  rounds of the three runs (default 3)
#   BENCH_REUSE   1: reuse what an earlier run built (above)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=$root/bench
# log, run_logged, ods_run (prints the wall seconds, process start to exit), bench_setup
# shellcheck source=bench/common.sh
source "$bench/common.sh"
# pg_start, pg_stop, pg_as_owner
# shellcheck source=bench/pg_server.sh
source "$bench/pg_server.sh"
bench_setup "1000 10000" "$@"
rounds=${BENCH_ROUNDS:-3}
pg_dir=${BENCH_PG_DIR:-/var/tmp/ods-bench-pg/nothing-changed}
pg_bin=${BENCH_PG_BIN:-$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -n 1)}
[ -x "$pg_bin/initdb" ] || { log "no PostgreSQL server binaries in $pg_bin (set BENCH_PG_BIN)"; exit 1; }
pg_start "$pg_bin" "$pg_dir"
trap 'pg_stop "$pg_bin" "$pg_dir"; rm -rf "$tmp"' EXIT
export BENCH_PG_HOST=$PGHOST BENCH_PG_PORT=$PGPORT BENCH_PG_USER=$PGUSER

load1() { cut -d' ' -f1 /proc/loadavg; }

# build_until_steady N P: the first build, then runs until one builds nothing (at most 3).
build_until_steady() {
  local n=$1 p=$2 i
  for i in 1 2 3; do
    log "$n nodes: ods state run $i until one builds nothing (load $(load1))"
    ods_run "$p" "$tmp/steady.json" >/dev/null
    [ "$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"]["counts"]["built"])' \
      "$tmp/steady.json")" = 0 ] && return 0
  done
  log "$n nodes: a third run still built nodes"
  exit 1
}

echo "| nodes | run | round | wall s | run.timings.total s | dbt started | built | load |"
echo "|---:|---|---:|---:|---:|---|---:|---:|"
: >"$tmp/rows"
for n in "${sizes[@]}"; do
  p=$work/pg$n db=bench_$n
  export BENCH_PG_DBNAME=$db
  if [ "${BENCH_REUSE:-0}" = 1 ] && [ -d "$p/.ods" ]; then
    log "$n nodes: reusing the project built in $p"
  else
    log "$n nodes: generating the project in $p (load $(cut -d' ' -f1-3 /proc/loadavg))"
    rm -rf "$p/.ods" "$p/target" "$p/logs"
    psql -q -c "drop database if exists $db with (force)" -c "create database $db" >/dev/null
    run_logged "$tmp/gen.json" "$py" "$bench/gen_project.py" "$n" "$p" --adapter postgres
    (cd "$p" && run_logged "$tmp/raw.log" "$ODS_DBT" run-operation bench_create_raw --project-dir "$p" --profiles-dir "$p")
  fi
  build_until_steady "$n" "$p"
  for r in $(seq 1 "$rounds"); do
    for mode in "fast path" "off" "off, dbt show probe"; do
      case $mode in
        "fast path") envs=(ODS_PARSE_FAST_PATH=on) ;;
        off) envs=(ODS_PARSE_FAST_PATH=off) ;;
        *) envs=(ODS_PARSE_FAST_PATH=off ODS_NATIVE_PROBE=off) ;;
      esac
      wall=$(
        export "${envs[@]}"
        ods_run "$p" "$tmp/run.json"
      )
      started=yes
      if grep -q "the kept parse stands, dbt not started" "$tmp/run.json.err" &&
        grep -q "native probe, no dbt process" "$tmp/run.json.err" &&
        grep -q "dbt build not started" "$tmp/run.json.err" && ! grep -q "compiling" "$tmp/run.json.err"; then
        started=no
      fi
      line=$("$py" - "$n" "$mode" "$r" "$wall" "$started" "$(load1)" "$tmp/run.json" <<'PY'
import json, sys
n, mode, r, wall, started, load, path = sys.argv[1:]
run = json.load(open(path))["run"]
print("| %s | %s | %s | %.3f | %.3f | %s | %d | %s |" % (
    n, mode, r, float(wall), run["timings"]["total"], started, run["counts"]["built"], load))
PY
      )
      echo "$line"
      echo "$line" >>"$tmp/rows"
    done
  done
done
echo
"$py" - "$tmp/rows" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    c = [x.strip() for x in line.strip().strip("|").split("|")]
    rows.setdefault(c[0], {}).setdefault(c[1], []).append((float(c[3]), c[7], c[5]))
for n, modes in rows.items():
    med = {}
    for mode, runs in modes.items():
        runs.sort()
        med[mode] = runs[(len(runs) - 1) // 2]
    fast, off, show = med["fast path"], med["off"], med["off, dbt show probe"]
    print("%s nodes, nothing changed (medians of %d): fast path %.3f s (dbt started: %s, load %s), "
          "ODS_PARSE_FAST_PATH=off %.3f s (load %s), off with the dbt show probe %.3f s (load %s); "
          "fast / off %.3f, fast / (off, dbt show probe) %.3f (targets: <= 1 s, <= 0.1)" % (
              n, len(modes["fast path"]), fast[0], fast[2], fast[1], off[0], off[1], show[0], show[1],
              fast[0] / off[0], fast[0] / show[0]))
PY
log "done (load $(cut -d' ' -f1-3 /proc/loadavg))"
