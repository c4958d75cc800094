// The hook's metrics (docs/operations/metrics.md): label values from fixed sets only,
// counted per outcome, and the parent's name only behind the opt-in. The text
// is parsed by a real Prometheus parser in test/install/hook-metrics.test.ts.
import { expect } from "chai";
import type { MetricObjectWithValues, MetricValue } from "prom-client";
import request from "supertest";
import { boundedReason } from "../../../src/server/labels.js";
import {
  createMetrics,
  createMetricsApp,
  outcomeOf,
  outcomeOfStatusCode,
} from "../../../src/server/metrics.js";
import { byteCache } from "../../../src/server/memo.js";
import { ConditionReason, Reason } from "../../../src/reasons.js";
import { driveSyncs, EXPECTED_OUTCOMES, HOSTILE_NAME, HOSTILE_TOKEN } from "./metrics-drive.js";

const cond = (type: string, reason: string) => ({ type, status: "True", reason });

/** getMetricsAsJSON also names each histogram sample (_bucket, _sum, _count). */
type Series = MetricObjectWithValues<MetricValue<string> & { metricName?: string }>;

async function series(metrics: ReturnType<typeof createMetrics>, name: string): Promise<Series> {
  const all = (await metrics.registry.getMetricsAsJSON()) as Series[];
  const found = all.find((m) => m.name === name);
  if (found === undefined) throw new Error(`no metric ${name}`);
  return found;
}

describe("hook metrics", function () {
  // driveSyncs waits for the workers to start (seconds under tsx on a busy machine).
  this.timeout(120_000);
  describe("boundedReason", () => {
    const rows: [unknown, string][] = [
      [Reason.InvalidSpec, "InvalidSpec"], // a problem reason
      [ConditionReason.KeptLastApplied, "KeptLastApplied"], // a condition reason
      ["ProgressDeadlineExceeded", "other"], // a Deployment's own reason: not ours
      [HOSTILE_NAME, "other"], // free text
      ["", "other"],
      [undefined, "other"],
      [null, "other"],
      [{}, "other"],
      ["__proto__", "other"], // not an inherited key
      ["constructor", "other"],
      ["invalidspec", "other"], // exact spelling only
    ];
    for (const [input, want] of rows)
      it(`${JSON.stringify(input)?.slice(0, 40) ?? "undefined"} → ${want}`, () => {
        expect(boundedReason(input)).to.equal(want);
      });
  });

  describe("outcomeOf", () => {
    const rows: [string, Parameters<typeof outcomeOf>[0], string, string][] = [
      ["Ready", { phase: "Ready" }, "ready", "Ready"],
      [
        "Failed, nothing applied",
        {
          phase: "Failed",
          conditions: [cond("DeploymentUpdated", "NotCreated"), cond("Stalled", "NoImage")],
        },
        "failed",
        "NoImage",
      ],
      [
        "Failed, children kept",
        {
          phase: "Failed",
          conditions: [
            cond("DeploymentUpdated", "KeptLastApplied"),
            cond("Stalled", "SecretNotFound"),
          ],
        },
        "kept",
        "SecretNotFound",
      ],
      [
        "Initializing with a Deployment's own reason",
        { phase: "Initializing", conditions: [cond("Ready", "ProgressDeadlineExceeded")] },
        "progressing",
        "other",
      ],
      ["Pending without conditions", { phase: "Pending" }, "progressing", "other"],
      ["an empty status", {}, "progressing", "other"],
      ["Failed without conditions", { phase: "Failed" }, "failed", "other"],
    ];
    for (const [name, status, outcome, reason] of rows)
      it(name, () => {
        expect(outcomeOf(status)).to.deep.equal({ outcome, reason });
      });

    it("a status code without a status: 409 conflict, 5xx error, any other invalid_request", () => {
      expect(outcomeOfStatusCode(409)).to.deep.equal({ outcome: "conflict", reason: "none" });
      expect(outcomeOfStatusCode(500).outcome).to.equal("error");
      for (const code of [400, 401, 413, 415])
        expect(outcomeOfStatusCode(code).outcome).to.equal("invalid_request");
    });
  });

  it("llsd_hook_build_info carries the version it is given, and is absent without one", async () => {
    const metrics = createMetrics({ version: "0.1.0" });
    expect((await series(metrics, "llsd_hook_build_info")).values).to.deep.equal([
      { value: 1, labels: { version: "0.1.0" } },
    ]);
    const all = await createMetrics().registry.getMetricsAsJSON();
    expect(all.map((m) => m.name)).not.to.include("llsd_hook_build_info");
  });

  it("reports each class's body bytes held and its port's connections as read at the scrape", async () => {
    const metrics = createMetrics();
    let held = 1024;
    metrics.watchBudget("hook", () => held);
    metrics.watchBudget("api-server", () => 0);
    metrics.watchConnections("hook", () => ({ open: 64, busy: 3, cut: 5, refused: 1 }));
    held = 4096;
    const text = await metrics.exposition();
    for (const line of [
      'llsd_hook_body_budget_held_bytes{class="hook"} 4096',
      'llsd_hook_body_budget_held_bytes{class="api-server"} 0',
      'llsd_hook_connections{class="hook"} 64',
      'llsd_hook_connections_cut_total{class="hook"} 5',
      'llsd_hook_connections_refused_total{class="hook"} 1',
    ])
      expect(text.split("\n")).to.include(line);
    expect(text).not.to.match(/^llsd_hook_connections\{class="api-server"\}/m);
  });

  it("counts each sync outcome by reason, cached answers included", async () => {
    const { metrics } = await driveSyncs();
    const counted = Object.fromEntries(
      (await series(metrics, "llsd_hook_sync_outcomes_total")).values.map((v) => [
        `${v.labels["outcome"]} ${v.labels["reason"]}`,
        v.value,
      ]),
    );
    expect(counted).to.deep.equal(EXPECTED_OUTCOMES);
  });

  it("measures the durations (cached apart), the bodies and the caches", async () => {
    const { metrics } = await driveSyncs();
    const count = async (name: string, labels: Record<string, string>) =>
      (await series(metrics, name)).values.find(
        (v) =>
          v.metricName === `${name}_count` &&
          Object.entries(labels).every(([k, x]) => v.labels[k] === x),
      )?.value;
    // 9 requests to /sync: one answered from the cache; the 415's body is never read.
    expect(await count("llsd_hook_sync_duration_seconds", { cached: "true" })).to.equal(1);
    expect(await count("llsd_hook_sync_duration_seconds", { cached: "false" })).to.equal(8);
    expect(await count("llsd_hook_customize_duration_seconds", {})).to.equal(1);
    expect(await count("llsd_hook_request_body_bytes", { route: "sync" })).to.equal(8);
    expect(await count("llsd_hook_request_body_bytes", { route: "customize" })).to.equal(1);
    const byCache = async (name: string) =>
      Object.fromEntries(
        (await series(metrics, name)).values.map((v) => [v.labels["cache"], v.value]),
      );
    const hits = await byCache("llsd_hook_cache_hits_total");
    expect(hits["response"]).to.equal(1);
    expect(Object.keys(hits).sort()).to.deep.equal(["generation", "plan", "response"]);
    expect((await byCache("llsd_hook_cache_misses_total"))["response"]).to.equal(7);
    expect((await byCache("llsd_hook_cache_bytes"))["response"]).to.be.greaterThan(0);
    expect((await byCache("llsd_hook_cache_entries"))["generation"]).to.be.greaterThan(0);
    expect((await byCache("llsd_hook_cache_entries"))["plan"]).to.be.greaterThan(0);
  });

  it("never shows a parent's name with the per-parent series off and without METRICS_PARENT_LABELS", async () => {
    const off = await driveSyncs({ parentsMax: 0 });
    const text = (await request(off.metricsApp).get("/metrics").expect(200)).text;
    expect(text).to.not.include(HOSTILE_TOKEN);
    expect(text).to.not.include("llsd_hook_injected_total");
    expect(text).to.not.include("namespace=");
  });

  it("the per-parent series (on by default) name only parents Kubernetes accepts", async () => {
    const { metrics } = await driveSyncs();
    const text = await metrics.exposition();
    expect(text).to.not.include(HOSTILE_TOKEN);
    expect(text).to.not.include("(invalid)");
    // Every parent driven is default/llama; the last valid one answered is Failed, its children
    // kept. The hostile name came after it and is not exported.
    const labels = 'namespace="default",name="llama"';
    expect(text.split("\n").filter((l) => l.startsWith("llsd_hook_parent"))).to.deep.equal([
      "llsd_hook_parents 1",
      "llsd_hook_parents_not_exported_total 0",
      `llsd_hook_parent_last_sync_timestamp_seconds{${labels},phase="Failed"} 1893456000.123`,
      `llsd_hook_parent_condition_last_sync_timestamp_seconds{${labels},condition="Available",reason="MinimumReplicasAvailable"} 1893456000.123`,
      `llsd_hook_parent_condition_last_sync_timestamp_seconds{${labels},condition="Stalled",reason="InvalidSpec"} 1893456000.123`,
    ]);
  });

  it("with METRICS_PARENT_LABELS, the outcomes are by parent too, an invalid name as one value", async () => {
    const on = await driveSyncs({ parentLabels: true });
    const values = (await series(on.metrics, "llsd_hook_sync_outcomes_total")).values;
    // A name Kubernetes would refuse is never a label value: one "(invalid)" series for all.
    expect(values.map((v) => v.labels["name"])).to.not.include(HOSTILE_NAME);
    expect(values.find((v) => v.labels["name"] === "(invalid)")?.labels).to.deep.include({
      outcome: "failed",
      reason: "InvalidSpec",
    });
    expect(values.map((v) => v.labels["namespace"])).to.include("default");
  });

  it("byteCache keeps each tier's hits, misses, entries and bytes, evictions included", () => {
    const cache = byteCache(100);
    const a = cache.tier<string>("a");
    const b = cache.tier<string>("b");
    a.set("1", "x", 10);
    expect(a.get("1")).to.equal("x");
    expect(a.get("2")).to.equal(undefined);
    for (let i = 0; i < 10; i++) b.set(String(i), "y", 12); // pushes a's entry out
    b.set("9", "z", 12); // replaced, not added
    expect(cache.tierStats()).to.deep.equal({
      a: { entries: 0, bytes: 0, hits: 1, misses: 1 },
      b: { entries: 8, bytes: 96, hits: 0, misses: 0 },
    });
    expect(cache.stats()).to.deep.equal({ entries: 8, bytes: 96 });
  });

  it("serves the registry's content type at GET /metrics, 404 elsewhere; apps keep registries apart", async () => {
    const a = createMetrics();
    const b = createMetrics();
    a.countSync({ outcome: "ready", reason: "Ready" }, undefined);
    const res = await request(createMetricsApp(a)).get("/metrics").expect(200);
    expect(res.headers["content-type"]).to.equal(a.registry.contentType);
    expect(res.text).to.include('llsd_hook_sync_outcomes_total{outcome="ready",reason="Ready"} 1');
    const other = await request(createMetricsApp(b)).get("/metrics").expect(200);
    expect(other.text).to.not.include('outcome="ready"');
    await request(createMetricsApp(a)).post("/sync").expect(404);
  });
});
