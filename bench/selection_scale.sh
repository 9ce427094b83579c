#!/usr/bin/env bash
# What a selection adds to a run (docs/benchmarks.md, "What a selection adds to a run").
#
#   bench/selection_scale.sh [SIZES...]      default: 1000 5000 10000
#
# For each size N: a generated dbt project of N nodes (bench/gen_project.py, DuckDB) in
# $BENCH_DIR/sel<N>, its source tables created, a first `ods state run` that builds and records
# every node (skipped when the project already has a state), then for each ods binary
# ($ODS_BIN_BEFORE when set, then $ODS_BIN) two no-change `ods state run --format json`: without
# a selection and with `--select <the middle model>+`. Nothing builds in either; the selection is
# resolved in the run's "load" phase (`run.timings.load`: reading the project and resolving the
# selection), so load(selected) - load(none) is what the selection adds. Since dbt resolves
# selections (one `dbt ls` on the parse the run holds) the run's step line says how long that
# call took; it is printed too.
#
# BENCH_DRY=1: no first build, and `ods state run --dry-run` instead (nothing recorded, so each
# compiles the whole project, and a dry run reports no timings): only the wall time and the
# `dbt ls` step line of the selected run, for sizes whose first build does not fit.
#
# Environment:
#   ODS_BIN         the ods binary measured (default: <repo>/build/bin/ods)
#   ODS_BIN_BEFORE  another ods binary measured first in the same run (e.g. main's), optional
#   BENCH_DIR       work folder (default: <repo>/.cache/bench)
#   BENCH_DRY       1: dry runs only (above)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=$root/bench

# log, run_logged, now
# shellcheck source=bench/common.sh
source "$bench/common.sh"
bench_setup "1000 5000 10000" "$@"

binaries=()
[ -n "${ODS_BIN_BEFORE:-}" ] && binaries+=("$ODS_BIN_BEFORE")
binaries+=("$ods")

dry=()
[ "${BENCH_DRY:-0}" = 1 ] && dry=(--dry-run)

# ods_run BIN P OUT [ARGS...]: `ods state run --format json [ARGS...]` (with --dry-run under
# BENCH_DRY=1), the document in OUT, its wall seconds in OUT.secs.
ods_run() {
  local bin=$1 p=$2 out=$3 code=0 start
  shift 3
  start=$(now)
  "$bin" state run "${dry[@]}" --project-dir "$p" --profiles-dir "$p" --format json "$@" >"$out" 2>"$out.err" || code=$?
  echo "$(now) - $start" | bc >"$out.secs"
  if ((code != 0)); then
    log "failed: $bin state run --dry-run on $p (exit $code):"
    tail -n 30 "$out.err" >&2
    exit 1
  fi
}

# row N BIN SELECTION DOC
row() {
  "$py" - "$@" <<'PY'
import json, re, sys
n, binary, selection, path = sys.argv[1:]
d = json.load(open(path))
t = (d.get("run") or {}).get("timings") or {}
said = re.search(r"dbt selected \d+ of \d+ nodes \(dbt ls, ([0-9.]+) s\)", open(path + ".err").read())
fmt = lambda key, f: f % t[key] if key in t else "-"
cells = [n, binary, selection, str(len(d["plan"]["entries"])), fmt("load", "%.3f"), said.group(1) if said else "-",
         fmt("compile", "%.1f"), fmt("total", "%.1f"), "%.1f" % float(open(path + ".secs").read()),
         open("/proc/loadavg").read().split()[0]]
print("| " + " | ".join(cells) + " |")
PY
}

echo "| nodes | ods | selection | planned | load s | of which dbt ls s | dbt compile s | total s | wall s | load avg |"
echo "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|"
for n in "${sizes[@]}"; do
  p=$work/sel$n
  log "$n nodes: generating the project in $p (load $(cut -d' ' -f1-3 /proc/loadavg))"
  run_logged "$tmp/gen.json" "$py" "$bench/gen_project.py" "$n" "$p"
  middle=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["changed_model"])' "$tmp/gen.json")
  [ -f "$p/bench.duckdb" ] ||
    (cd "$p" && run_logged "$tmp/raw.log" "$ODS_DBT" run-operation bench_create_raw --project-dir "$p" --profiles-dir "$p")
  if [ "${BENCH_DRY:-0}" != 1 ] && [ ! -d "$p/.ods" ]; then
    log "$n nodes: first ods state run (builds and records every node)"
    ods_run "$ods" "$p" "$tmp/first.json"
  fi
  for bin in "${binaries[@]}"; do
    name=after
    [ "$bin" = "${ODS_BIN_BEFORE:-}" ] && name=before
    log "$n nodes, $name: a run without a selection, then with --select $middle+"
    ods_run "$bin" "$p" "$tmp/none.json"
    row "$n" "$name" "none" "$tmp/none.json"
    ods_run "$bin" "$p" "$tmp/sel.json" --select "$middle+"
    row "$n" "$name" "--select $middle+" "$tmp/sel.json"
  done
done
log "done (load $(cut -d' ' -f1-3 /proc/loadavg))"
