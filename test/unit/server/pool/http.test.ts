// The worker pool (src/server/pool/, docs/adr/0017-worker-pool.md) through the
// HTTP edge, with real workers running the real sync: a request past the
// deadline or out of heap is a 503 naming the parent and the limit and its
// worker is replaced; the main thread answers while workers are busy; one
// tenant holds at most all workers but one; equal requests share one run.
// No assertion is on a duration: each slow request takes seconds of
// processing against a deadline of 60 ms (a warm worker's typical sync takes
// a few), and order shows the rest.
import { expect } from "chai";
import { pino } from "pino";
import request from "supertest";
import { loadCatalog } from "../../../../src/edge/load-catalog.js";
import { CACHE_BYTES, createApp, generationCacheBytes } from "../../../../src/server/app.js";
import { MAX_JSON_VALUES } from "../../../../src/server/handle.js";
import { createMetrics, createMetricsApp } from "../../../../src/server/metrics.js";
import { createPool } from "../../../../src/server/pool/index.js";
import type { PoolLimits } from "../../../../src/server/pool/limits.js";
import { parentRequest, slowRequest, typicalRequest, until } from "./requests.js";

const catalog = loadCatalog();

/** An app with a pool of its own of `limits`, and its metrics. */
function app(limits: PoolLimits) {
  const metrics = createMetrics();
  const pool = createPool({ catalog, limits, cacheBytes: generationCacheBytes(CACHE_BYTES) });
  const hook = createApp({
    pool,
    catalog,
    logger: pino({ level: process.env["DEBUG_POOL"] ? "debug" : "silent" }),
    metrics,
  });
  return { hook, metrics, pool, metricsApp: createMetricsApp(metrics) };
}

async function sample(metrics: ReturnType<typeof createMetrics>, name: string, labels = {}) {
  const found = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  const value = found?.values.find((v) =>
    Object.entries(labels).every(([k, want]) => v.labels[k] === want),
  );
  return value?.value ?? 0;
}

describe("the worker pool", function () {
  this.timeout(120_000);

  describe("a request past the deadline", () => {
    const { hook, metrics, pool } = app({ workers: 1, heapMib: 64, deadlineMs: 60 });
    before(() => pool.ready());
    after(() => pool.close());

    it("is a retryable 503 naming the parent and the limit, and the next request is served by a fresh worker", async () => {
      const slow = slowRequest("tenant-a", "slow");
      const res = await request(hook).post("/sync").send(slow).expect(503);
      expect(res.headers["retry-after"]).to.equal("1");
      // 60 ms of its CPU time, or (on a machine too busy to give it that) 8 s in all.
      expect(res.body.error).to.match(
        /^llsd-hook stopped the sync of tenant-a\/slow after (60 ms of processing, the most one request may take|8000 ms in all, on a node too busy to give it the 60 ms of processing one request may take) \(WORKER_DEADLINE_MS\), and replaced its worker\. Metacontroller retries; /,
      );
      expect(res.text).not.to.match(/\n\s+at /); // no stack trace
      expect(pool.stats().replaced).to.equal(1);
      expect(await sample(metrics, "llsd_hook_worker_timeouts_total", { route: "sync" })).to.equal(
        1,
      );
      expect(
        await sample(metrics, "llsd_hook_sync_outcomes_total", { outcome: "unavailable" }),
      ).to.equal(1);

      const next = await request(hook)
        .post("/sync")
        .send(typicalRequest("tenant-b", "fine"))
        .expect(200);
      expect(next.body.status.phase).to.equal("Initializing");
      expect(pool.stats()).to.include({ replaced: 1, workers: 1 });
    });

    it("the same bytes again are answered so at once, without a worker", async () => {
      const before = pool.stats();
      const res = await request(hook)
        .post("/sync")
        .send(slowRequest("tenant-a", "slow"))
        .expect(503);
      expect(res.body.error).to.match(
        /^llsd-hook stopped the sync of tenant-a\/slow after .*WORKER_DEADLINE_MS/,
      );
      expect(pool.stats()).to.include({ replaced: before.replaced, answered: before.answered });
      expect(
        await sample(metrics, "llsd_hook_worker_refusals_total", { route: "sync", why: "repeat" }),
      ).to.equal(1);
    });
  });

  describe("the main thread while every worker is busy", () => {
    const { hook, pool, metricsApp } = app({ workers: 1, heapMib: 64, deadlineMs: 60_000 });
    before(() => pool.ready());
    after(() => pool.close());

    it("answers /healthz, /readyz and /metrics before the long sync is done", async () => {
      let synced = false;
      const sync = request(hook)
        .post("/sync")
        .send(slowRequest("tenant-a", "busy"))
        .then((res) => {
          synced = true;
          return res;
        });
      await until(() => pool.stats().busy === 1);
      await request(hook).get("/healthz").expect(200, { status: "ok" });
      await request(hook).get("/readyz").expect(200);
      await request(metricsApp).get("/metrics").expect(200);
      expect(synced, "the sync was still running").to.equal(false);
      expect(pool.stats().busy).to.equal(1);
      expect((await sync).status).to.equal(200);
    });
  });

  describe("tenants and equal requests", () => {
    const { hook, pool } = app({ workers: 2, heapMib: 64, deadlineMs: 60_000 });
    before(() => pool.ready());
    after(() => pool.close());

    it("one namespace holds at most all workers but one: another's sync is answered before its queued ones", async () => {
      const done: string[] = [];
      const send = (body: object, label: string) =>
        request(hook)
          .post("/sync")
          .send(body)
          .then((res) => {
            done.push(label);
            return res.status;
          });
      const busy = [1, 2, 3].map((i) => send(slowRequest("tenant-a", `slow-${i}`), `a${i}`));
      await until(() => pool.stats().busy >= 1);
      const other = await send(typicalRequest("tenant-b", "fine"), "b");
      expect(other).to.equal(200);
      // Two of tenant-a's three wait for the one worker it may hold.
      expect(done.filter((d) => d.startsWith("a")).length).to.be.at.most(1);
      expect(await Promise.all(busy)).to.deep.equal([200, 200, 200]);
    });

    it("equal requests that come together share one run", async () => {
      const before = pool.stats().answered;
      const body = slowRequest("tenant-c", "same");
      const answers = await Promise.all(
        [1, 2, 3].map(() => request(hook).post("/sync").send(body)),
      );
      expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200]);
      expect(new Set(answers.map((a) => a.text)).size).to.equal(1);
      expect(pool.stats().answered - before).to.equal(1);
    });
  });

  describe("a worker out of heap", () => {
    const { hook, metrics, pool } = app({ workers: 1, heapMib: 32, deadlineMs: 60_000 });
    before(() => pool.ready());
    after(() => pool.close());

    it("is a 503 naming the parent and the heap bound, and a fresh worker answers the next request", async () => {
      // 240,000 values, under the count bound, in 1.7 MB: each an object of its own shape.
      const values = Array.from({ length: 120_000 }, (_, i) => ({ [`k${i}`]: i }));
      const heavy = parentRequest("tenant-a", "heavy", {
        distribution: { name: "starter" },
        x: values,
      });
      const res = await request(hook).post("/sync").send(heavy).expect(503);
      expect(res.body.error).to.match(
        /^llsd-hook's worker ran out of memory on the sync of tenant-a\/heavy: its heap is bounded at 32 MiB \(WORKER_HEAP_MIB\); the worker was replaced\./,
      );
      expect(await sample(metrics, "llsd_hook_worker_crashes_total", { route: "sync" })).to.equal(
        1,
      );
      const next = await request(hook)
        .post("/sync")
        .send(typicalRequest("tenant-b", "fine"))
        .expect(200);
      expect(next.body.status.phase).to.equal("Initializing");
      expect(pool.stats()).to.include({ replaced: 1 });
    });
  });

  describe("a body of more JSON values than a worker reads", () => {
    const { hook, pool } = app({ workers: 1, heapMib: 64, deadlineMs: 30_000 });
    after(() => pool.close());

    it("is a 413 naming the bound, before it is parsed", async () => {
      const body = `{"parent":{},"x":[${"0,".repeat(MAX_JSON_VALUES)}0]}`;
      const res = await request(hook)
        .post("/sync")
        .set("content-type", "application/json")
        .send(body)
        .expect(413);
      expect(res.body.error).to.equal(
        `request body of more than ${MAX_JSON_VALUES} JSON values, the most llsd-hook reads (a real hook request has far fewer); see docs/operations/hook-server.md`,
      );
    });
  });
});
