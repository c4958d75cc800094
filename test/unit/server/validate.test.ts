// POST /validate, the admission webhook, driven in-process with supertest: an
// AdmissionReview in, the answer of admit out, from a worker of the pool;
// unauthenticated even when /sync needs a token; an answer other than 200 a
// meta/v1 Status (the API server's client quotes its message), without the
// Retry-After that would make that client wait out the webhook's timeout.
import { expect } from "chai";
import { Writable } from "node:stream";
import { pino } from "pino";
import request from "supertest";
import { admit } from "../../../src/admit.js";
import { loadCatalog } from "../../../src/edge/load-catalog.js";
import { generateConfig } from "../../../src/config/generate.js";
import { CACHE_BYTES, createApp, generationCacheBytes } from "../../../src/server/app.js";
import { API_SERVER_CLASS } from "../../../src/server/classes.js";
import { createMetrics } from "../../../src/server/metrics.js";
import { createPool, type Pool } from "../../../src/server/pool/index.js";
import { testPool } from "../../support/pool.js";

const catalog = loadCatalog();
const TOKEN = "s3cret-token-for-sync";
const SECRET_VALUE = "sk-live-DO-NOT-ECHO";

function appWithLogs(options: { bodyLimitBytes?: number; pool?: Pool } = {}) {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  const metrics = createMetrics();
  const app = createApp({
    pool: testPool(),
    catalog,
    logger: pino({ level: "info" }, stream),
    bearerToken: TOKEN,
    metrics,
    endpoints: API_SERVER_CLASS,
    ...options,
  });
  return { app, lines, metrics };
}

const object = (spec: unknown) => ({
  apiVersion: "llamastack.io/v1alpha2",
  kind: "LlamaStackDistribution",
  metadata: { name: "llama", namespace: "team-a", uid: "b1" },
  spec,
});

const review = (obj: unknown, uid = "9c1e0a4e-3f7b-4c52-a7d1-6b0f2e1d9a34") => ({
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  request: {
    uid,
    kind: { group: "llamastack.io", version: "v1alpha2", kind: "LlamaStackDistribution" },
    resource: { group: "llamastack.io", version: "v1alpha2", resource: "llamastackdistributions" },
    name: "llama",
    namespace: "team-a",
    operation: "CREATE",
    userInfo: { username: "alice" },
    object: obj,
    oldObject: null,
    dryRun: false,
  },
});

const VALID = {
  distribution: { name: "starter", release: "1.5.0" },
  providers: { inference: [{ provider: "vllm", endpoint: "http://vllm:8000/v1" }] },
};
/** A literal secret in settings: refused, and its value must appear nowhere. */
const SECRET_IN_SETTINGS = {
  distribution: { name: "starter", release: "1.5.0" },
  providers: {
    inference: [
      { provider: "vllm", endpoint: "http://vllm:8000/v1", settings: { api_token: SECRET_VALUE } },
    ],
  },
};

interface Status {
  kind: string;
  apiVersion: string;
  status: string;
  code: number;
  message: string;
}

describe("POST /validate", function () {
  this.timeout(120_000);

  it("answers an AdmissionReview exactly as admit does, on the API server's port, without the bearer token", async () => {
    const { app } = appWithLogs();
    for (const spec of [VALID, SECRET_IN_SETTINGS]) {
      const body = review(object(spec));
      const res = await request(app).post("/validate").send(body).expect(200);
      expect(res.body).to.deep.equal(admit(body, { catalog, generate: generateConfig }));
    }
    // The hook's port, which /sync's token guards, has no /validate.
    const hook = createApp({
      pool: testPool(),
      catalog,
      logger: pino({ level: "silent" }),
      bearerToken: TOKEN,
      metrics: createMetrics(),
    });
    await request(hook).post("/sync").send({}).expect(401);
    const res = await request(hook)
      .post("/validate")
      .send(review(object(VALID)))
      .expect(404);
    expect(res.body).to.deep.equal({
      error:
        "not found: this port serves POST /sync, POST /customize, GET /healthz and GET /readyz",
    });
  });

  it("logs one line with the uid, the operation, the object and the verdict, never a value", async () => {
    const { app, lines } = appWithLogs();
    const res = await request(app)
      .post("/validate")
      .send(review(object(SECRET_IN_SETTINGS)))
      .expect(200);
    expect(res.body.response.allowed).to.equal(false);
    expect(res.body.response.status.message).to.match(/^spec\.providers\.inference\[0\]\.settings/);
    const line = lines.find((l) => l.includes('"path":"/validate"'));
    const parsed = JSON.parse(line ?? "{}") as Record<string, unknown>;
    expect(parsed).to.include({
      status: 200,
      uid: "9c1e0a4e-3f7b-4c52-a7d1-6b0f2e1d9a34",
      operation: "CREATE",
      object: "team-a/llama",
      allowed: false,
      problems: 1,
    });
    expect(lines.join("") + JSON.stringify(res.body)).not.to.include(SECRET_VALUE);
  });

  it("counts its duration and body size in the metrics", async () => {
    const { app, metrics } = appWithLogs();
    await request(app)
      .post("/validate")
      .send(review(object(VALID)))
      .expect(200);
    const text = await metrics.registry.metrics();
    expect(text).to.match(/^llsd_hook_validate_duration_seconds_count 1$/m);
    expect(text).to.match(/^llsd_hook_request_body_bytes_count\{route="validate"\} 1$/m);
  });

  // Each row: a request the edge refuses before the check, and the Status it answers.
  const refusals: {
    title: string;
    send: (r: request.Test) => request.Test;
    status: number;
    says: RegExp;
  }[] = [
    {
      title: "invalid JSON",
      send: (r) => r.set("content-type", "application/json").send(`{"a": "${SECRET_VALUE}"`),
      status: 400,
      says: /^invalid JSON body/,
    },
    {
      title: "not JSON",
      send: (r) => r.set("content-type", "text/plain").send(SECRET_VALUE),
      status: 415,
      says: /^content-type must be application\/json$/,
    },
    {
      title: "a body past the limit",
      send: (r) => r.send(review(object({ ...VALID, pad: SECRET_VALUE.repeat(200) }))),
      status: 413,
      says: /^request body larger than 0 MiB/,
    },
  ];
  for (const row of refusals)
    it(`answers ${row.title} with a Status the API server's client quotes`, async () => {
      const { app } = appWithLogs({ bodyLimitBytes: 1024 });
      const res = await row.send(request(app).post("/validate")).expect(row.status);
      const status = res.body as Status;
      expect(status).to.include({ kind: "Status", apiVersion: "v1", status: "Failure" });
      expect(status.code).to.equal(row.status);
      expect(status.message).to.match(row.says);
      expect(res.text).not.to.include(SECRET_VALUE);
    });

  describe("on a pool whose deadline is 10 ms", () => {
    // A pool of its own (its limits differ from every other test's), closed after.
    const limits = { workers: 1, heapMib: 64, deadlineMs: 10 };
    const pool = createPool({ catalog, limits, cacheBytes: generationCacheBytes(CACHE_BYTES) });
    after(() => pool.close());

    it("a review past the worker deadline is a 503 Status, without Retry-After", async () => {
      const { app } = appWithLogs({ pool });
      // 48 models with 1,000 metadata keys each: about 0.3 s of checking on a warm worker.
      const metadata = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, "v"]));
      const models = Array.from({ length: 48 }, (_, i) => ({ name: `m${i}`, metadata }));
      const heavy = review(object({ ...VALID, resources: { models } }));
      const res = await request(app).post("/validate").send(heavy).expect(503);
      expect(res.headers["retry-after"]).to.equal(undefined);
      const status = res.body as Status;
      expect(status).to.include({ kind: "Status", status: "Failure", code: 503 });
      expect(status.message).to.match(/^llsd-hook stopped a \/validate request /);
    });
  });
});
