# Shared by scripts/fuzz.sh and scripts/sanitize.sh (docs/hardening.md); sourced, not run.
#
#   harden_require_clang CLANG WHO         exits 2 naming the package when CLANG is absent
#   harden_configure BUILD CLANG FLAGS...  configures BUILD (Ninja, RelWithDebInfo, clang) once
#   harden_symbolizer CLANG                exports the sanitizers' symbolizer (see below)
#   harden_run_bounded N FN ITEM...        runs `FN ITEM` for each item, at most N at once;
#                                          HARDEN_FAILED is how many returned non-zero

harden_require_clang() {
  [ -x "$1" ] || { echo "$2: $1 is not installed (scripts/setup.sh installs clang-16)" >&2; exit 2; }
}

harden_configure() {
  local build=$1 clang=$2
  shift 2
  [ -f "$build/build.ninja" ] ||
    cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$clang" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
}

# The symbolizer the sanitizer runtimes call for file:line in their traces: clang's own
# llvm-symbolizer when installed (Debian's clang-16 does not pull it in), else any llvm-symbolizer
# on PATH, else binutils' addr2line (the runtimes drive it too; traces keep file:line and inlined
# frames). HARDEN_SYMBOLIZER names it; ASan, UBSan and TSan all get it.
harden_symbolizer() {
  local candidate
  HARDEN_SYMBOLIZER=
  for candidate in "$(dirname "$1")/llvm-symbolizer" "$(command -v llvm-symbolizer || true)" /usr/bin/addr2line; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
      HARDEN_SYMBOLIZER=$candidate
      break
    fi
  done
  [ -n "$HARDEN_SYMBOLIZER" ] || { echo "harden: no llvm-symbolizer or addr2line (binutils): traces stay unsymbolized" >&2; return 0; }
  export ASAN_SYMBOLIZER_PATH=$HARDEN_SYMBOLIZER UBSAN_SYMBOLIZER_PATH=$HARDEN_SYMBOLIZER
  export HARDEN_SYMBOLIZER
}

harden_run_bounded() {
  local limit=$1 fn=$2 running=0 item
  shift 2
  HARDEN_FAILED=0
  for item in "$@"; do
    "$fn" "$item" &
    running=$((running + 1))
    if ((running >= limit)); then
      wait -n || HARDEN_FAILED=$((HARDEN_FAILED + 1))
      running=$((running - 1))
    fi
  done
  while ((running > 0)); do
    wait -n || HARDEN_FAILED=$((HARDEN_FAILED + 1))
    running=$((running - 1))
  done
}
