#!/usr/bin/env bash
# Builds what a real node needs, into a cache outside the repo, keyed by every
# version in it:
#   ${LLSD_CACHE_DIR:-~/.cache/llsd-hook}/node/<k8s>-ctd<containerd>-runc<runc>-cni<cni>-<go>-<layout>/
#     kubelet, kube-scheduler   cmd/ of the pinned k8s.io/kubernetes (kubelet/go.mod)
#     containerd, containerd-shim-runc-v2, ctr   through the Go module proxy
#     runc                      through the Go module proxy, static, with libseccomp
#                               from Debian's libseccomp-dev (downloaded, unpacked, never installed)
#     cni/{bridge,host-local,loopback}   the CNI plugins, through the Go module proxy
#     pause.tar                 pause.c of the same Kubernetes release, static (gcc), as an OCI
#                               archive named registry.k8s.io/pause:3.10.2 (containerd 2.4's sandbox image)
# Prints that directory on stdout. A complete entry is reused as is.
# Cold: about 6-9 minutes on 2 cores after the control plane (shared Go build cache).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../../scripts/cache-lock.sh"
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly

CONTAINERD=v2.4.2 # containerd's matrix: Kubernetes 1.37 -> containerd 2.3.0+/2.4.0+
RUNC=v1.5.2       # the runc containerd v2.4.2 pins (script/setup/runc-version)
CNI=v1.10.0
LAYOUT=2 # bump when what this script puts in the entry changes
KV=$(cat "$HERE/../k8s/KUBERNETES_VERSION")
GV=$(go env GOVERSION)
CACHE_ROOT=${LLSD_CACHE_DIR:-$HOME/.cache/llsd-hook}
OUT="$CACHE_ROOT/node/$KV-ctd$CONTAINERD-runc$RUNC-cni$CNI-$GV-$LAYOUT"
MINOR=$(echo "$KV" | cut -d. -f2)
K8S_LDFLAGS="-s -w -X k8s.io/component-base/version.gitVersion=$KV -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$MINOR -X k8s.io/component-base/version.gitTreeState=clean"

log() { echo "[node-build] $*" >&2; }
START=$(date +%s)
since() { echo "$(($(date +%s) - START))s"; }

if [ -f "$OUT/.complete" ]; then
  echo "$OUT"
  exit 0
fi
cache_lock "$OUT"
if [ -f "$OUT/.complete" ]; then
  echo "$OUT"
  exit 0
fi

TMP="$OUT.tmp"
rm -rf "$TMP" # a dead build's, if any (we hold the lock)
mkdir -p "$TMP/cni"
log "building the node (Kubernetes $KV, containerd $CONTAINERD, runc $RUNC, CNI $CNI, $GV) into $OUT (cold: about 6-9 minutes on 2 cores)"

# Debian packages: downloaded and unpacked into the work dir, never installed.
DEBS="$TMP/debs"
"$HERE/debian.sh" "$DEBS" libseccomp-dev

log "compiling kubelet and kube-scheduler ($(since) so far)"
(cd "$HERE/kubelet" && for b in kubelet kube-scheduler; do
  go build -trimpath -ldflags "$K8S_LDFLAGS" -o "$TMP/$b" "k8s.io/kubernetes/cmd/$b"
done)

# Outside any module: each tool is built at its tag with its own go.sum.
export GOFLAGS=-mod=mod
GOBIN_TMP="$TMP/gobin"
mkdir -p "$GOBIN_TMP"
log "compiling containerd $CONTAINERD ($(since) so far)"
CGO_ENABLED=0 GOBIN="$GOBIN_TMP" go install -trimpath -ldflags "-s -w" -tags "urfave_cli_no_docs no_btrfs" \
  "github.com/containerd/containerd/v2/cmd/containerd@$CONTAINERD" \
  "github.com/containerd/containerd/v2/cmd/ctr@$CONTAINERD"
CGO_ENABLED=0 GOBIN="$GOBIN_TMP" go install -trimpath -ldflags "-s -w" -tags "urfave_cli_no_docs no_btrfs no_grpc" \
  "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2@$CONTAINERD"

log "compiling runc $RUNC, static with libseccomp ($(since) so far)"
# runc's Makefile adds the libpathrs tag (a Rust library); without it runc uses its pure-Go pathrs-lite.
SECCOMP_LIB="$DEBS/root/usr/lib/x86_64-linux-gnu"
CGO_ENABLED=1 GOBIN="$GOBIN_TMP" \
  PKG_CONFIG_PATH="$SECCOMP_LIB/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$DEBS/root" \
  CGO_CFLAGS="-I$DEBS/root/usr/include" CGO_LDFLAGS="-L$SECCOMP_LIB" \
  go install -trimpath -tags "seccomp netgo osusergo urfave_cli_no_docs" \
  -ldflags "-s -w -extldflags -static" "github.com/opencontainers/runc@$RUNC"

log "compiling the CNI plugins $CNI ($(since) so far)"
CGO_ENABLED=0 GOBIN="$TMP/cni" go install -trimpath -ldflags "-s -w" \
  "github.com/containernetworking/plugins/plugins/main/bridge@$CNI" \
  "github.com/containernetworking/plugins/plugins/main/loopback@$CNI" \
  "github.com/containernetworking/plugins/plugins/ipam/host-local@$CNI"
mv "$GOBIN_TMP"/* "$TMP/"
rmdir "$GOBIN_TMP"

log "compiling pause from Kubernetes $KV ($(since) so far)"
K8S_SRC=$(cd "$HERE/kubelet" && GOFLAGS=-mod=readonly go list -m -f '{{.Dir}}' k8s.io/kubernetes)
mkdir -p "$TMP/pause-rootfs"
gcc -Os -static -o "$TMP/pause-rootfs/pause" "$K8S_SRC/build/pause/linux/pause.c"
echo '{"Entrypoint":["/pause"],"User":"65535:65535"}' > "$TMP/pause-config.json"
(cd "$HERE/../.." && node --import tsx test/node/oci.ts "$TMP/pause-rootfs" registry.k8s.io/pause:3.10.2 "$TMP/pause.tar" "$TMP/pause-config.json" >/dev/null)
rm -rf "$TMP/pause-rootfs" "$TMP/pause-config.json"

rm -rf "$DEBS"
"$TMP/runc" --version | grep -q seccomp || { log "runc was built without seccomp"; exit 1; }
for b in kubelet kube-scheduler containerd ctr; do
  "$TMP/$b" --version >/dev/null 2>&1 || { log "$b does not run"; exit 1; }
done
ldd "$TMP/runc" >/dev/null 2>&1 && { log "runc is not static"; exit 1; }
rm -rf "$OUT"
mv "$TMP" "$OUT"
touch "$OUT/.complete"
log "done in $(since): $(du -sh "$OUT" | cut -f1)"
echo "$OUT"
