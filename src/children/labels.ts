// Labels and names shared by every child. Names follow the upstream operator
// so a migration keeps them.

const NAME_LABEL = "app.kubernetes.io/name";
const INSTANCE_LABEL = "app.kubernetes.io/instance";
const PART_OF_LABEL = "app.kubernetes.io/part-of";
const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
/** The label Metacontroller puts on every child (generateSelector); never ours to set. */
export const CONTROLLER_UID_LABEL = "controller-uid";

export const CONFIG_HASH_ANNOTATION = "llamastack.io/config-hash";
/** On the Deployment (not its pods, so adding it rolls nothing): the release it runs. */
export const RELEASE_LABEL = "llamastack.io/release";
export const INPUTS_HASH_ANNOTATION = "llamastack.io/inputs-hash";

export const CONTAINER_NAME = "llama-stack";
export const PORT_NAME = "http";
/** The container and Service port of spec.monitoring.metrics. */
export const METRICS_PORT_NAME = "metrics";

export function labelsFor(instance: string): Record<string, string> {
  return {
    [NAME_LABEL]: "llama-stack",
    [INSTANCE_LABEL]: instance,
    [PART_OF_LABEL]: "llama-stack",
    [MANAGED_BY_LABEL]: "llsd-hook",
  };
}

/** What the Deployment and Service select pods by. */
export function selectorFor(instance: string): Record<string, string> {
  return { [NAME_LABEL]: "llama-stack", [INSTANCE_LABEL]: instance };
}

export const childNames = {
  configMap: (llsd: string, hash: string) => `${llsd}-config-${hash.slice(0, 10)}`,
  configMapPrefix: (llsd: string) => `${llsd}-config-`,
  deployment: (llsd: string) => llsd,
  service: (llsd: string) => `${llsd}-service`,
  networkPolicy: (llsd: string) => `${llsd}-network-policy`,
  ingress: (llsd: string) => `${llsd}-ingress`,
  pvc: (llsd: string) => `${llsd}-pvc`,
  hpa: (llsd: string) => `${llsd}-hpa`,
  pdb: (llsd: string) => `${llsd}-pdb`,
  serviceAccount: (llsd: string) => `${llsd}-sa`,
  serviceMonitor: (llsd: string) => `${llsd}-service-monitor`,
};
