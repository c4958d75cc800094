// spec.monitoring: how the server's metrics are collected (docs/guide/monitoring.md).
// What each release can do was read from its package: OGX 1.2.0 and newer serve
// Prometheus text on a port of their own (ogx/telemetry/__init__.py:
// OGX_METRICS_ENDPOINT_ENABLED, OGX_METRICS_PORT default 9464, OGX_METRICS_HOST
// default 127.0.0.1); every release pushes over OTLP/HTTP when
// OTEL_EXPORTER_OTLP_ENDPOINT is set (llama_stack/telemetry/__init__.py up to
// 0.7.3). src/children/monitoring.ts turns this into env, ports and children.
import { z } from "zod";
import { withRules } from "./rules.js";
import { AllowedFrom, allowedFromNamesAPeer } from "./networking.js";
import { stringMap } from "./workload.js";

/** OGX's own default metrics port (the OpenTelemetry Prometheus exporter's convention). */
const DEFAULT_METRICS_PORT = 9464;

/** prometheus-operator's Duration (monitoring.coreos.com/v1), e.g. 30s or 1m30s. */
const PROMETHEUS_DURATION =
  /^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$/;

const ServiceMonitor = z
  .strictObject({
    interval: z
      .string()
      .min(1)
      .max(32)
      .regex(PROMETHEUS_DURATION, "must be a Prometheus duration such as 30s")
      .optional()
      .describe("How often Prometheus scrapes the server; default: Prometheus's own interval."),
    labels: stringMap("label")
      .optional()
      .describe(
        "Extra labels of the ServiceMonitor, such as the one your Prometheus selects ServiceMonitors by (release: kube-prometheus-stack); app.kubernetes.io/* are reserved.",
      ),
  })
  .describe(
    "A ServiceMonitor <name>-service-monitor (monitoring.coreos.com/v1) for the Prometheus Operator. Created only where the CompositeController declares ServiceMonitor children (the component manifests/components/servicemonitor); elsewhere the status warns.",
  );

const Metrics = withRules(
  z
    .strictObject({
      port: z
        .number()
        .int()
        .min(1024, "must be between 1024 and 65535 (the server runs as non-root)")
        .max(65535, "must be between 1024 and 65535")
        .default(DEFAULT_METRICS_PORT)
        .describe(
          "Port of the metrics endpoint: the container port and Service port named metrics (1024-65535, not the server port).",
        ),
      allowedFrom: AllowedFrom.optional().describe(
        "Who may scrape the metrics port through the NetworkPolicy of spec.networking.allowedFrom (for example the namespace Prometheus runs in); default: the same peers as networking.allowedFrom.",
      ),
      serviceMonitor: ServiceMonitor.optional(),
    })
    .describe(
      "Serve Prometheus metrics on a port of their own, plain HTTP at /metrics (OGX 1.2 and newer). Llama Stack 0.7.3 and older have no such endpoint; use otlp there.",
    ),
  [
    allowedFromNamesAPeer(
      "metrics-allowed-from-names-a-peer",
      'spec.monitoring.metrics.allowedFrom: names no namespace and no label key, and an empty peer list would admit every source; list namespaces ("*" for all) or labels, or remove it to admit networking.allowedFrom\'s peers',
    ),
  ],
);

const Otlp = z
  .strictObject({
    endpoint: z
      .string()
      .min(1)
      .max(2048)
      .regex(
        /^https?:\/\/[^\s/?#]+(\/[^\s?#]*[^\s?#/])?$/,
        "must be an http or https URL without a trailing slash, such as http://otel-collector.observability.svc:4318",
      )
      .describe(
        "Base URL of an OTLP/HTTP receiver (an OpenTelemetry Collector's port 4318); the server posts to <endpoint>/v1/metrics.",
      ),
    exportIntervalSeconds: z
      .number()
      .int()
      .min(1)
      .max(3600)
      .optional()
      .describe("Seconds between two pushes (1-3600); default 60."),
  })
  .describe("Push the server's metrics over OTLP/HTTP (protobuf), in every release.");

export const Monitoring = z
  .strictObject({
    metrics: Metrics.optional(),
    otlp: Otlp.optional(),
  })
  .describe(
    "How the server's metrics are collected: scraped from a port of their own (metrics, OGX 1.2 and newer), pushed to an OpenTelemetry collector (otlp, every release), or both.",
  );
export type Monitoring = z.infer<typeof Monitoring>;
