#!/usr/bin/env bash
# The sanitizer passes (docs/hardening.md): a build directory of its own, compiled with clang 16
# and -DODS_SANITIZE=..., the named test suites built and run. Any finding stops
# the test that made it (halt_on_error=1) and fails the pass.
#
#   scripts/sanitize.sh asan   AddressSanitizer + UndefinedBehaviorSanitizer, build-asan/ (the
#                              tree scripts/fuzz.sh builds its targets in), over the suites of
#                              the JSON reader and the planner ($asan_suites)
#   scripts/sanitize.sh tsan   ThreadSanitizer, build-tsan/, over the suites of the threaded
#                              components ($tsan_suites): the planner's preparation
# Not yet in the lists (not yet run under a sanitizer; SANITIZE_SUITES runs them):
# dbt_provider_tests (manifest workers, ThreadedSink) state_store_tests callback_tests
# control_tests (work queue) kube_unit_tests (leader election).
#
# SANITIZE_SUITES="a b" replaces the list; JOBS is the build's and ctest's parallelism (2).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mode=${1:-}
clang=${SANITIZE_CXX:-/usr/lib/llvm-16/bin/clang++}
asan_suites="json_tests planner_tests"
tsan_suites="planner_tests"
case "$mode" in
  asan)
    build=${SANITIZE_BUILD_DIR:-build-asan}
    flags=(-DODS_SANITIZE=address,undefined -DODS_FUZZ=ON)
    suites=${SANITIZE_SUITES:-$asan_suites}
    ;;
  tsan)
    build=${SANITIZE_BUILD_DIR:-build-tsan}
    flags=(-DODS_SANITIZE=thread)
    suites=${SANITIZE_SUITES:-$tsan_suites}
    ;;
  *)
    echo "usage: scripts/sanitize.sh asan|tsan" >&2
    exit 2
    ;;
esac
# shellcheck source=scripts/lib/harden.sh
. scripts/lib/harden.sh
harden_require_clang "$clang" sanitize
harden_configure "$build" "$clang" "${flags[@]}"
# shellcheck disable=SC2086 # one target per word
cmake --build "$build" -j "${JOBS:-2}" --target $suites

harden_symbolizer "$clang"
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:external_symbolizer_path=${HARDEN_SYMBOLIZER:-}}
# Each suite's binary runs whole (one process: the sanitizer runtime starts once, not once per
# test as under ctest's per-test discovery), two at a time; its log in $build/sanitize-logs/.
mkdir -p "$build/sanitize-logs"
run_suite() {
  local suite=$1 log=$build/sanitize-logs/$1.log rc=0
  (cd "$build/tests" && "./$suite" --gtest_color=no) >"$log" 2>&1 || rc=$?
  if ((rc)); then
    echo "sanitize $mode: $suite FAILED (exit $rc), log $log:"
    grep -m1 -A30 -E 'ERROR: (Address|Leak|Thread)Sanitizer|WARNING: ThreadSanitizer|runtime error:|\[  FAILED  \]' "$log" |
      sed 's/^/  /'
    return 1
  fi
  echo "sanitize $mode: $suite ok: $(grep -m1 -o '[0-9]* tests\? from [0-9]* test suites\? ran' "$log" || echo '? tests')"
}
# shellcheck disable=SC2086 # one suite per word
harden_run_bounded "${JOBS:-2}" run_suite $suites
((HARDEN_FAILED == 0)) || { echo "sanitize $mode: $HARDEN_FAILED suites failed (above)" >&2; exit 1; }
echo "sanitize $mode: no finding in: $suites"
