import type { Service } from "kubernetes-types/core/v1.js";
import { PORT_NAME, childNames, labelsFor, selectorFor } from "./labels.js";

export function buildService(input: { llsd: string; namespace: string; port: number }): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: childNames.service(input.llsd),
      namespace: input.namespace,
      labels: labelsFor(input.llsd),
    },
    spec: {
      type: "ClusterIP",
      selector: selectorFor(input.llsd),
      ports: [{ name: PORT_NAME, port: input.port, targetPort: PORT_NAME, protocol: "TCP" }],
    },
  };
}

export function serviceUrl(input: {
  llsd: string;
  namespace: string;
  port: number;
  tls: boolean;
}): string {
  return `${input.tls ? "https" : "http"}://${childNames.service(input.llsd)}.${input.namespace}.svc.cluster.local:${input.port}`;
}
