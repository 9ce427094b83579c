# Helpers shared by the bench scripts (sourced, not run).

log() { echo "bench: $*" >&2; }

# run_logged LOGFILE CMD...: runs CMD with its output in LOGFILE; on failure shows its tail
# and stops the script.
run_logged() {
  local logfile=$1
  shift
  if ! "$@" >"$logfile" 2>&1; then
    log "failed: $* (last lines of $logfile:)"
    tail -n 30 "$logfile" >&2
    exit 1
  fi
}

# median NUMBERS...: the median (the lower middle one for an even count); median_of_lines: the
# same of the numbers on stdin, one a line.
median() { printf '%s\n' "$@" | median_of_lines; }
median_of_lines() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

now() { date +%s.%N; }

# timed CMD...: runs CMD (output in $tmp/timed.log; the caller's $tmp), prints its wall seconds.
timed() {
  local t0
  t0=$(now)
  run_logged "$tmp/timed.log" "$@"
  awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.3f\n", b - a}'
}

# The floor of a no-change run: the probe's `dbt show` driven directly (dbt's start, its warm
# parse and the probe's statements). Both need the caller's $tmp, $ODS_DBT and
# `ods_run P OUT [ARGS...]` (an `ods state run` on P, its output in OUT, stopping on failure).
#
# capture_probe P: one ods state run on P with ODS_DBT_DRIVER=off through a wrapper that keeps
# the `dbt show` command line ods runs (the probe): its arguments, working directory and
# environment, in $tmp/probe.{args,cwd,env}.
capture_probe() {
  cat >"$tmp/dbt-capture" <<'SH'
#!/usr/bin/env bash
for a in "$@"; do
  if [ "$a" = show ]; then
    printf '%s\0' "$@" >"$BENCH_CAPTURE.args"; pwd >"$BENCH_CAPTURE.cwd"; env -0 >"$BENCH_CAPTURE.env"; break
  fi
done
exec "$BENCH_REAL_DBT" "$@"
SH
  chmod +x "$tmp/dbt-capture"
  rm -f "$tmp/probe.args"
  local real_dbt=$ODS_DBT
  BENCH_CAPTURE=$tmp/probe BENCH_REAL_DBT=$real_dbt ODS_DBT=$tmp/dbt-capture ODS_DBT_DRIVER=off \
    ods_run "$1" "$tmp/capture.json" >/dev/null
  [ -s "$tmp/probe.args" ] || { log "ods state run on $1 ran no dbt show (no probe to time)"; exit 1; }
}

# replay_probe: the captured probe, driven directly (dbt starts, parses, probes); prints wall s.
replay_probe() {
  local args envs
  mapfile -d '' args <"$tmp/probe.args"
  mapfile -d '' envs <"$tmp/probe.env"
  (cd "$(cat "$tmp/probe.cwd")" && timed env -i "${envs[@]}" "$ODS_DBT" "${args[@]}")
}

# ods_run P OUT: `ods state run --format json` on P, the document in OUT (its stderr in OUT.err);
# prints wall s.
ods_run() {
  local t0 code=0
  t0=$(now)
  (cd "$1" && "$ods" state run --project-dir "$1" --profiles-dir "$1" --format json >"$2" 2>"$2.err") || code=$?
  if ((code != 0)); then
    log "failed: ods state run on $1 (exit $code):"
    tail -n 30 "$2.err" >&2
    exit 1
  fi
  awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.3f\n", b - a}'
}

# field FILE EXPR: a Python expression over the JSON document `d` in FILE.
field() { "$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# shellcheck disable=SC2034  # used by the scripts that source this one
# built_names: the expression (for field) of the names a plan builds, sorted, space-separated.
built_names='" ".join(sorted(e["name"] for e in d["plan"]["entries"] if e["action"] == "build"))'

# The scale benchmarks' common start, after `root` and `bench` are set: bench_setup "DEFAULT
# SIZES" "$@" sets sizes (the arguments, else the defaults), work ($BENCH_DIR, default
# <repo>/.cache/bench, created), ods ($ODS_BIN, default build/bin/ods), py, tmp (a temporary
# folder removed at exit) and dbt's environment; exits 1 when there is no ods binary.
bench_setup() {
  local defaults=$1
  shift
  # shellcheck disable=SC2034 # sizes is bench_setup's output, read by the script that sources this file
  if (($#)); then sizes=("$@"); else read -r -a sizes <<<"$defaults"; fi
  work=${BENCH_DIR:-$root/.cache/bench}
  ods=${ODS_BIN:-$root/build/bin/ods}
  py=$root/.venv/bin/python
  [ -x "$ods" ] || { echo "bench: no ods binary at $ods (run 'make build', or set ODS_BIN)" >&2; exit 1; }
  export ODS_DBT=$root/.venv/bin/dbt DBT_SEND_ANONYMOUS_USAGE_STATS=false
  mkdir -p "$work"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
}

# fresh_project N P: a generated project of N nodes in P (bench/gen_project.py) from scratch (no
# recorded state, no target/, no database), its source tables created. Needs bench_setup's
# $py and $tmp, and $root.
fresh_project() {
  local n=$1 p=$2
  log "$n nodes: generating the project in $p (load $(cut -d' ' -f1-3 /proc/loadavg))"
  rm -rf "$p/.ods" "$p/target" "$p/bench.duckdb" "$p/bench.duckdb.wal"
  run_logged "$tmp/gen.json" "$py" "$root/bench/gen_project.py" "$n" "$p"
  (cd "$p" && run_logged "$tmp/raw.log" "$ODS_DBT" run-operation bench_create_raw --project-dir "$p" --profiles-dir "$p")
}
