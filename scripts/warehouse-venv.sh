#!/usr/bin/env bash
# A cached virtual environment with a warehouse emulator and its dbt adapter (the `warehouses`
# shard, tests/warehouses):
#   scripts/warehouse-venv.sh snowflake    dbt-snowflake + fakesnow (its server extra)
#   scripts/warehouse-venv.sh bigquery     dbt-bigquery + bqemulator (duckdb 1.5.5 and its spatial extension)
# Installs requirements/warehouses/<name>.constraints.txt (the pip freeze of
# requirements/warehouses/<name>.txt) into
# ${XDG_CACHE_HOME:-$HOME/.cache}/ods/warehouse-venvs/<name>-<digest of both files>/ and prints that
# directory as the last line of stdout. For bigquery the directory also holds home/, a HOME for
# bqemulator with DuckDB's spatial extension where DuckDB looks for it (home/.duckdb/extensions/...),
# so the emulator never downloads it. Reused when complete; a half-built one is built again;
# concurrent calls wait for each other (scripts/lib/cached_venv.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
name=${1:-}
requirements="$root/requirements/warehouses/$name.txt"
constraints="$root/requirements/warehouses/$name.constraints.txt"
if [ -z "$name" ] || [ ! -f "$requirements" ] || [ ! -f "$constraints" ]; then
  echo "warehouse-venv: usage: scripts/warehouse-venv.sh snowflake|bigquery" >&2
  exit 2
fi
install_warehouse_venv() {
  echo "warehouse-venv: creating $venv (requirements/warehouses/$name.txt; minutes the first time)" >&2
  # Each requirement must be one of the constraints (names compared as pip does: case, '-', '_', '.').
  local normalised
  normalised=$(tr 'A-Z_.' 'a-z--' < "$constraints")
  while read -r pin; do
    case "$pin" in ''|'#'*) continue ;; esac
    base=${pin%%==*}; base=${base%%\[*}
    grep -qxF "$(echo "$base==${pin##*==}" | tr 'A-Z_.' 'a-z--')" <<< "$normalised" ||
      { echo "warehouse-venv: $pin ($name.txt) is not in $name.constraints.txt" >&2; exit 1; }
  done < "$requirements"
  pip=(); if [ -x "$root/.venv/bin/pip" ]; then pip=("$root/.venv/bin/pip" --python "$venv/bin/python"); fi
  if ((${#pip[@]})); then python3 -m venv --without-pip "$venv"; else python3 -m venv "$venv"; pip=("$venv/bin/pip"); fi
  "${pip[@]}" install -q --disable-pip-version-check --no-deps --no-compile -r "$constraints" >&2
  if [ "$name" = bigquery ]; then
    local duckdb_version extension target
    duckdb_version=$("$venv/bin/python" -c "import duckdb; print(duckdb.__version__)")
    extension=$(find "$venv/lib" -path "*duckdb_extension_spatial/extensions/v$duckdb_version/spatial.duckdb_extension" | head -1)
    [ -n "$extension" ] || { echo "warehouse-venv: the spatial extension of duckdb $duckdb_version is not in the venv" >&2; exit 1; }
    target="$venv/home/.duckdb/extensions/v$duckdb_version/$("$venv/bin/python" -c "import duckdb; print(duckdb.execute('pragma platform').fetchone()[0])")"
    mkdir -p "$target" && cp "$extension" "$target/"
  fi
  "$venv/bin/python" -c "import dbt.version; print('warehouse-venv: dbt-core', dbt.version.__version__)" >&2
}
. "$root/scripts/lib/cached_venv.sh"
cached_venv warehouse-venvs "$name-$(cat "$requirements" "$constraints" | sha256sum | cut -c1-16)" install_warehouse_venv
echo "$venv"
