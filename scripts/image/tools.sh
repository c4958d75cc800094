#!/usr/bin/env bash
# The image builder's tools, from Debian's packages (downloaded and unpacked by
# test/node/debian.sh, never installed), cached under
# ${LLSD_CACHE_DIR:-~/.cache/llsd-hook}/image-tools/<key>/ and printed on stdout:
#   bin/buildah     buildah (bookworm: 1.28), daemonless, through a wrapper that finds its libraries
#   bin/runc        the OCI runtime buildah runs the Dockerfile's RUN steps with (bookworm: 1.1.5)
#   bin/mmdebstrap  builds a Debian root filesystem from packages (the stand-in base, scripts/image/node-base.sh)
# The node's own runc (test/node/build.sh) is built after the Kubernetes build;
# Debian's is here at once, so the image builds beside it.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PACKAGES="buildah golang-github-containers-common libgpgme11 libdevmapper1.02.1 runc mmdebstrap"
LAYOUT=1 # bump when what this script puts in the entry changes
CACHE_ROOT=${LLSD_CACHE_DIR:-$HOME/.cache/llsd-hook}
KEY=$(cat "$0" "$ROOT/test/node/debian.sh" | sha256sum | cut -c1-12)
OUT="$CACHE_ROOT/image-tools/$LAYOUT-$KEY"
if [ -f "$OUT/.complete" ]; then
  echo "$OUT"
  exit 0
fi
echo "[image-tools] unpacking Debian's $PACKAGES into $OUT" >&2
rm -rf "$OUT.tmp"
# shellcheck disable=SC2086 # the list is words
"$ROOT/test/node/debian.sh" "$OUT.tmp" $PACKAGES
D="$OUT.tmp/root"
mkdir -p "$OUT.tmp/bin"
cat > "$OUT.tmp/bin/buildah" <<SH
#!/bin/sh
LD_LIBRARY_PATH="$OUT/root/usr/lib/x86_64-linux-gnu:$OUT/root/lib/x86_64-linux-gnu\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "$OUT/root/usr/bin/buildah" "\$@"
SH
# mmdebstrap runs its helper mmtarfilter from PATH.
cat > "$OUT.tmp/bin/mmdebstrap" <<SH
#!/bin/sh
PATH="$OUT/root/usr/bin:\$PATH" exec "$OUT/root/usr/bin/mmdebstrap" "\$@"
SH
ln -s ../root/usr/sbin/runc "$OUT.tmp/bin/runc"
chmod 0755 "$OUT.tmp/bin/buildah" "$OUT.tmp/bin/mmdebstrap"
rm -rf "$OUT"
mv "$OUT.tmp" "$OUT"
"$OUT/bin/buildah" --version >&2
"$OUT/bin/runc" --version | head -1 >&2
touch "$OUT/.complete"
echo "$OUT"
