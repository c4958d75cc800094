// The NetworkPolicy `<name>-network-policy` of networking.allowedFrom
// (README "Networking").
import type { NetworkPolicy, NetworkPolicyPeer } from "kubernetes-types/networking/v1.js";
import { childMetadata, type Child, type Owner } from "./child.js";
import { childNames, selectorFor } from "./labels.js";

export interface NetworkPolicyInput extends Owner {
  port: number;
  /** Namespace names; "*" admits every namespace. */
  namespaces: readonly string[];
  /** Namespace label keys; a namespace carrying one (any value) is admitted. */
  labels: readonly string[];
}

/** Who may connect: every namespace, the named ones, then one peer per label key. */
export function allowedPeers(
  namespaces: readonly string[],
  labels: readonly string[],
): NetworkPolicyPeer[] {
  const peers: NetworkPolicyPeer[] = [];
  if (namespaces.includes("*")) peers.push({ namespaceSelector: {} });
  else if (namespaces.length > 0) {
    const names = [...namespaces].sort();
    peers.push({
      namespaceSelector: {
        matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: names }],
      },
    });
  }
  for (const key of [...labels].sort())
    peers.push({ namespaceSelector: { matchExpressions: [{ key, operator: "Exists" }] } });
  return peers;
}

/** One ingress rule on the server port; everything else is denied. */
export function buildNetworkPolicy(input: NetworkPolicyInput): Child<NetworkPolicy> {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: childMetadata(input, childNames.networkPolicy(input.llsd)),
    spec: {
      podSelector: { matchLabels: selectorFor(input.llsd) },
      policyTypes: ["Ingress"],
      ingress: [
        {
          from: allowedPeers(input.namespaces, input.labels),
          ports: [{ protocol: "TCP", port: input.port }],
        },
      ],
    },
  };
}
