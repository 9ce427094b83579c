#!/usr/bin/env bash
# Builds the test control plane's binaries, kube-apiserver, etcd and a matching kubectl, from the
# Go module proxy and caches them; prints the directory holding them as the last line of stdout.
#
#   scripts/kube-binaries.sh          build what is missing (quick when cached), print the dir
#   scripts/kube-binaries.sh helm     the same for helm alone (the chart's tests), in its own dir
#   scripts/kube-binaries.sh node     the same for the test node (tests/harness/kube_node.h): kubelet,
#                                     kube-scheduler, kube-controller-manager, kube-proxy (same module
#                                     and version as kube-apiserver) and CoreDNS, in their own dir
#
# Neither binary is in Debian in a usable version, and `go install <module>@<version>` is refused
# for both (their go.mod files replace modules with relative paths). So each is built through a
# small wrapper module of ours, tests/kube/gomod/{kubernetes,etcd}/go.mod, which pins the version
# (k8s.io/kubernetes v1.34.x with a `replace` to the published v0.34.x tag for every staging
# module; go.etcd.io/etcd/server/v3 v3.6.x) and has a go.sum, so the build is reproducible.
# kubectl comes from the same Kubernetes module: Debian's (1.20) lacks what the tests use.
# helm (not in Debian) is built the same way from tests/kube/gomod/helm (helm.sh/helm/v3 v3.x),
# stamped with its version and the Kubernetes version of its client-go as its Makefile does.
# CoreDNS (the node's DNS for Service names; Debian has none) from tests/kube/gomod/coredns
# (github.com/coredns/coredns v1.x, its own main package, no relative replaces).
#
# Cache: $ODS_KUBE_BIN_DIR when set (used as is; the binaries are built into it when missing),
# else ${XDG_CACHE_HOME:-$HOME/.cache}/ods/kube/<kubernetes version>-etcd-<etcd version>/;
# helm: $ODS_HELM_BIN_DIR, else ${XDG_CACHE_HOME:-$HOME/.cache}/ods/helm/<helm version>/;
# node: $ODS_NODE_BIN_DIR, else ${XDG_CACHE_HOME:-$HOME/.cache}/ods/kube-node/<kubernetes version>-coredns-<version>/.
# It lives in $HOME, not in the checkout, so fresh clones (CI's included) reuse it; the key
# changes with the versions in the wrapper modules. Go's own module and build caches make a
# rebuild after a version change fast for everything that did not change.
#
# Go: $ODS_GO, else `go` on PATH, else /usr/local/go/bin/go or /usr/lib/go/bin/go.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gomod="$root/tests/kube/gomod"

say() { echo "kube-binaries: $*" >&2; }
die() { say "error: $*"; exit 1; }

find_go() {
  if [ -n "${ODS_GO:-}" ]; then
    [ -x "$ODS_GO" ] || die "ODS_GO=$ODS_GO is not an executable Go"
    echo "$ODS_GO"
    return 0
  fi
  local candidate
  for candidate in "$(command -v go 2>/dev/null || true)" /usr/local/go/bin/go /usr/lib/go/bin/go; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then echo "$candidate"; return 0; fi
  done
  return 1
}

# The version a wrapper module requires of `module` (from its go.mod).
required_version() {
  awk -v m="$2" '$1 == m && $2 ~ /^v/ { print $2; exit } $1 == "require" && $2 == m { print $3; exit }' "$gomod/$1/go.mod"
}

what=${1:-control-plane}
case "$what" in
  control-plane)
    kube_version=$(required_version kubernetes k8s.io/kubernetes)
    etcd_version=$(required_version etcd go.etcd.io/etcd/server/v3)
    [ -n "$kube_version" ] && [ -n "$etcd_version" ] ||
      die "cannot read the versions from $gomod/{kubernetes,etcd}/go.mod"
    bin_dir=${ODS_KUBE_BIN_DIR:-"${XDG_CACHE_HOME:-$HOME/.cache}/ods/kube/kubernetes-$kube_version-etcd-$etcd_version"}
    ;;
  helm)
    helm_version=$(required_version helm helm.sh/helm/v3)
    client_go_version=$(required_version helm k8s.io/client-go)
    [ -n "$helm_version" ] && [ -n "$client_go_version" ] ||
      die "cannot read the helm and client-go versions from $gomod/helm/go.mod"
    bin_dir=${ODS_HELM_BIN_DIR:-"${XDG_CACHE_HOME:-$HOME/.cache}/ods/helm/$helm_version"}
    ;;
  node)
    kube_version=$(required_version kubernetes k8s.io/kubernetes)
    coredns_version=$(required_version coredns github.com/coredns/coredns)
    [ -n "$kube_version" ] && [ -n "$coredns_version" ] ||
      die "cannot read the versions from $gomod/{kubernetes,coredns}/go.mod"
    bin_dir=${ODS_NODE_BIN_DIR:-"${XDG_CACHE_HOME:-$HOME/.cache}/ods/kube-node/kubernetes-$kube_version-coredns-$coredns_version"}
    ;;
  *) die "unknown argument '$what' (expected nothing, helm or node)" ;;
esac
mkdir -p "$bin_dir" || die "cannot create the cache directory $bin_dir"

# One build at a time per cache directory (several checkouts or test runs may ask at once).
exec 9>"$bin_dir/.lock"
flock 9

heartbeat=
trap '[ -z "$heartbeat" ] || kill "$heartbeat" 2>/dev/null || true' EXIT

# build <binary> <wrapper module folder> <package> <version> [go build flags...]
build() {
  local binary=$1 module=$2 package=$3 version=$4
  shift 4
  [ -x "$bin_dir/$binary" ] && return 0
  local go
  go=$(find_go) || die "Go is needed to build $binary $version for the Kubernetes tests and was not found \
(tried \$ODS_GO, go on PATH, /usr/local/go/bin/go, /usr/lib/go/bin/go); install Go >= the version in \
$gomod/$module/go.mod or point ODS_GO at it"
  say "building $binary $version with $("$go" version | cut -d' ' -f3) into $bin_dir (minutes the first time; cached afterwards)"
  local started=$SECONDS
  # go build prints nothing while it compiles: a heartbeat every 30 s.
  (while sleep 30; do say "still building $binary ($((SECONDS - started)) s)"; done) &
  heartbeat=$!
  (cd "$gomod/$module" &&
    GOTOOLCHAIN=local GOFLAGS=-mod=readonly "$go" build -p "${ODS_GO_JOBS:-2}" -trimpath "$@" \
      -o "$bin_dir/.$binary.partial" "$package") ||
    die "go build of $binary $version failed (wrapper module $gomod/$module)"
  kill "$heartbeat" 2>/dev/null; wait "$heartbeat" 2>/dev/null || true
  heartbeat=
  mv -f "$bin_dir/.$binary.partial" "$bin_dir/$binary"
  say "built $binary in $((SECONDS - started)) s"
}

if [ "$what" = helm ]; then
  # client-go v0.X.Y is Kubernetes 1.X: the version `helm lint` and `helm template` assume.
  kube_minor=$(echo "$client_go_version" | cut -d. -f2)
  stamp="-X helm.sh/helm/v3/internal/version.version=$helm_version -X helm.sh/helm/v3/internal/version.metadata="
  stamp+=" -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
  for package in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
    stamp+=" -X $package.k8sVersionMajor=1 -X $package.k8sVersionMinor=$kube_minor"
  done
  build helm helm helm.sh/helm/v3/cmd/helm "$helm_version" -ldflags="$stamp"
  echo "$bin_dir"
  exit 0
fi

# What Kubernetes' own build stamps in (hack/lib/version.sh); without it both say v0.0.0-master.
minor=$(echo "$kube_version" | cut -d. -f2)
stamp=""
for package in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  stamp+=" -X $package.gitVersion=$kube_version -X $package.gitMajor=1 -X $package.gitMinor=$minor"
  stamp+=" -X $package.gitTreeState=clean"
done
if [ "$what" = node ]; then
  for binary in kubelet kube-scheduler kube-controller-manager kube-proxy; do
    build "$binary" kubernetes "k8s.io/kubernetes/cmd/$binary" "$kube_version" -ldflags="$stamp"
  done
  build coredns coredns github.com/coredns/coredns "$coredns_version"
  echo "$bin_dir"
  exit 0
fi

build etcd etcd go.etcd.io/etcd/server/v3 "$etcd_version"
build kube-apiserver kubernetes k8s.io/kubernetes/cmd/kube-apiserver "$kube_version" -ldflags="$stamp"
build kubectl kubernetes k8s.io/kubernetes/cmd/kubectl "$kube_version" -ldflags="$stamp"
echo "$bin_dir"
