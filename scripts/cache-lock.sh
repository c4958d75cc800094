#!/usr/bin/env bash
# Sourced by the cache builders. cache_lock ENTRY takes ENTRY.lock, beside the
# cache entry ENTRY, and holds it until the builder exits, so two builds of one
# key (two checkouts' npm run peers, a CI run and a shell, a builder run by
# hand) never write into one ENTRY.tmp: seen in a cold CI run, where one build
# renamed the other's half-built control plane into place. The second waits,
# then finds the first one's entry complete. Under the lock, an ENTRY.tmp left
# behind is a dead build's: a cold build removes it before it starts.
#
# Run, it holds ENTRY's lock around a builder that cannot take it itself:
#   scripts/cache-lock.sh ENTRY COMMAND [ARGS...]
# for the builders whose cache key hashes their own text (scripts/build-image.sh,
# scripts/image/*.sh, test/node/image.sh, test/prometheus/build.sh): a line
# added to one of them would change its key and rebuild it cold, so their
# callers (test/prepare-peers.sh, scripts/release.ts) lock around them, with an
# ENTRY per builder under the cache's locks/ (the key is computed inside). A
# builder that takes the lock itself, when its key next changes anyway, drops
# the wrapper. The lock is on file descriptor 8, inherited by COMMAND.
# shellcheck shell=bash
cache_lock() {
  mkdir -p "$(dirname "$1")"
  exec 8>"$1.lock"
  if ! flock -n 8; then
    echo "[cache] another build of $1 is under way; waiting for it" >&2
    flock 8
  fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  [ $# -ge 2 ] || { echo "usage: $0 ENTRY COMMAND [ARGS...]" >&2; exit 2; }
  cache_lock "$1"
  shift
  exec "$@"
fi
