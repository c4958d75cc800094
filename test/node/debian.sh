#!/usr/bin/env bash
# Downloads Debian packages and unpacks them under DIR, never installing them
# (the node's builds need libseccomp's static library and busybox's binary):
#   test/node/debian.sh DIR PKG...   -> files under DIR/root/
# The package lists are refreshed (apt-get update) once if a download fails.
set -euo pipefail
DIR=${1:?usage: debian.sh DIR PKG...}
shift
mkdir -p "$DIR/debs" "$DIR/root"
log() { echo "[debian] $*" >&2; }
if ! (cd "$DIR/debs" && apt-get download "$@" >/dev/null 2>&1); then
  log "apt-get download $* failed; refreshing the package lists (apt-get update) once"
  apt-get update -qq >&2
  (cd "$DIR/debs" && apt-get download "$@" >&2)
fi
for deb in "$DIR"/debs/*.deb; do dpkg-deb -x "$deb" "$DIR/root"; done
rm -rf "$DIR/debs"
