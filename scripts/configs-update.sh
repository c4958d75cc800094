#!/usr/bin/env bash
# Regenerates configs/<release>/ from the published llama-stack package of each
# supported release (npm run configs:update). Byte-for-byte reproducible: the
# extraction runs with a scrubbed environment, and the venvs come from the
# committed lock files in test/llama-stack/requirements/.
#   scripts/configs-update.sh [OUT_ROOT]   (default: configs/)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT_ROOT=${1:-$ROOT/configs}
for release in $(node -e 'console.log(require(process.argv[1]).releases.join(" "))' "$ROOT/configs/releases.json"); do
  venv=$("$ROOT/test/llama-stack/venv.sh" "$release")
  out="$OUT_ROOT/$release"
  rm -rf "$out"
  mkdir -p "$out"
  env -i HOME=/nonexistent PATH=/usr/bin:/bin LANG=C.UTF-8 PYTHONHASHSEED=0 \
    "$venv/bin/python" "$ROOT/scripts/extract_llama_stack.py" "$out" 2> >(grep -v -e DeprecationWarning -e '^  ' >&2)
  echo "[configs] $release -> ${out#"$ROOT/"}" >&2
done
