# Sourced by scripts/setup.sh and scripts/dbt-venv.sh: a virtual environment kept outside the
# clone, keyed by what it is built from, so fresh clones (CI's) reuse it.
#
# cached_venv KIND DIGEST INSTALL_FUNCTION
#   Sets $venv to ${XDG_CACHE_HOME:-$HOME/.cache}/ods/KIND/DIGEST and, when that venv is not
#   complete (its .ods-complete marker missing: never built, or an interrupted install), removes
#   what is there and calls INSTALL_FUNCTION (which creates "$venv"), then writes the marker.
#   Concurrent calls for the same venv wait for each other (flock). Fails when the install does.
cached_venv() {
  local cache="${XDG_CACHE_HOME:-$HOME/.cache}/ods/$1"
  venv="$cache/$2"
  mkdir -p "$cache"
  (
    flock 9
    if [ ! -f "$venv/.ods-complete" ]; then
      rm -rf "$venv"
      "$3"
      touch "$venv/.ods-complete"
    fi
  ) 9>"$venv.lock"
}
