#!/usr/bin/env bash
# Builds the hook's image from the repository's Dockerfile, daemonless (buildah,
# from Debian's packages: scripts/image/tools.sh), as an OCI archive named as
# the manifests name it (ghcr.io/llsd-hook/llsd-hook:<package.json version>):
#   scripts/build-image.sh                -> prints the archive's path
#   scripts/build-image.sh --pull-base    the same on the base pulled from its registry
#                                         (what npm run release does; needs the registry)
# Cached in ${LLSD_CACHE_DIR:-~/.cache/llsd-hook}/images/, keyed by the
# Dockerfile, .dockerignore, every file its COPY lines take from the context
# (package.json, the lock file, tsconfig, src/, configs/), the base image, this
# script and the tools. Import it with `ctr -n k8s.io images import ARCHIVE`
# (the index names the image, so no tag step).
#
# The base the Dockerfile names (ARG NODE_IMAGE) is not pulled unless
# --pull-base says so: no container registry is reached where the suite runs,
# so scripts/image/node-base.sh assembles a stand-in under the same reference
# from Debian's packages and the npm registry. With --pull-base the base is
# pulled afresh (the tag may have moved) into images/pulled-<key>.tar.
# The RUN steps run in containers (runc) on the host's network, so `npm ci`
# reaches the registry this machine's npm uses; its registry and CA
# certificates go in as the build secret "npmrc" (never stored in the image).
# Timestamps are fixed (--timestamp 0): the same inputs give the same layers.
# Needs root. Cold: about 3-4 minutes on 2 cores (the base 2 of them); cached: a second.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
log() { echo "[image] $*" >&2; }
START=$(date +%s)
since() { echo "$(($(date +%s) - START))s"; }

PULL_BASE=false
case "${1:-}" in
  --pull-base) PULL_BASE=true ;;
  "") ;;
  *) log "usage: $0 [--pull-base]"; exit 2 ;;
esac

VERSION=$(node -p 'require(process.argv[1]).version' "$ROOT/package.json")
NAME=ghcr.io/llsd-hook/llsd-hook:$VERSION
BASE_REF=$(sed -n 's/^ARG NODE_IMAGE=//p' "$ROOT/Dockerfile")
[ -n "$BASE_REF" ] || { log "the Dockerfile has no ARG NODE_IMAGE=<reference>"; exit 1; }

TOOLS=$("$ROOT/scripts/image/tools.sh")
CACHE_ROOT=${LLSD_CACHE_DIR:-$HOME/.cache/llsd-hook}

# The base from its registry, as an OCI archive under its reference (buildah's
# own storage for the pull, in a mount namespace that ends with it).
pull_base() {
  local out w
  out="$CACHE_ROOT/images/pulled-$(printf '%s' "$BASE_REF" | sha256sum | cut -c1-12).tar"
  mkdir -p "$CACHE_ROOT/images"
  w=$(mktemp -d "$CACHE_ROOT/images/.pull-XXXXXX")
  log "pulling $BASE_REF from its registry"
  TOOLS="$TOOLS" W="$w" REF="$BASE_REF" OUT="$out" unshare --mount --propagation private bash -euo pipefail -c '
    b() { "$TOOLS/bin/buildah" --root "$W/storage" --runroot "$W/run" --storage-driver overlay "$@"; }
    policy=(--signature-policy "$TOOLS/root/etc/containers/policy.json")
    b pull "${policy[@]}" --quiet "docker://$REF" > /dev/null
    b push "${policy[@]}" --quiet "$REF" "oci-archive:$OUT.tmp:$REF"
  ' >&2 || { rm -rf "$w" "$out.tmp"; log "could not pull $BASE_REF"; return 1; }
  rm -rf "$w"
  mv "$out.tmp" "$out"
  echo "$out"
}
if $PULL_BASE; then
  BASE=$(pull_base)
else
  BASE=$("$ROOT/scripts/image/node-base.sh" "$BASE_REF")
fi

# The build context: what the Dockerfile's COPY lines (those not --from a stage) name.
mapfile -t SOURCES < <(awk 'toupper($1) == "COPY" && $2 !~ /^--from=/ {
  n = 0; for (i = 2; i <= NF; i++) if ($i !~ /^--/) a[++n] = $i
  for (i = 1; i < n; i++) print a[i] }' "$ROOT/Dockerfile" | sort -u)
[ "${#SOURCES[@]}" -gt 0 ] || { log "no COPY sources found in the Dockerfile"; exit 1; }
FILES=$(cd "$ROOT" && find Dockerfile .dockerignore "${SOURCES[@]}" -type f | LC_ALL=C sort)
BASE_DIGEST=$(tar -xOf "$BASE" index.json | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).manifests[0].digest')
KEY=$( (cd "$ROOT" && echo "$FILES" | xargs sha256sum; echo "$BASE_DIGEST"; cat "$0"; echo "$TOOLS"; "$TOOLS/bin/buildah" --version) |
  sha256sum | cut -c1-12)
OUT="$CACHE_ROOT/images/llsd-hook-$VERSION-$KEY.tar"
if [ -f "$OUT" ]; then
  echo "$OUT"
  exit 0
fi
mkdir -p "$CACHE_ROOT/images"
WORK=$(mktemp -d "$CACHE_ROOT/images/.build-XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM
log "building $NAME from the Dockerfile on $BASE_REF (the stand-in $BASE) into $OUT"

mkdir -p "$WORK/context"
(cd "$ROOT" && echo "$FILES" | xargs cp --parents -t "$WORK/context")

# The npm configuration RUN npm ci needs here: this machine's registry, and the
# CA certificates its npm trusts (npm's cafile, else Node.js's own list plus
# NODE_EXTRA_CA_CERTS), as `ca[]` entries: npm's `ca` replaces Node.js's list.
umask 077
node -e '
  const { readFileSync } = require("fs");
  const { rootCertificates } = require("tls");
  const [registry, cafile, extra] = process.argv.slice(1);
  const pems = (file) => readFileSync(file, "utf8").match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? [];
  const cas = cafile ? pems(cafile) : extra ? [...rootCertificates, ...pems(extra)] : [];
  const lines = [`registry=${registry}`, "fund=false", "audit=false", "update-notifier=false"];
  for (const ca of cas) lines.push(`ca[]=${JSON.stringify(ca)}`);
  process.stdout.write(lines.join("\n") + "\n");
' "$(npm config get registry)" "$(npm config get cafile | grep -v -x -e null -e undefined || true)" \
  "${NODE_EXTRA_CA_CERTS:-}" > "$WORK/npmrc"
umask 022

# buildah's storage is this build's own; its mounts live in a mount namespace
# that ends with the build.
STORE=(--root "$WORK/storage" --runroot "$WORK/run" --storage-driver overlay)
POLICY=(--signature-policy "$TOOLS/root/etc/containers/policy.json")
export TOOLS BASE BASE_REF NAME WORK
export STORE_ARGS="${STORE[*]}" POLICY_ARGS="${POLICY[*]}"
log "buildah: the base, then the Dockerfile's two stages ($(since))"
unshare --mount --propagation private bash -euo pipefail -c '
  b() { "$TOOLS/bin/buildah" $STORE_ARGS "$@"; }
  id=$(b pull $POLICY_ARGS --quiet "oci-archive:$BASE" | tail -n1)
  b tag "$id" "$BASE_REF"
  b bud $POLICY_ARGS --pull=never --network host --runtime "$TOOLS/bin/runc" \
    --secret id=npmrc,src="$WORK/npmrc" --timestamp 0 --identity-label=false \
    --tag "$NAME" --file "$WORK/context/Dockerfile" "$WORK/context" >&2
  b push $POLICY_ARGS --quiet "$NAME" "oci:$WORK/oci:$NAME" >&2
' >&2

# The archive: the layout buildah wrote, its index naming the image for
# containerd (io.containerd.image.name) with its platform, tarred with fixed
# owners and times.
node -e '
  const fs = require("fs");
  const [dir, name] = process.argv.slice(1);
  const file = `${dir}/index.json`;
  const index = JSON.parse(fs.readFileSync(file, "utf8"));
  if (index.manifests.length !== 1) throw new Error(`${file}: ${index.manifests.length} manifests`);
  const m = index.manifests[0];
  const blob = (d) => JSON.parse(fs.readFileSync(`${dir}/blobs/${d.replace(":", "/")}`, "utf8"));
  const { architecture, os } = blob(blob(m.digest).config.digest);
  m.platform = { architecture, os };
  m.annotations = { ...m.annotations, "io.containerd.image.name": name, "org.opencontainers.image.ref.name": name };
  fs.writeFileSync(file, JSON.stringify(index));
' "$WORK/oci" "$NAME"
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$WORK/oci" -cf "$OUT.tmp" oci-layout index.json blobs
mv "$OUT.tmp" "$OUT"
log "done in $(since): $(du -sh "$OUT" | cut -f1) (compressed layers)"
echo "$OUT"
