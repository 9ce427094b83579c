#!/usr/bin/env bash
# The release archive of `ods` for linux-x86_64 (`make dist`; CI steps download it):
#   <out>/ods-<version>-linux-x86_64.tar.gz         one directory ods-<version>-linux-x86_64/ with
#       bin/ods          stripped, RUNPATH $ORIGIN/../lib
#       lib/             every shared library ods needs beyond glibc and the C++ runtime
#                        (libstdc++, libgcc_s), each with RUNPATH $ORIGIN, so the bundle
#                        resolves its own libraries whatever is installed
#       licenses/        the Debian copyright file of each bundled library's package
#       LIBRARIES.txt    every runtime library, where it resolves from, and the glibc and
#                        libstdc++ symbol versions the system must provide
#       share/ods/ci/    the CI steps' helper (ci/common/*.py), which the GitLab template runs
#       README.txt       what this is, how to run it, where the source and licenses are
#   <out>/ods-<version>-linux-x86_64.tar.gz.sha256  in `sha256sum` format
# The archive is reproducible for a given binary: sorted names, root-owned, mtime of the last
# commit, gzip without a timestamp. <version> is the CMake project version (CMakeLists.txt);
# the binary must say the same in `ods --version`.
#
#   scripts/dist.sh [--binary build/bin/ods] [--out dist]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
binary=$root/build/bin/ods
out=$root/dist
while (($#)); do
  case $1 in
    --binary) binary=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "dist.sh: unknown argument '$1' (usage: scripts/dist.sh [--binary PATH] [--out DIR])" >&2; exit 2 ;;
  esac
done
[ -x "$binary" ] || { echo "dist.sh: no ods binary at $binary (make build first)" >&2; exit 1; }
command -v patchelf >/dev/null || { echo "dist.sh: patchelf is missing (scripts/setup.sh installs it)" >&2; exit 1; }

version=$(sed -n 's/^project(ods VERSION \([0-9][0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
[ -n "$version" ] || { echo "dist.sh: no project version in CMakeLists.txt" >&2; exit 1; }
said=$(env -i "$binary" --version)
[ "$said" = "ods $version" ] || { echo "dist.sh: $binary says '$said', CMakeLists.txt says $version" >&2; exit 1; }

name=ods-$version-linux-x86_64
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stage=$work/$name
mkdir -p "$stage/bin" "$stage/lib" "$stage/licenses" "$stage/share/ods/ci"
# The GitLab component (ci/gitlab/templates/ods.yml) runs share/ods/ci/ods_ci.py from the archive.
install -m 0644 "$root"/ci/common/*.py "$stage/share/ods/ci/"

# Libraries every glibc system has, and the C++ runtime (GCC's libstdc++, libgcc_s): not bundled.
is_system_library() {
  case $1 in
    linux-vdso.so.* | ld-linux-x86-64.so.* | libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | \
      libresolv.so.* | libutil.so.* | libanl.so.* | libstdc++.so.* | libgcc_s.so.*) return 0 ;;
  esac
  return 1
}

cp "$binary" "$stage/bin/ods"
chmod 0755 "$stage/bin/ods"
strip --strip-unneeded "$stage/bin/ods"

# ldd lists direct and indirect dependencies: "libpq.so.5 => /lib/x86_64-linux-gnu/libpq.so.5 (0x…)".
bundled=() system=()
while read -r soname arrow path _; do
  [ "$arrow" = "=>" ] || continue
  [ "$path" != "not" ] || { echo "dist.sh: $binary needs $soname, which is not found" >&2; exit 1; }
  if is_system_library "$soname"; then
    system+=("$soname $path")
  else
    cp -L "$path" "$stage/lib/$soname"
    chmod 0644 "$stage/lib/$soname"
    strip --strip-unneeded "$stage/lib/$soname"
    patchelf --set-rpath '$ORIGIN' "$stage/lib/$soname"
    bundled+=("$soname $path")
  fi
done < <(env -i ldd "$binary")
patchelf --set-rpath '$ORIGIN/../lib' "$stage/bin/ods"

# The highest symbol version of `prefix` (GLIBC_, GLIBCXX_) the bundle's files need.
needed_version() {
  objdump -T "$stage/bin/ods" "$stage"/lib/* 2>/dev/null | grep -o "$1[0-9][0-9.]*" | sed "s/^$1//" |
    sort -V | tail -1
}

# The Debian package shipping each bundled library, from one dpkg query (dpkg may know a file
# under /lib or /usr/lib: usrmerge, so both spellings are asked for).
declare -A package_by_name=()
queries=()
for entry in "${bundled[@]}"; do
  real=$(readlink -f "${entry#* }")
  queries+=("$real" "/lib/x86_64-linux-gnu/$(basename "$real")" "/usr/lib/x86_64-linux-gnu/$(basename "$real")")
done
while IFS= read -r found; do
  package=${found%%: *} file=${found#*: }
  package_by_name[$(basename "$file")]=${package%%:*}
done < <(dpkg -S "${queries[@]}" 2>/dev/null || true)
package_of() { echo "${package_by_name[$(basename "$(readlink -f "$1")")]:-}"; }

{
  echo "Runtime libraries of bin/ods ($name)"
  echo
  echo "Bundled in lib/ (found through RUNPATH \$ORIGIN/../lib; copied from the build machine):"
  for entry in "${bundled[@]}"; do
    set -- $entry
    package=$(package_of "$2")
    pkg_version=$([ -n "$package" ] && dpkg-query -W -f='${Version}' "$package" 2>/dev/null || true)
    echo "  lib/$1  from $2${package:+ (Debian package $package $pkg_version)}"
    if [ -n "$package" ] && [ -f "/usr/share/doc/$package/copyright" ]; then
      cp "/usr/share/doc/$package/copyright" "$stage/licenses/$package.copyright"
    fi
  done
  echo
  echo "From the system (glibc and the GCC C++ runtime; resolved on the build machine from):"
  for entry in "${system[@]}"; do
    set -- $entry
    echo "  $1  $2"
  done
  echo
  echo "The system must provide glibc >= $(needed_version GLIBC_) and libstdc++ with GLIBCXX_$(needed_version GLIBCXX_)."
} >"$stage/LIBRARIES.txt"

cat >"$stage/README.txt" <<EOF
ods $version for linux-x86_64 (x86-64 Linux with glibc; see LIBRARIES.txt)

ODS decides, for every node of a dbt project, whether its last build can be reused or must be
built, from evidence, says why, and runs dbt for the rest.

  bin/ods --help
  bin/ods state run --project-dir my-dbt-project

The shared libraries it needs beyond glibc and the C++ runtime are in lib/ (bin/ods finds
them by itself; no LD_LIBRARY_PATH needed). LIBRARIES.txt lists every library and where it
resolves from; licenses/ holds the copyright and licence terms of each bundled library's
Debian package. Documentation and source: the ODS repository (README.md, docs/cli.md,
docs/ci.md).
EOF

mkdir -p "$out"
epoch=$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)
archive=$out/$name.tar.gz
tar -C "$work" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -cf - "$name" | gzip -n >"$archive.tmp"
mv "$archive.tmp" "$archive"
(cd "$out" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
echo "dist: $archive ($(du -h "$archive" | cut -f1); ${#bundled[@]} bundled libraries)"
echo "dist: $archive.sha256"
