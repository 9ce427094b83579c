#!/usr/bin/env bash
# Keeps docker/*.Dockerfile consistent with scripts/setup.sh and with the binaries (ctest
# dockerfiles_match_setup, tier 1, where no image is built; the images shard builds them):
#   1. the `build` stage of each Dockerfile installs exactly setup.sh's Debian packages minus
#      the ones only the tests and the demo use ($test_only below);
#   2. the `runtime` stage of docker/<image>.Dockerfile installs the Debian package of every
#      shared library <binary> links (readelf NEEDED -> ldd path -> dpkg -S), for each
#      <image>:<binary> argument;
#   3. the runner image installs dbt from requirements/dbt.txt with requirements/constraints.txt,
#      the files setup.sh installs .venv from;
#   4. each runtime stage runs as a non-root USER and its ENTRYPOINT is the image's binary.
#
#   tests/images/check_dockerfiles.sh <repository root> <image>:<binary>...
set -euo pipefail
root=$1
shift
# Not in the images: the test servers and tools (prometheus: the e2e scrape and promtool;
# prometheus-pushgateway: the CI metrics test; rsync: gitlab-ci-local) and the build-side extras
# (patchelf: make dist; libsimdjson-dev: bench/json_readers only; clang-16, libclang-rt-16-dev: the
# fuzz targets and sanitizer runtimes of scripts/fuzz.sh and scripts/sanitize.sh).
test_only="postgresql postgresql-client time clang-format clang-tidy-16 sqlite3 python3-venv patchelf libsimdjson-dev prometheus prometheus-pushgateway rsync clang-16 libclang-rt-16-dev"
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# setup.sh's debian_packages=( ... ) array, one name a line.
setup_packages() {
  sed -n '/^debian_packages=(/,/^)/p' "$root/scripts/setup.sh" | sed '1d;$d' | tr -s ' \t' '\n' | sed '/^$/d' | sort -u
}

# The instructions of a Dockerfile with continuation lines joined, comments dropped, each
# prefixed with its stage name ("<stage> <INSTRUCTION> ...").
instructions() {
  sed -e '/^[[:space:]]*#/d' "$1" | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' | awk '
    toupper($1) == "FROM" { stage = (toupper($3) == "AS") ? $4 : "?" }
    NF { print stage, $0 }'
}

# Packages `apt-get install` names in a stage.
stage_packages() {
  instructions "$1" | awk -v s="$2" '$1 == s' | grep -o 'apt-get install[^&;|]*' |
    tr -s ' \t' '\n' | grep -v '^-' | grep -v -e '^apt-get$' -e '^install$' | sed '/^$/d' | sort -u
}

# The Debian package that ships a shared library <binary> links, one a line.
linked_packages() {
  local binary=$1 lib path candidate pkg
  for lib in $(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    path=$(ldd "$binary" | awk -v l="$lib" '$1 == l { print $3 }')
    [ -n "$path" ] || { fail "$binary links $lib, which ldd does not resolve"; continue; }
    pkg=
    for candidate in "$path" "$(readlink -f "$path")" "/usr$path" "${path#/usr}"; do
      pkg=$(dpkg -S "$candidate" 2>/dev/null | head -1 | cut -d: -f1) && [ -n "$pkg" ] && break
    done
    [ -n "$pkg" ] || { fail "$binary links $lib ($path), which no Debian package ships"; continue; }
    echo "$pkg"
  done | sort -u
}

want_build=$(comm -23 <(setup_packages) <(tr ' ' '\n' <<<"$test_only" | sort -u))
[ -n "$want_build" ] || fail "no debian_packages=( … ) list found in scripts/setup.sh"
for dockerfile in "$root"/docker/*.Dockerfile; do
  name=docker/$(basename "$dockerfile")
  have=$(stage_packages "$dockerfile" build)
  missing=$(comm -23 <(echo "$want_build") <(echo "$have") | tr '\n' ' ')
  extra=$(comm -13 <(echo "$want_build") <(echo "$have") | tr '\n' ' ')
  [ -z "$missing" ] || fail "$name: the build stage lacks setup.sh's packages: $missing"
  [ -z "$extra" ] || fail "$name: the build stage installs what setup.sh does not: $extra(add it to setup.sh too)"
  user=$(instructions "$dockerfile" | awk '$1 == "runtime" && toupper($2) == "USER" { u = $3 } END { print u }')
  case "${user%%:*}" in
    "" | 0 | root) fail "$name: the runtime stage does not switch to a non-root USER (has '${user}')" ;;
  esac
done

for pair in "$@"; do
  image=${pair%%:*}
  binary=${pair#*:}
  dockerfile="$root/docker/$image.Dockerfile"
  [ -f "$dockerfile" ] || { fail "no docker/$image.Dockerfile for $binary"; continue; }
  [ -x "$binary" ] || { fail "$binary is not built"; continue; }
  missing=$(comm -23 <(linked_packages "$binary") <(stage_packages "$dockerfile" runtime) | tr '\n' ' ')
  [ -z "$missing" ] || fail "docker/$image.Dockerfile: the runtime stage lacks the packages of libraries $(basename "$binary") links: $missing"
done

entrypoint() { instructions "$root/docker/$1.Dockerfile" | awk '$1 == "runtime" && toupper($2) == "ENTRYPOINT"'; }
entrypoint operator | grep -q '/ods-operator"' || fail "docker/operator.Dockerfile: ENTRYPOINT is not ods-operator"
entrypoint runner | grep -q '/ods"' || fail "docker/runner.Dockerfile: ENTRYPOINT is not ods"

# dbt: the same two files as setup.sh, copied in and installed together.
grep -q -- '-r requirements/dbt.txt -c requirements/constraints.txt' "$root/scripts/setup.sh" ||
  fail "scripts/setup.sh no longer installs -r requirements/dbt.txt -c requirements/constraints.txt: update this check"
runner=$(instructions "$root/docker/runner.Dockerfile" | awk '$1 == "runtime"')
grep -q '^runtime COPY requirements/dbt.txt requirements/constraints.txt ' <<<"$runner" ||
  fail "docker/runner.Dockerfile does not COPY requirements/dbt.txt requirements/constraints.txt"
grep -Eq 'pip install .*-r [^ ]*/requirements/dbt.txt -c [^ ]*/requirements/constraints.txt' <<<"$runner" ||
  fail "docker/runner.Dockerfile does not pip install -r …/requirements/dbt.txt -c …/requirements/constraints.txt"

if ((failures)); then
  echo "check_dockerfiles: $failures problem(s)" >&2
  exit 1
fi
echo "check_dockerfiles: docker/*.Dockerfile match scripts/setup.sh, requirements/ and the linked libraries ($*)"
