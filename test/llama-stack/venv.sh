#!/usr/bin/env bash
# Prepares (or reuses) the Python venv holding the published llama-stack
# package of one release, installed from the committed lock file.
#   test/llama-stack/venv.sh 0.7.3            -> prints the venv directory
#   test/llama-stack/venv.sh --relock 0.7.3   -> rewrites requirements/0.7.3.txt
# Venvs live outside the repo: ${LLSD_CACHE_DIR:-~/.cache/llsd-hook}/venvs/,
# keyed by release, Python version and the lock file's hash.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON_VERSION=${LLSD_PYTHON_VERSION:-3.12}
log() { echo "[llama-stack-venv] $*" >&2; }

find_python() {
  local candidate
  for candidate in "$HOME"/.pyenv/versions/"$PYTHON_VERSION".*/bin/python "$(command -v "python$PYTHON_VERSION" || true)"; do
    if [ -x "$candidate" ]; then echo "$candidate"; return 0; fi
  done
  log "Python $PYTHON_VERSION not found (looked in ~/.pyenv/versions and PATH); llama-stack >= 0.5 needs Python >= 3.12"
  return 1
}

relock() {
  local release=$1 py tmp
  py=$(find_python)
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  "$py" -m venv "$tmp/venv"
  # llama-stack does not pin llama-stack-api; pin the release's own.
  "$tmp/venv/bin/pip" install -q -c "$HERE/requirements/constraints.txt" "llama-stack==$release" "llama-stack-api==$release"
  {
    echo "# Pinned environment for llama-stack==$release (pip freeze of a fresh install, Python $PYTHON_VERSION)."
    echo "# llama-stack does not pin llama-stack-api, so the release's own llama-stack-api==$release is pinned too."
    echo "# Regenerate: test/llama-stack/venv.sh --relock $release"
    echo "# mcp is held below 2 (requirements/constraints.txt): llama-stack imports mcp.McpError, which mcp 2 renamed."
    "$tmp/venv/bin/pip" freeze --all | grep -v -e '^pip==' -e '^setuptools=='
  } > "$HERE/requirements/$release.txt"
  log "wrote requirements/$release.txt"
}

ensure() {
  local release=$1 lock py hash dir start
  lock="$HERE/requirements/$release.txt"
  [ -f "$lock" ] || { log "no lock file for release $release ($lock)"; return 1; }
  hash=$(sha256sum "$lock" | cut -c1-12)
  dir="${LLSD_CACHE_DIR:-$HOME/.cache/llsd-hook}/venvs/llama-stack-$release-py$PYTHON_VERSION-$hash"
  if [ -f "$dir/.complete" ]; then echo "$dir"; return 0; fi
  py=$(find_python)
  start=$(date +%s)
  log "creating venv for llama-stack $release at $dir (cold: a few minutes)"
  rm -rf "$dir"
  "$py" -m venv "$dir"
  "$dir/bin/pip" install -q --no-deps -r "$lock"
  "$dir/bin/pip" check >&2
  touch "$dir/.complete"
  log "llama-stack $release ready in $(( $(date +%s) - start ))s ($(du -sh "$dir" | cut -f1))"
  echo "$dir"
}

if [ "${1:-}" = "--relock" ]; then relock "${2:?release}"; else ensure "${1:?usage: venv.sh [--relock] RELEASE}"; fi
