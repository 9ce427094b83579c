#!/usr/bin/env bash
# Style checks of the C++ sources (.clang-format, .clang-tidy).
#   scripts/lint.sh            clang-format check of every tracked .h/.cc (fast; `make test` runs it)
#   scripts/lint.sh --fix      rewrite the files clang-format would change
#   scripts/lint.sh --tidy [FILE…]  clang-tidy with .clang-tidy, failing on any finding, over FILEs
#                              (default: every .cc outside tests/, bench/ and fuzz/), JOBS (2) at a time,
#                              using build/compile_commands.json (`make build` first). .ci/run runs
#                              it after `make test` (≈ 8 min on 2 cores; tests are not tidied).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

mode=check
if [ "${1:-}" = "--fix" ]; then mode=fix; shift; fi
if [ "${1:-}" = "--tidy" ]; then mode=tidy; shift; fi

pick() { for t in "$@"; do command -v "$t" >/dev/null 2>&1 && { echo "$t"; return; }; done; }

if [ "$mode" = tidy ]; then
  tidy=$(pick clang-tidy-16 clang-tidy)
  [ -n "$tidy" ] || { echo "lint: clang-tidy is not installed (scripts/setup.sh installs clang-tidy-16)" >&2; exit 2; }
  build=${BUILD_DIR:-build}
  [ -f "$build/compile_commands.json" ] || { echo "lint: $build/compile_commands.json missing: run make build" >&2; exit 2; }
  files=("$@")
  ((${#files[@]})) || mapfile -t files < <(git ls-files '*.cc' | grep -v -E '(^|/)(tests|bench|fuzz)/')
  # clang 16 with g++ 12's libstdc++: C++23 is c++2b; std::expected needs __cpp_concepts 202002
  # (clang 16 says 201907), and cpprest's json.h needs unique_ptr's destructor not constexpr.
  flags=(--quiet --extra-arg=-std=c++2b --extra-arg=-U__cpp_concepts --extra-arg=-D__cpp_concepts=202002L
    --extra-arg=-D_GLIBCXX23_CONSTEXPR=)
  echo "lint: clang-tidy over ${#files[@]} files, ${JOBS:-2} at a time"
  # (clang-tidy counts the warnings of system headers it suppressed on stderr: not shown)
  if ! printf '%s\0' "${files[@]}" | xargs -0 -P "${JOBS:-2}" -n 1 "$tidy" -p "$build" "${flags[@]}" \
    2> >(grep -v -E '^[0-9]+ warnings? generated\.$' >&2); then
    echo "lint: clang-tidy found problems (above); .clang-tidy lists the checks" >&2
    exit 1
  fi
  echo "lint: clang-tidy found nothing in ${#files[@]} files"
  exit 0
fi

format=$(pick clang-format)
[ -n "$format" ] || { echo "lint: clang-format is not installed (scripts/setup.sh installs it)" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.cc' '*.h')
if [ "$mode" = fix ]; then
  "$format" -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do "$format" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f"); done
if ((${#bad[@]})); then
  echo "lint: ${#bad[@]} file(s) not formatted as .clang-format says (fix: scripts/lint.sh --fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "lint: ${#files[@]} C++ files formatted as .clang-format says"
