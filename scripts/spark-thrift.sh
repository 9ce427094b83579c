#!/usr/bin/env bash
# A local Spark Thrift server (HiveServer2 protocol, loopback only) over a Delta lake, so that
# dbt-spark's `thrift` method reaches it and several dbt processes can query the lake at once
# (the parallel probe; examples/lakehouse's `thrift` target). The lake is the one
# examples/lakehouse's session target uses: <lake>/warehouse and the Derby metastore under
# <lake>/derby, which the server holds while it runs (so no other Spark may open that lake).
#
#   scripts/spark-thrift.sh start LAKE_DIR   start it, wait until it listens, print its port (last line)
#   scripts/spark-thrift.sh stop LAKE_DIR    stop it and wait until its JVM has exited
#
# LAKE_DIR/thrift.pid holds the server's pid, LAKE_DIR/thrift.port its port, LAKE_DIR/thrift.log
# its log. The Spark environment comes from scripts/spark-env.sh (cached). Starting takes about a
# minute on 2 cores; ODS_THRIFT_START_TIMEOUT (seconds, default 600) bounds the wait.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "spark-thrift: $*" >&2; }
die() { say "error: $*"; exit 1; }

[ $# -eq 2 ] && { [ "$1" = start ] || [ "$1" = stop ]; } || die "usage: scripts/spark-thrift.sh start|stop LAKE_DIR"
action=$1
mkdir -p "$2" || die "cannot create the lake directory $2"
lake=$(cd "$2" && pwd)
pid_file=$lake/thrift.pid

alive() { [ -f "$pid_file" ] && kill -0 "$(cat "$pid_file")" 2>/dev/null; }

if [ "$action" = stop ]; then
  if ! alive; then rm -f "$pid_file" "$lake/thrift.port"; exit 0; fi
  pid=$(cat "$pid_file")
  kill -TERM "$pid"
  for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  if kill -0 "$pid" 2>/dev/null; then say "the server (pid $pid) ignored SIGTERM for 60 s: killing it"; kill -KILL "$pid"; fi
  rm -f "$pid_file" "$lake/thrift.port"
  say "stopped the Thrift server of $lake (pid $pid)"
  exit 0
fi

alive && die "a Thrift server (pid $(cat "$pid_file")) already serves $lake; stop it first"
env_dir=$("$root/scripts/spark-env.sh" | tail -1)
spark_home=$("$env_dir/venv/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')
[ -f "$spark_home/jars/spark-hive-thriftserver_2.13-4.0.1.jar" ] || die "no spark-hive-thriftserver jar in $spark_home/jars"
port=$("$env_dir/venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export SPARK_HOME=$spark_home SPARK_LOCAL_IP=127.0.0.1
# The same settings as examples/lakehouse's profile and scripts/lake.py, with two cores so that
# statements from several connections run at once. The Delta jars go on the driver's class path,
# not in spark.jars: the server's session threads don't see jars added at run time (a `using
# delta` statement then fails with DATA_SOURCE_NOT_FOUND).
setsid "$spark_home/bin/spark-submit" --class org.apache.spark.sql.hive.thriftserver.HiveThriftServer2 \
  --name ods-thrift --master 'local[2]' \
  --driver-class-path "$(tr ',' ':' <"$env_dir/delta-jars")" \
  --conf spark.sql.extensions=io.delta.sql.DeltaSparkSessionExtension \
  --conf spark.sql.catalog.spark_catalog=org.apache.spark.sql.delta.catalog.DeltaCatalog \
  --conf "spark.sql.warehouse.dir=$lake/warehouse" \
  --conf "spark.driver.extraJavaOptions=-Dderby.system.home=$lake/derby" \
  --conf spark.driver.memory=768m \
  --conf spark.sql.shuffle.partitions=1 \
  --conf spark.databricks.delta.snapshotPartitions=1 \
  --conf spark.databricks.delta.retentionDurationCheck.enabled=false \
  --conf spark.databricks.delta.vacuum.logging.enabled=true \
  --conf spark.ui.enabled=false \
  --hiveconf hive.server2.thrift.bind.host=127.0.0.1 \
  --hiveconf "hive.server2.thrift.port=$port" \
  spark-internal >"$lake/thrift.log" 2>&1 </dev/null &
echo $! >"$pid_file"
say "starting a Spark Thrift server on 127.0.0.1:$port over $lake (pid $!, log $lake/thrift.log)"
deadline=$((SECONDS + ${ODS_THRIFT_START_TIMEOUT:-600}))
until grep -q "HiveThriftServer2 started" "$lake/thrift.log" 2>/dev/null; do
  if ! alive; then
    tail -20 "$lake/thrift.log" >&2
    rm -f "$pid_file"
    die "the Thrift server exited while starting (log above, $lake/thrift.log)"
  fi
  if [ $SECONDS -ge $deadline ]; then
    tail -20 "$lake/thrift.log" >&2
    "$0" stop "$lake"
    die "the Thrift server did not start within ${ODS_THRIFT_START_TIMEOUT:-600} s (stopped; log above)"
  fi
  sleep 1
done
echo "$port" >"$lake/thrift.port"
say "the Thrift server listens on 127.0.0.1:$port"
echo "$port"
