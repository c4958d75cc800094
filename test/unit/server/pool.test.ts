// The worker pool (src/server/pool.ts, docs/adr/0017-worker-pool.md) through the
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
import type { KubeObject } from "../../../src/api/hook.js";
import { loadCatalog } from "../../../src/edge/load-catalog.js";
import { createApp, poolOf } from "../../../src/server/app.js";
import { MAX_JSON_VALUES } from "../../../src/server/handle.js";
import { createMetrics, createMetricsApp } from "../../../src/server/metrics.js";
import { poolLimitsFromEnv } from "../../../src/server/pool.js";
import { request as syncRequest } from "../arbitraries.js";

const catalog = loadCatalog();

/**
 * YAML within every bound of a related ConfigMap (19,001 nodes, 18 levels,
 * 39 KiB) that takes the longest to read per byte found (0.3 to 0.9 s here);
 * `salt` makes each text new, so no cache answers it.
 */
function slowYaml(salt: string): string {
  const line = `- ${"[".repeat(18)}a${"]".repeat(18)}`;
  return `${Array.from({ length: 1000 }, () => line).join("\n")}\n# ${salt}\n`;
}

/** A parent in `namespace` named `name`, with a spec and related objects. */
function parentRequest(namespace: string, name: string, spec: unknown, related: KubeObject[] = []) {
  const body = syncRequest(spec, { related }) as unknown as {
    parent: { metadata: { namespace: string; name: string } };
    related: Record<string, Record<string, KubeObject>>;
  };
  body.parent.metadata.namespace = namespace;
  body.parent.metadata.name = name;
  const moved: Record<string, Record<string, KubeObject>> = {};
  for (const [group, objects] of Object.entries(body.related))
    moved[group] = Object.fromEntries(
      Object.values(objects).map((o) => [
        `${namespace}/${o.metadata.name}`,
        { ...o, metadata: { ...o.metadata, namespace } },
      ]),
    );
  body.related = moved;
  return body;
}

const configMap = (name: string, text: string): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "default", uid: `uid-${name}`, resourceVersion: "1" },
  data: { "config.yaml": text },
});

/** A sync of the slowest kind: a base config of the slowest YAML, read in full. */
function slowRequest(namespace: string, name: string, salt = name) {
  const spec = {
    distribution: {
      image: "acme/stack:1",
      release: "1.5.0",
      baseConfig: { configMapName: "base" },
    },
  };
  return parentRequest(namespace, name, spec, [configMap("base", slowYaml(salt))]);
}

function typicalRequest(namespace: string, name: string) {
  const spec = {
    distribution: { name: "starter" },
    providers: { inference: [{ provider: "vllm", endpoint: "http://vllm:8000/v1" }] },
  };
  return parentRequest(namespace, name, spec);
}

function app(limits: { workers: number; heapMib: number; deadlineMs: number }) {
  const metrics = createMetrics();
  const hook = createApp({
    catalog,
    logger: pino({ level: process.env["DEBUG_POOL"] ? "debug" : "silent" }),
    metrics,
    pool: limits,
  });
  return { hook, metrics, pool: poolOf(hook), metricsApp: createMetricsApp(metrics) };
}

async function sample(metrics: ReturnType<typeof createMetrics>, name: string, labels = {}) {
  const found = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  const value = found?.values.find((v) =>
    Object.entries(labels).every(([k, want]) => v.labels[k] === want),
  );
  return value?.value ?? 0;
}

/** Resolves once `test` holds, checking every 5 ms (never a duration asserted). */
async function until(test: () => boolean): Promise<void> {
  while (!test()) await new Promise((r) => setTimeout(r, 5));
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

  describe("limits from the environment", () => {
    it("defaults: 2 workers, 64 MiB each, 2 s of processing", () => {
      expect(poolLimitsFromEnv({})).to.deep.equal({ workers: 2, heapMib: 64, deadlineMs: 2000 });
    });

    it("HOOK_WORKERS, WORKER_HEAP_MIB and WORKER_DEADLINE_MS set them", () => {
      expect(
        poolLimitsFromEnv({ HOOK_WORKERS: "3", WORKER_HEAP_MIB: "128", WORKER_DEADLINE_MS: "500" }),
      ).to.deep.equal({ workers: 3, heapMib: 128, deadlineMs: 500 });
    });

    const refused: [Record<string, string>, string][] = [
      [{ HOOK_WORKERS: "0" }, "HOOK_WORKERS=0 must be a whole number from 1 to 32"],
      [{ HOOK_WORKERS: "two" }, "HOOK_WORKERS=two must be a whole number from 1 to 32"],
      [{ WORKER_HEAP_MIB: "16" }, "WORKER_HEAP_MIB=16 must be a whole number from 32 to 4096"],
      [
        { WORKER_DEADLINE_MS: "1.5" },
        "WORKER_DEADLINE_MS=1.5 must be a whole number from 10 to 60000",
      ],
    ];
    for (const [env, message] of refused)
      it(`${Object.entries(env)[0]?.join("=")}: refused with the variable and its range`, () => {
        expect(() => poolLimitsFromEnv(env)).to.throw(message);
      });
  });
});
