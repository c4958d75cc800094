// The NetworkPolicy `<name>-network-policy` of networking.allowedFrom
// (docs/guide/networking.md).
import type {
  NetworkPolicy,
  NetworkPolicyIngressRule,
  NetworkPolicyPeer,
  NetworkPolicyPort,
} from "kubernetes-types/networking/v1.js";
import { childMetadata, type Child, type Owner } from "./child.js";
import { childNames, selectorFor } from "./labels.js";

/** Who may connect, as spec.networking.allowedFrom says it. */
export interface Peers {
  /** Namespace names; "*" admits every namespace. */
  namespaces: readonly string[];
  /** Namespace label keys; a namespace carrying one (any value) is admitted. */
  labels: readonly string[];
}

export interface NetworkPolicyInput extends Owner, Peers {
  port: number;
  /**
   * spec.monitoring.metrics: its port is admitted from `from`, or else from
   * the same peers as the server port.
   */
  metrics?: { port: number; from?: Peers | undefined } | undefined;
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

/**
 * One ingress rule on the server port (and the metrics port, when its peers
 * are the same), one on the metrics port for peers of its own; everything
 * else is denied.
 */
function ingressRules(input: NetworkPolicyInput): NetworkPolicyIngressRule[] {
  const server: NetworkPolicyIngressRule = {
    from: allowedPeers(input.namespaces, input.labels),
    ports: [{ protocol: "TCP", port: input.port }],
  };
  const metrics = input.metrics;
  if (metrics === undefined) return [server];
  const port: NetworkPolicyPort = { protocol: "TCP", port: metrics.port };
  if (metrics.from === undefined) return [{ ...server, ports: [...(server.ports ?? []), port] }];
  return [
    server,
    { from: allowedPeers(metrics.from.namespaces, metrics.from.labels), ports: [port] },
  ];
}

export function buildNetworkPolicy(input: NetworkPolicyInput): Child<NetworkPolicy> {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: childMetadata(input, childNames.networkPolicy(input.llsd)),
    spec: {
      podSelector: { matchLabels: selectorFor(input.llsd) },
      policyTypes: ["Ingress"],
      ingress: ingressRules(input),
    },
  };
}
