# Helpers shared by the bench scripts (sourced, not run).

log() { echo "bench: $*" >&2; }

# run_logged LOGFILE CMD...: runs CMD with its output in LOGFILE; on failure shows its tail
# and stops the script.
run_logged() {
  local logfile=$1
  shift
  if ! "$@" >"$logfile" 2>&1; then
    log "failed: $* (last lines of $logfile:)"
    tail -n 30 "$logfile" >&2
    exit 1
  fi
}

# median NUMBERS...: the median (the lower middle one for an even count).
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
