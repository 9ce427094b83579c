#!/usr/bin/env bash
# gtest_filter.sh BINARY FILTER [ARG...]: runs `BINARY --gtest_filter=FILTER ARG...`, once every
# pattern of FILTER, the ones it selects and the ones it excludes, matches at least one test of
# BINARY; otherwise fails naming the pattern, so a rename cannot leave a ctest test that runs
# nothing (GoogleTest 1.12 passes with 0 tests; cmake/OdsHelpers.cmake, ods_add_filtered_test).
set -euo pipefail
binary=$1 filter=$2
shift 2
selected=${filter%%-*} excluded=
[[ $filter == *-* ]] && excluded=${filter#*-}
IFS=: read -ra patterns <<<"$selected:$excluded"
for pattern in "${patterns[@]}" "$filter"; do
  [[ -n $pattern ]] || continue
  listed=$("$binary" --gtest_list_tests --gtest_filter="$pattern") || {
    echo "gtest_filter.sh: $binary --gtest_list_tests failed" >&2
    exit 1
  }
  if ! grep -q '^  ' <<<"$listed"; then
    echo "gtest_filter.sh: the pattern '$pattern' of --gtest_filter=$filter matches no test of $(basename "$binary")" \
      "(a test renamed? the filter is in tests/CMakeLists.txt)" >&2
    exit 1
  fi
done
exec "$binary" --gtest_filter="$filter" "$@"
