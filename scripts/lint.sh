#!/usr/bin/env bash
# Style checks of the C++ sources (.clang-format, .clang-tidy).
#   scripts/lint.sh            clang-format check of every tracked .h/.cc (fast; `make test` runs it)
#   scripts/lint.sh --fix      rewrite the files clang-format would change
#   scripts/lint.sh --tidy [FILE…]  clang-tidy with .clang-tidy, failing on any finding, over FILEs
#                              (default: every .cc outside tests/, bench/ and fuzz/), JOBS (2) at a time,
#                              using build/compile_commands.json (`make build` first). .ci/run runs
#                              it after `make test` (≈ 9 min on 2 cores for every file; tests are
#                              not tidied). Files found clean before and unchanged since are skipped.
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
  # A file clang-tidy found clean is not tidied again while its key is unchanged: the key
  # (scripts/lib/tidy_keys.py) digests the tidy version, .clang-tidy, these flags, the compile
  # command and the preprocessed translation unit, every header included. The keys of clean
  # files live in ${XDG_CACHE_HOME:-$HOME/.cache}/ods/tidy/ (outside the clone, so CI's fresh
  # clones share them); ODS_TIDY_CACHE=off tidies every file.
  cache="${XDG_CACHE_HOME:-$HOME/.cache}/ods/tidy"
  todo=()
  declare -A key_of=()
  if [ "${ODS_TIDY_CACHE:-on}" != off ]; then
    mkdir -p "$cache"
    extra=()
    for f in "${flags[@]}"; do [[ $f == --extra-arg=* ]] && extra+=("${f#--extra-arg=}"); done
    while read -r key file; do
      key_of[$file]=$key
      [ "$key" != - ] && [ -e "$cache/$key" ] || todo+=("$file")
    done < <(python3 scripts/lib/tidy_keys.py "$build" "$(command -v "$tidy")" "${JOBS:-2}" "${extra[@]}" -- "${files[@]}")
  else
    todo=("${files[@]}")
  fi
  echo "lint: clang-tidy over ${#todo[@]} of ${#files[@]} files (the rest unchanged since found clean), ${JOBS:-2} at a time"
  # One file: clang-tidy, then its key kept when it was clean.
  tidy_one() {
    "$tidy" -p "$build" "${flags[@]}" "$1" || return 1
    [ "${2:--}" = - ] || [ "${ODS_TIDY_CACHE:-on}" = off ] || touch "$cache/$2"
  }
  export tidy build cache
  failed=0
  for f in "${todo[@]}"; do printf '%s\0%s\0' "$f" "${key_of[$f]:--}"; done |
    xargs -0 -r -P "${JOBS:-2}" -n 2 bash -c "$(declare -p flags); $(declare -f tidy_one); tidy_one \"\$@\"" _ \
    2> >(grep -v -E '^[0-9]+ warnings? generated\.$' >&2) || failed=1
  if ((failed)); then
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
