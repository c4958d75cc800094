// The per-parent series (src/server/condition-metrics.ts, ADR 23): what each
// replica exports as its syncs come, and the newest view the documented query
// keeps across replicas (the same query runs in Prometheus's own engine in
// test/install/alerts.test.ts); expiry after the last sync (the hook is not told
// of deletes), the cap, the opt-out, and names no Kubernetes object can have.
import { expect } from "chai";
import { Registry } from "prom-client";
import { pino } from "pino";
import request from "supertest";
import type { Phase } from "../../../src/api/status.js";
import type { StatusSummary } from "../../../src/server/answer.js";
import {
  PARENT_EXPIRY_MS,
  parentLedger,
  parentMetrics,
  viewOf,
  type ParentEntry,
  type ParentView,
} from "../../../src/server/condition-metrics.js";
import { loadCatalog } from "../../../src/edge/load-catalog.js";
import { createApp } from "../../../src/server/app.js";
import { createMetrics, createMetricsApp } from "../../../src/server/metrics.js";
import { testPool } from "../../support/pool.js";
import { HOSTILE_NAME, steady } from "./metrics-drive.js";

const T0 = Date.parse("2030-01-01T00:00:00Z");
const MIN = 60_000;

const ready: ParentView = {
  phase: "Ready",
  held: [
    { condition: "Available", reason: "MinimumReplicasAvailable" },
    { condition: "Ready", reason: "Ready" },
  ],
};
const rolling: ParentView = {
  phase: "Initializing",
  held: [{ condition: "Reconciling", reason: "MinimumReplicasUnavailable" }],
};
const stalled: ParentView = {
  phase: "Failed",
  held: [{ condition: "Stalled", reason: "UnknownProviderType" }],
};

/** One sync: the replica that answered it, the parent, what it returned, minutes after T0. */
type Sync = [replica: "a" | "b", name: string, view: ParentView, minute: number];

/** What the documented query keeps: per parent, the series of the replica whose last sync is newest. */
function newestViews(replicas: ParentEntry[][]): Record<string, string> {
  const newest = new Map<string, ParentEntry>();
  for (const entries of replicas)
    for (const e of entries) {
      const key = `${e.namespace}/${e.name}`;
      const seen = newest.get(key);
      if (seen === undefined || e.atMs > seen.atMs) newest.set(key, e);
    }
  return Object.fromEntries(
    [...newest].map(([key, e]) => [
      key,
      [e.view.phase, ...e.view.held.map((h) => `${h.condition}:${h.reason}`)].join(" "),
    ]),
  );
}

function replay(syncs: Sync[], max = 10) {
  const replicas = { a: parentLedger(max), b: parentLedger(max) };
  for (const [replica, name, view, minute] of syncs)
    replicas[replica].record({ namespace: "team-a", name }, view, T0 + minute * MIN);
  return replicas;
}

describe("per-parent series", () => {
  describe("two replicas, each answering some syncs", () => {
    const rows: { what: string; syncs: Sync[]; at: number; want: Record<string, string> }[] = [
      {
        what: "the parent's syncs alternate: the newest is the last sync's, whichever replica answered it",
        syncs: [
          ["a", "llama", rolling, 0],
          ["b", "llama", ready, 5],
        ],
        at: 6,
        want: { "team-a/llama": "Ready Available:MinimumReplicasAvailable Ready:Ready" },
      },
      {
        what: "the replica with the older view answers later: it becomes the newest",
        syncs: [
          ["b", "llama", ready, 0],
          ["a", "llama", rolling, 1],
          ["a", "llama", stalled, 6],
        ],
        at: 7,
        want: { "team-a/llama": "Failed Stalled:UnknownProviderType" },
      },
      {
        what: "two parents, each last synced by another replica",
        syncs: [
          ["a", "one", rolling, 0],
          ["b", "two", rolling, 0],
          ["b", "one", ready, 5],
          ["a", "two", stalled, 5],
        ],
        at: 6,
        want: {
          "team-a/one": "Ready Available:MinimumReplicasAvailable Ready:Ready",
          "team-a/two": "Failed Stalled:UnknownProviderType",
        },
      },
      {
        what: "a replica that synced the parent an hour ago no longer exports it; the other's view stands",
        syncs: [
          ["a", "llama", stalled, 0],
          ["b", "llama", ready, 30],
        ],
        at: 60,
        want: { "team-a/llama": "Ready Available:MinimumReplicasAvailable Ready:Ready" },
      },
      {
        what: "deleted (the hook is not told): gone an hour after the last sync, on every replica",
        syncs: [
          ["a", "llama", ready, 0],
          ["b", "llama", ready, 5],
        ],
        at: 65,
        want: {},
      },
      {
        what: "still there a moment before the hour",
        syncs: [["a", "llama", ready, 0]],
        at: 59.999,
        want: { "team-a/llama": "Ready Available:MinimumReplicasAvailable Ready:Ready" },
      },
    ];
    for (const row of rows)
      it(row.what, () => {
        const { a, b } = replay(row.syncs);
        const now = T0 + row.at * MIN;
        expect(newestViews([a.current(now), b.current(now)])).to.deep.equal(row.want);
      });
  });

  it("each replica exports its own last sync, the time of that sync as the value", () => {
    const { a, b } = replay([
      ["a", "llama", rolling, 0],
      ["b", "llama", ready, 5],
      ["a", "other", stalled, 7],
    ]);
    const at = (entries: ParentEntry[]) =>
      entries.map((e) => [e.name, e.view.phase, (e.atMs - T0) / MIN]);
    expect(at(a.current(T0 + 8 * MIN))).to.deep.equal([
      ["llama", "Initializing", 0],
      ["other", "Failed", 7],
    ]);
    expect(at(b.current(T0 + 8 * MIN))).to.deep.equal([["llama", "Ready", 5]]);
  });

  it("an answer older than the one recorded never replaces it", () => {
    const ledger = parentLedger(10);
    const parent = { namespace: "team-a", name: "llama" };
    ledger.record(parent, ready, T0 + 2 * MIN);
    expect(ledger.record(parent, rolling, T0 + MIN)).to.equal("exported");
    expect(ledger.current(T0 + 3 * MIN).map((e) => e.view.phase)).to.deep.equal(["Ready"]);
  });

  it("holds at most max parents: a new one past that is refused until an old one expires", () => {
    const ledger = parentLedger(2);
    const p = (name: string) => ({ namespace: "team-a", name });
    expect(ledger.record(p("one"), ready, T0)).to.equal("exported");
    expect(ledger.record(p("two"), ready, T0 + 10 * MIN)).to.equal("exported");
    expect(ledger.record(p("three"), ready, T0 + 20 * MIN)).to.equal("full");
    // A parent already exported is still updated at the cap.
    expect(ledger.record(p("one"), stalled, T0 + 30 * MIN)).to.equal("exported");
    expect(ledger.record(p("three"), ready, T0 + 69 * MIN)).to.equal("full");
    // "two" was last synced 60 minutes before: its room goes to "three".
    expect(ledger.record(p("three"), ready, T0 + 70 * MIN)).to.equal("exported");
    expect(
      ledger
        .current(T0 + 70 * MIN)
        .map((e) => e.name)
        .sort(),
    ).to.deep.equal(["one", "three"]);
  });

  describe("names no Kubernetes object can have are never exported", () => {
    const rows: [string, { namespace: string; name: string }][] = [
      ["quotes, a newline and a backslash", { namespace: "team-a", name: HOSTILE_NAME }],
      ["upper case", { namespace: "team-a", name: "Llama" }],
      ["a namespace with a dot", { namespace: "team.a", name: "llama" }],
      ["a namespace of 64 characters", { namespace: "a".repeat(64), name: "llama" }],
      ["a name of 254 characters", { namespace: "team-a", name: "a".repeat(254) }],
      ["empty", { namespace: "", name: "" }],
    ];
    for (const [what, parent] of rows)
      it(what, () => {
        const ledger = parentLedger(10);
        expect(ledger.record(parent, ready, T0)).to.equal("invalid");
        expect(ledger.current(T0)).to.deep.equal([]);
      });
  });

  describe("viewOf: the phase, and each condition of ours that is True", () => {
    const c = (type: string, status: string, reason: string) => ({ type, status, reason });
    const rows: [string, StatusSummary, ParentView | undefined][] = [
      [
        "False and Unknown conditions are not held",
        {
          phase: "Initializing",
          conditions: [
            c("ValidationSucceeded", "True", "Valid"),
            c("Available", "False", "MinimumReplicasUnavailable"),
            c("Ready", "Unknown", "RollingOut"),
            c("Reconciling", "True", "RollingOut"),
          ],
        },
        {
          phase: "Initializing",
          held: [
            { condition: "ValidationSucceeded", reason: "Valid" },
            { condition: "Reconciling", reason: "RollingOut" },
          ],
        },
      ],
      [
        "a warning is a condition of ours",
        { phase: "Ready", conditions: [c("RetiredImage", "True", "RetiredImage")] },
        { phase: "Ready", held: [{ condition: "RetiredImage", reason: "RetiredImage" }] },
      ],
      [
        "a type that is not ours is dropped, a reason that is not ours is other",
        {
          phase: "Ready",
          conditions: [c("Injected", "True", "Valid"), c("Ready", "True", "NotOurs")],
        },
        { phase: "Ready", held: [{ condition: "Ready", reason: "other" }] },
      ],
      ["no phase: no view", { conditions: [c("Ready", "True", "Ready")] }, undefined],
      [
        "a phase that is not ours: no view",
        { phase: 'Ready"} 1\nx{a="' as Phase, conditions: [] },
        undefined,
      ],
    ];
    for (const [what, summary, want] of rows)
      it(what, () => expect(viewOf(summary)).to.deep.equal(want));
  });

  it("with max 0 (METRICS_PARENTS_MAX=0) there is no per-parent family", async () => {
    const registry = new Registry();
    const parents = parentMetrics([registry], 0, () => new Date(T0));
    parents.record({ namespace: "team-a", name: "llama" }, ready, new Date(T0));
    expect(await registry.metrics()).to.equal("\n");
    expect(parents.exposition()).to.equal("");
  });

  it("the exposition: a phase series and a series per held condition, valued in seconds; the cap counted", async () => {
    const registry = new Registry();
    let now = T0;
    const parents = parentMetrics([registry], 1, () => new Date(now));
    parents.record({ namespace: "team-a", name: "llama" }, ready, new Date(T0 + 1500));
    parents.record({ namespace: "team-a", name: "other" }, ready, new Date(T0 + 1600));
    const scrape = async () => `${await registry.metrics()}${parents.exposition()}`;
    const samples = (text: string) => text.split("\n").filter((l) => /^llsd_hook_/.test(l));
    const at = (T0 + 1500) / 1000;
    expect(samples(await scrape())).to.deep.equal([
      "llsd_hook_parents 1",
      "llsd_hook_parents_not_exported_total 1",
      `llsd_hook_parent_last_sync_timestamp_seconds{namespace="team-a",name="llama",phase="Ready"} ${at}`,
      `llsd_hook_parent_condition_last_sync_timestamp_seconds{namespace="team-a",name="llama",condition="Available",reason="MinimumReplicasAvailable"} ${at}`,
      `llsd_hook_parent_condition_last_sync_timestamp_seconds{namespace="team-a",name="llama",condition="Ready",reason="Ready"} ${at}`,
    ]);
    now = T0 + PARENT_EXPIRY_MS + 1500;
    expect(samples(await scrape())).to.deep.equal([
      "llsd_hook_parents 0",
      "llsd_hook_parents_not_exported_total 1",
    ]);
  });

  describe("through the app", function () {
    // The workers start first (seconds under tsx on a busy machine).
    this.timeout(120_000);

    it("a worker's answer and a cached one each record the sync, at the time it was answered", async () => {
      let now = T0;
      const clock = () => new Date(now);
      const metrics = createMetrics({ now: clock });
      const pool = testPool();
      const app = createApp({
        pool,
        catalog: loadCatalog(),
        logger: pino({ level: "silent" }),
        now: clock,
        metrics,
      });
      await pool.ready();
      const scrape = async () =>
        (await request(createMetricsApp(metrics)).get("/metrics").expect(200)).text
          .split("\n")
          .filter((l) => l.startsWith("llsd_hook_parent_last_sync_timestamp_seconds{"));
      const body = steady();
      const { namespace, name } = body.parent.metadata;
      const series = (seconds: number) => [
        `llsd_hook_parent_last_sync_timestamp_seconds{namespace="${namespace}",name="${name}",phase="Ready"} ${seconds}`,
      ];
      await request(app).post("/sync").send(body).expect(200);
      expect(await scrape()).to.deep.equal(series(T0 / 1000));
      now = T0 + 5 * MIN;
      const cached = await request(app).post("/sync").send(body).expect(200);
      expect(cached.text).to.not.include("2030-01-01T00:05:00");
      expect(await scrape()).to.deep.equal(series((T0 + 5 * MIN) / 1000));
      const hits = (await metrics.registry.getSingleMetric("llsd_hook_cache_hits_total")?.get())
        ?.values;
      expect(hits?.find((v) => v.labels["cache"] === "response")?.value).to.equal(1);
      now = T0 + 5 * MIN + PARENT_EXPIRY_MS;
      expect(await scrape()).to.deep.equal([]);
    });
  });
});
