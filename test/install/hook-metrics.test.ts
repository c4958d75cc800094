// GET /metrics of the hook (docs/operations/metrics.md), parsed by a real Prometheus
// text parser: prometheus_client.parser.text_string_to_metric_families from
// OGX 1.5.0's venv (test/prepare-peers.sh). The requests of
// test/unit/server/metrics-drive.ts are counted as sent, every metric the
// docs/operations/metrics.md lists is there with its type (the per-parent families, written by
// the hook itself, among them), and the hostile parent name is never a label: no name at all with
// the per-parent series off and without METRICS_PARENT_LABELS, only names Kubernetes accepts on
// the per-parent series, and one "(invalid)" value with METRICS_PARENT_LABELS.
// And the optional component (manifests/components/hook-servicemonitor),
// rendered by the pinned kubectl through examples/hook-servicemonitor: the base
// install plus one ServiceMonitor, valid against the Prometheus Operator's CRD,
// that scrapes the port the hook listens on for metrics and the NetworkPolicy
// admits from namespace monitoring. And the alerts and dashboard component
// (manifests/components/hook-monitoring) through examples/hook-monitoring: that
// install plus a PrometheusRule, valid against the Operator's CRD, and the
// dashboard's ConfigMap for Grafana's sidecar (its rules run in test/install/alerts.test.ts).
import { expect } from "chai";
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import request from "supertest";
import { parse, parseAllDocuments } from "yaml";
import type { MetricsOptions } from "../../src/server/metrics.js";
import { venvFor } from "../peers.js";
import { schemaErrors, type Schema } from "./compositecontroller-schema.js";
import { kubectl, root, thirdPartyCrdDir } from "../support/tools.js";
import {
  driveSyncs,
  EXPECTED_OUTCOMES,
  HOSTILE_NAME,
  HOSTILE_TOKEN,
} from "../unit/server/metrics-drive.js";

interface Family {
  name: string;
  type: string;
  samples: { name: string; labels: Record<string, string>; value: number | string }[];
}

/** The exposition parsed by prometheus_client (a parse error fails the test). */
function parseExposition(text: string): Family[] {
  const script = `
import json, math, sys
from prometheus_client.parser import text_string_to_metric_families
def value(v):
    return v if math.isfinite(v) else str(v)
print(json.dumps([
    {"name": f.name, "type": f.type,
     "samples": [{"name": s.name, "labels": s.labels, "value": value(s.value)} for s in f.samples]}
    for f in text_string_to_metric_families(sys.stdin.read())
]))
`;
  const run = spawnSync(join(venvFor("1.5.0"), "bin", "python"), ["-c", script], {
    input: text,
    encoding: "utf8",
    timeout: 60_000,
  });
  if (run.status !== 0) throw new Error(`prometheus_client failed (${run.status}):\n${run.stderr}`);
  return JSON.parse(run.stdout) as Family[];
}

/** What docs/operations/metrics.md lists, as the parser names families (a counter without _total). */
const FAMILIES: Record<string, string> = {
  llsd_hook_sync_duration_seconds: "histogram",
  llsd_hook_customize_duration_seconds: "histogram",
  llsd_hook_request_body_bytes: "histogram",
  llsd_hook_sync_outcomes: "counter",
  llsd_hook_cache_hits: "counter",
  llsd_hook_cache_misses: "counter",
  llsd_hook_cache_bytes: "gauge",
  llsd_hook_cache_entries: "gauge",
  llsd_hook_cache_max_bytes: "gauge",
  llsd_hook_body_budget_refusals: "counter",
  llsd_hook_body_budget_held_bytes: "gauge",
  llsd_hook_connections: "gauge",
  llsd_hook_connections_cut: "counter",
  llsd_hook_connections_refused: "counter",
  llsd_hook_worker_timeouts: "counter",
  llsd_hook_worker_crashes: "counter",
  llsd_hook_worker_refusals: "counter",
  llsd_hook_workers: "gauge",
  llsd_hook_workers_busy: "gauge",
  llsd_hook_worker_queue_length: "gauge",
  llsd_hook_memory_limit_bytes: "gauge",
  llsd_hook_parents: "gauge",
  llsd_hook_parents_not_exported: "counter",
  llsd_hook_parent_last_sync_timestamp_seconds: "gauge",
  llsd_hook_parent_condition_last_sync_timestamp_seconds: "gauge",
};

async function scrape(options: MetricsOptions) {
  const { metricsApp } = await driveSyncs(options);
  const res = await request(metricsApp).get("/metrics").expect(200);
  expect(res.headers["content-type"]).to.match(/^text\/plain; version=0\.0\.4/);
  return { text: res.text, families: parseExposition(res.text) };
}

function family(families: Family[], name: string): Family {
  const f = families.find((x) => x.name === name);
  if (f === undefined) throw new Error(`no family ${name}`);
  return f;
}

describe("the hook's GET /metrics, parsed by prometheus_client", function () {
  this.timeout(60_000);

  it("has every listed metric with its type, and counts the requests as sent", async () => {
    const { families } = await scrape({ processMetrics: true, memoryLimitBytes: 384 * 2 ** 20 });
    for (const [name, type] of Object.entries(FAMILIES))
      expect(family(families, name).type, name).to.equal(type);
    const outcomes = Object.fromEntries(
      family(families, "llsd_hook_sync_outcomes").samples.map((s) => [
        `${s.labels["outcome"]} ${s.labels["reason"]}`,
        s.value,
      ]),
    );
    expect(outcomes).to.deep.equal(EXPECTED_OUTCOMES);
    const sample = (f: string, name: string, labels: Record<string, string>) =>
      family(families, f).samples.find(
        (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
      )?.value;
    const sync = "llsd_hook_sync_duration_seconds";
    expect(sample(sync, `${sync}_count`, { cached: "true" })).to.equal(1);
    expect(sample(sync, `${sync}_count`, { cached: "false" })).to.equal(8);
    expect(
      sample("llsd_hook_cache_hits", "llsd_hook_cache_hits_total", { cache: "response" }),
    ).to.equal(1);
    // The default process metrics parse too.
    expect(family(families, "llsd_hook_process_resident_memory_bytes").type).to.equal("gauge");
  });

  it("the per-parent series: the last parent driven, its phase and held conditions, at the time of its sync", async () => {
    const { families } = await scrape({});
    const samples = (name: string) =>
      family(families, name).samples.map((s) => ({ ...s.labels, value: s.value }));
    const at = Date.parse("2030-01-01T00:00:00.123Z") / 1000;
    const who = { namespace: "default", name: "llama" };
    expect(samples("llsd_hook_parent_last_sync_timestamp_seconds")).to.deep.equal([
      { ...who, phase: "Failed", value: at },
    ]);
    expect(samples("llsd_hook_parent_condition_last_sync_timestamp_seconds")).to.deep.equal([
      { ...who, condition: "Available", reason: "MinimumReplicasAvailable", value: at },
      { ...who, condition: "Stalled", reason: "InvalidSpec", value: at },
    ]);
    expect(samples("llsd_hook_parents")).to.deep.equal([{ value: 1 }]);
  });

  it("no label value is user text with the per-parent series off, unless METRICS_PARENT_LABELS opts in", async () => {
    const off = await scrape({ parentsMax: 0 });
    expect(off.text).to.not.include(HOSTILE_TOKEN);
    const labelValues = off.families.flatMap((f) =>
      f.samples.flatMap((s) => Object.values(s.labels)),
    );
    for (const v of labelValues) expect(v).to.match(/^[A-Za-z0-9_.+]*$/);
    expect(labelValues.join()).to.not.include("default"); // the golden parents' namespace

    const on = await scrape({ parentLabels: true, parentsMax: 0 });
    const names = family(on.families, "llsd_hook_sync_outcomes").samples.map(
      (s) => s.labels["name"],
    );
    // Only names Kubernetes accepts: the hostile one is the one "(invalid)" series.
    expect(names).to.include("(invalid)");
    expect(names).to.not.include(HOSTILE_NAME);
    expect(on.text).to.not.include(HOSTILE_TOKEN);
    expect(on.families.map((f) => f.name)).to.not.include("llsd_hook_injected");
  });
});

type Obj = Record<string, unknown> & {
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
};

function kustomize(dir: string): Map<string, Obj> {
  const text = execFileSync(kubectl(), ["kustomize", dir], { cwd: root, encoding: "utf8" });
  const objects = parseAllDocuments(text).map((d) => d.toJS() as Obj);
  return new Map(objects.map((o) => [`${o.kind}/${o.metadata.name}`, o]));
}

interface Port {
  name: string;
  port?: number;
  containerPort?: number;
  targetPort?: string;
}

/** The spec schema of a Prometheus Operator kind (v1), from its CRD (scripts/third-party-crds.sh). */
function operatorSpecSchema(plural: string): Schema {
  const file = join(thirdPartyCrdDir(), `monitoring.coreos.com_${plural}.yaml`);
  const crd = parse(readFileSync(file, "utf8")) as {
    spec: { versions: { name: string; schema: { openAPIV3Schema: Schema } }[] };
  };
  const v1 = crd.spec.versions.find((v) => v.name === "v1");
  const spec = v1?.schema.openAPIV3Schema.properties?.["spec"];
  if (spec === undefined) throw new Error(`no ${plural} v1 spec schema`);
  return spec;
}

describe("the hook ServiceMonitor component, rendered by kustomize", function () {
  this.timeout(60_000);

  it("adds one valid ServiceMonitor to the base install that scrapes the metrics port the NetworkPolicy admits", () => {
    const base = kustomize("manifests");
    const withComponent = kustomize("examples/hook-servicemonitor");
    const id = "ServiceMonitor/llsd-hook";
    expect([...withComponent.keys()].sort()).to.deep.equal([...base.keys(), id].sort());
    for (const [key, obj] of base) expect(withComponent.get(key), key).to.deep.equal(obj);

    const sm = withComponent.get(id) as Obj & {
      metadata: { namespace: string };
      spec: {
        selector: { matchLabels: Record<string, string> };
        endpoints: { port: string; path: string }[];
      };
    };
    // matchLabels is a map (additionalProperties), which schemaErrors does not model.
    const checked = { ...sm.spec, selector: {} };
    expect(schemaErrors(checked, operatorSpecSchema("servicemonitors"))).to.deep.equal([]);
    const service = base.get("Service/llsd-hook") as Obj & {
      metadata: { namespace: string; labels: Record<string, string> };
      spec: { ports: Port[] };
    };
    expect(sm.metadata.namespace).to.equal(service.metadata.namespace);
    expect(service.metadata.labels).to.deep.include(sm.spec.selector.matchLabels);
    const endpoint = sm.spec.endpoints[0];
    expect(endpoint?.path).to.equal("/metrics");
    const servicePort = service.spec.ports.find((p) => p.name === endpoint?.port);

    const container = (
      base.get("Deployment/llsd-hook") as Obj & {
        spec: {
          template: {
            spec: { containers: { ports: Port[]; env: { name: string; value: string }[] }[] };
          };
        };
      }
    ).spec.template.spec.containers[0];
    const containerPort = container?.ports.find((p) => p.name === servicePort?.targetPort);
    expect(containerPort?.containerPort).to.be.a("number");
    expect(container?.env.find((e) => e.name === "METRICS_PORT")?.value).to.equal(
      String(containerPort?.containerPort),
    );

    const np = base.get("NetworkPolicy/llsd-hook") as Obj & {
      spec: { ingress: { from: unknown[]; ports: { port: string }[] }[] };
    };
    const scrape = np.spec.ingress.filter((r) =>
      r.ports.some((p) => p.port === containerPort?.name),
    );
    expect(scrape.map((r) => r.from)).to.deep.equal([
      [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } } }],
    ]);
    // The monitoring namespace reaches the metrics port only, never the hook's.
    expect(scrape[0]?.ports.map((p) => p.port)).to.deep.equal(["metrics"]);
  });
});

describe("the monitoring component, rendered by kustomize", function () {
  this.timeout(60_000);

  it("adds a valid PrometheusRule and the dashboard's ConfigMap to the install with the hook's ServiceMonitor, and nothing else", () => {
    const withMonitor = kustomize("examples/hook-servicemonitor");
    const withAll = kustomize("examples/hook-monitoring");
    const added = ["PrometheusRule/llsd-hook", "ConfigMap/llsd-hook-dashboard"];
    expect([...withAll.keys()].sort()).to.deep.equal([...withMonitor.keys(), ...added].sort());
    for (const [key, obj] of withMonitor) expect(withAll.get(key), key).to.deep.equal(obj);

    const rule = withAll.get("PrometheusRule/llsd-hook") as Obj & { spec: { groups: unknown } };
    expect(rule.metadata.namespace).to.equal("llsd-hook");
    // Labels and annotations are maps (additionalProperties), which schemaErrors does not model.
    const checked = {
      groups: (rule.spec.groups as { name: string; rules: Record<string, unknown>[] }[]).map(
        (g) => ({ ...g, rules: g.rules.map(({ labels: _l, annotations: _a, ...r }) => r) }),
      ),
    };
    expect(schemaErrors(checked, operatorSpecSchema("prometheusrules"))).to.deep.equal([]);

    const cm = withAll.get("ConfigMap/llsd-hook-dashboard") as Obj & {
      data: Record<string, string>;
    };
    expect(cm.metadata.namespace).to.equal("llsd-hook");
    expect(cm.metadata.labels?.["grafana_dashboard"]).to.equal("1");
    const json = readFileSync(
      join(root, "manifests", "components", "hook-monitoring", "llsd-hook-dashboard.json"),
      "utf8",
    );
    expect(cm.data["llsd-hook-dashboard.json"]).to.equal(json);
  });
});
