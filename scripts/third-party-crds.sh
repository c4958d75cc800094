#!/usr/bin/env bash
# Extracts the third-party CRDs the HTTPS overlay (examples/https) uses from
# their published Go modules through the Go module proxy, checked against the
# pinned module hash, into a cache outside the repo (they are about 380 KB and
# regenerated upstream, so they are not committed):
#   ${LLSD_CACHE_DIR:-~/.cache/llsd-hook}/crds/<hash of the list below>/
# Prints that directory on stdout; a complete one is reused. Part of
# test/prepare-peers.sh; test/k8s/install.test.ts installs them before it
# applies the overlay.
#
# cert-manager: Issuer and Certificate (cert-manager.io/v1), from deploy/crds,
# the controller-gen output its Helm chart is built from. prometheus-operator:
# ServiceMonitor (monitoring.coreos.com/v1), from example/prometheus-operator-crd,
# for the ServiceMonitor children of manifests/components/servicemonitor
# (test/k8s/servicemonitor.test.ts), and PrometheusRule, for the alerts of
# manifests/components/hook-monitoring (test/install/alerts.test.ts). Metacontroller's
# CompositeController CRD has no published Go module (its module is named
# "metacontroller"), so the test stands in for it; test/unit/install checks
# the CompositeController's fields against Metacontroller's schema instead.
#
# In gitops/, the GitOps tools' own kinds that docs/operations/gitops.md uses
# (test/k8s/gitops.test.ts applies the page's YAML): Argo CD's Application
# (manifests/crds of Argo CD v3.5.7, the newest the suite's Go 1.26 builds),
# Flux's Kustomization and GitRepository (config/crd/bases of kustomize-controller
# and source-controller v1.9.6, Flux 2.9).
set -euo pipefail
# module@version, its go.sum hash, the files to take from it.
CRDS=(
  "github.com/cert-manager/cert-manager@v1.21.2 h1:UWgoYM+KLNtRlqmoWOKjKBOBUPVHeepQ6/ac3ERJW68= deploy/crds/cert-manager.io_issuers.yaml deploy/crds/cert-manager.io_certificates.yaml"
  "github.com/prometheus-operator/prometheus-operator@v0.85.0 h1:M5xLCLEoaW2IJfnuCwFzzpL+jSVQu3KGT84Pye+fW8s= example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml"
)
GITOPS_CRDS=(
  "github.com/argoproj/argo-cd/v3@v3.5.7 h1:Xm1BF+I5OgDKUG3SDK49vn2/Y5AMyaNVko+/JT08gj0= manifests/crds/application-crd.yaml"
  "github.com/fluxcd/kustomize-controller@v1.9.6 h1:XB+G3A0mky0j5uVHZWv4oSlS2RvZBoNIUhstIvY0JKE= config/crd/bases/kustomize.toolkit.fluxcd.io_kustomizations.yaml"
  "github.com/fluxcd/source-controller@v1.9.6 h1:nG534/bI6nVpyHra7ONAk6xDB3xPsVT+EOLHZHXPrrc= config/crd/bases/source.toolkit.fluxcd.io_gitrepositories.yaml"
)
KEY=$(printf '%s\n' "${CRDS[@]}" gitops "${GITOPS_CRDS[@]}" | sha256sum | cut -c1-12)
OUT="${LLSD_CACHE_DIR:-$HOME/.cache/llsd-hook}/crds/$KEY"
source "$(dirname "$0")/cache-lock.sh"
cache_lock "$OUT"
if [ -f "$OUT/.complete" ]; then
  echo "$OUT"
  exit 0
fi
export GOTOOLCHAIN=local GOFLAGS=-mod=mod
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/out/gitops"
# take DEST ENTRY: the files of one module@version, checked against its hash, into DEST.
take() {
  local dest=$1 module sum files info got dir
  read -r module sum files <<<"$2"
  info=$(cd "$WORK" && go mod download -json "$module")
  got=$(sed -n 's/^\s*"Sum": "\(.*\)",\{0,1\}$/\1/p' <<<"$info")
  dir=$(sed -n 's/^\s*"Dir": "\(.*\)",\{0,1\}$/\1/p' <<<"$info")
  if [ "$got" != "$sum" ]; then
    echo "[crds] $module: hash $got, expected $sum" >&2
    exit 1
  fi
  for f in $files; do cp "$dir/$f" "$dest/$(basename "$f")"; done
  echo "[crds] $module: $files" >&2
}
for entry in "${CRDS[@]}"; do take "$WORK/out" "$entry"; done
for entry in "${GITOPS_CRDS[@]}"; do take "$WORK/out/gitops" "$entry"; done
chmod -R u+w "$WORK/out"
rm -rf "$OUT"
mv "$WORK/out" "$OUT"
touch "$OUT/.complete"
echo "$OUT"
