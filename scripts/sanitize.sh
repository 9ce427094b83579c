#!/usr/bin/env bash
# The sanitizer passes (docs/hardening.md): a build directory of its own, compiled with clang 16
# and -DODS_SANITIZE=..., the named test suites built and run. Any finding stops the process that
# made it (halt_on_error=1) and fails the pass, in the test binary or in a child it started.
#
#   scripts/sanitize.sh asan   AddressSanitizer + UndefinedBehaviorSanitizer (+ LeakSanitizer),
#                              build-asan/ (the tree scripts/fuzz.sh builds its targets in, so
#                              the libraries are compiled once for both), over every unit suite
#                              ($asan_unit) and the integration suites in $asan_integration
#   scripts/sanitize.sh tsan   ThreadSanitizer, build-tsan/, over the suites of the threaded
#                              components ($tsan_suites)
#
# A suite is a test binary's name, or name:gtest-filter to run part of it. SANITIZE_SUITES="a b"
# replaces the list; JOBS is the build's and the runs' parallelism (2); SANITIZE_SUITE_TIMEOUT
# bounds one suite's run in seconds (1800): a hung suite fails the pass instead of holding CI.
# SANITIZE_BUILD=0 runs the suites as built, without building (while another build runs there).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mode=${1:-}
clang=${SANITIZE_CXX:-/usr/lib/llvm-16/bin/clang++}
# The suites each pass runs (docs/hardening.md): every unit suite under ASan+UBSan, the
# integration suites that run most product code per minute, TSan over the threaded components.
asan_unit="json_tests planner_tests state_store_tests callback_tests control_tests kube_unit_tests
  process_tests base_tests callback_protocol_tests content_versions_tests dbt_provider_tests
  dbt_cli_tests delta_provider_tests run_tests telemetry_tests kubelet_standin_tests operator_app_tests
  cli_tests cli_summary_tests http_server_tests"
asan_integration="postgres_state_tests dbt_cli_integration_tests callback_integration_tests"
tsan_suites="planner_tests state_store_tests control_tests dbt_provider_tests callback_tests kube_unit_tests
  http_server_tests"
sup=$root/scripts/sanitizers
# Extra ASAN_OPTIONS of a suite. callback_integration_tests: full stacks for its allocations, so
# that lsan.supp's ERR_set_mark (OpenSSL's per-thread error queue) can match; the default fast
# unwinder stops inside libcrypto.so, two frames up.
declare -A asan_extra=([callback_integration_tests]=fast_unwind_on_malloc=0)
case "$mode" in
  asan)
    build=${SANITIZE_BUILD_DIR:-build-asan}
    flags=(-DODS_SANITIZE=address,undefined -DODS_FUZZ=ON)
    suites=${SANITIZE_SUITES:-$asan_unit $asan_integration}
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
# shellcheck disable=SC2086 # one suite per word; the target is the name before ':'
targets=$(printf '%s\n' $suites | cut -d: -f1 | sort -u | tr '\n' ' ')
# shellcheck disable=SC2086 # one target per word
[ "${SANITIZE_BUILD:-1}" = 0 ] || cmake --build "$build" -j "${JOBS:-2}" --target $targets

harden_symbolizer "$clang"
logs=$root/$build/sanitize-logs
mkdir -p "$logs"
# Each suite's binary runs whole (one process: the sanitizer runtime starts once, not once per
# test as under ctest's per-test discovery), two at a time; its output in $logs/<suite>.log. The
# runtimes write their reports to $logs/<suite>.report.<pid> (log_path), the test binary's and
# those of the sanitized `ods` children it starts alike (they inherit the options), so a finding
# in a child fails the suite even where the test only reads the child's exit code, and no
# report lands in an output a test compares.
run_suite() {
  local spec=$1 suite=${1%%:*} filter= name log rc=0
  [[ $spec == *:* ]] && filter=${spec#*:}
  name=$suite${filter:+.${filter//[^A-Za-z0-9_]/_}}
  log=$logs/$name.log
  rm -f "$logs/$name.report".*
  (
    cd "$root/$build/tests"
    report=$logs/$name.report
    export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}${asan_extra[$suite]:+:${asan_extra[$suite]}}:log_path=$report
    export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$sup/lsan.supp:print_suppressions=0}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1:suppressions=$sup/ubsan.supp}:log_path=$report
    export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$sup/tsan.supp:external_symbolizer_path=${HARDEN_SYMBOLIZER:-}}:log_path=$report
    # A filter goes through tests/harness/gtest_filter.sh: a pattern that matches no test fails.
    exec timeout -k 30 "${SANITIZE_SUITE_TIMEOUT:-1800}" ${filter:+"$root/tests/harness/gtest_filter.sh"} "./$suite" \
      ${filter:+"$filter"} --gtest_color=no
  ) >"$log" 2>&1 || rc=$?
  local reports
  reports=$(find "$logs" -maxdepth 1 -name "$name.report.*" | sort)
  if ((rc)) || [ -n "$reports" ]; then
    echo "sanitize $mode: $name FAILED (exit $rc), log $log${reports:+, reports: $reports}"
    grep -m1 -A30 -E '\[  FAILED  \]|Timeout|Terminated' "$log" | sed 's/^/  /' || true
    for r in $reports; do head -n 20 "$r" | sed 's/^/  /'; done
    return 1
  fi
  echo "sanitize $mode: $name ok: $(grep -m1 -o '[0-9]* tests\? from [0-9]* test suites\? ran.*' "$log" || echo '? tests')"
}
# shellcheck disable=SC2086 # one suite per word
harden_run_bounded "${JOBS:-2}" run_suite $suites
((HARDEN_FAILED == 0)) || { echo "sanitize $mode: $HARDEN_FAILED suites failed (above)" >&2; exit 1; }
echo "sanitize $mode: no finding in:" $suites
