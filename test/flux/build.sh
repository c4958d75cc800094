#!/usr/bin/env bash
# Builds flux-kstatus (main.go: kstatus, the health library of Flux's
# kustomize-controller, through the Go module proxy) into a cache outside the
# repo, keyed by the sources and the Go version:
#   ${LLSD_CACHE_DIR:-~/.cache/llsd-hook}/flux/<hash of go.mod, go.sum, main.go>-<go version>/
# Prints the binary's path on stdout; a built one is reused.
set -euo pipefail
cd "$(dirname "$0")"
source ../../scripts/cache-lock.sh
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=readonly
KEY=$(cat go.mod go.sum main.go | sha256sum | cut -c1-12)
OUT="${LLSD_CACHE_DIR:-$HOME/.cache/llsd-hook}/flux/$KEY-$(go env GOVERSION)"
cache_lock "$OUT"
if [ ! -x "$OUT/flux-kstatus" ]; then
  mkdir -p "$OUT"
  go build -trimpath -ldflags "-s -w" -o "$OUT/flux-kstatus.tmp" .
  mv "$OUT/flux-kstatus.tmp" "$OUT/flux-kstatus"
fi
echo "$OUT/flux-kstatus"
