#!/usr/bin/env bash
# The release as a maintainer publishes it and the images as a user gets them (ctest
# release_and_images, shard `images`): `scripts/release.sh` (make release) builds the CLI bundle, both
# images from docker/*.Dockerfile with podman on a base it made with mmdebstrap, their SBOMs and the
# chart package, then
#   0. SHA256SUMS verifies and lists every artifact; each SBOM lists what its image holds (the
#      runner's dbt-core at requirements/dbt.txt's pin, the libpq5 both link); the chart is the version;
#   1. dist's images.txt names both archives with their real SHA-256, and each is an OCI archive;
#   2. no layer holds the host's extra CA (the build secret was used, not copied): the images are
#      publishable;
#   3. both run as uid 65532, and each binary says the project's version;
#   4. the runner runs `ods state run` on examples/shop mounted into the container (its data made by
#      the image's Python): the first run builds every node, the third reuses all but the node whose
#      hook reads the environment — dbt from the image's own venv;
#   5. the operator's binary starts in its image.
#
#   tests/images/images_test.sh <repository root> <the ods binary>
set -euo pipefail
root=$1
ods=$2
# shellcheck source=../../scripts/lib/podman_flags.sh
source "$root/scripts/lib/podman_flags.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

version=$(sed -n 's/^project(ods VERSION \([0-9][0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
"$root/scripts/release.sh" --out "$work/dist" --binary "$ods"

# 0. The release's files.
(cd "$work/dist" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not verify"
for file in "ods-$version-linux-x86_64.tar.gz" "ods-operator-$version.oci.tar" "ods-runner-$version.oci.tar" \
  "ods-operator-$version.cdx.json" "ods-runner-$version.cdx.json" "ods-$version.tgz" images.txt; do
  grep -q "  $file\$" "$work/dist/SHA256SUMS" || fail "SHA256SUMS does not list $file"
done
dbt_pin=$(sed -n 's/^dbt-core==//p' "$root/requirements/dbt.txt")
sbom_has() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if any(c['name']==sys.argv[2] and (not sys.argv[3] or c['version']==sys.argv[3]) for c in d['components']) else 1)" "$@"; }
sbom_has "$work/dist/ods-runner-$version.cdx.json" dbt-core "$dbt_pin" || fail "the runner's SBOM has no dbt-core $dbt_pin"
for image in operator runner; do
  sbom_has "$work/dist/ods-$image-$version.cdx.json" libpq5 "" || fail "the $image SBOM has no libpq5"
done
# (grep without -q reads to the end: with -q it may exit first, tar gets SIGPIPE, and pipefail
# turns a match into a failure.)
tar -xzOf "$work/dist/ods-$version.tgz" ods/Chart.yaml | grep -x "version: $version" >/dev/null || fail "ods-$version.tgz is not chart version $version"

# 1. The list and the archives.
for image in operator runner; do
  archive=ods-$image-$version.oci.tar
  line=$(grep "^localhost/ods-$image:$version " "$work/dist/images.txt") || { fail "images.txt has no line for ods-$image"; continue; }
  listed=$(echo "$line" | awk '{print $4}')
  actual=sha256:$(sha256sum "$work/dist/$archive" | cut -d' ' -f1)
  [ "$listed" = "$actual" ] || fail "$archive: images.txt says $listed, the file is $actual"
  tar -tf "$work/dist/$archive" | grep -x 'index.json' >/dev/null || fail "$archive is not an OCI archive (no index.json)"
done

run() { ods_podman run --rm "${ODS_PODMAN_LIMITS[@]}" "$@"; }
runner=localhost/ods-runner:$version
operator=localhost/ods-operator:$version

# 2. The host's extra CA certificates are in no image.
for extra in /usr/local/share/ca-certificates/*.crt; do
  [ -f "$extra" ] || continue
  marker=$(grep -v -- '-----' "$extra" | head -2 | tail -1)
  for image in "$runner" "$operator"; do
    if run --entrypoint /bin/sh "$image" -c "grep -rqF -- '$marker' /etc/ssl /usr/local/share/ca-certificates /opt 2>/dev/null"; then
      fail "$image holds the host's $extra"
    fi
  done
done

# 3. Users and versions.
for image in "$runner" "$operator"; do
  uid=$(run --entrypoint /usr/bin/id "$image" -u)
  [ "$uid" = 65532 ] || fail "$image runs as uid $uid, not 65532"
done
said=$(run "$runner" --version)
[ "$said" = "ods $version" ] || fail "the runner's ods says '$said', not 'ods $version'"

# 4. The main job inside the runner: examples/shop on DuckDB, state in the mounted folder.
cp -r "$root/examples/shop" "$work/shop"
rm -rf "$work/shop/target" "$work/shop/.ods" "$work/shop/logs" "$work"/shop/*.duckdb*
chmod -R a+rwX "$work/shop"
shop_run() {
  run --network=none -v "$work/shop:/shop" -w /shop -e DBT_PROFILES_DIR=/shop "$runner" \
    state run --project-dir /shop --state sqlite:///shop/.ods/state.db --format json >"$work/run$1.json" 2>"$work/run$1.log" ||
    { fail "ods state run #$1 in the runner image exited $?"; tail -20 "$work/run$1.log" >&2; return 1; }
}
summary() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['summary'][sys.argv[2]])" "$@"; }
# The builds of a run that are not for its hooks' run context (what examples/shop builds every run
# without a digest key: dim_customers' env-reading hook).
other_builds() {
  python3 -c "import json,sys; print(' '.join(e['name'] for e in json.load(open(sys.argv[1]))['plan']['entries'] if e['action']=='build' and e['reasons'][0]['code']!='reads_run_context'))" "$1"
}
# Three runs: the second rebuilds the incremental orders_daily once (its compiled SQL takes the
# is_incremental() branch from then on), the third reuses all but the hook's node.
# Its raw data, made by the image's own Python (the venv's duckdb), as `make demo` makes it.
run --network=none -v "$work/shop:/shop" -w /shop --entrypoint /opt/ods/venv/bin/python "$runner" \
  scripts/generate_data.py --fresh >"$work/data.log" 2>&1 ||
  { fail "generating the shop's data in the runner image failed"; tail -5 "$work/data.log" >&2; }
if shop_run 1 && shop_run 2 && shop_run 3; then
  built=$(summary "$work/run1.json" built)
  reused=$(summary "$work/run3.json" reused)
  rebuilt=$(other_builds "$work/run3.json")
  echo "runner image: first run built $built nodes; third run reused $reused, built for other reasons than a hook: '${rebuilt}'"
  [ "$built" -gt 0 ] || fail "the first run in the runner image built nothing"
  [ "$reused" -ge $((built - 1)) ] && [ -z "$rebuilt" ] ||
    fail "the third run should reuse every node but the hook's (reused $reused of $built; built '$rebuilt')"
fi

# 5. The operator's binary starts in its image (its cluster behaviour is the kube shard's).
ods_podman run --rm "${ODS_PODMAN_LIMITS[@]}" --network=none "$operator" --help >"$work/operator.out" 2>&1 ||
  fail "ods-operator --help in its image exited $?: $(tail -3 "$work/operator.out")"
grep -q '^usage: ods-operator' "$work/operator.out" || fail "ods-operator --help printed no usage: $(head -3 "$work/operator.out")"

if ((failures)); then
  echo "images_test: $failures failure(s)" >&2
  exit 1
fi
echo "images_test: both images built, listed, publishable and running"
