// Every child type the hook returns, with the exact apiVersion it emits: the
// CompositeController declares exactly these (metacontroller/, checked by a test).
export const CHILD_TYPES = [
  { apiVersion: "v1", kind: "ConfigMap", resource: "configmaps" },
  { apiVersion: "apps/v1", kind: "Deployment", resource: "deployments" },
  { apiVersion: "v1", kind: "Service", resource: "services" },
  { apiVersion: "v1", kind: "ServiceAccount", resource: "serviceaccounts" },
  { apiVersion: "v1", kind: "PersistentVolumeClaim", resource: "persistentvolumeclaims" },
  { apiVersion: "networking.k8s.io/v1", kind: "Ingress", resource: "ingresses" },
  { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", resource: "networkpolicies" },
  {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    resource: "horizontalpodautoscalers",
  },
  { apiVersion: "policy/v1", kind: "PodDisruptionBudget", resource: "poddisruptionbudgets" },
] as const;

/**
 * Child types the base install does not declare, because an absent CRD in
 * childResources stops the whole CompositeController: each comes with a
 * kustomize component (manifests/components/) that declares it, and the hook
 * returns such a child only when the sync request's children map has a key
 * for its type, which Metacontroller sends for every declared type.
 */
export const SERVICE_MONITOR_TYPE = {
  apiVersion: "monitoring.coreos.com/v1",
  kind: "ServiceMonitor",
  resource: "servicemonitors",
} as const;
export const OPTIONAL_CHILD_TYPES = [SERVICE_MONITOR_TYPE] as const;

/** The related types /customize asks for. */
export const RELATED_TYPES = [
  { apiVersion: "v1", kind: "Secret", resource: "secrets" },
  { apiVersion: "v1", kind: "ConfigMap", resource: "configmaps" },
] as const;

/** Metacontroller's group key for a type: Kind.version or Kind.group/version. */
export function groupKey(t: { apiVersion: string; kind: string }): string {
  return `${t.kind}.${t.apiVersion}`;
}
