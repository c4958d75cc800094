#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager and etcd from the committed
# go.mod/go.sum, and kubectl from kubectl/go.mod (the same release), through
# the Go module proxy, into a cache outside the repo:
#   ${LLSD_CACHE_DIR:-~/.cache/llsd-hook}/k8s/<k8s version>-<etcd version>-<go version>/
# Prints that directory on stdout. A complete cache entry is reused as is; one
# made before kubectl was added gets kubectl built into it.
set -euo pipefail
cd "$(dirname "$0")"
source ../../scripts/cache-lock.sh
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=readonly
KV=$(cat KUBERNETES_VERSION)
EV=$(sed -n 's|^\(require\)\{0,1\}\s*go.etcd.io/etcd/server/v3 \(v[^ ]*\).*|\2|p' go.mod)
GV=$(go env GOVERSION)
CACHE_ROOT=${LLSD_CACHE_DIR:-$HOME/.cache/llsd-hook}
OUT="$CACHE_ROOT/k8s/$KV-etcd$EV-$GV"
BINS="kube-apiserver kube-controller-manager etcd"
MINOR=$(echo "$KV" | cut -d. -f2)
LDFLAGS="-s -w -X k8s.io/component-base/version.gitVersion=$KV -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$MINOR -X k8s.io/component-base/version.gitTreeState=clean"

log() { echo "[k8s-build] $*" >&2; }
START=$(date +%s)
cache_lock "$OUT"

# kubectl (about 2 minutes more when the control plane was just built, since
# they share most packages): into $1, checked, then renamed into place.
build_kubectl() {
  log "compiling kubectl ($(( $(date +%s) - START ))s so far)"
  (cd kubectl && go build -trimpath -ldflags "$LDFLAGS" -o "$1/kubectl.tmp" k8s.io/kubernetes/cmd/kubectl)
  "$1/kubectl.tmp" version --client >/dev/null 2>&1 || { log "kubectl does not run"; exit 1; }
  mv "$1/kubectl.tmp" "$1/kubectl"
}

if [ -f "$OUT/.complete" ]; then
  if [ ! -x "$OUT/kubectl" ]; then
    build_kubectl "$OUT"
    log "kubectl added in $(( $(date +%s) - START ))s"
  fi
  echo "$OUT"
  exit 0
fi

rm -rf "$OUT.tmp"; mkdir "$OUT.tmp"   # a dead build's, if any (we hold the lock)
log "building Kubernetes $KV and etcd $EV with $GV into $OUT (cold build: about 25 minutes on 2 cores, kubectl about 2 of them, measured)"
log "downloading modules"
go mod download -x 2>&1 | grep -c '^# get' | sed 's/^/[k8s-build] fetched /;s/$/ module files/' >&2 || true
(cd kubectl && go mod download -x 2>&1 | grep -c '^# get' | sed 's/^/[k8s-build] fetched /;s/$/ module files for kubectl/' >&2) || true
for b in kube-apiserver kube-controller-manager; do
  log "compiling $b ($(( $(date +%s) - START ))s so far)"
  go build -trimpath -ldflags "$LDFLAGS" -o "$OUT.tmp/$b" "k8s.io/kubernetes/cmd/$b"
done
log "compiling etcd ($(( $(date +%s) - START ))s so far)"
go build -trimpath -ldflags "-s -w" -o "$OUT.tmp/etcd" ./cmd/etcd
build_kubectl "$OUT.tmp"
for b in $BINS; do "$OUT.tmp/$b" --version >/dev/null 2>&1 || { log "$b does not run"; exit 1; }; done
rm -rf "$OUT"; mv "$OUT.tmp" "$OUT"; touch "$OUT/.complete"
log "done in $(( $(date +%s) - START ))s: $(du -sh "$OUT" | cut -f1)"
echo "$OUT"
