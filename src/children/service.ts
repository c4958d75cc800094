// The ClusterIP Service `<name>-service` in front of the server's port `http`
// (docs/operations/children.md), and the URL it gives the server.
import type { Service } from "kubernetes-types/core/v1.js";
import { childMetadata, type Child, type Owner } from "./child.js";
import { METRICS_PORT_NAME, PORT_NAME, childNames, selectorFor } from "./labels.js";

export interface ServiceInput extends Owner {
  port: number;
  /** spec.monitoring.metrics: the port `metrics` too. */
  metricsPort?: number | undefined;
}

export function buildService(input: ServiceInput): Child<Service> {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: childMetadata(input, childNames.service(input.llsd)),
    spec: {
      type: "ClusterIP",
      selector: selectorFor(input.llsd),
      ports: [
        { name: PORT_NAME, port: input.port, targetPort: PORT_NAME, protocol: "TCP" },
        ...(input.metricsPort === undefined
          ? []
          : [
              {
                name: METRICS_PORT_NAME,
                port: input.metricsPort,
                targetPort: METRICS_PORT_NAME,
                protocol: "TCP",
              },
            ]),
      ],
    },
  };
}

export function serviceUrl(input: Owner & { port: number; tls: boolean }): string {
  const scheme = input.tls ? "https" : "http";
  return `${scheme}://${childNames.service(input.llsd)}.${input.namespace}.svc.cluster.local:${input.port}`;
}
