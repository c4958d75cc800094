# Sourced by the cache builders. cache_lock ENTRY takes ENTRY.lock, beside the
# cache entry ENTRY, and holds it until the builder exits, so two builds of one
# key (two checkouts' npm run peers, a CI run and a shell, a builder run by
# hand) never write into one ENTRY.tmp: seen in a cold CI run, where one build
# renamed the other's half-built control plane into place. The second waits,
# then finds the first one's entry complete. Under the lock, an ENTRY.tmp left
# behind is a dead build's: a cold build removes it before it starts.
# shellcheck shell=bash
cache_lock() {
  mkdir -p "$(dirname "$1")"
  exec 8>"$1.lock"
  if ! flock -n 8; then
    echo "[cache] another build of $1 is under way; waiting for it" >&2
    flock 8
  fi
}
