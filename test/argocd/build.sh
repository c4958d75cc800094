#!/usr/bin/env bash
# Builds argocd-health (main.go: Argo CD's Lua health-check runner, gopher-lua
# through the Go module proxy) into a cache outside the repo, keyed by the
# sources and the Go version:
#   ${LLSD_CACHE_DIR:-~/.cache/llsd-hook}/argocd/<hash of go.mod, go.sum, main.go>-<go version>/
# Prints the binary's path on stdout; a built one is reused. Cold: a few seconds.
set -euo pipefail
cd "$(dirname "$0")"
source ../../scripts/cache-lock.sh
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=readonly
KEY=$(cat go.mod go.sum main.go | sha256sum | cut -c1-12)
OUT="${LLSD_CACHE_DIR:-$HOME/.cache/llsd-hook}/argocd/$KEY-$(go env GOVERSION)"
[ -x "$OUT/argocd-health" ] || cache_lock "$OUT"
if [ ! -x "$OUT/argocd-health" ]; then
  mkdir -p "$OUT"
  go build -trimpath -ldflags "-s -w" -o "$OUT/argocd-health.tmp" .
  mv "$OUT/argocd-health.tmp" "$OUT/argocd-health"
fi
echo "$OUT/argocd-health"
