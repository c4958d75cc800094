// spec.monitoring turned into what the pod and the other children need
// (docs/guide/monitoring.md): the environment that switches each release's metrics
// on, the checks only the release and the request can make, and the
// ServiceMonitor where the CompositeController declares that kind.
//
// Read from the packages: OGX 1.2.0 and newer (not 1.1.3) start a Prometheus
// text server when OGX_METRICS_ENDPOINT_ENABLED is truthy, on OGX_METRICS_PORT
// (default 9464) and OGX_METRICS_HOST (default 127.0.0.1, unreachable from
// Prometheus); every release (llama_stack/telemetry and ogx/telemetry
// __init__.py) pushes to OTEL_EXPORTER_OTLP_ENDPOINT + /v1/metrics every
// OTEL_METRIC_EXPORT_INTERVAL ms, as OTEL_SERVICE_NAME, and OGX also reads
// OTEL_SERVICE_NAMESPACE.
import type { Monitoring } from "../api/monitoring.js";
import type { Overrides } from "../api/workload.js";
import { msg } from "../messages.js";
import { problem, warning, type Problem, type Warning } from "../problems.js";
import { Reason } from "../reasons.js";
import type { ReleaseFacts } from "../release.js";
import type { Child, Owner } from "./child.js";
import { CONTROLLER_UID_LABEL, labelsFor } from "./labels.js";
import { buildServiceMonitor, type ServiceMonitor } from "./service-monitor.js";
import { groupKey, SERVICE_MONITOR_TYPE } from "./types.js";

const AT = "spec.monitoring";

/**
 * Every address, IPv4 and IPv6 (one dual-stack socket), as OGX's own server
 * binds with several workers: the scrape comes to the pod's IP.
 */
const METRICS_HOST = "::";

const SERVICE_MONITOR_GROUP = groupKey(SERVICE_MONITOR_TYPE);

/**
 * The container's environment for spec.monitoring. A custom image (release
 * unknown) gets the OGX names too: no other release has a metrics endpoint.
 */
export function monitoringEnv(
  monitoring: Monitoring | undefined,
  ogx: ReleaseFacts["ogx"] | undefined,
  owner: Owner,
): Record<string, string> {
  const env: Record<string, string> = {};
  const metrics = monitoring?.metrics;
  if (metrics !== undefined) {
    env["OGX_METRICS_ENDPOINT_ENABLED"] = "true";
    env["OGX_METRICS_PORT"] = String(metrics.port);
    env["OGX_METRICS_HOST"] = METRICS_HOST;
  }
  const otlp = monitoring?.otlp;
  if (otlp !== undefined) {
    env["OTEL_EXPORTER_OTLP_ENDPOINT"] = otlp.endpoint;
    env["OTEL_SERVICE_NAME"] = owner.llsd;
    if (ogx !== false) env["OTEL_SERVICE_NAMESPACE"] = owner.namespace;
    if (otlp.exportIntervalSeconds !== undefined)
      env["OTEL_METRIC_EXPORT_INTERVAL"] = String(otlp.exportIntervalSeconds * 1000);
  }
  return env;
}

export interface MonitoringInput {
  monitoring: Monitoring | undefined;
  /** The release, when known, for messages. */
  release: string | undefined;
  releaseFacts: ReleaseFacts | undefined;
  overrides: Overrides | undefined;
  /** The keys of the request's children map; undefined: none of the optional types. */
  childGroups: ReadonlySet<string> | undefined;
}

/** What spec.monitoring adds to the answer: the ServiceMonitor, problems and warnings. */
export interface MonitoringPart {
  children: Child<ServiceMonitor>[];
  problems: Problem[];
  warnings: Warning[];
}

/** The overrides may not set what the hook sets for monitoring. */
function checkEnv(env: Record<string, string>, overrides: Overrides | undefined): Problem[] {
  return (overrides?.env ?? []).flatMap((e, i) =>
    Object.hasOwn(env, e.name)
      ? [
          problem(
            Reason.InvalidSpec,
            `spec.workload.overrides.env[${i}].name`,
            msg.monitoringEnv(e.name),
          ),
        ]
      : [],
  );
}

function checkLabels(labels: Record<string, string> | undefined): Problem[] {
  const reserved = new Set([...Object.keys(labelsFor("x")), CONTROLLER_UID_LABEL]);
  return Object.keys(labels ?? {})
    .sort()
    .filter((key) => reserved.has(key))
    .map((key) =>
      problem(
        Reason.InvalidSpec,
        `${AT}.metrics.serviceMonitor.labels`,
        msg.reservedChildLabel(key),
      ),
    );
}

export function planMonitoring(input: MonitoringInput, owner: Owner): MonitoringPart {
  const part: MonitoringPart = { children: [], problems: [], warnings: [] };
  const { monitoring, release } = input;
  if (monitoring === undefined) return part;
  const env = monitoringEnv(monitoring, input.releaseFacts?.ogx, owner);
  part.problems.push(...checkEnv(env, input.overrides));
  const metrics = monitoring.metrics;
  if (metrics === undefined) return part;
  if (release !== undefined && input.releaseFacts?.metricsEndpoint === false)
    part.problems.push(
      problem(
        Reason.MetricsEndpointUnavailable,
        `${AT}.metrics`,
        msg.metricsEndpointUnavailable(release),
      ),
    );
  const wanted = metrics.serviceMonitor;
  if (wanted === undefined) return part;
  part.problems.push(...checkLabels(wanted.labels));
  if (input.childGroups?.has(SERVICE_MONITOR_GROUP) === true)
    part.children.push(buildServiceMonitor({ ...owner, ...wanted }));
  else {
    const detail = msg.serviceMonitorUnavailable();
    part.warnings.push(
      warning(Reason.ServiceMonitorUnavailable, `${AT}.metrics.serviceMonitor`, detail),
    );
  }
  return part;
}
