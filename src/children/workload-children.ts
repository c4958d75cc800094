// The smaller children (SPEC §5): ServiceAccount, Ingress, NetworkPolicy,
// PersistentVolumeClaim, HorizontalPodAutoscaler and PodDisruptionBudget.
import { canonicalQuantity } from "./quantity.js";
import type { HorizontalPodAutoscaler, MetricSpec } from "kubernetes-types/autoscaling/v2.js";
import type { PersistentVolumeClaim, ServiceAccount } from "kubernetes-types/core/v1.js";
import type { Ingress, NetworkPolicy, NetworkPolicyPeer } from "kubernetes-types/networking/v1.js";
import type { PodDisruptionBudget } from "kubernetes-types/policy/v1.js";
import { PORT_NAME, childNames, labelsFor, selectorFor } from "./labels.js";

interface Base {
  llsd: string;
  namespace: string;
}

const meta = (b: Base, name: string, annotations?: Record<string, string>) => ({
  name,
  namespace: b.namespace,
  labels: labelsFor(b.llsd),
  ...(annotations === undefined ? {} : { annotations }),
});

export function buildServiceAccount(b: Base): ServiceAccount {
  return {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: meta(b, childNames.serviceAccount(b.llsd)),
    automountServiceAccountToken: false,
  };
}

export function buildIngress(
  b: Base & {
    hostname?: string | undefined;
    ingressClassName?: string | undefined;
    tlsSecretName?: string | undefined;
    backendTls: boolean;
  },
): Ingress {
  const paths = [
    {
      path: "/",
      pathType: "Prefix",
      backend: { service: { name: childNames.service(b.llsd), port: { name: PORT_NAME } } },
    },
  ];
  // The server speaks HTTPS itself: tell ingress-nginx (other controllers ignore the annotation).
  const annotations = b.backendTls
    ? { "nginx.ingress.kubernetes.io/backend-protocol": "HTTPS" }
    : undefined;
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: meta(b, childNames.ingress(b.llsd), annotations),
    spec: {
      ...(b.ingressClassName === undefined ? {} : { ingressClassName: b.ingressClassName }),
      rules: [{ ...(b.hostname === undefined ? {} : { host: b.hostname }), http: { paths } }],
      ...(b.tlsSecretName === undefined || b.hostname === undefined
        ? {}
        : { tls: [{ hosts: [b.hostname], secretName: b.tlsSecretName }] }),
    },
  };
}

/**
 * allowedFrom → one ingress rule on the server port: "*" admits every
 * namespace, other names admit those namespaces, and each label key admits
 * the namespaces carrying that label (any value).
 */
export function buildNetworkPolicy(
  b: Base & { port: number; namespaces: readonly string[]; labels: readonly string[] },
): NetworkPolicy {
  const peers: NetworkPolicyPeer[] = [];
  if (b.namespaces.includes("*")) peers.push({ namespaceSelector: {} });
  else if (b.namespaces.length > 0) {
    peers.push({
      namespaceSelector: {
        matchExpressions: [
          { key: "kubernetes.io/metadata.name", operator: "In", values: [...b.namespaces].sort() },
        ],
      },
    });
  }
  for (const key of [...b.labels].sort())
    peers.push({ namespaceSelector: { matchExpressions: [{ key, operator: "Exists" }] } });
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: meta(b, childNames.networkPolicy(b.llsd)),
    spec: {
      podSelector: { matchLabels: selectorFor(b.llsd) },
      policyTypes: ["Ingress"],
      ingress: [{ from: peers, ports: [{ protocol: "TCP", port: b.port }] }],
    },
  };
}

export function buildPvc(
  b: Base & { size: string; accessMode: string; storageClassName?: string | undefined },
): PersistentVolumeClaim {
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: meta(b, childNames.pvc(b.llsd)),
    spec: {
      accessModes: [b.accessMode],
      resources: { requests: { storage: canonicalQuantity(b.size) } },
      ...(b.storageClassName === undefined ? {} : { storageClassName: b.storageClassName }),
    },
  };
}

export function buildHpa(
  b: Base & {
    minReplicas: number;
    maxReplicas: number;
    cpu?: number | undefined;
    memory?: number | undefined;
  },
): HorizontalPodAutoscaler {
  const metrics: MetricSpec[] = [];
  if (b.cpu !== undefined)
    metrics.push({
      type: "Resource",
      resource: { name: "cpu", target: { type: "Utilization", averageUtilization: b.cpu } },
    });
  if (b.memory !== undefined) {
    metrics.push({
      type: "Resource",
      resource: { name: "memory", target: { type: "Utilization", averageUtilization: b.memory } },
    });
  }
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: meta(b, childNames.hpa(b.llsd)),
    spec: {
      scaleTargetRef: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        name: childNames.deployment(b.llsd),
      },
      minReplicas: b.minReplicas,
      maxReplicas: b.maxReplicas,
      ...(metrics.length > 0 ? { metrics } : {}),
    },
  };
}

export function buildPdb(
  b: Base & {
    minAvailable?: number | string | undefined;
    maxUnavailable?: number | string | undefined;
  },
): PodDisruptionBudget {
  return {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: meta(b, childNames.pdb(b.llsd)),
    spec: {
      selector: { matchLabels: selectorFor(b.llsd) },
      ...(b.minAvailable === undefined ? {} : { minAvailable: b.minAvailable }),
      ...(b.maxUnavailable === undefined ? {} : { maxUnavailable: b.maxUnavailable }),
    },
  };
}

/** Disruptions a budget allows with `replicas` pods (percentages round up, as Kubernetes does). */
export function allowedDisruptions(
  replicas: number,
  pdb: { minAvailable?: number | string | undefined; maxUnavailable?: number | string | undefined },
): number {
  const resolve = (v: number | string) =>
    typeof v === "number" ? v : Math.ceil((Number.parseInt(v, 10) / 100) * replicas);
  if (pdb.minAvailable !== undefined) return replicas - resolve(pdb.minAvailable);
  if (pdb.maxUnavailable !== undefined) return Math.min(replicas, resolve(pdb.maxUnavailable));
  return 0;
}
