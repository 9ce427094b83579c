#!/usr/bin/env bash
# The test node's own small images (tests/harness/kube_node.h), built from tests/node/images/:
#   pause   the pod sandbox every pod starts with (containerd's sandbox_image)
#   probe   a static HTTP server and client, for the Service and DNS tests
# Each is a static C program (gcc -static) in a FROM scratch image built with podman (runc and the
# rlimits of scripts/lib/podman_flags.sh), saved as a docker-archive, which `ctr images import`
# takes as it is. No registry is needed; nothing is copied from Kubernetes' sources.
#
#   scripts/node-images.sh     build what is missing (quick when cached); prints the directory as
#                              the last line of stdout: pause.tar, probe.tar and images.txt
#                              ("pause <name:tag>", "probe <name:tag>")
#
# Cache: $ODS_NODE_IMAGES_DIR when set, else ${XDG_CACHE_HOME:-$HOME/.cache}/ods/node-images/<key>,
# the key a digest of the sources, so a changed program is a new directory. The podman images are
# removed once saved: the archives are what the node imports.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sources=$root/tests/node/images
say() { echo "node-images: $*" >&2; }
die() { say "error: $*"; exit 1; }

key=$(cat "$sources"/*.c "$sources"/*.Containerfile | sha256sum | cut -c1-12)
out=${ODS_NODE_IMAGES_DIR:-"${XDG_CACHE_HOME:-$HOME/.cache}/ods/node-images/$key"}
mkdir -p "$out" || die "cannot create $out"
exec 9>"$out/.lock"
flock 9
if [ -s "$out/images.txt" ] && [ -s "$out/pause.tar" ] && [ -s "$out/probe.tar" ]; then
  echo "$out"
  exit 0
fi

command -v gcc >/dev/null || die "gcc is needed (Debian: gcc, libc6-dev; scripts/setup-tier2.sh installs them)"
command -v podman >/dev/null || die "podman is needed (Debian: podman; scripts/setup-tier2.sh installs it)"
# shellcheck source=lib/podman_flags.sh
source "$root/scripts/lib/podman_flags.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: >"$out/images.txt.partial"
for program in pause probe; do
  image=localhost/ods-node-$program:$key
  mkdir -p "$work/$program"
  # getaddrinfo in a static binary: glibc's files and dns lookups are built in since 2.34, the
  # link-time warning about shared NSS libraries concerns the other modules.
  gcc -static -O2 -Wall -Wextra -Werror -o "$work/$program/$program" "$sources/$program.c" 2>"$work/gcc.log" ||
    die "gcc -static $program.c failed: $(cat "$work/gcc.log")"
  ods_podman build --quiet --pull=never "${ODS_PODMAN_LIMITS[@]}" -t "$image" \
    -f "$sources/$program.Containerfile" "$work/$program" >"$work/build.log" 2>&1 ||
    die "podman build of $image failed: $(tail -5 "$work/build.log")"
  rm -f "$out/$program.tar"
  podman save --quiet --format docker-archive -o "$out/$program.tar" "$image" ||
    die "podman save $image failed"
  podman rmi --force "$image" >/dev/null 2>&1 || true
  echo "$program $image" >>"$out/images.txt.partial"
  say "built $image ($(du -k "$out/$program.tar" | cut -f1) KiB)"
done
mv "$out/images.txt.partial" "$out/images.txt"
echo "$out"
