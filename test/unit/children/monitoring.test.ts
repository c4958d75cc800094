// Table tests for spec.monitoring: which release serves Prometheus metrics,
// the environment each setting gives the container, the checks, and the
// ServiceMonitor (only where its kind is declared).
import { expect } from "chai";
import type { Monitoring } from "../../../src/api/monitoring.js";
import type { Overrides } from "../../../src/api/workload.js";
import {
  monitoringEnv,
  planMonitoring,
  type MonitoringInput,
} from "../../../src/children/monitoring.js";
import { buildServiceMonitor } from "../../../src/children/service-monitor.js";
import { groupKey, SERVICE_MONITOR_TYPE } from "../../../src/children/types.js";
import { formatProblem } from "../../../src/problems.js";
import { releaseFacts } from "../../../src/release.js";

const owner = { llsd: "llama", namespace: "team-a" };
const METRICS: Monitoring = { metrics: { port: 9464 } };
const OTLP: Monitoring = { otlp: { endpoint: "http://collector:4318" } };
const DECLARED = new Set([groupKey(SERVICE_MONITOR_TYPE)]);
const LABELS = {
  "app.kubernetes.io/name": "llama-stack",
  "app.kubernetes.io/instance": "llama",
  "app.kubernetes.io/part-of": "llama-stack",
  "app.kubernetes.io/managed-by": "llsd-hook",
};

describe("monitoringEnv", () => {
  const rows: [
    why: string,
    monitoring: Monitoring | undefined,
    release: string | undefined,
    env: Record<string, string>,
  ][] = [
    ["nothing asked, nothing set", undefined, "1.5.0", {}],
    ["an empty monitoring sets nothing", {}, "1.5.0", {}],
    [
      "metrics: enabled, on the port, bound to every address",
      { metrics: { port: 9100 } },
      "1.5.0",
      {
        OGX_METRICS_ENDPOINT_ENABLED: "true",
        OGX_METRICS_PORT: "9100",
        OGX_METRICS_HOST: "::",
      },
    ],
    [
      "otlp on OGX: the endpoint, the service name and namespace",
      OTLP,
      "1.4.1",
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
        OTEL_SERVICE_NAME: "llama",
        OTEL_SERVICE_NAMESPACE: "team-a",
      },
    ],
    [
      "otlp on 0.7.3, which reads no OTEL_SERVICE_NAMESPACE; the interval in milliseconds",
      { otlp: { endpoint: "http://collector:4318", exportIntervalSeconds: 15 } },
      "0.7.3",
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
        OTEL_SERVICE_NAME: "llama",
        OTEL_METRIC_EXPORT_INTERVAL: "15000",
      },
    ],
    [
      "a custom image gets the OGX names",
      { ...METRICS, ...OTLP },
      undefined,
      {
        OGX_METRICS_ENDPOINT_ENABLED: "true",
        OGX_METRICS_PORT: "9464",
        OGX_METRICS_HOST: "::",
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
        OTEL_SERVICE_NAME: "llama",
        OTEL_SERVICE_NAMESPACE: "team-a",
      },
    ],
  ];
  for (const [why, monitoring, release, env] of rows)
    it(why, () =>
      expect(monitoringEnv(monitoring, releaseFacts(release)?.ogx, owner)).to.deep.equal(env),
    );
});

describe("planMonitoring", () => {
  const input = (over: Partial<Omit<MonitoringInput, "releaseFacts">>): MonitoringInput => {
    const release = "release" in over ? over.release : "1.5.0";
    const base = { monitoring: undefined, overrides: undefined, childGroups: undefined };
    return { ...base, ...over, release, releaseFacts: releaseFacts(release) };
  };
  const withMonitor = (serviceMonitor: object = {}): Monitoring => ({
    metrics: { port: 9464, serviceMonitor },
  });
  const env = (...names: string[]): Overrides => ({
    env: names.map((name) => ({ name, value: "x" })),
  });

  const rows: [
    why: string,
    input: MonitoringInput,
    children: string[],
    problems: string[],
    warnings: string[],
  ][] = [
    ["no monitoring: nothing", input({}), [], [], []],
    ["metrics on OGX 1.5.0", input({ monitoring: METRICS }), [], [], []],
    [
      "metrics on 0.7.3: no endpoint to turn on",
      input({ monitoring: METRICS, release: "0.7.3" }),
      [],
      ["MetricsEndpointUnavailable spec.monitoring.metrics"],
      [],
    ],
    [
      "metrics on 0.6.1 too",
      input({ monitoring: METRICS, release: "0.6.1" }),
      [],
      ["MetricsEndpointUnavailable spec.monitoring.metrics"],
      [],
    ],
    ["otlp on 0.6.1 is fine", input({ monitoring: OTLP, release: "0.6.1" }), [], [], []],
    [
      "a custom image: trusted to be OGX",
      input({ monitoring: withMonitor(), release: undefined, childGroups: DECLARED }),
      ["ServiceMonitor/llama-service-monitor"],
      [],
      [],
    ],
    [
      "a ServiceMonitor where the kind is declared",
      input({ monitoring: withMonitor(), childGroups: DECLARED }),
      ["ServiceMonitor/llama-service-monitor"],
      [],
      [],
    ],
    [
      "no ServiceMonitor unless asked, even where the kind is declared",
      input({ monitoring: METRICS, childGroups: DECLARED }),
      [],
      [],
      [],
    ],
    [
      "asked where the kind is not declared: a warning, no child",
      input({ monitoring: withMonitor(), childGroups: new Set(["Deployment.apps/v1"]) }),
      [],
      [],
      ["ServiceMonitorUnavailable spec.monitoring.metrics.serviceMonitor"],
    ],
    [
      "hostile: a key of another apiVersion of the kind does not count",
      input({
        monitoring: withMonitor(),
        childGroups: new Set(["ServiceMonitor.monitoring.coreos.com/v1alpha1"]),
      }),
      [],
      [],
      ["ServiceMonitorUnavailable spec.monitoring.metrics.serviceMonitor"],
    ],
    [
      "0.7.3 with a ServiceMonitor: refused, and the child too",
      input({ monitoring: withMonitor(), release: "0.7.3", childGroups: DECLARED }),
      ["ServiceMonitor/llama-service-monitor"],
      ["MetricsEndpointUnavailable spec.monitoring.metrics"],
      [],
    ],
    [
      "the overrides may not set what monitoring sets, by index",
      input({
        monitoring: { ...METRICS, ...OTLP },
        overrides: env("OTEL_RESOURCE_ATTRIBUTES", "OGX_METRICS_HOST", "OTEL_SERVICE_NAME"),
      }),
      [],
      [
        "InvalidSpec spec.workload.overrides.env[1].name",
        "InvalidSpec spec.workload.overrides.env[2].name",
      ],
      [],
    ],
    [
      "what monitoring does not set stays the user's",
      input({ monitoring: OTLP, overrides: env("OGX_METRICS_PORT") }),
      [],
      [],
      [],
    ],
    [
      "0.7.3 reads no OTEL_SERVICE_NAMESPACE, so the user may set it",
      input({ monitoring: OTLP, release: "0.7.3", overrides: env("OTEL_SERVICE_NAMESPACE") }),
      [],
      [],
      [],
    ],
    [
      "the labels every child carries are reserved, sorted; controller-uid too",
      input({
        monitoring: withMonitor({
          labels: { "controller-uid": "x", "app.kubernetes.io/name": "x", release: "p" },
        }),
        childGroups: DECLARED,
      }),
      ["ServiceMonitor/llama-service-monitor"],
      [
        "InvalidSpec spec.monitoring.metrics.serviceMonitor.labels",
        "InvalidSpec spec.monitoring.metrics.serviceMonitor.labels",
      ],
      [],
    ],
  ];
  for (const [why, monitoringInput, children, problems, warnings] of rows)
    it(why, () => {
      const part = planMonitoring(monitoringInput, owner);
      expect(part.children.map((c) => `${c.kind}/${c.metadata.name}`)).to.deep.equal(children);
      expect(part.problems.map((p) => `${p.reason} ${p.path}`)).to.deep.equal(problems);
      expect(part.warnings.map((p) => `${p.reason} ${p.path}`)).to.deep.equal(warnings);
    });

  it("says what to do in each message", () => {
    const refused = planMonitoring(input({ monitoring: METRICS, release: "0.7.3" }), owner);
    expect(refused.problems.map(formatProblem)).to.deep.equal([
      "spec.monitoring.metrics: Llama Stack 0.7.3 serves no Prometheus metrics endpoint (OGX added one in 1.2.0; this release only pushes OpenTelemetry); remove metrics and push with spec.monitoring.otlp instead, or set spec.distribution.release to an OGX release",
    ]);
    const warned = planMonitoring(input({ monitoring: withMonitor() }), owner);
    expect(warned.warnings.map(formatProblem)).to.deep.equal([
      "spec.monitoring.metrics.serviceMonitor: no ServiceMonitor is created: the CompositeController does not declare ServiceMonitor children; install the component manifests/components/servicemonitor (it needs the Prometheus Operator's CRDs), or remove serviceMonitor",
    ]);
  });
});

describe("buildServiceMonitor", () => {
  it("scrapes the Service's port metrics at /metrics over HTTP, selecting it by its labels", () =>
    expect(buildServiceMonitor(owner)).to.deep.equal({
      apiVersion: "monitoring.coreos.com/v1",
      kind: "ServiceMonitor",
      metadata: { name: "llama-service-monitor", namespace: "team-a", labels: LABELS },
      spec: {
        selector: {
          matchLabels: {
            "app.kubernetes.io/name": "llama-stack",
            "app.kubernetes.io/instance": "llama",
          },
        },
        endpoints: [{ port: "metrics", path: "/metrics", scheme: "http" }],
      },
    }));

  it("the interval and extra labels when given; ours win over the user's", () => {
    const monitor = buildServiceMonitor({
      ...owner,
      interval: "30s",
      labels: { release: "kube-prometheus-stack", "app.kubernetes.io/name": "mine" },
    });
    expect(monitor.metadata.labels).to.deep.equal({ release: "kube-prometheus-stack", ...LABELS });
    expect(monitor.spec.endpoints).to.deep.equal([
      { port: "metrics", path: "/metrics", scheme: "http", interval: "30s" },
    ]);
  });

  it("never shares the caller's labels object", () => {
    const labels = Object.freeze({ release: "p" });
    const monitor = buildServiceMonitor({ ...owner, labels });
    expect(monitor.metadata.labels).to.not.equal(labels);
  });
});
