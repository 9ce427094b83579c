#!/usr/bin/env bash
# Benchmarks the probe on a real Delta Lake (docs/benchmarks.md, "Probe cost on Delta").
#
#   bench/delta_probe.sh                 N in $BENCH_DELTA_SOURCES (default "10 50")
#
# For each N: a lake with N Delta tables of one commit each (CREATE TABLE AS SELECT) (examples/lakehouse/scripts/lake.py
# in the Spark environment of scripts/spark-env.sh) and a generated dbt-spark project
# (examples/lakehouse's profile) with those N sources and one model; after one `ods state run`
# that builds and records it, $BENCH_REPS more runs with nothing changed. From each run's JSON:
# the probe step's wall seconds (run.timings.probe) and the sum of the per-source statement
# seconds (run.probe_seconds: DESCRIBE DETAIL + DESCRIBE HISTORY, timed inside the call).
#
# BENCH_DELTA_METHOD=thrift (the default): the lake is served by a local Spark Thrift server
# (scripts/spark-thrift.sh; dbt-spark's `thrift` method, the profile's `thrift` target), whose
# connections are independent, and each repetition runs the probe twice, in the same run of
# this script: serially (ODS_PROBE_PARTS=1, one dbt show call) and in $BENCH_PROBE_PARTS parts
# at once (default 3); the gain is their ratio. BENCH_DELTA_METHOD=session: Spark inside the
# dbt process (one connection, one SparkSession: serial only), as before.
# Seconds per source is the marginal cost between the sizes; the fixed cost of the call is the
# intercept of the line through the smallest and the largest N.
#
# Environment: ODS_BIN (default <repo>/build/bin/ods), BENCH_DIR (default <repo>/.cache/bench),
# BENCH_REPS (default 2), BENCH_DELTA_SOURCES (default "10 50"), BENCH_DELTA_METHOD,
# BENCH_PROBE_PARTS. We run as root: `nice -n -10 bench/delta_probe.sh` steadies the ratio.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/common.sh
source "$root/bench/common.sh"
reps=${BENCH_REPS:-2}
read -r -a sizes <<<"${BENCH_DELTA_SOURCES:-10 50}"
method=${BENCH_DELTA_METHOD:-thrift}
parts=${BENCH_PROBE_PARTS:-3}
[ "$method" = thrift ] || [ "$method" = session ] || { echo "bench: BENCH_DELTA_METHOD is '$method': thrift or session" >&2; exit 1; }
work=${BENCH_DIR:-$root/.cache/bench}
ods=${ODS_BIN:-$root/build/bin/ods}
[ -x "$ods" ] || { echo "bench: no ods binary at $ods (run 'make build', or set ODS_BIN)" >&2; exit 1; }
env_dir=$("$root/scripts/spark-env.sh" | tail -1)
py=$env_dir/venv/bin/python
ODS_DELTA_JARS=$(cat "$env_dir/delta-jars")
export ODS_DELTA_JARS DBT_SEND_ANONYMOUS_USAGE_STATS=false DO_NOT_TRACK=1

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
    statements+=("create table raw.t$i using delta as select $i as id, 'x' as v")
  done
  if [ "$method" = thrift ]; then
    port=$("$root/scripts/spark-thrift.sh" start "$dir/lake" 2>"$dir/thrift-start.log" | tail -1) ||
      { tail -20 "$dir/thrift-start.log" >&2; exit 1; }
    server_lake=$dir/lake
  fi
  log "creating $n Delta tables in $dir/lake"
  (cd "$dir" && ODS_LAKE_DIR=$dir/lake ODS_THRIFT_PORT=$port run_logged "$dir/lake.log" "$py" scripts/lake.py sql "${statements[@]}")
}

port='' server_lake=''
stop_server() { [ -z "$server_lake" ] || "$root/scripts/spark-thrift.sh" stop "$server_lake" || true; server_lake=; }
trap stop_server EXIT

ods_run() {  # ods_run DIR PARTS -> the run's JSON document on stdout
  local target=()
  [ "$method" = thrift ] && target=(--target thrift)
  (cd "$1" && ODS_LAKE_DIR=$1/lake ODS_THRIFT_PORT=$port ODS_PROBE_PARTS=$2 "$ods" state run --format json \
    --profiles-dir . --project-dir . "${target[@]}" --dbt "$env_dir/venv/bin/dbt")
}

probe_of() {  # probe_of JSON -> "probe_seconds statement_seconds"
  "$py" -c 'import json,sys; d=json.load(open(sys.argv[1]))["run"]; print(d["timings"]["probe"], sum(d["probe_seconds"].values()))' "$1"
}

results=() parallel=()
for n in "${sizes[@]}"; do
  dir=$work/delta$n
  make_project "$n" "$dir"
  log "N=$n: first run (builds and records)"
  ods_run "$dir" 1 >"$dir/first.json" 2>"$dir/first.err" || { tail -20 "$dir/first.err" >&2; exit 1; }
  probes=() statements=() split=()
  for r in $(seq 1 "$reps"); do
    ods_run "$dir" 1 >"$dir/run$r.json" 2>"$dir/run$r.err" || { tail -20 "$dir/run$r.err" >&2; exit 1; }
    read -r p s < <(probe_of "$dir/run$r.json")
    probes+=("$p") statements+=("$s")
    log "N=$n run $r: serial probe ${p}s, statements ${s}s"
    if [ "$method" = thrift ]; then
      ods_run "$dir" "$parts" >"$dir/par$r.json" 2>"$dir/par$r.err" || { tail -20 "$dir/par$r.err" >&2; exit 1; }
      read -r q _ < <(probe_of "$dir/par$r.json")
      "$py" -c 'import json,sys; e=json.load(open(sys.argv[1]))["plan"]["entries"]; sys.exit(0 if all(x["action"] == "reuse" for x in e) else 1)' "$dir/par$r.json" ||
        { log "N=$n: the parallel probe's run did not reuse every node (see $dir/par$r.json)"; exit 1; }
      split+=("$q")
      log "N=$n run $r: probe in $parts parts ${q}s"
    fi
  done
  results+=("$n $(median "${probes[@]}") $(median "${statements[@]}")")
  [ "$method" = thrift ] && parallel+=("$(median "${split[@]}")")
  stop_server
done

echo "probe of ods state run, Delta on Spark ($method method), nothing changed; medians of $reps runs;"
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
if [ "$method" = thrift ]; then
  echo
  printf '%-8s %12s %16s %8s\n' sources serial_s "parts=$parts"_s gain
  for i in "${!results[@]}"; do
    read -r n p _ <<<"${results[$i]}"
    q=${parallel[$i]}
    printf '%-8s %12.2f %16.2f %7.2fx\n' "$n" "$p" "$q" "$(awk -v a="$p" -v b="$q" 'BEGIN { print a / b }')"
  done
fi
