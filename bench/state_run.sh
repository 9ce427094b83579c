#!/usr/bin/env bash
# Benchmarks `ods state run` (see docs/benchmarks.md, "ods state run" sections).
#
#   bench/state_run.sh [shop|probe|cutoff]...      default: all three
#
# shop: for each scale S in $BENCH_SHOP_SCALES, examples/shop copied to $BENCH_DIR/shop<S>, its
#   data generated at --scale S (DuckDB). Runs with a digest key ($ODS_DIGEST_KEY, a bench key
#   unless set), so dim_customers' env-reading hook is fingerprinted and reused (issue #14).
#   Times, each $BENCH_REPS times (medians):
#     full:       dbt build (every node, as without ODS; after one first build)
#     no change:  ods state run, nothing changed since its last run
#     no change, one dbt process per command: the same with ODS_DBT_DRIVER=off (the
#                 persistent ods dbt driver off; docs/cli.md), for comparison
#     one source: ods state run after --update-customers 1 (only raw.customers changes)
#     floor:      what a run that must ask the warehouse pays at least: starting dbt, parsing
#                 the project (partial parsing warm) and the probe, driven directly: the very
#                 `dbt show --inline <probe>` command line ods ran (captured once through a
#                 wrapper with ODS_DBT_DRIVER=off), one process doing all three
#     also shown: Python importing dbt-core and dbt-duckdb, and `dbt parse` alone
#   The raw tables are generated inside DuckDB (generate_data.py --engine sql) once per scale
#   and cached in $BENCH_DIR/shop-data (keyed by the scale, the generator and DuckDB's version).
#   and prints the seconds, the ratios (no change against the floor, the issue's limit
#   1.1 x floor + 0.5 s, and against the full build; the issue's limit at scale 10000 is 0.15),
#   ODS's own split of the no-change run and its phases (ODS's own, dbt's per command from its
#   log events, beside the floor's command's), the load average beside each figure, and which nodes
#   each ods run built next to the descendants of raw.customers.
# probe: for N in $BENCH_PROBE_SOURCES, a generated project with N source tables
#   (bench/gen_sources_project.py, cached in $BENCH_DIR/probe<N>); after one ods state run
#   that builds and records it, times the probe of `ods state run` with nothing changed
#   ($BENCH_REPS times, medians): the probe step's wall seconds (one dbt show call), the sum
#   of the per-source statement seconds, seconds per source, and the fixed cost of the call
#   (intercept of the line through the smallest and the largest N).
# cutoff: the early-cutoff saving and the cost of its content probe (bench/cutoff_saving.sh).
#
# Environment:
#   ODS_BIN              the ods binary (default: <repo>/build/bin/ods)
#   BENCH_DIR            work folder (default: <repo>/.cache/bench, git-ignored)
#   BENCH_REPS           repetitions (default 3)
#   BENCH_SHOP_SCALES    generate_data.py --scale values (default "100 1000 10000"; scale 100:
#                        10k customers, 100k orders; 10000: 1M customers, 10M orders)
#   BENCH_PROBE_SOURCES  source counts (default "10 100 1000")
#   BENCH_DRIVER_OFF     0: leave out the ODS_DBT_DRIVER=off runs (default 1)
#   BENCH_CUTOFF_NODES   nodes of the cutoff part's generated project (default 1000)
#   ODS_DIGEST_KEY       the digest key (default: a fixed bench key; never a real one here)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=$root/bench
if (($#)); then parts=("$@"); else parts=(shop probe cutoff); fi
reps=${BENCH_REPS:-3}
driver_off=${BENCH_DRIVER_OFF:-1}
read -r -a scales <<<"${BENCH_SHOP_SCALES:-${BENCH_SHOP_SCALE:-100 1000 10000}}"
read -r -a probe_sizes <<<"${BENCH_PROBE_SOURCES:-10 100 1000}"
work=${BENCH_DIR:-$root/.cache/bench}
ods=${ODS_BIN:-$root/build/bin/ods}
py=$root/.venv/bin/python
[ -x "$ods" ] || { echo "bench: no ods binary at $ods (run 'make build', or set ODS_BIN)" >&2; exit 1; }
[ -x "$root/.venv/bin/dbt" ] || { echo "bench: no $root/.venv/bin/dbt (run scripts/setup.sh)" >&2; exit 1; }
export ODS_DBT=$root/.venv/bin/dbt DBT_SEND_ANONYMOUS_USAGE_STATS=false
export ODS_DIGEST_KEY=${ODS_DIGEST_KEY:-ods-bench-digest-key-not-a-secret}
mkdir -p "$work"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# log, run_logged, median, now, timed, capture_probe, replay_probe, ods_run, field, built_names
# shellcheck source=bench/common.sh
source "$bench/common.sh"
# bench_cutoff
# shellcheck source=bench/cutoff_saving.sh
source "$bench/cutoff_saving.sh"
load() { cut -d' ' -f1-3 /proc/loadavg; }
load1() { cut -d' ' -f1 /proc/loadavg; }


# shop_data S P: the raw tables at --scale S (generated inside DuckDB: --engine sql) in
# P/shop.duckdb, copied from a cache in $BENCH_DIR/shop-data keyed by the scale, the
# generator's text and DuckDB's version (a file holding the raw schema only, written before
# dbt ever opens it, so a copy is what a fresh generation would give).
shop_data() {
  local scale=$1 p=$2 key cached
  key=$( (sha256sum "$p/scripts/generate_data.py" | cut -c1-16; "$py" -c 'import duckdb; print(duckdb.__version__)') | tr '\n' '-')
  cached=$work/shop-data/raw-scale$scale-${key%-}.duckdb
  if [ ! -s "$cached" ]; then
    mkdir -p "$work/shop-data"
    rm -f "$cached.tmp"
    local t0
    t0=$(now)
    run_logged "$tmp/gen.log" "$py" "$p/scripts/generate_data.py" --db "$cached.tmp" --fresh --scale "$scale" --engine sql
    log "shop $scale: generated in $(awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.1f", b - a}') s: $(tail -n 1 "$tmp/gen.log")"
    mv "$cached.tmp" "$cached"
  else
    log "shop $scale: raw tables from the cache $cached"
  fi
  cp "$cached" "$p/shop.duckdb"
}

bench_shop_scale() {
  local scale=$1 p=$work/shop$1
  log "shop $scale: copying examples/shop and generating data at --scale $scale (load $(load))"
  rm -rf "$p"
  mkdir -p "$p"
  (cd "$root/examples/shop" && git ls-files -z . | xargs -0 tar cf -) | tar xf - -C "$p"
  shop_data "$scale" "$p"
  local dbt=("$ODS_DBT" build --project-dir "$p" --profiles-dir "$p")
  (cd "$p" && run_logged "$tmp/build0.log" "${dbt[@]}")  # the first build creates the snapshot and incremental table
  local full=() none=() none_off=() one=() floor=() parse=() start=() r
  local l_full l_none l_off l_one l_floor l_parse l_start
  for ((r = 1; r <= reps; r++)); do
    full+=("$(cd "$p" && timed "${dbt[@]}")")
    log "shop $scale: full dbt build $r/$reps: ${full[-1]} s (load $(load))"
  done
  l_full=$(load1)
  # ODS state from two runs (an incremental model's SQL differs on its very first build).
  ods_run "$p" "$tmp/r.json" >/dev/null
  ods_run "$p" "$tmp/r.json" >/dev/null
  capture_probe "$p"
  local log_from
  for ((r = 1; r <= reps; r++)); do
    log_from=$(wc -l <"$p/logs/dbt.log")
    none+=("$(ods_run "$p" "$tmp/none.json")")
    dbt_phases "$p/logs/dbt.log" "$log_from" >"$tmp/none.phases"
    l_none=$(load1)
    log "shop $scale: ods state run, nothing changed $r/$reps: ${none[-1]} s, built: $(field "$tmp/none.json" "$built_names") (load $l_none)"
    log_from=$(wc -l <"$p/logs/dbt.log")
    floor+=("$(replay_probe)")
    dbt_phases "$p/logs/dbt.log" "$log_from" >"$tmp/floor.phases"
    l_floor=$(load1)
    log "shop $scale: floor (the probe's dbt show, driven directly) $r/$reps: ${floor[-1]} s (load $l_floor)"
    if ((driver_off)); then
      none_off+=("$(ODS_DBT_DRIVER=off ods_run "$p" "$tmp/none_off.json")")
      l_off=$(load1)
      log "shop $scale: ods state run, nothing changed, ODS_DBT_DRIVER=off $r/$reps: ${none_off[-1]} s (load $l_off)"
    fi
    start+=("$(timed "$py" -c 'import dbt.cli.main, dbt.adapters.duckdb')")
    l_start=$(load1)
    parse+=("$(cd "$p" && timed "$ODS_DBT" parse --project-dir "$p" --profiles-dir "$p")")
    l_parse=$(load1)
  done
  for ((r = 1; r <= reps; r++)); do
    run_logged "$tmp/gen.log" "$py" "$p/scripts/generate_data.py" --update-customers 1
    one+=("$(ods_run "$p" "$tmp/one.json")")
    l_one=$(load1)
    log "shop $scale: ods state run, raw.customers changed $r/$reps: ${one[-1]} s, built: $(field "$tmp/one.json" "$built_names") (load $l_one)"
  done
  local descendants
  descendants=$(cd "$p" && "$ODS_DBT" --quiet ls --select source:raw.customers+ --resource-type model snapshot seed \
    --output name --project-dir "$p" --profiles-dir "$p" | sort | tr '\n' ' ')
  local f n n_off o fl s0 p0
  f=$(median "${full[@]}") n=$(median "${none[@]}") o=$(median "${one[@]}")
  ((driver_off)) && n_off=$(median "${none_off[@]}")
  fl=$(median "${floor[@]}") s0=$(median "${start[@]}") p0=$(median "${parse[@]}")
  {
    echo "examples/shop at --scale $scale on DuckDB, ODS_DIGEST_KEY set; medians of $reps runs (wall s);"
    echo "ratio: to the full build; load: 1-minute load average after the figure's last repetition"
    printf '%-44s %8s %8s %6s\n' run seconds ratio load
    row() { awk -v l="$1" -v t="$2" -v f="$f" -v load="$3" 'BEGIN {printf "%-44s %8.2f %8.2f %6s\n", l, t, t / f, load}'; }
    row "dbt build (full)" "$f" "$l_full"
    row "ods state run, nothing changed" "$n" "$l_none"
    ((driver_off)) && row "  the same, ODS_DBT_DRIVER=off" "$n_off" "$l_off"
    row "ods state run, raw.customers changed" "$o" "$l_one"
    row "floor: the probe's dbt show, driven directly" "$fl" "$l_floor"
    row "  import dbt-core + dbt-duckdb" "$s0" "$l_start"
    row "  dbt parse (partial parse warm)" "$p0" "$l_parse"
    awk -v n="$n" -v fl="$fl" -v f="$f" -v s="$scale" 'BEGIN {
      limit = 1.1 * fl + 0.5;
      printf "nothing changed / floor: %.2f; limit 1.1 x floor + 0.5 s = %.2f s: %s (%.2f s over the floor)\n",
        n / fl, limit, (n <= limit ? "met" : "NOT met"), n - fl;
      if (s >= 10000) printf "nothing changed / full build: %.3f; limit 0.15: %s\n", n / f, (n / f <= 0.15 ? "met" : "NOT met") }'
    echo "nothing changed, built:          $(field "$tmp/none.json" "$built_names")"
    echo "  (ods timings: $(field "$tmp/none.json" 'd["run"]["timings"]'))"
    awk -v c="$(field "$tmp/none.json" 'd["run"]["timings"]["compile"]')" -v p="$p0" 'BEGIN {
      printf "  its dbt compile beyond a dbt parse (what skipping a provably unchanged compile could save): %.2f s\n", c - p }'
    phases "$tmp/none.json" "$s0" "$p0" "$fl"
    echo "    by dbt's own events (the compile step's rest before dbt's first event: the driver's start and the import):"
    cat "$tmp/none.phases"
    echo "    the floor's one command, by its events (and before them, the process start and the import):"
    cat "$tmp/floor.phases"
    ((driver_off)) && echo "  (ODS_DBT_DRIVER=off: $(field "$tmp/none_off.json" 'd["run"]["timings"]'))"
    echo "raw.customers changed, built:    $(field "$tmp/one.json" "$built_names")"
    echo "  (ods timings: $(field "$tmp/one.json" 'd["run"]["timings"]'))"
    echo "descendants of raw.customers:    $descendants"
    local outside
    outside=$(comm -23 <(field "$tmp/one.json" "$built_names" | tr ' ' '\n' | sort) <(tr ' ' '\n' <<<"$descendants" | sort) | tr '\n' ' ')
    echo "built outside the descendants:   ${outside:-none}"
  } | tee "$work/state_run_shop$scale.txt"
}

# phases RUN_JSON IMPORT_S PARSE_S FLOOR_S: where the no-change run's seconds go (its last
# repetition), beside the floor's parts measured alone: ODS's own phases; dbt's compile step
# (the driver's start, dbt's import and parse, then the compile proper: about the step less
# a `dbt parse` alone); the probe's dbt show call (its statements, the rest of the call).
phases() {
  "$py" - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); t = d["run"]["timings"]
imp, parse, floor = (float(x) for x in sys.argv[2:5])
statements = sum(d["run"]["probe_seconds"].values())
print("  phases of the last no-change run (s): ODS's own %.2f (load %.2f, probe parse %.2f, plan %.2f, ledger %.2f);"
      % (t["ods"], t["load"], t["probe_parse"], t["plan"], t["ledger"]))
print("    dbt compile step %.2f = start + import + parse (a dbt parse alone: %.2f, of which import %.2f) + compile (~%.2f);"
      % (t["compile"], parse, imp, t["compile"] - parse))
print("    probe's dbt show call %.2f = statements %.2f + the call's own %.2f; floor (start + parse + probe, alone) %.2f"
      % (t["probe_dbt"], statements, t["probe_dbt"] - statements, floor))
PY
}

# dbt_phases LOG FROM_LINE: dbt's own phases in each dbt command logged in LOG (dbt's
# logs/dbt.log, JSON lines) after line FROM_LINE, from its events' timestamps: setup (start to
# AdapterRegistered), parse (to FoundStats: partial parsing, or the handed-over manifest, the
# inline node and the manifest written), run (ConcurrencyLine to EndRunResult: compiling the
# nodes, or the probe's statements) and the artifacts written after it.
dbt_phases() {
  "$py" - "$@" <<'PY'
import json, sys
from datetime import datetime
commands, order = {}, []
with open(sys.argv[1], errors="replace") as f:
    for number, line in enumerate(f, 1):
        if number <= int(sys.argv[2]) or not line.startswith("{"):
            continue
        try:
            d = json.loads(line)
            info = d["info"]
            ts = datetime.fromisoformat(info["ts"].rstrip("Z")).timestamp()
        except (ValueError, KeyError, TypeError):
            continue
        c = commands.setdefault(info.get("invocation_id"), {})
        if not c:
            order.append(c)
        c.setdefault(info.get("name"), ts)
        if info.get("name") == "ResourceReport":
            c["command"] = d.get("data", {}).get("command_name", "?")
def span(c, a, b):
    return "%.2f" % (c[b] - c[a]) if a in c and b in c else "-"
for c in order:
    print("    dbt %-8s %s s: setup %s, parse %s, run %s, artifacts %s" % (
        c.get("command", "?"), span(c, "MainReportVersion", "CommandCompleted"),
        span(c, "MainReportVersion", "AdapterRegistered"), span(c, "AdapterRegistered", "FoundStats"),
        span(c, "ConcurrencyLine", "EndRunResult"), span(c, "EndRunResult", "CommandCompleted")))
PY
}

bench_shop() {
  local s
  for s in "${scales[@]}"; do bench_shop_scale "$s"; done
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
    local prev_n='' prev_t=''
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
    cutoff) bench_cutoff ;;
    *) echo "bench: unknown part '$part' (shop, probe or cutoff)" >&2; exit 2 ;;
  esac
done
