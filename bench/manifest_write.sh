#!/usr/bin/env bash
# Benchmarks the 1% change run of `ods state run` with and without dbt writing target/manifest.json
# (issue 41 item 2; docs/benchmarks.md, "Change runs without the manifest write").
#
#   bench/manifest_write.sh [SIZES...]      default: 1000 5000
#
# For each size N: a generated dbt project of N nodes (bench/gen_project.py, DuckDB) in
# $BENCH_DIR/mw<N>, its source tables created, a first `ods state run` (builds every node), then
#     before:  gen_project.py --changed-percent 1, `ods state run --write-manifest` (dbt compile and
#              dbt build write target/manifest.json and ODS reads the compile's, as before issue 41)
#     restore: the project regenerated without the edit, `ods state run` (builds it back)
#     after:   the same 1% edit, `ods state run` (the compile writes no manifest: the ods dbt driver
#              hands over the compiled nodes; the build writes run_results.json only)
# so both 1% runs edit the same models on the same state, one after the other. Prints per run
# the nodes built, dbt's compile, build and total seconds, whether target/manifest.json was
# written, and the load average; then the ratio after / before of the total and of the compile.
#
# Environment: ODS_BIN (default <repo>/build/bin/ods), BENCH_DIR (default <repo>/.cache/bench).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=$root/bench
source "$bench/common.sh"
bench_setup "1000 5000" "$@"

ods_run() {  # ods_run P OUT [ARGS...]
  local code=0 p=$1 out=$2
  shift 2
  "$ods" state run --project-dir "$p" --profiles-dir "$p" --format json "$@" >"$out" 2>"$out.err" || code=$?
  if ((code != 0)); then
    log "failed: ods state run on $p (exit $code):"
    tail -n 30 "$out.err" >&2
    exit 1
  fi
}
mtime() { stat -c %y "$1" 2>/dev/null || echo none; }

# row N CASE DOC WRITTEN LOAD
row() {
  "$py" - "$@" <<'PY'
import json, sys
n, case, path, written, load = sys.argv[1:]
run = json.load(open(path))["run"]
t = run["timings"]
print("| %s | %s | %d | %.1f | %.1f | %.1f | %s | %s |" % (n, case, run["counts"]["built"], t["compile"], t["build"],
                                                       t["total"], written, load))
PY
}
total() { "$py" -c 'import json,sys; t=json.load(open(sys.argv[1]))["run"]["timings"]; print(t["total"], t["compile"])' "$1"; }

echo "| nodes | run | built | dbt parse + compile s | dbt build s | total s | target/manifest.json written | load (1 min) |"
echo "|---:|---|---:|---:|---:|---:|---|---:|"
ratios=()
for n in "${sizes[@]}"; do
  p=$work/mw$n
  fresh_project "$n" "$p"
  log "$n nodes: first ods state run (builds every node)"
  ods_run "$p" "$tmp/first.json"
  for case in before after; do
    run_logged "$tmp/gen1.json" "$py" "$bench/gen_project.py" "$n" "$p" --changed-percent 1
    before_mtime=$(mtime "$p/target/manifest.json")
    log "$n nodes: 1% changed, $case"
    if [ "$case" = before ]; then ods_run "$p" "$tmp/$case.json" --write-manifest; else ods_run "$p" "$tmp/$case.json"; fi
    written=no
    [ "$(mtime "$p/target/manifest.json")" != "$before_mtime" ] && written=yes
    row "$n" "1% changed, $case$([ "$case" = before ] && echo ' (--write-manifest)')" "$tmp/$case.json" "$written" "$(cut -d' ' -f1 /proc/loadavg)"
    if [ "$case" = before ]; then
      run_logged "$tmp/gen.json" "$py" "$bench/gen_project.py" "$n" "$p"
      log "$n nodes: restore (the edit undone)"
      ods_run "$p" "$tmp/restore.json" --write-manifest
    fi
  done
  read -r tb cb < <(total "$tmp/before.json")
  read -r ta ca < <(total "$tmp/after.json")
  ratios+=("$("$py" -c 'import sys; n,tb,cb,ta,ca=sys.argv[1:]; tb,cb,ta,ca=map(float,(tb,cb,ta,ca)); print("%s nodes, 1%% changed: total %.1f s -> %.1f s (%.2fx), dbt parse + compile %.1f s -> %.1f s (%.2fx)" % (n,tb,ta,ta/tb,cb,ca,ca/cb))' "$n" "$tb" "$cb" "$ta" "$ca")")
done
echo
for line in "${ratios[@]}"; do echo "$line"; done
log "done (load $(cut -d' ' -f1-3 /proc/loadavg))"
