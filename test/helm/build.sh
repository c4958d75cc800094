#!/usr/bin/env bash
# Builds helm (helm.sh/helm/v4's cmd/helm at the version go.mod pins, with the
# dependency versions of that release's own go.mod) through the Go module
# proxy, into a cache outside the repo, keyed by the version, go.mod/go.sum and
# the Go version:
#   ${LLSD_CACHE_DIR:-~/.cache/llsd-hook}/helm/<helm version>-<hash>-<go version>/helm
# Prints the binary's path on stdout; a built one is reused. The version
# variables are set as helm's Makefile sets them for a release, so that
# `helm version` names it. Cold: see docs/adr/0022-helm-chart.md.
set -euo pipefail
cd "$(dirname "$0")"
source ../../scripts/cache-lock.sh
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=readonly
HV=$(sed -n 's|^\s*helm.sh/helm/v4 \(v[^ ]*\).*|\1|p' go.mod)
[ -n "$HV" ] || { echo "[helm-build] go.mod pins no helm.sh/helm/v4" >&2; exit 1; }
KEY=$(cat go.mod go.sum | sha256sum | cut -c1-12)
OUT="${LLSD_CACHE_DIR:-$HOME/.cache/llsd-hook}/helm/$HV-$KEY-$(go env GOVERSION)"
[ -x "$OUT/helm" ] || cache_lock "$OUT"
if [ ! -x "$OUT/helm" ]; then
  START=$(date +%s)
  echo "[helm-build] building helm $HV into $OUT" >&2
  mkdir -p "$OUT"
  V=helm.sh/helm/v4/internal/version
  go build -trimpath \
    -ldflags "-s -w -X $V.version=$HV -X $V.gitTreeState=clean" \
    -o "$OUT/helm.tmp" helm.sh/helm/v4/cmd/helm
  "$OUT/helm.tmp" version --short >/dev/null 2>&1 || { echo "[helm-build] helm does not run" >&2; exit 1; }
  mv "$OUT/helm.tmp" "$OUT/helm"
  echo "[helm-build] done in $(( $(date +%s) - START ))s: $(du -sh "$OUT/helm" | cut -f1)" >&2
fi
echo "$OUT/helm"
