// The ServiceMonitor `<name>-service-monitor` of
// spec.monitoring.metrics.serviceMonitor (docs/guide/monitoring.md): the Prometheus
// Operator scrapes the Service's port `metrics` at /metrics, over plain HTTP
// (OGX's metrics server has no TLS, whatever spec.networking.tls says).
// kubernetes-types has no monitoring.coreos.com types, so the interface below
// declares only the fields the hook sets, as the v1 ServiceMonitor CRD names
// them (test/k8s checks a built one against that CRD on a real API server).
import type { LabelSelector, ObjectMeta } from "kubernetes-types/meta/v1.js";
import { childMetadata, type Child, type Owner } from "./child.js";
import { METRICS_PORT_NAME, childNames, labelsFor, selectorFor } from "./labels.js";

const METRICS_PATH = "/metrics";

interface Endpoint {
  port: string;
  path: string;
  scheme: "http";
  interval?: string;
}

export interface ServiceMonitor {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: { selector: LabelSelector; endpoints: Endpoint[] };
}

export interface ServiceMonitorInput extends Owner {
  /** Scrape interval (a Prometheus duration); Prometheus's own when undefined. */
  interval?: string | undefined;
  /** Extra labels, such as the one a Prometheus selects ServiceMonitors by. */
  labels?: Record<string, string> | undefined;
}

/** Selects the Service `<name>-service` by the labels every child carries. */
export function buildServiceMonitor(input: ServiceMonitorInput): Child<ServiceMonitor> {
  const metadata = childMetadata(input, childNames.serviceMonitor(input.llsd));
  const endpoint: Endpoint = { port: METRICS_PORT_NAME, path: METRICS_PATH, scheme: "http" };
  return {
    apiVersion: "monitoring.coreos.com/v1",
    kind: "ServiceMonitor",
    metadata: { ...metadata, labels: { ...(input.labels ?? {}), ...labelsFor(input.llsd) } },
    spec: {
      selector: { matchLabels: selectorFor(input.llsd) },
      endpoints: [
        input.interval === undefined ? endpoint : { ...endpoint, interval: input.interval },
      ],
    },
  };
}
