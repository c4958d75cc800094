#!/usr/bin/env bash
# Regenerates configs/<release>/ from the published package of each supported
# release (npm run configs:update): llama-stack up to 0.7.x, ogx from 0.8 on
# (test/llama-stack/venv.sh picks the package). Byte-for-byte reproducible: the
# extraction runs with a scrubbed environment, and the venvs come from the
# committed lock files in test/llama-stack/requirements/.
#   scripts/configs-update.sh [OUT_ROOT [RELEASE...]]
#     OUT_ROOT  default: configs/
#     RELEASE   default: every release in configs/releases.json
#   e.g. scripts/configs-update.sh .scratch/ogx/configs 1.5.0 1.4.1
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT_ROOT=${1:-$ROOT/configs}
if [ $# -gt 1 ]; then
  releases=("${@:2}")
else
  read -r -a releases < <(node -e 'console.log(require(process.argv[1]).releases.join(" "))' "$ROOT/configs/releases.json")
fi
for release in "${releases[@]}"; do
  # A release names a directory that is removed and rewritten: only X.Y.Z.
  if ! [[ $release =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
    echo "[configs] $release: not a release (X.Y.Z); nothing changed for it" >&2
    exit 2
  fi
  venv=$("$ROOT/test/llama-stack/venv.sh" "$release")
  out="$OUT_ROOT/$release"
  rm -rf "$out"
  mkdir -p "$out"
  env -i HOME=/nonexistent PATH=/usr/bin:/bin LANG=C.UTF-8 PYTHONHASHSEED=0 \
    "$venv/bin/python" "$ROOT/scripts/extract_llama_stack.py" "$out" 2> >(grep -v -e DeprecationWarning -e '^  ' >&2)
  echo "[configs] $release -> ${out#"$ROOT/"}" >&2
done
