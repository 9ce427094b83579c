#!/usr/bin/env bash
# The container images, built here without a registry (`make images`; docs/kubernetes.md, "Images"):
#   <out>/ods-operator-<version>.oci.tar   docker/operator.Dockerfile, as an OCI archive
#   <out>/ods-runner-<version>.oci.tar     docker/runner.Dockerfile
#   (--only postgres: <out>/ods-test-postgres-<version>.oci.tar from tests/node/postgres/Containerfile,
#   the real node's in-cluster PostgreSQL; test-only, never built by default nor published)
#   <out>/images.txt                       one line per image: name:tag, image id, archive, its SHA-256
#   <out>/logs/ods-<image>.build.log       the build's output
# and the same images in local container storage as localhost/ods-operator:<version> and
# localhost/ods-runner:<version> (what `podman run` and `ctr images import` take).
#
# How, on a machine with no registry and no Docker engine:
#   - Debian's podman builds with runc (crun refuses this machine's hybrid cgroup layout) and with
#     rlimits under the hard ones (podman's defaults are above them);
#   - the Debian base both Dockerfiles start from is made from Debian's packages with mmdebstrap
#     (--variant=minbase bookworm), cached as a tar under ${XDG_CACHE_HOME:-~/.cache}/ods/images,
#     keyed by the mmdebstrap arguments, and passed in as the DEBIAN_IMAGE build argument: the
#     Dockerfiles still say `debian:bookworm` for everyone else;
#   - compiler output is cached between builds by the Dockerfiles' own cache mount (ccache);
#   - a CA bundle this network's TLS needs (pip inside the runner build) is given as a build
#     secret (--ca-bundle, default: the host's bundle when it trusts more than Debian's), so it
#     is used during the build and never written into a layer: the images are publishable.
#
#   scripts/images.sh [--out dist] [--tag VERSION] [--only operator|runner|postgres] [--ca-bundle FILE|none]
#                     [--base mmdebstrap|registry] [--build-arg NAME=VALUE]...
# --base registry: the Dockerfiles' own bases, pulled from their registry (where one is reachable,
# e.g. the release workflow), instead of the mmdebstrap base.
# e.g. an image with another adapter: --build-arg EXTRA_PIP_PACKAGES=dbt-snowflake==1.10.8
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

out=$root/dist
tag=
only=
ca_bundle=auto
base=mmdebstrap
build_args=()
usage="usage: scripts/images.sh [--out DIR] [--tag VERSION] [--only operator|runner|postgres] [--ca-bundle FILE|none] [--base mmdebstrap|registry] [--build-arg NAME=VALUE]..."
while (($#)); do
  case $1 in
    --out) out=$2; shift 2 ;;
    --tag) tag=$2; shift 2 ;;
    --only)
      case $2 in operator | runner | postgres) only=$2 ;; *) echo "images.sh: --only takes operator, runner or postgres, not '$2'" >&2; exit 2 ;; esac
      shift 2 ;;
    --ca-bundle) ca_bundle=$2; shift 2 ;;
    --base)
      case $2 in mmdebstrap | registry) base=$2 ;; *) echo "images.sh: --base takes mmdebstrap or registry, not '$2'" >&2; exit 2 ;; esac
      shift 2 ;;
    --build-arg) build_args+=(--build-arg "$2"); shift 2 ;;
    -h | --help) echo "$usage"; exit 0 ;;
    *) echo "images.sh: unknown argument '$1' ($usage)" >&2; exit 2 ;;
  esac
done

version=$(sed -n 's/^project(ods VERSION \([0-9][0-9.]*\).*/\1/p' CMakeLists.txt)
[ -n "$version" ] || { echo "images.sh: no project version in CMakeLists.txt" >&2; exit 1; }
tag=${tag:-$version}

# Debian's container tools (once; quick when installed).
needed=(podman runc uidmap)
[ "$base" = registry ] || needed+=(mmdebstrap)
missing=()
for p in "${needed[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "images: installing Debian packages: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# What podman needs on this kind of machine, for every build and run (tests/images reuse it).
# shellcheck source=lib/podman_flags.sh
source "$root/scripts/lib/podman_flags.sh"

# The base: one Debian bookworm minbase root file system, cached by what makes it, imported once.
mmdebstrap_base() {
  local base_args=(--variant=minbase --include=ca-certificates bookworm)
  local key cache tar
  key=$(printf '%s\n' "${base_args[@]}" | sha256sum | cut -c1-12)
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/ods/images
  tar=$cache/debian-bookworm-$key.tar
  base_image=localhost/ods-debian:bookworm-$key
  podman image exists "$base_image" && return 0
  if [ ! -s "$tar" ]; then
    mkdir -p "$cache"
    echo "images: making the Debian base with mmdebstrap ${base_args[*]} (about a minute)"
    mmdebstrap --quiet --format=tar "${base_args[@]}" "$tar.partial"
    mv "$tar.partial" "$tar"
  fi
  podman import --quiet "$tar" "$base_image" >/dev/null
}
if [ "$base" = mmdebstrap ]; then
  mmdebstrap_base
  base_build_args=(--pull=never --build-arg "DEBIAN_IMAGE=$base_image" --build-arg "DEBIAN_SLIM_IMAGE=$base_image")
else
  base_build_args=(--pull=missing)
fi

# The CA bundle for the build's own downloads, as a secret (never in a layer).
secret=()
case $ca_bundle in
  none) ;;
  auto)
    if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null && [ -s /etc/ssl/certs/ca-certificates.crt ]; then
      secret=(--secret id=build_ca,src=/etc/ssl/certs/ca-certificates.crt)
    fi ;;
  *)
    [ -s "$ca_bundle" ] || { echo "images.sh: --ca-bundle $ca_bundle: no such file" >&2; exit 2; }
    secret=(--secret "id=build_ca,src=$ca_bundle") ;;
esac

mkdir -p "$out/logs"
list=$out/images.txt
: >"$list.partial"
images=(operator runner)
[ "$only" != postgres ] || images=(test-postgres)
for image in "${images[@]}"; do
  [ -z "$only" ] || [ "$only" = "$image" ] || [ "$image" = test-postgres ] || continue
  name=localhost/ods-$image:$tag
  file=docker/$image.Dockerfile
  [ "$image" != test-postgres ] || file=tests/node/postgres/Containerfile
  echo "images: building $name from $file"
  started=$SECONDS
  ods_podman build "${ODS_PODMAN_LIMITS[@]}" --network=host --layers "${base_build_args[@]}" \
    "${secret[@]}" "${build_args[@]}" -f "$file" -t "$name" . >"$out/logs/ods-$image.build.log" 2>&1 || {
    echo "images.sh: building $name failed; the last lines of $out/logs/ods-$image.build.log:" >&2
    tail -20 "$out/logs/ods-$image.build.log" >&2
    exit 1
  }
  archive=ods-$image-$tag.oci.tar
  rm -f "$out/$archive"
  podman save --quiet --format oci-archive -o "$out/$archive" "$name"
  id=$(podman image inspect --format '{{.Id}}' "$name")
  size=$(podman image inspect --format '{{.Size}}' "$name")
  sum=$(sha256sum "$out/$archive" | cut -d' ' -f1)
  echo "$name sha256:$id $archive sha256:$sum" >>"$list.partial"
  echo "images: $name: $((size / 1000000)) MB, built in $((SECONDS - started)) s, saved to $out/$archive"
done
mv "$list.partial" "$list"
