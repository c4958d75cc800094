#!/bin/sh
# Migrates LlamaStackDistributions stored as llamastack.io/v1alpha1 (written by the retired
# operator) to the storage version v1alpha2, then drops v1alpha1 from the CRD's
# status.storedVersions (docs/conversion.md, "Stored versions").
#
# Why: until every object is rewritten, each read of it at v1alpha2 (Metacontroller, kubectl,
# Argo CD) goes through the hook's conversion webhook, so the hook's availability gates the
# controller; and the v1alpha1 component cannot be removed while v1alpha1 is a stored version.
#
# How: every object, in all namespaces, is read at v1alpha2 and replaced unchanged, which writes
# it at the storage version (a Conflict re-reads it and tries again). Objects written meanwhile
# are stored at v1alpha2 anyway. Only when every object was rewritten is storedVersions set to
# [v1alpha2]; objects being deleted are skipped, and leave it as it is until they are gone.
# A second run is a no-op.
#
# Usage: scripts/migrate-stored-versions.sh [--dry-run]
#   --dry-run  list what would be rewritten, change nothing
# The cluster and context are kubectl's own: KUBECONFIG and its current-context.
set -eu

me=migrate-stored-versions
crd=llamastackdistributions.llamastack.io
storage=v1alpha2
resource=llamastackdistributions.$storage.llamastack.io
component="the v1alpha1 component (kubectl apply --server-side -k examples/v1alpha1-conversion)"

case "${1-}" in
  "") dry_run=false ;;
  --dry-run) dry_run=true ;;
  *) echo "usage: $0 [--dry-run]" >&2; exit 2 ;;
esac

fail() { echo "$me: $*" >&2; exit 1; }
crd_get() { kubectl get crd "$crd" --ignore-not-found -o "jsonpath=$1"; }

found=$(crd_get '{.metadata.name}') || fail "cannot read the CRD $crd: check KUBECONFIG"
[ -n "$found" ] || fail "the CRD $crd is not installed: check KUBECONFIG points at the cluster that holds the retired operator's objects"

version=$(crd_get '{.spec.versions[?(@.storage==true)].name}')
[ "$version" = "$storage" ] ||
  fail "the CRD $crd stores objects as $version, not $storage: install llsd-hook with $component first"

stored=$(crd_get '{.status.storedVersions[*]}')
if [ "$stored" = "$storage" ]; then
  echo "$me: status.storedVersions is already [$storage]: nothing to migrate"
  exit 0
fi

strategy=$(crd_get '{.spec.conversion.strategy}')
[ "$strategy" = Webhook ] ||
  fail "the CRD $crd has stored versions [$stored] but its conversion strategy is ${strategy:-None}, not Webhook: objects stored as v1alpha1 would be read as $storage unconverted, and rewriting them would lose their fields. Install $component and wait for the hook to be ready"

list=$(kubectl get "$resource" --all-namespaces \
  -o 'jsonpath={range .items[*]}{.metadata.namespace} {.metadata.name} {.metadata.deletionTimestamp}{"\n"}{end}') ||
  fail "cannot list $resource: every read converts objects stored as v1alpha1 through the hook's POST /convert; check that the hook is ready and the CRD's caBundle matches its certificate"

# Reads one object at the storage version and replaces it unchanged; re-reads on a Conflict.
rewrite() {
  tries=1
  while :; do
    obj=$(kubectl get "$resource" -n "$1" "$2" --ignore-not-found -o json) || return 1
    [ -n "$obj" ] || return 0 # deleted meanwhile: nothing of it is stored any more
    if err=$(printf '%s\n' "$obj" | kubectl replace -f - 2>&1 >/dev/null); then return 0; fi
    case "$err" in
      *Conflict*) [ "$tries" -lt 5 ] || { echo "$err" >&2; return 1; } ;;
      *) echo "$err" >&2; return 1 ;;
    esac
    tries=$((tries + 1))
  done
}

total=0 left=0
while read -r ns name deleting; do
  [ -n "$name" ] || continue
  total=$((total + 1))
  if [ -n "$deleting" ]; then
    echo "skipped $ns/$name: being deleted since $deleting"
    left=$((left + 1))
  elif $dry_run; then
    echo "would rewrite $ns/$name"
  elif rewrite "$ns" "$name"; then
    echo "rewrote $ns/$name"
  else
    echo "failed $ns/$name"
    left=$((left + 1))
  fi
done <<EOF
$list
EOF

if $dry_run; then
  echo "$me: dry run: would rewrite $((total - left)) of $total objects, then set status.storedVersions from [$stored] to [$storage]"
  exit 0
fi
[ "$left" -eq 0 ] ||
  fail "$left of $total objects were not rewritten (above): status.storedVersions stays [$stored]; fix them, or wait for those being deleted to go, and run again"

kubectl patch crd "$crd" --subresource=status --type=merge \
  -p "{\"status\":{\"storedVersions\":[\"$storage\"]}}" >/dev/null
echo "$me: rewrote $total objects; status.storedVersions: $(crd_get '{.status.storedVersions}')"
