#!/usr/bin/env bash
# Prepares (or reuses) the Python venv holding the published package of one
# release, installed from the committed lock file. Releases before 0.8 are the
# `llama-stack` package (+ `llama-stack-api`); 0.8 and later are its renamed
# successor `ogx` (+ `ogx-api`).
#   test/llama-stack/venv.sh 0.7.3            -> prints the venv directory
#   test/llama-stack/venv.sh --relock 0.7.3   -> rewrites requirements/0.7.3.txt
# Venvs live outside the repo: ${LLSD_CACHE_DIR:-~/.cache/llsd-hook}/venvs/,
# keyed by package, release, Python version and the lock file's hash
# (llama-stack-0.7.3-py3.12-<hash>, ogx-1.5.0-py3.12-<hash>).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../../scripts/cache-lock.sh"
PYTHON_VERSION=${LLSD_PYTHON_VERSION:-3.12}
log() { echo "[llama-stack-venv] $*" >&2; }

# The PyPI package that publishes a release: llama-stack up to 0.7.x, ogx from 0.8.0 on.
package_of() {
  if [[ "$1" =~ ^0\.[0-7](\.|$) ]]; then echo llama-stack; else echo ogx; fi
}

find_python() {
  local candidate
  for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$PYTHON_VERSION".*/bin/python "$(command -v "python$PYTHON_VERSION" || true)"; do
    if [ -x "$candidate" ]; then echo "$candidate"; return 0; fi
  done
  log "Python $PYTHON_VERSION not found (looked in ${PYENV_ROOT:-$HOME/.pyenv}/versions and PATH); llama-stack >= 0.5 needs Python >= 3.12"
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

# ogx: no constraints.txt. Its mcp<2 hold was for llama-stack's `mcp.McpError`;
# each ogx release declares the mcp it imports (1.4.1: mcp<2 with McpError;
# 1.5.0: mcp>=2 with the renamed MCPError), so the hold would break 1.5.0.
relock_ogx() {
  local release=$1 py tmp mcp mcp_import
  py=$(find_python)
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  "$py" -m venv "$tmp/venv"
  # ogx does not pin ogx-api; pin the release's own.
  "$tmp/venv/bin/pip" install -q "ogx==$release" "ogx-api==$release"
  mcp=$("$tmp/venv/bin/python" -c 'import importlib.metadata as m; print(next(r for r in m.requires("ogx") if r.startswith("mcp")))')
  mcp_import=$(grep -m1 -ho '^from mcp import .*' "$tmp"/venv/lib/python*/site-packages/ogx/providers/utils/tools/mcp.py)
  {
    echo "# Pinned environment for ogx==$release (pip freeze of a fresh install, Python $PYTHON_VERSION)."
    echo "# ogx (Llama Stack's successor package) does not pin ogx-api, so the release's own ogx-api==$release is pinned too."
    echo "# Regenerate: test/llama-stack/venv.sh --relock $release"
    echo "# requirements/constraints.txt (mcp<2, for llama-stack's mcp.McpError) is not applied: ogx $release declares"
    echo "# '$mcp' itself and its ogx/providers/utils/tools/mcp.py does '$mcp_import'."
    "$tmp/venv/bin/pip" freeze --all | grep -v -e '^pip==' -e '^setuptools=='
  } > "$HERE/requirements/$release.txt"
  log "wrote requirements/$release.txt"
}

ensure() {
  local release=$1 lock py hash dir start package
  package=$(package_of "$release")
  lock="$HERE/requirements/$release.txt"
  [ -f "$lock" ] || { log "no lock file for release $release ($lock)"; return 1; }
  hash=$(sha256sum "$lock" | cut -c1-12)
  dir="${LLSD_CACHE_DIR:-$HOME/.cache/llsd-hook}/venvs/$package-$release-py$PYTHON_VERSION-$hash"
  if [ -f "$dir/.complete" ]; then echo "$dir"; return 0; fi
  # One build per venv: a second waits, then finds this one's complete.
  cache_lock "$dir"
  if [ -f "$dir/.complete" ]; then echo "$dir"; return 0; fi
  py=$(find_python)
  start=$(date +%s)
  log "creating venv for $package $release at $dir (cold: a few minutes)"
  rm -rf "$dir"
  "$py" -m venv "$dir"
  "$dir/bin/pip" install -q --no-deps -r "$lock"
  "$dir/bin/pip" check >&2
  touch "$dir/.complete"
  log "$package $release ready in $(( $(date +%s) - start ))s ($(du -sh "$dir" | cut -f1))"
  echo "$dir"
}

if [ "${1:-}" = "--relock" ]; then
  if [ "$(package_of "${2:?release}")" = ogx ]; then relock_ogx "$2"; else relock "$2"; fi
else
  ensure "${1:?usage: venv.sh [--relock] RELEASE}"
fi
