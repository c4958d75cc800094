// A fixed set of requests for the metrics tests (test/unit/server/metrics.test.ts,
// test/install/hook-metrics.test.ts): one of each outcome, a repeat answered from
// the response cache, a refused body, a /customize, and a parent whose name is
// hostile text that must never become a label unless the operator opts in.
import { pino } from "pino";
import request from "supertest";
import type { SyncRequest } from "../../../src/api/hook.js";
import { loadCatalog } from "../../../src/edge/load-catalog.js";
import { createApp } from "../../../src/server/app.js";
import { testPool } from "../../support/pool.js";
import {
  createMetrics,
  createMetricsApp,
  type MetricsOptions,
} from "../../../src/server/metrics.js";
import { buildRequest, loadCases, type CaseFile } from "../../support/harness.js";

/** A token that appears only in the hostile parent's name. */
export const HOSTILE_TOKEN = "pwned7f3a";
/** Quotes, a newline that would start a sample, a backslash, and length. */
export const HOSTILE_NAME =
  `${HOSTILE_TOKEN}"} 1\nllsd_hook_injected_total{a="b\\` + "x".repeat(300);

const catalog = loadCatalog();

function golden(name: string): SyncRequest {
  const c = loadCases().find((x) => x.name === name);
  if (c === undefined) throw new Error(`golden case ${name} missing`);
  return buildRequest(c.file, "v2");
}

/** A parent at rest (two earlier syncs applied and rolled out): its answer is cached. */
export function steady(): SyncRequest {
  const spec = {
    distribution: { name: "starter" },
    providers: {
      inference: [
        {
          provider: "vllm",
          endpoint: "http://vllm:8000/v1",
          apiKey: { secretKeyRef: { name: "creds-a", key: "token" } },
        },
      ],
    },
  };
  const c: CaseFile = {
    description: "steady",
    spec,
    generation: 1,
    secrets: { "creds-a": ["token"] },
    observed: [
      { spec, generation: 1 },
      { spec, generation: 1 },
    ],
  };
  return buildRequest(c, "v2");
}

function hostile(): SyncRequest {
  const r = golden("us1-3-api-key-from-secret");
  return { ...r, parent: { ...r.parent, metadata: { ...r.parent.metadata, name: HOSTILE_NAME } } };
}

/** What driveSyncs sends, by (outcome, reason): the counts the tests expect. */
export const EXPECTED_OUTCOMES: Record<string, number> = {
  "ready Ready": 2,
  "progressing MinimumReplicasUnavailable": 1,
  "failed BaseConfigRequired": 1,
  "failed InvalidSpec": 1, // the hostile name is no Kubernetes name
  "kept InvalidSpec": 1,
  "conflict none": 1,
  "invalid_request none": 2,
};

/** Drives the requests through a fresh app; returns the metrics app and the body sizes sent to /sync. */
export async function driveSyncs(options: MetricsOptions = {}) {
  const metrics = createMetrics(options);
  const pool = testPool();
  const app = createApp({
    pool,
    catalog,
    logger: pino({ level: "silent" }),
    now: () => new Date("2030-01-01T00:00:00.123Z"), // not a time the golden requests hold
    metrics,
  });
  await pool.ready();
  const post = (body: unknown, status: number) =>
    request(app)
      .post("/sync")
      .send(body as object)
      .expect(status);
  const ready = steady();
  await post(ready, 200);
  await post(ready, 200); // from the response cache
  await post(golden("us1-3-api-key-from-secret"), 200);
  await post(golden("custom-image-needs-override"), 200);
  await post(golden("hook-invalid-edit-keeps-children"), 200);
  await post(golden("hook-no-last-applied-conflict"), 409);
  await post({ parent: { kind: "x" } }, 400);
  await request(app).post("/sync").set("content-type", "text/plain").send("hi").expect(415);
  await post(hostile(), 200);
  await request(app).post("/customize").send({ parent: ready.parent }).expect(200);
  return { metrics, metricsApp: createMetricsApp(metrics) };
}
