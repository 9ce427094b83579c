#!/usr/bin/env bash
# Builds the Spark environment (Delta Lake and Apache Iceberg) of the Spark suites and benchmark
# and caches it;
# prints the directory holding it as the last line of stdout.
#
#   scripts/spark-env.sh        build what is missing (quick when cached), print the dir
#
# The directory holds:
#   venv/        a virtual environment with pyspark, delta-spark and dbt-spark[session]
#                (requirements/spark.txt, constrained by requirements/spark-constraints.txt)
#   m2/          a private Maven repository with the Delta jars (`mvn dependency:get`: Spark's
#                own Ivy downloads fail here, see shared notes), so no Spark start resolves them
#   delta-jars   the jars Spark needs for Delta, comma-separated (for spark.jars)
#   iceberg-jars the jar Spark needs for Iceberg (iceberg-spark-runtime for Spark 4.0, Scala
#                2.13, from Maven Central into m2/ like the Delta jars; fetched when missing, so
#                a new version is a new path in the same cache)
#
# Cache: $ODS_SPARK_ENV_DIR when set (used as is; built into when missing), else
# ${XDG_CACHE_HOME:-$HOME/.cache}/ods/spark/<digest of the pins and the Python version>/. It lives
# outside the checkout, so fresh clones (CI's included) reuse it; the key changes with the pins.
#
# Needs: python3 with venv, Java 17 or 21 (Spark 4.0), mvn.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
requirements="$root/requirements/spark.txt"
constraints="$root/requirements/spark-constraints.txt"
delta_version=4.0.0
scala_version=2.13
iceberg_version=1.10.1
iceberg_spark=4.0

say() { echo "spark-env: $*" >&2; }
die() { say "error: $*"; exit 1; }

python=${ODS_SPARK_PYTHON:-python3}
command -v "$python" >/dev/null || die "python3 is needed for the Spark environment and was not found (set ODS_SPARK_PYTHON)"
command -v java >/dev/null || die "Java 17 or 21 is needed by Spark 4.0 and was not found on PATH"
command -v mvn >/dev/null || die "mvn is needed to fetch the Delta jars from Maven Central and was not found (apt-get install maven)"

digest=$({ cat "$requirements" "$constraints"; echo "delta $delta_version scala $scala_version"; "$python" --version; } |
  sha256sum | cut -c1-16)
env_dir=${ODS_SPARK_ENV_DIR:-"${XDG_CACHE_HOME:-$HOME/.cache}/ods/spark/$digest"}
mkdir -p "$env_dir" || die "cannot create the cache directory $env_dir"

# One build at a time per cache directory (several checkouts or test runs may ask at once).
exec 9>"$env_dir/.lock"
flock 9

if [ ! -f "$env_dir/venv/.ods-complete" ]; then
  say "creating the Spark environment in $env_dir/venv (minutes the first time; cached afterwards)"
  started=$SECONDS
  rm -rf "$env_dir/venv"
  "$python" -m venv "$env_dir/venv" || die "python3 -m venv failed (install python3-venv)"
  "$env_dir/venv/bin/pip" install -q --disable-pip-version-check -r "$requirements" -c "$constraints" ||
    die "pip install of $requirements failed"
  touch "$env_dir/venv/.ods-complete"
  say "created the Spark environment in $((SECONDS - started)) s"
fi

jar_dir="$env_dir/m2/io/delta"
delta_jar="$jar_dir/delta-spark_$scala_version/$delta_version/delta-spark_$scala_version-$delta_version.jar"
storage_jar="$jar_dir/delta-storage/$delta_version/delta-storage-$delta_version.jar"
if [ ! -f "$delta_jar" ] || [ ! -f "$storage_jar" ]; then
  say "fetching the Delta $delta_version jars from Maven Central into $env_dir/m2"
  mvn -q -B dependency:get -Dmaven.repo.local="$env_dir/m2" \
    -Dartifact="io.delta:delta-spark_$scala_version:$delta_version" >&2 ||
    die "mvn dependency:get io.delta:delta-spark_$scala_version:$delta_version failed"
  [ -f "$delta_jar" ] && [ -f "$storage_jar" ] || die "mvn finished but $delta_jar or $storage_jar is missing"
fi
# antlr4-runtime is already in pyspark's own jars; the two Delta jars are all Spark lacks.
echo "$delta_jar,$storage_jar" >"$env_dir/delta-jars"

# Iceberg's Spark runtime is one shaded jar: nothing else to resolve (-Dtransitive=false).
iceberg_artifact="iceberg-spark-runtime-${iceberg_spark}_$scala_version"
iceberg_jar="$env_dir/m2/org/apache/iceberg/$iceberg_artifact/$iceberg_version/$iceberg_artifact-$iceberg_version.jar"
if [ ! -f "$iceberg_jar" ]; then
  say "fetching the Iceberg $iceberg_version runtime for Spark $iceberg_spark from Maven Central into $env_dir/m2"
  mvn -q -B dependency:get -Dmaven.repo.local="$env_dir/m2" -Dtransitive=false \
    -Dartifact="org.apache.iceberg:$iceberg_artifact:$iceberg_version" >&2 ||
    die "mvn dependency:get org.apache.iceberg:$iceberg_artifact:$iceberg_version failed"
  [ -f "$iceberg_jar" ] || die "mvn finished but $iceberg_jar is missing"
fi
echo "$iceberg_jar" >"$env_dir/iceberg-jars"
echo "$env_dir"
