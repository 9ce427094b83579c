#!/usr/bin/env bash
# Benchmarks `ods state plan` (see docs/benchmarks.md).
#
#   bench/run.sh [SIZES...]        default: 1000 10000, then the scaled manifest step
#
# For each size N: generates a dbt project of N nodes (bench/gen_project.py), builds it once
# with real dbt on DuckDB and records that build with `ods state record` (the build is
# reused by later runs while the generator, N and the dbt versions are unchanged), edits one
# mid-DAG model, runs `dbt source freshness` and `dbt compile` (partial parsing warm), as a
# user does before planning (docs/cli.md), then times, alternating, REPS
# times each (medians):
#     ods state plan --project-dir P
#     dbt ls --select state:modified --state P/prev --project-dir P --profiles-dir P
# both warmed up once first, and prints seconds, the ratio and both peak RSS.
# Then scales the largest size's artifacts to BENCH_SCALE_NODES nodes
# (bench/scale_manifest.py), records the scaled build and times
#     ods state plan --project-dir S --format json > /dev/null
# printing seconds, MB/s of manifest and peak RSS as a multiple of the manifest's size.
#
# Environment:
#   ODS_BIN            the ods binary (default: <repo>/build/bin/ods)
#   BENCH_DIR          work folder (default: <repo>/.cache/bench, git-ignored)
#   BENCH_REPS         repetitions per command (default 5)
#   BENCH_SCALE_NODES  nodes of the scaled manifest (default 50000; 0 skips the step)
#   BENCH_PREPARE_ONLY 1: generate, build and compile only (no ods needed), then stop
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=$root/bench

if (($#)); then sizes=("$@"); else sizes=(1000 10000); fi
reps=${BENCH_REPS:-5}
scale_nodes=${BENCH_SCALE_NODES:-50000}
work=${BENCH_DIR:-$root/.cache/bench}
ods=${ODS_BIN:-$root/build/bin/ods}
prepare_only=${BENCH_PREPARE_ONLY:-0}

[ -x "$root/.venv/bin/dbt" ] || "$root/scripts/setup.sh"
export PATH="$root/.venv/bin:$PATH"
export DBT_SEND_ANONYMOUS_USAGE_STATS=false
py=$root/.venv/bin/python
dbt_versions=$("$py" -c 'from importlib.metadata import version as v; print(*(v(p) for p in ("dbt-core", "dbt-duckdb", "duckdb")))')
if ! /usr/bin/time -f %M true >/dev/null 2>&1; then
  echo "bench: GNU time is needed at /usr/bin/time for peak memory (Debian package 'time')" >&2
  exit 1
fi
if [ "$prepare_only" != 1 ] && [ ! -x "$ods" ]; then
  echo "bench: no ods binary at $ods (run 'make build', or set ODS_BIN)" >&2
  exit 1
fi
mkdir -p "$work"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# log, run_logged, median
# shellcheck source=bench/common.sh
source "$bench/common.sh"

# measure CMD...: runs CMD (stdout to /dev/null); prints "<wall microseconds> <peak RSS KiB>
# <CPU seconds, user + system>".
measure() {
  local start end
  start=$(date +%s%N)
  if ! /usr/bin/time -f '%M %U %S' -o "$tmp/rss" "$@" >/dev/null 2>"$tmp/stderr"; then
    log "failed: $*"
    tail -n 30 "$tmp/stderr" >&2
    exit 1
  fi
  end=$(date +%s%N)
  tail -n 1 "$tmp/rss" | awk -v us=$(((end - start) / 1000)) '{print us, $1, $2 + $3}'
}


dbt_in() {  # dbt_in P ARGS...: dbt on project P with its own profiles.yml
  local p=$1
  shift
  dbt "$@" --project-dir "$p" --profiles-dir "$p"
}

# prepare N: P=$work/p$N generated, built, recorded (state of the build in P/prev), changed
# and compiled. Rebuilds only when the generator, N or the dbt-core / dbt-duckdb / duckdb
# versions changed.
prepare() {
  local n=$1 p=$work/p$1 want
  want=$({ cat "$bench/gen_project.py"; echo "$n $p $dbt_versions"; } | sha256sum | cut -c1-16)
  if [ "$(cat "$p/.bench-built" 2>/dev/null)" != "$want" ] || [ ! -f "$p/prev/run_results.json" ]; then
    log "$n nodes: generating and building with dbt (once; reused while the generator and dbt are unchanged)"
    rm -rf "$p/target" "$p/target-ls" "$p/prev" "$p/.ods" "$p/logs" "$p/bench.duckdb" "$p/bench.duckdb.wal" "$p/.bench-built"
    "$py" "$bench/gen_project.py" "$n" "$p" >"$tmp/gen.json"
    local t0=$SECONDS
    run_logged "$work/p$n-create-raw.log" dbt_in "$p" run-operation bench_create_raw
    log "$n nodes: full parse + source tables: $((SECONDS - t0)) s"
    run_logged "$work/p$n-freshness-build.log" dbt_in "$p" source freshness
    t0=$SECONDS
    # The cheapest real build: every model a view (last layer tables), seeds; tests not run.
    run_logged "$work/p$n-build.log" dbt_in "$p" build --exclude-resource-type test
    log "$n nodes: dbt build: $((SECONDS - t0)) s"
    cp -a "$p/target" "$p/prev"
    echo "$want" >"$p/.bench-built"
  fi
  "$py" "$bench/gen_project.py" "$n" "$p" --changed >"$work/p$n-gen.json"
  # As a user plans (docs/cli.md): fresh source evidence (no new data since the build), then
  # compile, since freshness rewrites manifest.json without compiled code.
  local t0=$SECONDS
  run_logged "$work/p$n-freshness.log" dbt_in "$p" source freshness
  run_logged "$work/p$n-compile.log" dbt_in "$p" compile
  log "$n nodes: dbt source freshness + dbt compile after the edit (partial parsing warm): $((SECONDS - t0)) s"
}

# record P PREV: a fresh ODS state for P from the build artifacts in PREV.
record() {
  rm -rf "$1/.ods"
  run_logged "$tmp/record.log" "$ods" state record --project-dir "$1" --target-path "$2"
}

# plan_summary P: "build X, reuse Y" of ods's plan of P.
plan_summary() {
  "$ods" state plan --project-dir "$1" --format json |
    "$py" -c 'import json,sys; s=json.load(sys.stdin)["summary"]; print(", ".join(f"{k} {v}" for k, v in sorted(s.items())))'
}

results=()
scaled_line=

for n in "${sizes[@]}"; do
  prepare "$n"
  [ "$prepare_only" = 1 ] && continue
  p=$work/p$n
  record "$p" "$p/prev"
  changed=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["changed_model"])' "$work/p$n-gen.json")
  ods_cmd=("$ods" state plan --project-dir "$p")
  # dbt ls writes target/manifest.json (without compiled code): give it its own target path,
  # seeded with the partial parse of the compile so it is warm from the first run.
  mkdir -p "$p/target-ls"
  cp "$p/target/partial_parse.msgpack" "$p/target-ls/"
  dbt_cmd=(dbt ls --select state:modified --state "$p/prev" --target-path "$p/target-ls"
    --project-dir "$p" --profiles-dir "$p")
  log "$n nodes: ods plan: $(plan_summary "$p"); dbt ls state:modified: $("${dbt_cmd[@]}" --quiet | tr '\n' ' ')(edited: $changed)"
  measure "${ods_cmd[@]}" >/dev/null
  ods_t=() ods_m=() ods_c=() dbt_t=() dbt_m=() dbt_c=()
  for ((r = 1; r <= reps; r++)); do
    measure "${ods_cmd[@]}" >"$tmp/m"
    read -r t m c <"$tmp/m"
    ods_t+=("$t") ods_m+=("$m") ods_c+=("$c")
    measure "${dbt_cmd[@]}" >"$tmp/m"
    read -r t m c <"$tmp/m"
    dbt_t+=("$t") dbt_m+=("$m") dbt_c+=("$c")
    log "$n nodes: repetition $r/$reps: ods $((ods_t[-1] / 1000)) ms, dbt $((dbt_t[-1] / 1000)) ms"
  done
  mbytes=$(stat -c %s "$p/target/manifest.json")
  line="$n $mbytes $(median "${ods_t[@]}") $(median "${dbt_t[@]}") $(median "${ods_m[@]}") $(median "${dbt_m[@]}")"
  results+=("$line $(median "${ods_c[@]}") $(median "${dbt_c[@]}")")
done

if [ "$prepare_only" != 1 ] && ((scale_nodes > 0)); then
  base=$(printf '%s\n' "${sizes[@]}" | sort -n | tail -n 1)
  copies=$(((scale_nodes + base / 2) / base))
  ((copies >= 1)) || copies=1
  s=$work/scaled$((copies * base))
  p=$work/p$base
  want=$(cat "$bench/scale_manifest.py" "$p/prev/manifest.json" "$p/target/manifest.json" | { cat; echo "$copies"; } |
    sha256sum | cut -c1-16)
  if [ "$(cat "$s/.bench-scaled" 2>/dev/null)" != "$want" ]; then
    log "scaling the $base-node artifacts x$copies"
    rm -rf "$s"
    mkdir -p "$s/in/prev" "$s/in/target"
    cp "$p/prev/manifest.json" "$p/prev/run_results.json" "$p/prev/sources.json" "$s/in/prev/"
    cp "$p/target/manifest.json" "$p/target/sources.json" "$s/in/target/"
    run_logged "$work/scale.log" "$py" "$bench/scale_manifest.py" --copies "$copies" --out "$s" "$s/in/prev" "$s/in/target"
    rm -rf "$s/in"
    echo "$want" >"$s/.bench-scaled"
  fi
  record "$s" "$s/prev"
  nodes=$((copies * base))
  mbytes=$(stat -c %s "$s/target/manifest.json")
  log "$nodes nodes (scaled): ods plan: $(plan_summary "$s")"
  cmd=("$ods" state plan --project-dir "$s" --format json)
  measure "${cmd[@]}" >/dev/null
  st=() sm=() sc=()
  for ((r = 1; r <= reps; r++)); do
    measure "${cmd[@]}" >"$tmp/m"
    read -r t m c <"$tmp/m"
    st+=("$t") sm+=("$m") sc+=("$c")
    log "$nodes nodes: repetition $r/$reps: ods $((t / 1000)) ms, $((m / 1024)) MiB"
  done
  scaled_line="$nodes $mbytes $(median "${st[@]}") $(median "${sm[@]}") $(median "${sc[@]}")"
fi

[ "$prepare_only" = 1 ] && exit 0

{
  echo "ods state plan vs dbt ls --select state:modified (warm partial parsing), one edited model;"
  echo "medians of $reps runs; s = wall seconds, cpu = user + system seconds; MB = 10^6 bytes; peak = max RSS"
  printf '%-7s %-9s %-7s %-7s %-7s %-7s %-6s %-9s %-9s\n' nodes manifest ods_s ods_cpu dbt_s dbt_cpu ratio ods_peak dbt_peak
  for line in "${results[@]}"; do
    read -r n b ot dt om dm oc dc <<<"$line"
    awk -v n="$n" -v b="$b" -v ot="$ot" -v dt="$dt" -v om="$om" -v dm="$dm" -v oc="$oc" -v dc="$dc" 'BEGIN {
      printf "%-7s %-9s %-7.3f %-7.2f %-7.2f %-7.2f %-6s %-9s %-9s\n", n, sprintf("%.1fMB", b / 1e6), ot / 1e6, oc,
        dt / 1e6, dc, sprintf("%.0fx", dt / ot), sprintf("%.0fMB", om * 1024 / 1e6), sprintf("%.0fMB", dm * 1024 / 1e6) }'
  done
  if [ -n "$scaled_line" ]; then
    read -r n b t m c <<<"$scaled_line"
    echo
    echo "ods state plan --format json on a scaled manifest, one edited model per copy (medians of $reps runs)"
    printf '%-7s %-9s %-7s %-7s %-8s %-9s %-s\n' nodes manifest ods_s ods_cpu MB/s peak peak/manifest
    awk -v n="$n" -v b="$b" -v t="$t" -v m="$m" -v c="$c" 'BEGIN {
      printf "%-7s %-9s %-7.3f %-7.2f %-8.1f %-9s %.2fx\n", n, sprintf("%.1fMB", b / 1e6), t / 1e6, c,
        (b / 1e6) / (t / 1e6), sprintf("%.0fMB", m * 1024 / 1e6), m * 1024 / b }'
  fi
} | tee "$work/results.txt"
