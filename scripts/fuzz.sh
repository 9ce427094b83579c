#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, docs/hardening.md) in build-asan/ with clang 16,
# AddressSanitizer and UndefinedBehaviorSanitizer, and runs each one bounded. Fails when any
# target finds a crash, a broken invariant, a leak or a timeout; prints executions per target.
#
#   scripts/fuzz.sh [SECONDS_EACH] [TARGET...]     (default 60 s each, every target)
#
# Each target starts from its seeds (fuzz/corpus/<target>/ and the test fixtures named below)
# and keeps what it finds in build-asan/corpus/<target>/ for the next run. A finding is saved as
# build-asan/findings/<target>-crash-<sha1> (or leak-, timeout-, oom-); reproduce it with
#   build-asan/fuzz/fuzz_<target> build-asan/findings/<target>-crash-<sha1>
# FUZZ_JOBS targets run at once (default 2); JOBS is the build's parallelism (default 2).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${1:-60}
shift || true
build=${FUZZ_BUILD_DIR:-build-asan}
clang=${FUZZ_CXX:-/usr/lib/llvm-16/bin/clang++}
# shellcheck source=scripts/lib/harden.sh
. scripts/lib/harden.sh
harden_require_clang "$clang" fuzz
[ -n "$(ls /usr/lib/llvm-16/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a 2>/dev/null)" ] ||
  { echo "fuzz: libFuzzer is not installed (scripts/setup.sh installs libclang-rt-16-dev)" >&2; exit 2; }

# target -> dictionary, and seed files beside fuzz/corpus/<target>/.
declare -A dict=([sql_normalizer]=sql [snapshot]=json [project_inputs]=json [jinja]=jinja [compile_key]=jinja [manifest]=json
  [run_results]=json [sources_json]=json [callback_protocol]=json [callback_endpoint]=http [kubeconfig]=yaml [cron]=cron)
fixtures=providers/dbt/tests/fixtures
declare -A seeds=(
  [manifest]="$fixtures/parse_manifest.json $fixtures/build_manifest.json $fixtures/edited_manifest.json"
  [run_results]="$fixtures/build_run_results.json $fixtures/compile_run_results.json $fixtures/empty_run_results.json"
  [sources_json]="$fixtures/sources.json"
  [jinja]="$(find examples/shop/models -name '*.sql' | sort | tr '\n' ' ')"
  [compile_key]="$(find examples/shop/models -name '*.sql' | sort | tr '\n' ' ')"
)
targets=("$@")
((${#targets[@]})) || targets=(sql_normalizer snapshot project_inputs jinja compile_key manifest run_results sources_json
  callback_protocol callback_endpoint kubeconfig cron)
for t in "${targets[@]}"; do
  [ -n "${dict[$t]:-}" ] || { echo "fuzz: no target '$t' (fuzz/CMakeLists.txt lists them)" >&2; exit 2; }
done

harden_configure "$build" "$clang" -DODS_SANITIZE=address,undefined -DODS_FUZZ=ON
cmake --build "$build" -j "${JOBS:-2}" --target $(printf 'fuzz_%s ' "${targets[@]}")

export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
harden_symbolizer "$clang"
mkdir -p "$build/findings" "$build/fuzz-logs"

# One bounded run of target $1; its log in $build/fuzz-logs/<target>.log.
run_target() {
  local t=$1 corpus=$build/corpus/$1 log=$build/fuzz-logs/$1.log
  mkdir -p "$corpus"
  for seed in ${seeds[$t]:-}; do cp -n "$seed" "$corpus/seed-$(basename "$seed")"; done
  local dirs=("$corpus") rc=0
  [ ! -d "fuzz/corpus/$t" ] || dirs+=("fuzz/corpus/$t")
  "$build/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -dict="fuzz/dict/${dict[$t]}.dict" -artifact_prefix="$build/findings/$t-" "${dirs[@]}" >"$log" 2>&1 || rc=$?
  local runs
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if ((rc)); then
    echo "fuzz: $t FAILED (exit $rc) after ${runs:-?} executions; finding in $build/findings/, log $log:"
    grep -m1 -A12 -E 'ERROR:|fuzz invariant broken|SUMMARY' "$log" | sed 's/^/  /'
    return 1
  fi
  echo "fuzz: $t ok: ${runs:-?} executions in ${seconds} s, corpus $(find "$corpus" -type f | wc -l) inputs"
}

harden_run_bounded "${FUZZ_JOBS:-2}" run_target "${targets[@]}"
if ((HARDEN_FAILED)); then
  echo "fuzz: $HARDEN_FAILED of ${#targets[@]} targets failed (above)" >&2
  exit 1
fi
echo "fuzz: all ${#targets[@]} targets ran ${seconds} s each without a finding"
