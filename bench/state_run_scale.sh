#!/usr/bin/env bash
# Benchmarks `ods state run` by nodes (docs/benchmarks.md, "ods state run by nodes").
#
#   bench/state_run_scale.sh [SIZES...]      default: 1000 10000
#
# For each size N: a generated dbt project of N nodes (bench/gen_project.py, DuckDB) in
# $BENCH_DIR/run<N>, its source tables created, then three `ods state run --format json`:
#     first:       nothing recorded yet, so every node builds (the state to reuse from)
#     no change:   nothing changed since
#     1% changed:  gen_project.py --changed-percent 1 (N/100 models edited; their
#                  descendants build too)
# and prints, per run, ODS's own seconds per phase (load, probe_parse, plan, record, ledger;
# "ods" their sum) beside dbt's (compile, the probe's dbt show call, build, early cutoff's
# content measurement after a wave) and the total,
# the nodes built, and the ods process's peak RSS (dbt's processes not counted), all from the
# run's JSON document (`run.timings`, `run.peak_rss_mb`; docs/cli.md). One run of each: a
# first build of 10k nodes takes many minutes on a small machine.
#
# Then the compile key's figures (issue 28, docs/compile-key.md), printed after the table for
# each size: the no-change run (keyed: `dbt parse`, which writes no manifest when nothing changed
# (the line says whether it did), compile only what changed) against the
# floor (the probe's `dbt show` driven directly: dbt's start, its warm parse and the probe's
# statements; captured from a no-change run with ODS_DBT_DRIVER=off, as bench/state_run.sh
# does) and against a no-change run with `--compile all` (today's full compile), in the same
# run, with the load average beside each.
#
# BENCH_REUSE=1 keeps a project an earlier run of this script built (its .ods state, target/
# and DuckDB file): instead of the first build, the project is regenerated without the 1%
# edit and one `ods state run` ("restore": builds back what the last 1% run changed) brings
# its state to the unedited project; then the no-change and 1% runs as above. A size with
# nothing built yet gets the first build as usual.
#
# Environment:
#   ODS_BIN     the ods binary (default: <repo>/build/bin/ods)
#   BENCH_DIR   work folder (default: <repo>/.cache/bench, git-ignored)
#   BENCH_REUSE 1: reuse the projects built in BENCH_DIR (above)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=$root/bench
if (($#)); then sizes=("$@"); else sizes=(1000 10000); fi
work=${BENCH_DIR:-$root/.cache/bench}
ods=${ODS_BIN:-$root/build/bin/ods}
py=$root/.venv/bin/python
[ -x "$ods" ] || { echo "bench: no ods binary at $ods (run 'make build', or set ODS_BIN)" >&2; exit 1; }
[ -x "$root/.venv/bin/dbt" ] || "$root/scripts/setup.sh"
export ODS_DBT=$root/.venv/bin/dbt DBT_SEND_ANONYMOUS_USAGE_STATS=false
mkdir -p "$work"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# log, run_logged, now, capture_probe, replay_probe
# shellcheck source=bench/common.sh
source "$bench/common.sh"

# ods_run P OUT [ARGS...]: `ods state run --format json [ARGS...]` on P, the document in OUT.
ods_run() {
  local code=0 p=$1 out=$2
  shift 2
  "$ods" state run --project-dir "$p" --profiles-dir "$p" --format json "$@" >"$out" 2>"$out.err" || code=$?
  set -- "$p" "$out"
  if ((code != 0)); then
    log "failed: ods state run on $1 (exit $code):"
    tail -n 30 "$2.err" >&2
    exit 1
  fi
}

# row N CASE DOC: one line of the table from the run's JSON document.
row() {
  "$py" - "$1" "$2" "$3" <<'PY'
import json, sys
n, case, path = sys.argv[1:]
d = json.load(open(path))
t, run = d["run"]["timings"], d["run"]
ods = ["load", "probe_parse", "plan", "record", "ledger"]
dbt = ["compile", "probe_dbt", "build", "content"]
cells = [n, case, str(run["counts"]["built"])] + ["%.3f" % t.get(k, 0) for k in ods + ["ods"]] \
    + ["%.1f" % t.get(k, 0) for k in dbt + ["total"]] + ["%.0f" % run.get("peak_rss_mb", 0)]
print("| " + " | ".join(cells) + " |")
PY
}

load1() { cut -d' ' -f1 /proc/loadavg; }
total() { "$py" -c 'import json,sys; print("%.2f" % json.load(open(sys.argv[1]))["run"]["timings"]["total"])' "$1"; }

keyed_lines=()

echo "| nodes | run | built | load s | probe parse s | plan s | record s | ledger s | ODS s | dbt compile s | dbt show s | dbt build s | dbt content s | total s | ods peak RSS MB |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in "${sizes[@]}"; do
  p=$work/run$n
  if [ "${BENCH_REUSE:-0}" = 1 ] && [ -d "$p/.ods" ] && [ -f "$p/bench.duckdb" ]; then
    log "$n nodes: reusing the project built in $p (load $(cut -d' ' -f1-3 /proc/loadavg))"
    run_logged "$tmp/gen.json" "$py" "$bench/gen_project.py" "$n" "$p"
    log "$n nodes: ods state run on the unedited project (restore)"
    ods_run "$p" "$tmp/restore.json"
    row "$n" "restore" "$tmp/restore.json"
  else
    fresh_project "$n" "$p"
    log "$n nodes: first ods state run (builds every node)"
    ods_run "$p" "$tmp/first.json"
    row "$n" "first" "$tmp/first.json"
  fi
  log "$n nodes: ods state run, nothing changed"
  ods_run "$p" "$tmp/same.json"
  row "$n" "no change" "$tmp/same.json"
  l_keyed=$(load1)
  log "$n nodes: the floor (the probe's dbt show, driven directly) and a no-change run with --compile all"
  capture_probe "$p"
  floor=$(replay_probe)
  l_floor=$(load1)
  ods_run "$p" "$tmp/all.json" --compile all
  row "$n" "no change, --compile all" "$tmp/all.json"
  l_all=$(load1)
  keyed=$(total "$tmp/same.json") all=$(total "$tmp/all.json")
  # whether the no-change run stood on the last parse's manifest (docs/compile-key.md, "Parsing")
  parse=written
  grep -q 'its manifest stands, none written' "$tmp/same.json.err" && parse="reused, no manifest written"
  grep -q 'the kept parse stands, dbt not started' "$tmp/same.json.err" && parse="fast path, dbt not started"
  keyed_lines+=("$("$py" -c 'import sys; n,k,f,a,lk,lf,la,pr=sys.argv[1:]; k,f,a=float(k),float(f),float(a); print("%s nodes, nothing changed: keyed compile %.2f s (load %s; parse %s), floor %.2f s (load %s), --compile all %.2f s (load %s); keyed / floor %.2f (target <= 1.15), keyed / --compile all %.2f (target <= 0.3)" % (n,k,lk,pr,f,lf,a,la,k/f,k/a))' "$n" "$keyed" "$floor" "$all" "$l_keyed" "$l_floor" "$l_all" "$parse")")
  run_logged "$tmp/gen1.json" "$py" "$bench/gen_project.py" "$n" "$p" --changed-percent 1
  log "$n nodes: ods state run, 1% changed ($("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["changed_models"])' "$tmp/gen1.json") models edited)"
  ods_run "$p" "$tmp/changed.json"
  row "$n" "1% changed" "$tmp/changed.json"
done
echo
for line in "${keyed_lines[@]}"; do echo "$line"; done
log "done (load $(cut -d' ' -f1-3 /proc/loadavg))"
