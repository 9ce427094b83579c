#!/usr/bin/env bash
# Benchmarks the probe on a real Delta Lake (docs/benchmarks.md, "Probe cost on Delta").
#
#   bench/delta_probe.sh                 N in $BENCH_DELTA_SOURCES (default "10 50")
#
# For each N: a lake with N Delta tables of two commits each (examples/lakehouse/scripts/lake.py
# in the Spark environment of scripts/spark-env.sh) and a generated dbt-spark project (session
# mode, examples/lakehouse's profile) with those N sources and one model; after one
# `ods state run` that builds and records it, $BENCH_REPS more runs with nothing changed. From
# each run's JSON: the probe step's wall seconds (run.timings.probe: the one dbt show call) and
# the sum of the per-source statement seconds (run.probe_seconds: DESCRIBE DETAIL + DESCRIBE
# HISTORY, timed inside the call). Seconds per source is their mean per source and the marginal
# cost between the sizes; the fixed cost of the call is the intercept of the line through the
# smallest and the largest N. The statements run one after another: Jinja inside one dbt call
# has no threads, and dbt-spark's session mode shares one SparkSession.
#
# Environment: ODS_BIN (default <repo>/build/bin/ods), BENCH_DIR (default <repo>/.cache/bench),
# BENCH_REPS (default 2), BENCH_DELTA_SOURCES (default "10 50").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/bench/common.sh"
reps=${BENCH_REPS:-2}
sizes=(${BENCH_DELTA_SOURCES:-10 50})
work=${BENCH_DIR:-$root/.cache/bench}
ods=${ODS_BIN:-$root/build/bin/ods}
[ -x "$ods" ] || { echo "bench: no ods binary at $ods (run 'make build', or set ODS_BIN)" >&2; exit 1; }
env_dir=$("$root/scripts/spark-env.sh" | tail -1)
py=$env_dir/venv/bin/python
export ODS_DELTA_JARS=$(cat "$env_dir/delta-jars") DBT_SEND_ANONYMOUS_USAGE_STATS=false DO_NOT_TRACK=1

make_project() {  # make_project N DIR
  local n=$1 dir=$2
  rm -rf "$dir"
  mkdir -p "$dir/models" "$dir/scripts" "$dir/lake"
  cp "$root/examples/lakehouse/dbt_project.yml" "$root/examples/lakehouse/profiles.yml" "$dir/"
  cp "$root/examples/lakehouse/scripts/lake.py" "$dir/scripts/"
  {
    echo "version: 2"
    echo "sources:"
    echo "  - name: raw"
    echo "    schema: raw"
    echo "    tables:"
    for i in $(seq 1 "$n"); do echo "      - name: t$i"; done
  } >"$dir/models/sources.yml"
  echo "select * from {{ source('raw', 't1') }}" >"$dir/models/first.sql"
  local statements=("create database if not exists raw")
  for i in $(seq 1 "$n"); do
    statements+=("create table raw.t$i (id int, v string) using delta" "insert into raw.t$i values ($i, 'x')")
  done
  log "creating $n Delta tables in $dir/lake"
  (cd "$dir" && ODS_LAKE_DIR=$dir/lake run_logged "$dir/lake.log" "$py" scripts/lake.py sql "${statements[@]}")
}

ods_run() {  # ods_run DIR -> the run's JSON document on stdout
  (cd "$1" && ODS_LAKE_DIR=$1/lake "$ods" state run --format json --profiles-dir . --project-dir . \
    --dbt "$env_dir/venv/bin/dbt")
}

results=()
for n in "${sizes[@]}"; do
  dir=$work/delta$n
  make_project "$n" "$dir"
  log "N=$n: first run (builds and records)"
  ods_run "$dir" >"$dir/first.json" 2>"$dir/first.err" || { tail -20 "$dir/first.err" >&2; exit 1; }
  probes=() statements=()
  for r in $(seq 1 "$reps"); do
    ods_run "$dir" >"$dir/run$r.json" 2>"$dir/run$r.err" || { tail -20 "$dir/run$r.err" >&2; exit 1; }
    read -r p s < <("$py" -c 'import json,sys; d=json.load(open(sys.argv[1]))["run"]; print(d["timings"]["probe"], sum(d["probe_seconds"].values()))' "$dir/run$r.json")
    probes+=("$p") statements+=("$s")
    log "N=$n run $r: probe ${p}s, statements ${s}s"
  done
  results+=("$n $(median "${probes[@]}") $(median "${statements[@]}")")
done

echo "probe of ods state run (one dbt show call), Delta on Spark (session mode), nothing changed; medians of $reps runs;"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %10s %13s %12s %18s\n' sources probe_s statements_s s/source marginal_s/source
prev=
for line in "${results[@]}"; do
  read -r n p s <<<"$line"
  marginal=-
  if [ -n "$prev" ]; then
    read -r pn pp _ <<<"$prev"
    marginal=$(awk -v a="$pp" -v b="$p" -v m="$pn" -v k="$n" 'BEGIN { printf "%.4f", (b - a) / (k - m) }')
  fi
  printf '%-8s %10.2f %13.2f %12.4f %18s\n' "$n" "$p" "$s" "$(awk -v s="$s" -v n="$n" 'BEGIN { print s / n }')" "$marginal"
  prev=$line
done
read -r n1 p1 _ <<<"${results[0]}"
read -r n2 p2 _ <<<"${results[-1]}"
awk -v a="$p1" -v b="$p2" -v m="$n1" -v k="$n2" \
  'BEGIN { s = (b - a) / (k - m); printf "per source %.4f s, fixed cost of the dbt call %.2f s (line through %d and %d sources)\n", s, a - s * m, m, k }'
