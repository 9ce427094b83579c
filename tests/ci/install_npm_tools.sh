#!/usr/bin/env bash
# Installs the npm tools the CI-step tests use (tests/ci/package.json, pinned by package-lock.json:
# @action-validator/cli, gitlab-ci-local) into a cache outside the clone, one folder per digest of
# the two files, reused when present. Prints that folder's node_modules/.bin on its last line.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
digest="$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -c1-16)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/ods/ci-npm/$digest"
if [[ ! -x "$cache/node_modules/.bin/gitlab-ci-local" || ! -x "$cache/node_modules/.bin/action-validator" ]]; then
  command -v npm >/dev/null || { echo "install_npm_tools.sh: npm is not installed (scripts/setup.sh installs it)" >&2; exit 1; }
  staging="$cache.tmp.$$"
  rm -rf "$staging" && mkdir -p "$staging"
  cp "$here/package.json" "$here/package-lock.json" "$staging/"
  (cd "$staging" && npm ci --no-audit --no-fund --loglevel=error >&2)
  rm -rf "$cache" && mv "$staging" "$cache"
fi
echo "$cache/node_modules/.bin"
