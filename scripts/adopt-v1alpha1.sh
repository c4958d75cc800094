#!/bin/sh
# adopt-v1alpha1.sh NAMESPACE NAME: hands one LlamaStackDistribution's running
# children from the retired llama-stack-k8s-operator over to llsd-hook,
# without deleting them (docs/conversion.md "Handover").
#
# The retired operator made the children under the names llsd-hook uses, owned
# by the same object (so by the same UID), but without the `controller-uid`
# label Metacontroller selects its children by: Metacontroller would release
# them and then fail to create its own under the taken names. Run this once
# per object with the retired operator stopped, before llsd-hook's first sync
# of it (before installing llsd-hook is simplest). It:
#   1. checks that each child it knows is this object's (its controller is the
#      object, or it has none) and refuses otherwise, changing nothing;
#   2. labels the running ReplicaSets and pods with llsd-hook's selector labels;
#   3. sets the Service's, the PodDisruptionBudget's and the NetworkPolicy's
#      selectors to llsd-hook's (the pods match them already);
#   4. deletes the Deployment with --cascade=orphan: its ReplicaSet and pods
#      keep running, and the Deployment llsd-hook creates adopts the
#      ReplicaSet (its labels match) and rolls it to llsd-hook's template. The
#      Deployment goes because its selector is immutable and because an apply
#      never removes what it did not set (the operator's command, env,
#      volumes);
#   5. labels every other child with the object's `controller-uid`, so
#      Metacontroller claims them as they are. The claim is never deleted,
#      recreated or resized.
# Any kubectl configuration (KUBECONFIG, context) applies.
set -eu
# No globbing: the child list below is split on whitespace only.
set -f

if [ $# -ne 2 ]; then
  echo "usage: $0 NAMESPACE NAME" >&2
  exit 2
fi
ns=$1
name=$2

# Only names Kubernetes accepts go further: they cannot split into several
# words, expand as a glob, reach kubectl as a flag (a leading -) or break the
# JSON patch below, which is built from the name.
is_label() { # a DNS-1123 label: a namespace
  case $1 in "" | *[!a-z0-9-]* | [!a-z0-9]* | *[!a-z0-9]) return 1 ;; esac
  [ ${#1} -le 63 ]
}
is_subdomain() { # a DNS-1123 subdomain: a LlamaStackDistribution's name
  case $1 in "" | *[!a-z0-9.-]* | [!a-z0-9]* | *[!a-z0-9] | *..* | *.-* | *-.*) return 1 ;; esac
  [ ${#1} -le 253 ]
}
is_label "$ns" || {
  echo "NAMESPACE must be a Kubernetes namespace name (lower-case letters, digits and -, at most 63): nothing changed." >&2
  exit 2
}
is_subdomain "$name" || {
  echo "NAME must be a LlamaStackDistribution's name (lower-case letters, digits, - and ., at most 253): nothing changed." >&2
  exit 2
}
k() { kubectl --namespace "$ns" "$@"; }

uid=$(k get llamastackdistributions.llamastack.io "$name" -o jsonpath='{.metadata.uid}')
[ -n "$uid" ] || { echo "$ns/$name: no LlamaStackDistribution" >&2; exit 1; }
case $uid in *[!0-9a-f-]*) echo "$ns/$name: unexpected UID: nothing changed." >&2; exit 1 ;; esac

# The retired operator's children, by the names llsd-hook gives them too.
children="deployment/$name service/$name-service persistentvolumeclaim/$name-pvc
networkpolicy.networking.k8s.io/$name-network-policy poddisruptionbudget.policy/$name-pdb
horizontalpodautoscaler.autoscaling/$name-hpa serviceaccount/$name-sa"

found=""
for child in $children; do
  k get "$child" -o name >/dev/null 2>&1 || continue
  case $child in
    deployment/*) # only the retired operator's: it selects app=llama-stack
      app=$(k get "$child" -o jsonpath='{.spec.selector.matchLabels.app}')
      [ "$app" = llama-stack ] || continue ;;
  esac
  owner=$(k get "$child" -o jsonpath='{.metadata.ownerReferences[?(@.controller==true)].uid}')
  if [ -n "$owner" ] && [ "$owner" != "$uid" ]; then
    echo "$ns/$child is controlled by another object (UID $owner), not $name ($uid): nothing changed." >&2
    echo "Fix: adopt only children this LlamaStackDistribution owns; rename or remove the other one." >&2
    exit 1
  fi
  found="$found $child"
done
[ -n "$found" ] || { echo "$ns/$name: no children of the retired operator to adopt"; exit 0; }

running="app=llama-stack,app.kubernetes.io/instance=$name"
k label replicasets,pods --overwrite -l "$running" app.kubernetes.io/name=llama-stack

ours="{\"app.kubernetes.io/name\":\"llama-stack\",\"app.kubernetes.io/instance\":\"$name\"}"
for child in $found; do
  case $child in
    service/*) path=/spec/selector ;;
    poddisruptionbudget.policy/*) path=/spec/selector/matchLabels ;;
    networkpolicy.networking.k8s.io/*) path=/spec/podSelector/matchLabels ;;
    *) continue ;;
  esac
  k patch "$child" --type=json -p "[{\"op\":\"replace\",\"path\":\"$path\",\"value\":$ours}]"
done

for child in $found; do
  case $child in
    deployment/*) k delete "$child" --cascade=orphan --wait=true ;;
    *) k label --overwrite "$child" "controller-uid=$uid" ;;
  esac
done
echo "$ns/$name: handed over ($found ); llsd-hook creates the Deployment on its next sync."
