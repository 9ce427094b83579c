#!/usr/bin/env bash
# Everything a maintainer publishes for one version (`make release`; docs/release.md), in <out>:
#   ods-<version>-linux-x86_64.tar.gz (+ .sha256)   the CLI bundle (scripts/dist.sh)
#   ods-operator-<version>.oci.tar                  the images as OCI archives (scripts/images.sh)
#   ods-runner-<version>.oci.tar
#   images.txt                                      their names, image ids and archive digests
#   ods-operator-<version>.cdx.json                 a CycloneDX SBOM of each image: its Debian packages
#   ods-runner-<version>.cdx.json                   and, in the runner, its venv's Python packages (scripts/sbom.py)
#   ods-<version>.tgz                               the Helm chart (helm package helm/ods)
#   SHA256SUMS                                      every file above, in `sha256sum -c` format
# The version is CMakeLists.txt's; the chart's version and appVersion must say the same, and the
# binary too (dist.sh checks it). SOURCE_DATE_EPOCH is the last commit's time, so the archive and
# the SBOMs are the same for the same commit and images.
#
#   scripts/release.sh [--out dist] [--binary build/bin/ods|none] [images.sh arguments...]
# --binary none: the CLI archive is in <out> already (made elsewhere, e.g. `make dist` in a Debian
# container, as the release workflow does).
# (e.g. --base registry where the Debian images can be pulled; --ca-bundle FILE). Needs helm
# (scripts/kube-binaries.sh helm builds it with Go) and what scripts/images.sh installs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=$root/dist
binary=$root/build/bin/ods
image_args=()
while (($#)); do
  case $1 in
    --out) out=$2; shift 2 ;;
    --binary) binary=$2; shift 2 ;;
    --base | --ca-bundle | --build-arg) image_args+=("$1" "$2"); shift 2 ;;
    -h | --help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "release.sh: unknown argument '$1' (usage: scripts/release.sh [--out DIR] [--binary PATH] [--base …] [--ca-bundle …] [--build-arg …])" >&2; exit 2 ;;
  esac
done

version=$(sed -n 's/^project(ods VERSION \([0-9][0-9.]*\).*/\1/p' CMakeLists.txt)
chart_version=$(sed -n 's/^version: *//p' helm/ods/Chart.yaml)
app_version=$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}/\1/p' helm/ods/Chart.yaml)
if [ "$chart_version" != "$version" ] || [ "$app_version" != "$version" ]; then
  echo "release.sh: CMakeLists.txt says $version, helm/ods/Chart.yaml version $chart_version and appVersion $app_version: make them one" >&2
  exit 1
fi
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}

helm_dir=$(scripts/kube-binaries.sh helm | tail -1)
[ -x "$helm_dir/helm" ] || { echo "release.sh: no helm in $helm_dir (scripts/kube-binaries.sh helm)" >&2; exit 1; }

mkdir -p "$out"
echo "release: ods $version into $out"
if [ "$binary" = none ]; then
  [ -s "$out/ods-$version-linux-x86_64.tar.gz" ] ||
    { echo "release.sh: --binary none, but $out/ods-$version-linux-x86_64.tar.gz is not there (make dist)" >&2; exit 1; }
else
  scripts/dist.sh --binary "$binary" --out "$out"
fi
scripts/images.sh --out "$out" --tag "$version" "${image_args[@]}"
for image in operator runner; do
  scripts/sbom.py "localhost/ods-$image:$version" "$out/ods-$image-$version.cdx.json"
done
"$helm_dir/helm" package helm/ods --destination "$out" >/dev/null
[ -s "$out/ods-$version.tgz" ] || { echo "release.sh: helm package wrote no $out/ods-$version.tgz" >&2; exit 1; }

files=(ods-"$version"-linux-x86_64.tar.gz ods-operator-"$version".oci.tar ods-runner-"$version".oci.tar images.txt
  ods-operator-"$version".cdx.json ods-runner-"$version".cdx.json ods-"$version".tgz)
(cd "$out" && sha256sum "${files[@]}" >SHA256SUMS)
echo "release: $out/SHA256SUMS:"
sed 's/^/  /' "$out/SHA256SUMS"
