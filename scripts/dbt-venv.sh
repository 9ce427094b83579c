#!/usr/bin/env bash
# A cached virtual environment with one pinned dbt of the compatibility matrix:
#   scripts/dbt-venv.sh <minor>        e.g. 1.8, 1.9, 1.10, 1.11, 1.12 (1.7: the refused version)
# Installs requirements/matrix/dbt-<minor>.txt, pinned by requirements/matrix/dbt-<minor>.constraints.txt,
# into ${XDG_CACHE_HOME:-$HOME/.cache}/ods/dbt-venvs/<minor>-<digest of both files>/ and prints
# that directory (its dbt is <dir>/bin/dbt) as the last line of stdout. Reused when present
# (a venv is complete once its .ods-complete marker is written); a half-built one (an
# interrupted install) is removed and built again. Concurrent calls for the same venv wait
# for each other (flock). pip's own download cache is used as usual (outside the clone).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
minor=${1:-}
requirements="$root/requirements/matrix/dbt-$minor.txt"
constraints="$root/requirements/matrix/dbt-$minor.constraints.txt"
if [ -z "$minor" ] || [ ! -f "$requirements" ] || [ ! -f "$constraints" ]; then
  known=$(cd "$root/requirements/matrix" && ls dbt-*.constraints.txt | sed 's/^dbt-//; s/\.constraints\.txt$//' | sort -V | tr '\n' ' ')
  echo "dbt-venv: usage: scripts/dbt-venv.sh <minor>; pinned minors: $known" >&2
  exit 2
fi
install_matrix_venv() {
  echo "dbt-venv: creating $venv (dbt $minor, requirements/matrix/dbt-$minor.txt)" >&2
  # The constraints are a complete pip freeze: installing exactly them (--no-deps) is the
  # same set as resolving the requirements under them, in half the time; check that each
  # requirement is one of them.
  while read -r pin; do
    case "$pin" in ''|'#'*) continue ;; esac
    grep -qixF "$pin" "$constraints" || { echo "dbt-venv: $pin (dbt-$minor.txt) is not in dbt-$minor.constraints.txt" >&2; exit 1; }
  done < "$requirements"
  # No pip inside (nothing installs into it later): ./.venv's pip installs into it (--python),
  # which saves the venv's own pip install; without ./.venv, the venv gets its own pip.
  pip=(); if [ -x "$root/.venv/bin/pip" ]; then pip=("$root/.venv/bin/pip" --python "$venv/bin/python"); fi
  if ((${#pip[@]})); then python3 -m venv --without-pip "$venv"; else python3 -m venv "$venv"; pip=("$venv/bin/pip"); fi
  # --no-compile: Python writes each module's bytecode when it is first imported.
  "${pip[@]}" install -q --disable-pip-version-check --no-deps --no-compile -r "$constraints" >&2
  "$venv/bin/python" -c "import dbt.version; print('dbt-venv: dbt-core', dbt.version.__version__)" >&2
}
. "$root/scripts/lib/cached_venv.sh"
cached_venv dbt-venvs "$minor-$(cat "$requirements" "$constraints" | sha256sum | cut -c1-16)" install_matrix_venv
echo "$venv"
