#!/usr/bin/env bash
# Style checks of the C++ sources (.clang-format, .clang-tidy). Part of `make test`.
#   scripts/lint.sh            clang-format check of every tracked .h/.cc (fast; what CI runs)
#   scripts/lint.sh --fix      rewrite the files clang-format would change
#   scripts/lint.sh --tidy [FILE…]  clang-tidy with .clang-tidy over FILEs (default: every .cc),
#                              using build/compile_commands.json (`make build` first); slow on
#                              2 cores, so not part of `make test`
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

mode=check
if [ "${1:-}" = "--fix" ]; then mode=fix; shift; fi
if [ "${1:-}" = "--tidy" ]; then mode=tidy; shift; fi

pick() { for t in "$@"; do command -v "$t" >/dev/null 2>&1 && { echo "$t"; return; }; done; }

if [ "$mode" = tidy ]; then
  tidy=$(pick clang-tidy-16 clang-tidy)
  [ -n "$tidy" ] || { echo "lint: clang-tidy is not installed (apt-get install clang-tidy-16)" >&2; exit 2; }
  build=${BUILD_DIR:-build}
  [ -f "$build/compile_commands.json" ] || { echo "lint: $build/compile_commands.json missing: run make build" >&2; exit 2; }
  files=("$@")
  ((${#files[@]})) || mapfile -t files < <(git ls-files '*.cc')
  # clang 16 spells C++23 as c++2b.
  exec "$tidy" -p "$build" --quiet --extra-arg=-std=c++2b "${files[@]}"
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
