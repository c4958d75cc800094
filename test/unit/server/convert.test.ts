// POST /convert, the CRD's conversion webhook, driven in-process with supertest:
// a ConversionReview in, the answer of convertReview out; unauthenticated even
// when /sync needs a token; every refusal a Failure ConversionReview that names
// the field and never echoes a value.
import { expect } from "chai";
import { Writable } from "node:stream";
import { gzipSync } from "node:zlib";
import { pino } from "pino";
import request from "supertest";
import { convertReview } from "../../../src/convert/review.js";
import { loadCatalog } from "../../../src/edge/load-catalog.js";
import { CACHE_BYTES, createApp, generationCacheBytes } from "../../../src/server/app.js";
import { createPool } from "../../../src/server/pool/index.js";
import { API_SERVER_CLASS } from "../../../src/server/classes.js";
import { testPool } from "../../support/pool.js";
import { createMetrics } from "../../../src/server/metrics.js";

const catalog = loadCatalog();
const TOKEN = "s3cret-token-for-sync";
const SECRET_VALUE = "sk-live-DO-NOT-ECHO";

function appWithLogs(bodyLimitBytes?: number) {
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
    ...(bodyLimitBytes === undefined ? {} : { bodyLimitBytes }),
  });
  return { app, lines, metrics };
}

const V1_OBJECT = {
  apiVersion: "llamastack.io/v1alpha1",
  kind: "LlamaStackDistribution",
  metadata: { name: "llama", namespace: "team-a", uid: "b1" },
  spec: {
    replicas: 1,
    server: {
      distribution: { name: "starter" },
      containerSpec: { env: [{ name: "API_KEY", value: SECRET_VALUE }] },
      userConfig: { configMapName: "cfg", configMapNamespace: "elsewhere" },
    },
  },
};

const review = (desiredAPIVersion: string, objects: unknown[]) => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "ConversionReview",
  request: { uid: "705ab4f5-6393-11e8-b7cc-42010a800002", desiredAPIVersion, objects },
});

interface Answer {
  apiVersion: string;
  kind: string;
  response: {
    uid: string;
    convertedObjects: unknown[];
    result: { status: string; message?: string };
  };
}

describe("POST /convert", () => {
  it("answers a ConversionReview exactly as convertReview does, on the API server's port, without the bearer token", async () => {
    const { app } = appWithLogs();
    const body = review("llamastack.io/v1alpha2", [V1_OBJECT]);
    const res = await request(app).post("/convert").send(body).expect(200);
    expect(res.body).to.deep.equal(convertReview(body));
    const answer = res.body as Answer;
    expect(answer.response.result.status).to.equal("Success");
    expect(answer.response.uid).to.equal(body.request.uid);
    // The API server's port serves none of the hook's endpoints, and the hook's no /convert.
    for (const path of ["/sync", "/customize"])
      expect((await request(app).post(path).send({}).expect(404)).body).to.deep.equal({
        error:
          "not found: this port serves POST /convert, POST /validate, GET /healthz and GET /readyz",
      });
    const hook = createApp({
      pool: testPool(),
      catalog,
      logger: pino({ level: "silent" }),
      bearerToken: TOKEN,
      metrics: createMetrics(),
    });
    await request(hook).post("/sync").send({}).expect(401);
    expect((await request(hook).post("/convert").send(body).expect(404)).body).to.deep.equal({
      error:
        "not found: this port serves POST /sync, POST /customize, GET /healthz and GET /readyz",
    });
  });

  it("converts back to v1alpha1 deep-equal on the spec", async () => {
    const { app } = appWithLogs();
    const up = await request(app)
      .post("/convert")
      .send(review("llamastack.io/v1alpha2", [V1_OBJECT]))
      .expect(200);
    const v2 = (up.body as Answer).response.convertedObjects[0];
    const down = await request(app)
      .post("/convert")
      .send(review("llamastack.io/v1alpha1", [v2]))
      .expect(200);
    const v1 = (down.body as Answer).response.convertedObjects[0] as typeof V1_OBJECT;
    expect(v1.spec).to.deep.equal(V1_OBJECT.spec);
  });

  it("logs one line with the uid, the count and the result, never the objects", async () => {
    const { app, lines } = appWithLogs();
    await request(app)
      .post("/convert")
      .send(review("llamastack.io/v1alpha2", [V1_OBJECT]))
      .expect(200);
    const line = lines.find((l) => l.includes('"path":"/convert"'));
    expect(line).to.be.a("string");
    const parsed = JSON.parse(line ?? "{}") as Record<string, unknown>;
    expect(parsed).to.include({ status: 200, converted: 1, result: "Success" });
    expect(lines.join("")).not.to.include(SECRET_VALUE);
  });

  it("counts its duration and body size in the metrics", async () => {
    const { app, metrics } = appWithLogs();
    await request(app)
      .post("/convert")
      .send(review("llamastack.io/v1alpha2", [V1_OBJECT]))
      .expect(200);
    const text = await metrics.registry.metrics();
    expect(text).to.match(/^llsd_hook_convert_duration_seconds_count 1$/m);
    expect(text).to.match(/^llsd_hook_request_body_bytes_count\{route="convert"\} 1$/m);
  });

  // Each row: a request the webhook cannot convert, and what the Failure says.
  const refusals: {
    title: string;
    send: (r: request.Test) => request.Test;
    status: number;
    says: RegExp;
  }[] = [
    {
      title: "a known field of the wrong type names the field, not the value",
      send: (r) =>
        r.send(
          review("llamastack.io/v1alpha2", [
            { ...V1_OBJECT, spec: { ...V1_OBJECT.spec, replicas: SECRET_VALUE } },
          ]),
        ),
      status: 200,
      says: /objects\[0\] \(team-a\/llama\) cannot be converted .*spec\.replicas/,
    },
    {
      title:
        "an object already at the desired version, nested 200,000 levels (a 500 when it was answered as it was)",
      send: (r) =>
        r
          .set("content-type", "application/json")
          .send(
            JSON.stringify(review("llamastack.io/v1alpha2", [])).replace(
              '"objects":[]',
              `"objects":[{"apiVersion":"llamastack.io/v1alpha2","kind":"LlamaStackDistribution","metadata":{"name":"llama","namespace":"team-a"},"spec":{"a":${"[".repeat(200_000)}"${SECRET_VALUE}"${"]".repeat(200_000)}}}]`,
            ),
          ),
      status: 200,
      says: /^objects\[0\] \(team-a\/llama\) cannot be converted from llamastack\.io\/v1alpha2 to llamastack\.io\/v1alpha2: spec\.a(\[0\]){31}: is nested more than 33 levels deep; flatten it/,
    },
    {
      title: "a body that is not a ConversionReview",
      send: (r) => r.send({ hello: SECRET_VALUE }),
      status: 200,
      says: /is not an apiextensions\.k8s\.io\/v1 ConversionReview/,
    },
    {
      title: "a JSON array",
      send: (r) => r.send([SECRET_VALUE]),
      status: 200,
      says: /is not an apiextensions\.k8s\.io\/v1 ConversionReview/,
    },
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
      title: "a bad gzip body",
      send: (r) =>
        r
          .set("content-type", "application/json")
          .set("content-encoding", "gzip")
          .send(gzipSync(`{"a":"${SECRET_VALUE}"}`).subarray(0, 12)),
      status: 400,
      says: /decompressed|aborted|Content-Length/,
    },
  ];
  for (const row of refusals) {
    it(`refuses ${row.title} with a Failure ConversionReview`, async () => {
      const { app } = appWithLogs();
      const res = await row.send(request(app).post("/convert")).expect(row.status);
      const answer = res.body as Answer;
      expect(answer.kind).to.equal("ConversionReview");
      expect(answer.response.result.status).to.equal("Failure");
      expect(answer.response.result.message).to.match(row.says);
      expect(JSON.stringify(res.body)).not.to.include(SECRET_VALUE);
      expect(JSON.stringify(res.body)).not.to.include("    at ");
    });
  }

  describe("on a pool whose deadline is 10 ms", () => {
    // A pool of its own (its limits differ from every other test's), closed after.
    const limits = { workers: 1, heapMib: 64, deadlineMs: 10 };
    const pool = createPool({ catalog, limits, cacheBytes: generationCacheBytes(CACHE_BYTES) });
    after(() => pool.close());

    it("a review past the worker deadline is a 503 Failure, without Retry-After (ADR 20)", async () => {
      const app = createApp({
        pool,
        catalog,
        logger: pino({ level: "silent" }),
        endpoints: API_SERVER_CLASS,
      });
      // 100 objects with 600 environment variables each: far more than 10 ms of converting, and
      // under the 250,000 JSON values a body may hold (1,000 each made it a 413 whenever the
      // worker walked the text within the 10 ms).
      const env = Array.from({ length: 600 }, (_, i) => ({ name: `V${i}`, value: "v" }));
      const heavy = Array.from({ length: 100 }, (_, i) => ({
        ...V1_OBJECT,
        metadata: { ...V1_OBJECT.metadata, name: `llama-${i}` },
        spec: { ...V1_OBJECT.spec, server: { ...V1_OBJECT.spec.server, containerSpec: { env } } },
      }));
      const res = await request(app)
        .post("/convert")
        .send(review("llamastack.io/v1alpha2", heavy))
        .expect(503);
      expect(res.headers["retry-after"]).to.equal(undefined);
      const answer = res.body as Answer;
      expect(answer.response.result.status).to.equal("Failure");
      expect(answer.response.result.message).to.match(/^llsd-hook stopped a \/convert request /);
    });
  });

  it("keeps the hook's body limit", async () => {
    const { app } = appWithLogs(1024);
    const big = review("llamastack.io/v1alpha2", [{ ...V1_OBJECT, pad: "x".repeat(4096) }]);
    const res = await request(app).post("/convert").send(big).expect(413);
    const answer = res.body as Answer;
    expect(answer.response.result.status).to.equal("Failure");
    expect(answer.response.result.message).to.match(/request body larger than 0 MiB/);
  });
});
