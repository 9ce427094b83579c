#!/usr/bin/env bash
# ods-operator at scale (see docs/benchmarks.md, "Operator at scale"): PROJECTS DbtProjects with
# RUNS finished DbtRuns each on a real kube-apiserver; start, burst, memory and idle figures.
#
#   bench/operator_scale.sh [PROJECTS [RUNS [QUIET_SECONDS]]]     default: 1000 3 60
#
# Environment: ODS_BUILD_DIR  the build folder holding bench/operator_scale_bench (default <repo>/build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ODS_BUILD_DIR:-$root/build}
bench=$build/bench/operator_scale_bench
if [ ! -x "$bench" ]; then
  echo "bench: no $bench (run 'make bench-programs', or set ODS_BUILD_DIR)" >&2
  exit 1
fi
exec "$bench" "${1:-1000}" "${2:-3}" "${3:-60}"
