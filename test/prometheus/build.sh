#!/usr/bin/env bash
# Builds Prometheus's own tools from the committed go.mod/go.sum through the Go
# module proxy, into a cache outside the repo, keyed by the module's version,
# these sources and the Go version:
#   ${LLSD_CACHE_DIR:-~/.cache/llsd-hook}/prometheus/<version>-<hash>-<go version>/
#     promtool       `promtool check rules`, `promtool test rules` (test/install/alerts.test.ts)
#     prometheus     the server that scrapes the hook on the real node (test/node/pods.test.ts)
#     promql-names   main.go: Prometheus's PromQL parser over a list of expressions
# Prints that directory on stdout; a complete one is reused. Built as upstream
# builds them (netgo, the version in the binary) without the embedded web UI
# (builtinassets: its assets are not in the module) and without service
# discovery other than static and file (remove_all_sd: the tests name their
# targets). Cold, with empty Go module and build caches: 477 CPU-seconds (431
# user, 46 system; 33.5 minutes of wall time on a 2-core machine with a load
# average near 28, beside other builds), 108 MB of binaries.
set -euo pipefail
cd "$(dirname "$0")"
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=readonly
MODULE=github.com/prometheus/prometheus
MV=$(sed -n "s|^require $MODULE \(v[^ ]*\)$|\1|p" go.mod)
KEY=$(cat go.mod go.sum main.go build.sh | sha256sum | cut -c1-12)
OUT="${LLSD_CACHE_DIR:-$HOME/.cache/llsd-hook}/prometheus/$MV-$KEY-$(go env GOVERSION)"
log() { echo "[prometheus-build] $*" >&2; }
if [ -f "$OUT/.complete" ]; then
  echo "$OUT"
  exit 0
fi
START=$(date +%s)
# v0.316.0 is Prometheus 3.16.0 (the module's VERSION file).
VERSION=$(cat "$(go mod download -json "$MODULE@$MV" | sed -n 's/^\s*"Dir": "\(.*\)",\{0,1\}$/\1/p')/VERSION")
log "building Prometheus $VERSION ($MODULE $MV) with $(go env GOVERSION) into $OUT"
TAGS=netgo,remove_all_sd
LDFLAGS="-s -w -X github.com/prometheus/common/version.Version=$VERSION -X github.com/prometheus/common/version.Branch=module -X github.com/prometheus/common/version.Revision=$MV"
mkdir -p "$OUT.tmp"
for b in promtool prometheus; do
  log "compiling $b ($(( $(date +%s) - START ))s so far)"
  go build -trimpath -tags "$TAGS" -ldflags "$LDFLAGS" -o "$OUT.tmp/$b" "$MODULE/cmd/$b"
  "$OUT.tmp/$b" --version 2>&1 | grep -q "version $VERSION" || { log "$b does not run"; exit 1; }
done
log "compiling promql-names ($(( $(date +%s) - START ))s so far)"
go build -trimpath -ldflags "-s -w" -o "$OUT.tmp/promql-names" .
echo '["up"]' | "$OUT.tmp/promql-names" | grep -q '"metrics":\["up"\]' || { log "promql-names does not run"; exit 1; }
rm -rf "$OUT"; mv "$OUT.tmp" "$OUT"; touch "$OUT/.complete"
log "done in $(( $(date +%s) - START ))s: $(du -sh "$OUT" | cut -f1)"
echo "$OUT"
