#!/usr/bin/env bash
# Builds a stand-in for the upstream server image of one release, without a
# registry or a daemon, as an OCI archive named exactly as
# configs/distributions.json pins it (docker.io/ogxai/distribution-starter:<release>),
# so the Deployment the hook generates runs unmodified:
#   test/node/image.sh RELEASE   -> prints the archive's path
# Cached in ${LLSD_CACHE_DIR:-~/.cache/llsd-hook}/images/, keyed by the release's
# lock file, this script, the entrypoint and the Python used.
#
# What it reproduces (sources in test/node/README.md, "The image contract"):
#   - the base: python:3.12's /usr/local (pyenv's 3.12 copied there) on the
#     host's shared libraries, busybox for /bin/sh; a stand-in for python:3.12-slim;
#   - the USER and ENV HOME of the release's own containers/Containerfile, read
#     from its source distribution on PyPI (1.4.1 and 1.5.0: USER 1001, HOME=/;
#     ogx PR #6319), WORKDIR /app; /app, /.ogx and /.cache group-writable and
#     owned by that user, group root (mkdir, chmod -R g+rw, chown -R 1001:0);
#   - ENV TIKTOKEN_CACHE_DIR=/.cache/tiktoken holding cl100k_base, DISTRO_NAME=starter, RUN_CONFIG_PATH
#     empty; the entrypoint's fallback to DISTRO_NAME and --insecure (1.2.1 on);
#   - the package from the same lock file as the test venvs
#     (test/llama-stack/requirements/<release>.txt), and the starter
#     distribution's provider dependencies (`ogx stack list-deps starter`),
#     with the release's own pins, except torch and sentence-transformers (CPU wheels are
#     not on PyPI; see the README for what that leaves out), and opentelemetry-distro
#     with its OTLP exporter (the Containerfile's opentelemetry-bootstrap step,
#     which downloads instrumentations, is left out).
# Needs root (files owned by root in the layer) and the host's pyenv Python 3.12.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
RELEASE=${1:?usage: image.sh RELEASE}
DISTRO=starter
LITELLM=1.110.2 # only for its copy of tiktoken's cl100k_base cache file
PYTHON_VERSION=3.12
log() { echo "[node-image] $*" >&2; }
START=$(date +%s)

case "$RELEASE" in
  0.*) log "release $RELEASE: no named source for its image's Containerfile; not built"; exit 1 ;;
esac
LOCK="$ROOT/test/llama-stack/requirements/$RELEASE.txt"
[ -f "$LOCK" ] || { log "no lock file $LOCK"; exit 1; }
PY=""
for c in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$PYTHON_VERSION".*/bin/python"$PYTHON_VERSION"; do [ -x "$c" ] && PY=$c; done
[ -n "$PY" ] || { log "Python $PYTHON_VERSION not found under ${PYENV_ROOT:-$HOME/.pyenv}/versions"; exit 1; }
PY_PREFIX=$(cd "$(dirname "$PY")/.." && pwd)
PY_FULL=$("$PY" -c 'import platform; print(platform.python_version())')

KEY=$(cat "$LOCK" "$0" "$HERE/image/ogx-entrypoint.sh" "$HERE/oci.ts" "$HERE/debian.sh" <(echo "$PY_FULL") | sha256sum | cut -c1-12)
CACHE_ROOT=${LLSD_CACHE_DIR:-$HOME/.cache/llsd-hook}
OUT="$CACHE_ROOT/images/ogx-$DISTRO-$RELEASE-$KEY.tar"
if [ -f "$OUT" ]; then echo "$OUT"; exit 0; fi
mkdir -p "$CACHE_ROOT/images"

# Releases from 1.2.1 on pass --insecure (ogx PR #6288, merged 2026-07-13; 1.2.1 tagged after it).
INSECURE=--insecure
case "$RELEASE" in 1.0.* | 1.1.* | 1.2.0) INSECURE= ;; esac

WORK=$(mktemp -d "$CACHE_ROOT/images/.build-XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM
R="$WORK/rootfs"
mkdir -p "$R"/{bin,etc,lib64,usr/local,app,tmp,.cache/tiktoken,.ogx,root}
chmod 1777 "$R/tmp"
log "building $DISTRO $RELEASE (Python $PY_FULL) into $OUT"

# 1. python:3.12's /usr/local: the interpreter and standard library, without tests and tools a server never uses.
tar -C "$PY_PREFIX" \
  --exclude='lib/python3.*/test' --exclude='lib/python3.*/idlelib' --exclude='lib/python3.*/tkinter' \
  --exclude='lib/python3.*/turtledemo' --exclude='lib/python3.*/ensurepip' --exclude='*.a' \
  --exclude='lib/python3.*/site-packages/*' \
  -cf - bin lib include | tar -C "$R/usr/local" -xf -
ln -sf python3 "$R/usr/local/bin/python"

# 2. The package and its dependencies, from the lock; then the distribution's providers' dependencies.
log "installing ogx==$RELEASE from its lock ($(($(date +%s) - START))s)"
PIP=("$PY" -m pip install -q --root "$R" --prefix /usr/local --ignore-installed --no-compile
  --no-warn-script-location --disable-pip-version-check)
"${PIP[@]}" --no-deps -r "$LOCK"
VENV=$("$ROOT/test/llama-stack/venv.sh" "$RELEASE")
# The first line, read to the end (head would close the pipe early: ogx then
# dies of SIGPIPE, and with pipefail the build stopped without a word).
DEPS=$(HOME="$WORK/home" "$VENV/bin/ogx" stack list-deps "$DISTRO" 2>"$WORK/list-deps.err" | sed -n 1p) ||
  { log "ogx stack list-deps $DISTRO failed: $(tail -5 "$WORK/list-deps.err")"; exit 1; }
[ -n "$DEPS" ] || { log "ogx stack list-deps $DISTRO printed nothing"; exit 1; }
# shellcheck disable=SC2086 # the list is words
set -- $DEPS
KEEP=()
for dep in "$@"; do
  case "$dep" in torch* | sentence-transformers* | --*) ;; *) KEEP+=("$dep") ;; esac
done
log "installing the $DISTRO distribution's ${#KEEP[@]} provider dependencies ($(($(date +%s) - START))s)"
# As the upstream Containerfile does (pip install of what list-deps prints),
# resolved freely but for the release itself: the lock's pins conflict with
# some of them (weaviate-client wants another requests).
grep -E '^(ogx|ogx-api)==' "$LOCK" > "$WORK/release.txt"
"${PIP[@]}" -c "$WORK/release.txt" "${KEEP[@]}" opentelemetry-distro opentelemetry-exporter-otlp
# pip wrote the host interpreter into the scripts' first line; the image's is /usr/local/bin/python3.
grep -rlI "^#!$PY" "$R/usr/local/bin" | xargs -r sed -i "1s|^#!.*python.*|#!/usr/local/bin/python3|"
# No bytecode for the packages: the Containerfile installs with uv, which
# compiles none, and sets PYTHONDONTWRITEBYTECODE=1 (the standard library's is kept).

# The Containerfile caches tiktoken's cl100k_base at build (the vector stores
# load it at start and fail without it). Its download host is not reachable
# here; litellm's wheel ships the same cache file under the same name (the
# sha1 of the encoding's URL), which tiktoken checks by its sha256 on load.
log "caching tiktoken's cl100k_base ($(($(date +%s) - START))s)"
"$PY" -m pip download -q --no-deps --disable-pip-version-check -d "$WORK/litellm" "litellm==$LITELLM"
"$PY" - "$WORK"/litellm/litellm-*.whl "$R/.cache/tiktoken" <<'PY'
import sys, zipfile
name = "9b5ad71b2ce5302211f9c61530b329a4922fc6a4"  # sha1 of the cl100k_base URL
with zipfile.ZipFile(sys.argv[1]) as z:
    data = z.read(f"litellm/litellm_core_utils/tokenizers/{name}")
open(f"{sys.argv[2]}/{name}", "wb").write(data)
PY

# 3. The shared libraries every ELF file needs, from the host (the stand-in's Debian base).
log "copying shared libraries ($(($(date +%s) - START))s)"
find "$R/usr/local" -type f \( -name '*.so*' -o -path "$R/usr/local/bin/*" \) |
  while read -r elf; do
    [ "$(head -c4 "$elf" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
    LD_LIBRARY_PATH="$R/usr/local/lib" ldd "$elf" 2>/dev/null || true
  done |
  grep -oE '(/usr)?/lib[^ ]*\.so[^ ]*' | grep -v "^$R" | sort -u |
  while read -r lib; do
    [ -e "$lib" ] || continue
    mkdir -p "$R$(dirname "$lib")"
    cp -L "$lib" "$R$lib"
  done
cp -L /lib64/ld-linux-x86-64.so.2 "$R/lib64/"
mkdir -p "$R/etc/ld.so.conf.d"
echo /usr/local/lib > "$R/etc/ld.so.conf.d/usr-local.conf"
echo 'include /etc/ld.so.conf.d/*.conf' > "$R/etc/ld.so.conf"
ldconfig -r "$R"

# 4. What a Debian base gives: a shell and core tools, users, CA certificates, name resolution.
"$HERE/debian.sh" "$WORK/debian" busybox-static
cp "$WORK/debian/root/bin/busybox" "$R/bin/busybox"
for applet in $("$R/bin/busybox" --list); do
  [ -e "$R/bin/$applet" ] || ln -s busybox "$R/bin/$applet"
done
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' > "$R/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$R/etc/group"
mkdir -p "$R/etc/ssl/certs"
[ -f /etc/ssl/certs/ca-certificates.crt ] && cp /etc/ssl/certs/ca-certificates.crt "$R/etc/ssl/certs/"
printf 'hosts: files dns\n' > "$R/etc/nsswitch.conf"
: > "$R/etc/hosts" && : > "$R/etc/resolv.conf"

# 5. The Containerfile's own steps: entrypoint, directories, modes, owners and user,
#    these two read from the release's Containerfile (its source distribution on PyPI).
log "reading the $RELEASE Containerfile from its source distribution ($(($(date +%s) - START))s)"
"$VENV/bin/python" -m pip download -q --no-deps --no-binary :all: --disable-pip-version-check \
  -d "$WORK/sdist" "ogx==$RELEASE"
tar -xzf "$WORK/sdist/ogx-$RELEASE.tar.gz" -C "$WORK/sdist" "ogx-$RELEASE/containers/Containerfile"
CONTAINERFILE="$WORK/sdist/ogx-$RELEASE/containers/Containerfile"
IMAGE_USER=$(sed -n 's/^USER \([0-9][0-9]*\)[[:space:]]*$/\1/p' "$CONTAINERFILE" | tail -n1)
IMAGE_HOME=$(sed -n 's/^ENV HOME=\([^[:space:]]*\)[[:space:]]*$/\1/p' "$CONTAINERFILE" | tail -n1)
grep -q '^USER ' "$CONTAINERFILE" && [ -z "$IMAGE_USER" ] &&
  { log "the $RELEASE Containerfile names a USER that is not a uid: $(grep '^USER ' "$CONTAINERFILE")"; exit 1; }
log "  USER ${IMAGE_USER:-(none)}, HOME ${IMAGE_HOME:-(unset)}"
sed "s|@INSECURE@|$INSECURE|g" "$HERE/image/ogx-entrypoint.sh" > "$R/usr/local/bin/ogx-entrypoint.sh"
chmod 0755 "$R/usr/local/bin/ogx-entrypoint.sh"
chmod -R g+rw "$R/app" "$R/.ogx" "$R/.cache"
[ -z "$IMAGE_USER" ] || chown -R "$IMAGE_USER:0" "$R/app" "$R/.ogx" "$R/.cache"

HOME_ENV=""
[ -z "$IMAGE_HOME" ] || HOME_ENV=", \"HOME=$IMAGE_HOME\""
cat > "$WORK/config.json" <<JSON
{
  "Entrypoint": ["/usr/local/bin/ogx-entrypoint.sh"],
  "User": "$IMAGE_USER",
  "WorkingDir": "/app",
  "Env": [
    "PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin",
    "LANG=C.UTF-8",
    "PYTHONDONTWRITEBYTECODE=1",
    "PIP_DISABLE_PIP_VERSION_CHECK=1",
    "PYTHON_VERSION=$PY_FULL",
    "CLI_NAME=ogx",
    "DISTRO_NAME=$DISTRO",
    "RUN_CONFIG_PATH=",
    "TIKTOKEN_CACHE_DIR=/.cache/tiktoken"$HOME_ENV
  ],
  "Labels": {
    "org.opencontainers.image.title": "llsd-hook test stand-in for docker.io/ogxai/distribution-$DISTRO:$RELEASE",
    "org.opencontainers.image.version": "$RELEASE"
  }
}
JSON
log "writing the OCI archive ($(($(date +%s) - START))s; rootfs $(du -sh "$R" | cut -f1))"
(cd "$ROOT" && node --import tsx test/node/oci.ts "$R" "docker.io/ogxai/distribution-$DISTRO:$RELEASE" "$OUT" "$WORK/config.json" >/dev/null)
log "done in $(($(date +%s) - START))s: $(du -sh "$OUT" | cut -f1)"
echo "$OUT"
