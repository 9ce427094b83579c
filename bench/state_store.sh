#!/usr/bin/env bash
# Benchmarks the state stores (see docs/benchmarks.md, "State store"): PostgreSQL against
# SQLite in the same run, on a generated project of NODES nodes, RUNS recorded runs each.
#
#   bench/state_store.sh [NODES [RUNS]]     default: 10000 100
#
# Environment: ODS_BUILD_DIR  the build folder holding bench/state_store_bench (default <repo>/build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ODS_BUILD_DIR:-$root/build}
bench=$build/bench/state_store_bench
if [ ! -x "$bench" ]; then
  echo "bench: no $bench (run 'make bench-programs', or set ODS_BUILD_DIR)" >&2
  exit 1
fi
exec "$bench" "${1:-10000}" "${2:-100}"
