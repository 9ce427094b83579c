#!/usr/bin/env bash
# Benchmarks `ods state run` (see docs/benchmarks.md, "ods state run" sections).
#
#   bench/state_run.sh [shop|probe]...      default: both
#
# shop: examples/shop copied to $BENCH_DIR/shop, its data generated at --scale
#   $BENCH_SHOP_SCALE (DuckDB). Times, each $BENCH_REPS times (medians):
#     full:       dbt build (every node, as without ODS; after one first build)
#     no change:  ods state run, nothing changed since its last run
#     no change, one dbt process per command: the same with ODS_DBT_DRIVER=off (the
#                 persistent ods dbt driver off; docs/cli.md), for comparison
#     one source: ods state run after --update-customers 1 (only raw.customers changes)
#     floor:      what any run that starts dbt pays before its work: Python importing dbt-core
#                 and dbt-duckdb, and `dbt parse` with partial parsing warm
#   and prints the seconds, the ratios to the full build, and which nodes each ods run
#   built next to the descendants of raw.customers (dbt ls --select source:raw.customers+).
# probe: for N in $BENCH_PROBE_SOURCES, a generated project with N source tables
#   (bench/gen_sources_project.py, cached in $BENCH_DIR/probe<N>); after one ods state run
#   that builds and records it, times the probe of `ods state run` with nothing changed
#   ($BENCH_REPS times, medians): the probe step's wall seconds (one dbt show call), the sum
#   of the per-source statement seconds, seconds per source, and the fixed cost of the call
#   (intercept of the line through the smallest and the largest N).
#
# Environment:
#   ODS_BIN              the ods binary (default: <repo>/build/bin/ods)
#   BENCH_DIR            work folder (default: <repo>/.cache/bench, git-ignored)
#   BENCH_REPS           repetitions (default 3)
#   BENCH_SHOP_SCALE     generate_data.py --scale (default 100: 10k customers, 100k orders)
#   BENCH_PROBE_SOURCES  source counts (default "10 100 1000")
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=$root/bench
if (($#)); then parts=("$@"); else parts=(shop probe); fi
reps=${BENCH_REPS:-3}
scale=${BENCH_SHOP_SCALE:-100}
probe_sizes=(${BENCH_PROBE_SOURCES:-10 100 1000})
work=${BENCH_DIR:-$root/.cache/bench}
ods=${ODS_BIN:-$root/build/bin/ods}
py=$root/.venv/bin/python
[ -x "$ods" ] || { echo "bench: no ods binary at $ods (run 'make build', or set ODS_BIN)" >&2; exit 1; }
[ -x "$root/.venv/bin/dbt" ] || { echo "bench: no $root/.venv/bin/dbt (run scripts/setup.sh)" >&2; exit 1; }
export ODS_DBT=$root/.venv/bin/dbt DBT_SEND_ANONYMOUS_USAGE_STATS=false
mkdir -p "$work"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# log, run_logged, median
source "$bench/common.sh"
now() { date +%s.%N; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

# ods_run P OUT: `ods state run --format json` on P (profiles in P), JSON in OUT; prints wall s.
ods_run() {
  local t0 code=0
  t0=$(now)
  "$ods" state run --project-dir "$1" --profiles-dir "$1" --format json >"$2" 2>"$2.err" || code=$?
  if ((code != 0)); then
    log "failed: ods state run on $1 (exit $code):"
    tail -n 30 "$2.err" >&2
    exit 1
  fi
  awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.3f\n", b - a}'
}

# field FILE EXPR: a Python expression over the JSON document `d` in FILE.
field() { "$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
built_names='" ".join(sorted(e["name"] for e in d["plan"]["entries"] if e["action"] == "build"))'

bench_shop() {
  local p=$work/shop
  log "shop: copying examples/shop and generating data at --scale $scale (load $(load))"
  mkdir -p "$p"
  (cd "$root/examples/shop" && git ls-files -z . | xargs -0 tar cf -) | tar xf - -C "$p"
  rm -rf "$p/.ods" "$p/target"
  run_logged "$tmp/gen.log" "$py" "$p/scripts/generate_data.py" --fresh --scale "$scale"
  log "shop: $(tail -n 1 "$tmp/gen.log")"
  local dbt=("$ODS_DBT" build --project-dir "$p" --profiles-dir "$p")
  (cd "$p" && run_logged "$tmp/build0.log" "${dbt[@]}")  # the first build creates the snapshot and incremental table
  local full=() t0
  for ((r = 1; r <= reps; r++)); do
    t0=$(now)
    (cd "$p" && run_logged "$tmp/build.log" "${dbt[@]}")
    full+=("$(awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.3f\n", b - a}')")
    log "shop: full dbt build $r/$reps: ${full[-1]} s"
  done
  # ODS state from two runs (an incremental model's SQL differs on its very first build).
  ods_run "$p" "$tmp/r.json" >/dev/null
  ods_run "$p" "$tmp/r.json" >/dev/null
  local none=() none_off=() one=()
  for ((r = 1; r <= reps; r++)); do
    none+=("$(ods_run "$p" "$tmp/none.json")")
    log "shop: ods state run, nothing changed $r/$reps: ${none[-1]} s, built: $(field "$tmp/none.json" "$built_names")"
    none_off+=("$(ODS_DBT_DRIVER=off ods_run "$p" "$tmp/none_off.json")")
    log "shop: ods state run, nothing changed, ODS_DBT_DRIVER=off $r/$reps: ${none_off[-1]} s"
  done
  for ((r = 1; r <= reps; r++)); do
    run_logged "$tmp/gen.log" "$py" "$p/scripts/generate_data.py" --update-customers 1
    one+=("$(ods_run "$p" "$tmp/one.json")")
    log "shop: ods state run, raw.customers changed $r/$reps: ${one[-1]} s, built: $(field "$tmp/one.json" "$built_names")"
  done
  # The floor of any run that starts dbt: Python importing dbt-core and the adapter, and
  # `dbt parse` with partial parsing warm (what every dbt command does before its work).
  local start=() parse=()
  for ((r = 1; r <= reps; r++)); do
    t0=$(now)
    "$py" -c 'import dbt.cli.main, dbt.adapters.duckdb' >/dev/null
    start+=("$(awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.3f\n", b - a}')")
    t0=$(now)
    (cd "$p" && run_logged "$tmp/parse.log" "$ODS_DBT" parse --project-dir "$p" --profiles-dir "$p")
    parse+=("$(awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.3f\n", b - a}')")
  done
  local descendants
  descendants=$(cd "$p" && "$ODS_DBT" --quiet ls --select source:raw.customers+ --resource-type model snapshot seed \
    --output name --project-dir "$p" --profiles-dir "$p" | sort | tr '\n' ' ')
  local f n n_off o s0 p0
  f=$(median "${full[@]}") n=$(median "${none[@]}") n_off=$(median "${none_off[@]}") o=$(median "${one[@]}")
  s0=$(median "${start[@]}") p0=$(median "${parse[@]}")
  {
    echo "examples/shop at --scale $scale on DuckDB; medians of $reps runs (wall s); load average at the end: $(load)"
    printf '%-38s %8s %8s\n' run seconds ratio
    printf '%-38s %8.2f %8s\n' "dbt build (full)" "$f" "1.00"
    awk -v t="$n" -v f="$f" 'BEGIN {printf "%-38s %8.2f %8.2f\n", "ods state run, nothing changed", t, t / f}'
    awk -v t="$n_off" -v f="$f" 'BEGIN {printf "%-38s %8.2f %8.2f\n", "  the same, ODS_DBT_DRIVER=off", t, t / f}'
    awk -v t="$o" -v f="$f" 'BEGIN {printf "%-38s %8.2f %8.2f\n", "ods state run, raw.customers changed", t, t / f}'
    awk -v t="$s0" -v f="$f" 'BEGIN {printf "%-38s %8.2f %8.2f\n", "floor: import dbt-core + dbt-duckdb", t, t / f}'
    awk -v t="$p0" -v f="$f" 'BEGIN {printf "%-38s %8.2f %8.2f\n", "floor: dbt parse (partial parse warm)", t, t / f}'
    echo "nothing changed, built:          $(field "$tmp/none.json" "$built_names")"
    echo "  (ods timings: $(field "$tmp/none.json" 'd["run"]["timings"]'))"
    echo "  (ODS_DBT_DRIVER=off: $(field "$tmp/none_off.json" 'd["run"]["timings"]'))"
    echo "raw.customers changed, built:    $(field "$tmp/one.json" "$built_names")"
    echo "  (ods timings: $(field "$tmp/one.json" 'd["run"]["timings"]'))"
    echo "descendants of raw.customers:    $descendants"
    local outside
    outside=$(comm -23 <(field "$tmp/one.json" "$built_names" | tr ' ' '\n' | sort) <(tr ' ' '\n' <<<"$descendants" | sort) | tr '\n' ' ')
    echo "built outside the descendants:   ${outside:-none}"
  } | tee "$work/state_run_shop.txt"
}

bench_probe() {
  local lines=() n p t
  for n in "${probe_sizes[@]}"; do
    p=$work/probe$n
    log "probe: $n sources: generating (cached) (load $(load))"
    run_logged "$tmp/gen.log" "$py" "$bench/gen_sources_project.py" "$n" "$p"
    rm -rf "$p/.ods"
    ods_run "$p" "$tmp/p.json" >/dev/null  # builds and records
    local probe=() statements=()
    for ((r = 1; r <= reps; r++)); do
      ods_run "$p" "$tmp/p.json" >/dev/null
      probe+=("$(field "$tmp/p.json" 'd["run"]["timings"]["probe"]')")
      statements+=("$(field "$tmp/p.json" 'sum(d["run"]["probe_seconds"].values())')")
      log "probe: $n sources $r/$reps: probe ${probe[-1]} s (statements ${statements[-1]} s), built: $(field "$tmp/p.json" "$built_names")"
    done
    lines+=("$n $(median "${probe[@]}") $(median "${statements[@]}")")
  done
  {
    echo "probe of ods state run (one dbt show call), DuckDB, nothing changed; medians of $reps runs;"
    echo "load average at the end: $(load)"
    printf '%-8s %9s %13s %12s %17s\n' sources probe_s statements_s s/source marginal_s/source
    local prev_n= prev_t=
    for line in "${lines[@]}"; do
      read -r n t s <<<"$line"
      awk -v n="$n" -v t="$t" -v s="$s" -v pn="$prev_n" -v pt="$prev_t" 'BEGIN {
        m = (pn == "") ? "-" : sprintf("%.4f", (t - pt) / (n - pn));
        printf "%-8s %9.2f %13.2f %12.4f %17s\n", n, t, s, t / n, m }'
      prev_n=$n prev_t=$t
    done
    read -r n0 t0 _ <<<"${lines[0]}"
    read -r n1 t1 _ <<<"${lines[-1]}"
    if ((n1 > n0)); then
      awk -v n0="$n0" -v t0="$t0" -v n1="$n1" -v t1="$t1" 'BEGIN {
        slope = (t1 - t0) / (n1 - n0);
        printf "per source %.4f s, fixed cost of the dbt call %.2f s (line through %d and %d sources)\n",
          slope, t0 - slope * n0, n0, n1 }'
    fi
  } | tee "$work/state_run_probe.txt"
}

for part in "${parts[@]}"; do
  case $part in
    shop) bench_shop ;;
    probe) bench_probe ;;
    *) echo "bench: unknown part '$part' (shop or probe)" >&2; exit 2 ;;
  esac
done
