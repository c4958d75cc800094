#!/usr/bin/env bash
# Builds argocd-tracking (main.go: Argo CD v3.5.7's resource tracking and
# gitops-engine's cluster cache and reconcile, through the Go module proxy)
# into a cache outside the repo, keyed by the sources and the Go version:
#   ${LLSD_CACHE_DIR:-~/.cache/llsd-hook}/argocd-tracking/<hash of go.mod, go.sum, main.go>-<go version>/
# Prints the binary's path on stdout; a built one is reused. Cold: about 5
# minutes of CPU (Argo CD's util/argo brings some 1,400 packages).
#
# go.mod: argo-cd/v3 v3.5.7 is the newest release the suite's Go (1.26) builds
# (3.6 needs Go 1.27). Its gitops-engine is a module inside its repository,
# required at a pseudo-version the proxy does not serve (Argo CD builds it from
# its own tree); the replace takes the one the proxy has,
# v0.0.0-20260914071520-c9c369efcc5b. The k8s.io replaces are Argo CD's own.
set -euo pipefail
cd "$(dirname "$0")"
source ../../../scripts/cache-lock.sh
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=readonly
KEY=$(cat go.mod go.sum main.go | sha256sum | cut -c1-12)
OUT="${LLSD_CACHE_DIR:-$HOME/.cache/llsd-hook}/argocd-tracking/$KEY-$(go env GOVERSION)"
cache_lock "$OUT"
if [ ! -x "$OUT/argocd-tracking" ]; then
  mkdir -p "$OUT"
  go build -trimpath -ldflags "-s -w" -o "$OUT/argocd-tracking.tmp" .
  mv "$OUT/argocd-tracking.tmp" "$OUT/argocd-tracking"
fi
echo "$OUT/argocd-tracking"
