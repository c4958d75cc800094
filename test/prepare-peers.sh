#!/usr/bin/env bash
# Prepares the real peers the test suite runs against, reusing the cache when
# it is complete (npm run peers; part of npm test):
#   - kube-apiserver, kube-controller-manager, etcd and kubectl built from
#     source through the Go module proxy (test/k8s/build.sh; cold: ~25 min on 2 cores)
#   - argocd-health, Argo CD's Lua health-check runner (test/argocd/build.sh; seconds)
#   - the third-party CRDs the HTTPS overlay uses (scripts/third-party-crds.sh; seconds)
#   - one Python venv per supported Llama Stack release (test/llama-stack/venv.sh;
#     cold: ~3 min each)
# The Kubernetes build runs in the background while the venvs are prepared.
# Writes the locations to ${LLSD_CACHE_DIR:-~/.cache/llsd-hook}/peers.json for the tests.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${LLSD_CACHE_DIR:-$HOME/.cache/llsd-hook}
mkdir -p "$CACHE"
START=$(date +%s)
echo "[peers] preparing real peers (cache: $CACHE)"

K8S_LOG="$CACHE/k8s-build.log"
"$ROOT/test/k8s/build.sh" > "$CACHE/k8s-bin-dir" 2> >(tee "$K8S_LOG" >&2) &
K8S_PID=$!

ARGOCD_HEALTH=$("$ROOT/test/argocd/build.sh")
CRDS_DIR=$("$ROOT/scripts/third-party-crds.sh")

VENVS=()
for release in $(node -e 'console.log(require(process.argv[1]).releases.join(" "))' "$ROOT/configs/releases.json"); do
  dir=$("$ROOT/test/llama-stack/venv.sh" "$release")
  VENVS+=("\"$release\": \"$dir\"")
done

if ! wait "$K8S_PID"; then
  echo "[peers] the Kubernetes build failed; see $K8S_LOG" >&2
  exit 1
fi
K8S_DIR=$(tail -n1 "$CACHE/k8s-bin-dir")
{
  echo "{"
  echo "  \"k8sBinDir\": \"$K8S_DIR\","
  echo "  \"argocdHealth\": \"$ARGOCD_HEALTH\","
  echo "  \"thirdPartyCrdDir\": \"$CRDS_DIR\","
  echo "  \"llamaStackVenvs\": {$(IFS=,; echo "${VENVS[*]}")}"
  echo "}"
} > "$CACHE/peers.json"
echo "[peers] ready in $(( $(date +%s) - START ))s"
