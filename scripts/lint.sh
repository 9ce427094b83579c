#!/usr/bin/env bash
# Style checks of the sources: the C++ (.clang-format, .clang-tidy), the Python (ruff: ruff.toml)
# and the shell (shellcheck: .shellcheckrc, .shellcheck-exceptions).
#   scripts/lint.sh            clang-format check of every tracked .h/.cc, ruff over every tracked
#                              Python file and shellcheck over every tracked shell script, failing on
#                              any finding (≈ 4 s; `make test` runs it). Before it looks, it proves
#                              that ruff and shellcheck report a planted finding.
#   scripts/lint.sh --fix      rewrite the files clang-format would change; apply ruff's safe fixes
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
  # shellcheck disable=SC2317 # called by the xargs below, through bash -c
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

# ruff, pinned in requirements/lint.txt, in a venv outside the clone keyed by that file
# (${XDG_CACHE_HOME:-$HOME/.cache}/ods/lint-venvs/<digest>; scripts/lib/cached_venv.sh), built on
# first use with ./.venv's pip when there is one (as scripts/dbt-venv.sh does).
install_lint_venv() {
  echo "lint: creating $venv with ruff (requirements/lint.txt)" >&2
  if [ -x .venv/bin/pip ]; then
    python3 -m venv --without-pip "$venv"
    .venv/bin/pip --python "$venv/bin/python" install -q --disable-pip-version-check -r requirements/lint.txt >&2
  else
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r requirements/lint.txt >&2
  fi
}
. scripts/lib/cached_venv.sh
cached_venv lint-venvs "$(sha256sum <requirements/lint.txt | cut -c1-16)" install_lint_venv
ruff=("$venv/bin/ruff" check --no-cache --quiet)
shellcheck=$(pick shellcheck)
[ -n "$shellcheck" ] || { echo "lint: shellcheck is not installed (scripts/setup.sh installs it)" >&2; exit 2; }

# The files: tracked *.py and *.sh, and tracked files without an extension whose first line runs
# python or a shell (.ci/run).
mapfile -t python < <(git ls-files '*.py')
mapfile -t shell < <(git ls-files '*.sh')
while read -r f; do
  [[ ${f##*/} == *.* ]] && continue
  case $(head -n 1 "$f") in
    '#!'*python*) python+=("$f") ;;
    '#!'*bash* | '#!'*/sh | '#!'*' sh') shell+=("$f") ;;
  esac
done < <(git grep -I -l -E '^#!')

format=$(pick clang-format)
[ -n "$format" ] || { echo "lint: clang-format is not installed (scripts/setup.sh installs it)" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.cc' '*.h')
if [ "$mode" = fix ]; then
  "$format" -i "${files[@]}"
  "${ruff[@]}" --fix "${python[@]}" || true  # what it can't fix, the check reports
  exit 0
fi

# A linter that reports nothing may be one that checks nothing: each must fail on a planted finding.
# shellcheck disable=SC2016 # the planted finding is the unquoted $1 itself
if printf 'import os\n' | "${ruff[@]}" --stdin-filename planted.py - >/dev/null 2>&1 ||
  printf '#!/bin/bash\necho $1\n' | "$shellcheck" - >/dev/null 2>&1; then
  echo "lint: ruff or shellcheck passed a planted finding (an unused import, an unquoted \$1): the lint is broken" >&2
  exit 2
fi

failed=0
bad=()
for f in "${files[@]}"; do "$format" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f"); done
if ((${#bad[@]})); then
  echo "lint: ${#bad[@]} file(s) not formatted as .clang-format says (fix: scripts/lint.sh --fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  failed=1
fi

if ! "${ruff[@]}" "${python[@]}"; then
  echo "lint: ruff found problems (above; ruff.toml says which rules): fix each, or justify it with" \
    "'# noqa: CODE' and why on its line" >&2
  failed=1
fi

# The files .shellcheck-exceptions names are checked one by one without their excepted codes; the
# rest at once.
declare -A excepted=()
while read -r f codes _; do
  case $f in '' | '#'*) continue ;; esac
  if [ ! -f "$f" ] || [ -z "$codes" ]; then
    echo "lint: .shellcheck-exceptions names $f (no such file, or no codes)" >&2
    exit 2
  fi
  excepted[$f]=$codes
done <.shellcheck-exceptions
plain=()
for f in "${shell[@]}"; do [ -n "${excepted[$f]:-}" ] || plain+=("$f"); done
shell_failed=0
"$shellcheck" "${plain[@]}" || shell_failed=1
for f in "${!excepted[@]}"; do "$shellcheck" --exclude="${excepted[$f]}" "$f" || shell_failed=1; done
if ((shell_failed)); then
  echo "lint: shellcheck found problems (above): fix each, or justify it with" \
    "'# shellcheck disable=SCnnnn # why' on the line before" >&2
  failed=1
fi

((failed == 0)) || exit 1
echo "lint: ${#files[@]} C++ files formatted as .clang-format says; ruff and shellcheck found nothing in" \
  "${#python[@]} Python files and ${#shell[@]} shell scripts"
