#!/usr/bin/env bash
# Prepares the real peers the test suite runs against, reusing the cache when
# it is complete (npm run peers; part of npm test):
#   - kube-apiserver, kube-controller-manager, etcd and kubectl built from
#     source through the Go module proxy (test/k8s/build.sh; cold: ~25 min on 2 cores)
#   - the oldest Kubernetes release the suite keeps: kube-apiserver,
#     kube-controller-manager and kubectl (test/k8s/oldest/build.sh; etcd reused),
#     built beside the node
#   - argocd-health, Argo CD's Lua health-check runner (test/argocd/build.sh; seconds)
#   - flux-kstatus, Flux's kstatus health (test/flux/build.sh; about a minute cold)
#   - argocd-tracking, Argo CD's resource tracking and gitops-engine's cluster cache
#     (test/argocd/tracking/build.sh; about 5 minutes of CPU cold, beside the venvs)
#   - helm 4 from the module proxy (test/helm/build.sh; cold: ~6 CPU-minutes)
#   - Prometheus's promtool and server, and a PromQL parser of its module
#     (test/prometheus/build.sh; cold: about 8 CPU-minutes, in the background)
#   - the third-party CRDs the HTTPS overlay uses (scripts/third-party-crds.sh; seconds)
#   - one Python venv per supported Llama Stack release (test/llama-stack/venv.sh;
#     cold: ~3 min each)
#   - a real node: kubelet, kube-scheduler, containerd, runc, CNI plugins and the
#     pause image (test/node/build.sh; cold: ~6-9 min after the control plane,
#     whose Go build cache it shares), and a stand-in server image per release the
#     node tests run (test/node/image.sh; cold: ~3 min each)
#   - the hook's own image from the Dockerfile (scripts/build-image.sh: buildah
#     on a stand-in of the Node.js base; cold: ~4 min), and that base
# The Kubernetes build and the hook's image build run in the background while
# the venvs and server images are prepared; the node is built after the former.
# Writes the locations to .cache/peers.json in this checkout for its tests: the
# builds are shared by every checkout through the cache, but which hook image
# (built from this checkout's source) and which tools its tests run is its own.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${LLSD_CACHE_DIR:-$HOME/.cache/llsd-hook}
mkdir -p "$CACHE"
# One preparation at a time per cache: two runs building the same peer into the
# same temporary directory spoil each other's build (seen: two suites started
# together, one renamed the other's half-built control plane into place). The
# second waits, then finds the first one's cache complete.
exec 9>"$CACHE/.peers.lock"
if ! flock -n 9; then
  echo "[peers] another run is preparing the peers in $CACHE; waiting for it"
  flock 9
fi
# The builders whose cache key hashes their own text take no lock themselves
# (a line added would rebuild them cold): each is run holding a lock of its own
# (scripts/cache-lock.sh), which scripts/release.ts takes too. The hook image's
# lock covers the stand-in base and the image tools it builds on the way.
locked() { "$ROOT/scripts/cache-lock.sh" "$CACHE/locks/$1" "${@:2}"; }
PEERS_FILE="$ROOT/.cache/peers.json"
mkdir -p "$ROOT/.cache"
START=$(date +%s)
echo "[peers] preparing real peers (cache: $CACHE)"

K8S_LOG="$CACHE/k8s-build.log"
"$ROOT/test/k8s/build.sh" > "$CACHE/k8s-bin-dir" 2> >(tee "$K8S_LOG" >&2) &
K8S_PID=$!
PROMETHEUS_LOG="$CACHE/prometheus-build.log"
locked prometheus "$ROOT/test/prometheus/build.sh" > "$CACHE/prometheus-dir" 2> "$PROMETHEUS_LOG" &
PROMETHEUS_PID=$!
IMAGE_LOG="$CACHE/hook-image-build.log"
echo "[peers] building the hook's image in the background (log: $IMAGE_LOG)"
locked hook-image "$ROOT/scripts/build-image.sh" > "$CACHE/hook-image" 2> "$IMAGE_LOG" &
IMAGE_PID=$!
# Argo CD's tracking code is some 1,400 packages: built beside the venvs.
TRACKING_LOG="$CACHE/argocd-tracking-build.log"
"$ROOT/test/argocd/tracking/build.sh" > "$CACHE/argocd-tracking-bin" 2> "$TRACKING_LOG" &
TRACKING_PID=$!
HELM_LOG="$CACHE/helm-build.log"
"$ROOT/test/helm/build.sh" > "$CACHE/helm-bin" 2> "$HELM_LOG" &
HELM_PID=$!

# The releases whose server image the node tests run (test/node/README.md).
NODE_RELEASES="1.5.0 1.4.1"

ARGOCD_HEALTH=$("$ROOT/test/argocd/build.sh")
FLUX_KSTATUS=$("$ROOT/test/flux/build.sh")
CRDS_DIR=$("$ROOT/scripts/third-party-crds.sh")

VENVS=()
for release in $(node -e 'console.log(require(process.argv[1]).releases.join(" "))' "$ROOT/configs/releases.json"); do
  dir=$("$ROOT/test/llama-stack/venv.sh" "$release")
  VENVS+=("\"$release\": \"$dir\"")
done

IMAGES=()
for release in $NODE_RELEASES; do
  IMAGES+=("\"$release\": \"$(locked "node-image-$release" "$ROOT/test/node/image.sh" "$release")\"")
done

if ! wait "$K8S_PID"; then
  echo "[peers] the Kubernetes build failed; see $K8S_LOG" >&2
  exit 1
fi
K8S_DIR=$(tail -n1 "$CACHE/k8s-bin-dir")
if ! wait "$PROMETHEUS_PID"; then
  tail -n 30 "$PROMETHEUS_LOG" >&2
  echo "[peers] the Prometheus build failed; see $PROMETHEUS_LOG" >&2
  exit 1
fi
PROMETHEUS_DIR=$(tail -n1 "$CACHE/prometheus-dir")
OLDEST_LOG="$CACHE/k8s-oldest-build.log"
"$ROOT/test/k8s/oldest/build.sh" > "$CACHE/k8s-oldest-bin-dir" 2> >(tee "$OLDEST_LOG" >&2) &
OLDEST_PID=$!
NODE_DIR=$("$ROOT/test/node/build.sh")
if ! wait "$OLDEST_PID"; then
  echo "[peers] the build of the oldest Kubernetes failed; see $OLDEST_LOG" >&2
  exit 1
fi
K8S_OLDEST_DIR=$(tail -n1 "$CACHE/k8s-oldest-bin-dir")
if ! wait "$IMAGE_PID"; then
  tail -n 30 "$IMAGE_LOG" >&2
  echo "[peers] the hook's image build failed; see $IMAGE_LOG" >&2
  exit 1
fi
if ! wait "$TRACKING_PID"; then
  tail -n 30 "$TRACKING_LOG" >&2
  echo "[peers] the build of argocd-tracking failed; see $TRACKING_LOG" >&2
  exit 1
fi
ARGOCD_TRACKING=$(tail -n1 "$CACHE/argocd-tracking-bin")
if ! wait "$HELM_PID"; then
  tail -n 30 "$HELM_LOG" >&2
  echo "[peers] the helm build failed; see $HELM_LOG" >&2
  exit 1
fi
HELM=$(tail -n1 "$CACHE/helm-bin")
echo "[peers] helm: $HELM ($(grep -m1 '^\[helm-build\] done' "$HELM_LOG" || echo cached))"
HOOK_IMAGE=$(tail -n1 "$CACHE/hook-image")
HOOK_IMAGE_BASE=$(locked hook-image "$ROOT/scripts/image/node-base.sh" "$(sed -n 's/^ARG NODE_IMAGE=//p' "$ROOT/Dockerfile")")
echo "[peers] the hook's image: $HOOK_IMAGE ($(grep -m1 '^\[image\] done' "$IMAGE_LOG" || echo cached))"
{
  echo "{"
  echo "  \"k8sBinDir\": \"$K8S_DIR\","
  echo "  \"k8sOldestBinDir\": \"$K8S_OLDEST_DIR\","
  echo "  \"argocdHealth\": \"$ARGOCD_HEALTH\","
  echo "  \"argocdTracking\": \"$ARGOCD_TRACKING\","
  echo "  \"fluxKstatus\": \"$FLUX_KSTATUS\","
  echo "  \"helm\": \"$HELM\","
  echo "  \"thirdPartyCrdDir\": \"$CRDS_DIR\","
  echo "  \"prometheusDir\": \"$PROMETHEUS_DIR\","
  echo "  \"node\": {\"binDir\": \"$NODE_DIR\", \"pauseImage\": \"$NODE_DIR/pause.tar\", \"images\": {$(IFS=,; echo "${IMAGES[*]}")}},"
  echo "  \"hookImage\": {\"archive\": \"$HOOK_IMAGE\", \"base\": \"$HOOK_IMAGE_BASE\"},"
  echo "  \"llamaStackVenvs\": {$(IFS=,; echo "${VENVS[*]}")}"
  echo "}"
} > "$PEERS_FILE"
echo "[peers] ready in $(( $(date +%s) - START ))s"
