#!/usr/bin/env bash
# What tier 2 (`make test-all`, the CI shards) needs beyond scripts/setup.sh, installed when
# missing, quick when all there:
#   - Go of the version tests/kube/gomod/*/go.mod require (the Kubernetes shard builds
#     kube-apiserver, etcd, kubectl and helm with it): the `go` on PATH when new enough, else the
#     official toolchain from the Go module proxy (golang.org/toolchain, the archive `go`'s own
#     GOTOOLCHAIN switch fetches), unpacked into ${XDG_CACHE_HOME:-$HOME/.cache}/ods/go/<version>;
#   - a JDK (17 or 21, Spark 4.0) and Maven (the Spark shard's Delta jars), Debian's packages;
#   - the real test node's runtime (the node shard; tests/harness/kube_node.h), Debian's packages:
#     containerd, runc, the CNI plugins, iptables, conntrack, and podman + a static libc to build
#     its pause and probe images (scripts/node-images.sh).
# Prints, as its last line, `ODS_GO=<path>` for the Go to use. Fails with one line per missing
# piece and how to get it when it can't install it (no root, no registry).
#   scripts/setup-tier2.sh [--check]     --check: install nothing, only say what is missing
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
check_only=0; [ "${1:-}" = --check ] && check_only=1
say() { echo "setup-tier2: $*" >&2; }
missing=()

# The highest `go` directive of the wrapper modules (e.g. 1.26.0).
want_go=$(awk '$1 == "go" { print $2 }' "$root"/tests/kube/gomod/*/go.mod | sort -V | tail -1)
version_ok() { [ "$(printf '%s\n%s\n' "$want_go" "$1" | sort -V | head -1)" = "$want_go" ]; }
go_version_of() { "$1" env GOVERSION 2>/dev/null | sed 's/^go//'; }

go_bin=
for candidate in "${ODS_GO:-}" "$(command -v go 2>/dev/null || true)" /usr/local/go/bin/go /usr/lib/go/bin/go; do
  if [ -n "$candidate" ] && [ -x "$candidate" ] && version_ok "$(go_version_of "$candidate")"; then
    go_bin=$candidate
    break
  fi
done
if [ -z "$go_bin" ]; then
  cache="${XDG_CACHE_HOME:-$HOME/.cache}/ods/go/go$want_go"
  if [ -x "$cache/bin/go" ]; then
    go_bin=$cache/bin/go
  elif ((check_only)); then
    missing+=("Go >= $want_go (scripts/setup-tier2.sh fetches it from the Go module proxy into ~/.cache/ods/go)")
  else
    proxy=${GOPROXY:-https://proxy.golang.org}
    proxy=${proxy%%,*}
    [ "$proxy" = direct ] || [ "$proxy" = off ] && proxy=https://proxy.golang.org
    arch=$(uname -m); case "$arch" in x86_64) arch=amd64 ;; aarch64) arch=arm64 ;; esac
    url="$proxy/golang.org/toolchain/@v/v0.0.1-go$want_go.linux-$arch.zip"
    say "fetching Go $want_go from $url"
    tmp=$(mktemp -d)
    if curl -fsSL -o "$tmp/go.zip" "$url" && python3 -m zipfile -e "$tmp/go.zip" "$tmp/x"; then
      # The archive holds golang.org/toolchain@v0.0.1-go<version>.linux-<arch>/ with a whole GOROOT.
      mkdir -p "$(dirname "$cache")"
      rm -rf "$cache"
      mv "$tmp"/x/golang.org/toolchain@*/ "$cache"
      chmod +x "$cache"/bin/* "$cache"/pkg/tool/*/* 2>/dev/null || true
      go_bin=$cache/bin/go
    else
      missing+=("Go >= $want_go: fetching $url failed (set GOPROXY to a reachable module proxy, or put Go $want_go on PATH)")
    fi
    rm -rf "$tmp"
  fi
fi

debian=()
command -v java >/dev/null && java -version 2>&1 | grep -qE 'version "(17|21)' || debian+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null || debian+=(maven)
for package in containerd runc containernetworking-plugins iptables conntrack podman libc6-dev gcc; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || debian+=("$package")
done
if ((${#debian[@]})); then
  if ((check_only)); then
    missing+=("Debian packages ${debian[*]} (scripts/setup-tier2.sh installs them with apt-get)")
  else
    say "installing Debian packages: ${debian[*]}"
    if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
      "${debian[@]}" >/dev/null || missing+=("Debian packages ${debian[*]}: apt-get install failed")
  fi
fi

if ((${#missing[@]})); then
  for m in "${missing[@]}"; do say "missing: $m"; done
  exit 1
fi
say "ok (Go $(go_version_of "$go_bin") at $go_bin; $(java -version 2>&1 | head -1); $(mvn -v 2>/dev/null | head -1))"
echo "ODS_GO=$go_bin"
