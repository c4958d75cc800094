#!/usr/bin/env bash
# Builds the oldest Kubernetes release the suite keeps (KUBERNETES_VERSION
# here; ADR 21): kube-apiserver, kube-controller-manager and kubectl of that
# release (kubectl and the controller-manager must be within one minor of the
# API server), from this folder's go.mod through the Go module proxy, into a
# cache outside the repo:
#   ${LLSD_CACHE_DIR:-~/.cache/llsd-hook}/k8s/<k8s version>-<go version>/
# etcd is not built: the control plane at the old end runs the suite's etcd
# (../build.sh). Prints the directory on stdout; a complete entry is reused.
set -euo pipefail
cd "$(dirname "$0")"
source ../../../scripts/cache-lock.sh
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=readonly
KV=$(cat KUBERNETES_VERSION)
GV=$(go env GOVERSION)
OUT="${LLSD_CACHE_DIR:-$HOME/.cache/llsd-hook}/k8s/$KV-$GV"
BINS="kube-apiserver kube-controller-manager kubectl"
MINOR=$(echo "$KV" | cut -d. -f2)
LDFLAGS="-s -w -X k8s.io/component-base/version.gitVersion=$KV -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$MINOR -X k8s.io/component-base/version.gitTreeState=clean"

log() { echo "[k8s-oldest] $*" >&2; }
START=$(date +%s)
cache_lock "$OUT"

if [ -f "$OUT/.complete" ]; then
  echo "$OUT"
  exit 0
fi

rm -rf "$OUT.tmp"; mkdir "$OUT.tmp"   # a dead build's, if any (we hold the lock)
log "building $BINS $KV with $GV into $OUT"
log "downloading modules"
go mod download -x 2>&1 | grep -c '^# get' | sed 's/^/[k8s-oldest] fetched /;s/$/ module files/' >&2 || true
for b in $BINS; do
  log "compiling $b ($(( $(date +%s) - START ))s so far)"
  go build -trimpath -ldflags "$LDFLAGS" -o "$OUT.tmp/$b" "k8s.io/kubernetes/cmd/$b"
done
for b in kube-apiserver kube-controller-manager; do
  "$OUT.tmp/$b" --version >/dev/null 2>&1 || { log "$b does not run"; exit 1; }
done
"$OUT.tmp/kubectl" version --client >/dev/null 2>&1 || { log "kubectl does not run"; exit 1; }
rm -rf "$OUT"; mv "$OUT.tmp" "$OUT"; touch "$OUT/.complete"
log "done in $(( $(date +%s) - START ))s: $(du -sh "$OUT" | cut -f1)"
echo "$OUT"
