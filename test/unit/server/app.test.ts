// The HTTP edge, driven in-process with supertest.
import { expect } from "chai";
import { Writable } from "node:stream";
import { pino } from "pino";
import request from "supertest";
import {
  BODY_LIMIT_BYTES,
  CACHE_BYTES,
  createApp,
  generationCacheBytes,
} from "../../../src/server/app.js";
import { createPool } from "../../../src/server/pool/index.js";
import { DEFAULT_POOL_LIMITS } from "../../../src/server/pool/limits.js";
import { testPool } from "../../support/pool.js";
import { loadCatalog } from "../../../src/edge/load-catalog.js";
import { buildRequest, loadCases } from "../../support/harness.js";
import { CANARY, canarySecrets, request as syncRequest } from "../../support/request.js";

const catalog = loadCatalog();

function appOptions() {
  return { pool: testPool(), catalog, logger: pino({ level: "silent" }) };
}

function appWithLogs() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  const logger = pino({ level: "debug" }, stream);
  const app = createApp({
    pool: testPool(),
    catalog,
    logger,
    now: () => new Date("2026-11-01T12:00:00.123Z"),
  });
  return { app, lines };
}

const minimalSpec = {
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

describe("HTTP edge", () => {
  it("GET /healthz and /readyz answer 200", async () => {
    const { app } = appWithLogs();
    await request(app).get("/healthz").expect(200, { status: "ok" });
    const ready = await request(app).get("/readyz").expect(200);
    expect(ready.body.releases).to.deep.equal(catalog.releases);
  });

  it("POST /sync answers a golden request exactly like the core", async () => {
    const { app } = appWithLogs();
    const c = loadCases().find((x) => x.name === "us1-3-api-key-from-secret");
    if (c === undefined) throw new Error("golden case missing");
    const res = await request(app).post("/sync").send(buildRequest(c.file, "v2")).expect(200);
    expect(res.body.children.map((ch: { kind: string }) => ch.kind)).to.deep.equal([
      "ConfigMap",
      "Deployment",
      "Service",
      "ServiceAccount",
    ]);
    expect(res.body.status.phase).to.equal("Initializing");
    expect(res.body.status.conditions[0].lastTransitionTime).to.equal("2026-11-01T12:00:00Z");
  });

  const bulkRequest = (mib: number) =>
    JSON.stringify(
      syncRequest(minimalSpec, {
        related: [
          ...canarySecrets(),
          ...Array.from({ length: mib }, (_, i) => ({
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: `bulk-${i}`, namespace: "default", resourceVersion: "1" },
            data: { blob: "x".repeat(1024 * 1024 - 512) },
          })),
        ],
      }),
    );

  it("POST /sync with a request just under the body limit (large related objects) answers 200", async () => {
    const { app } = appWithLogs();
    const body = bulkRequest(BODY_LIMIT_BYTES / 2 ** 20 - 1);
    expect(body.length).to.be.greaterThan(BODY_LIMIT_BYTES - 2 ** 20 - 1);
    expect(body.length).to.be.lessThan(BODY_LIMIT_BYTES);
    const res = await request(app)
      .post("/sync")
      .set("content-type", "application/json")
      .send(body)
      .expect(200);
    expect(res.body.status.phase).to.equal("Initializing");
  });

  it("a body over the limit is a 413 that names the limit and where it is documented", async () => {
    const { app } = appWithLogs();
    const res = await request(app)
      .post("/sync")
      .set("content-type", "application/json")
      .send(bulkRequest(BODY_LIMIT_BYTES / 2 ** 20 + 1))
      .expect(413);
    expect(res.body.error).to.equal(
      "request body larger than 4 MiB, the most llsd-hook accepts (BODY_LIMIT_MIB); see docs/operations/hook-server.md",
    );
  });

  it("a smaller body limit can be configured", async () => {
    const app = createApp({ ...appOptions(), bodyLimitBytes: 2 ** 20 });
    const res = await request(app)
      .post("/sync")
      .set("content-type", "application/json")
      .send(bulkRequest(2))
      .expect(413);
    expect(res.body.error).to.match(/^request body larger than 1 MiB/);
  });

  it("invalid JSON is a 400 that does not echo the body", async () => {
    const { app } = appWithLogs();
    const res = await request(app)
      .post("/sync")
      .set("content-type", "application/json")
      .send(`{"parent": "${CANARY}"`)
      .expect(400);
    expect(res.body.error).to.match(/^invalid JSON body/);
    expect(JSON.stringify(res.body)).not.to.include(CANARY);
  });

  it("a wrong content type is a 415", async () => {
    const { app } = appWithLogs();
    const res = await request(app)
      .post("/sync")
      .set("content-type", "text/plain")
      .send("hello")
      .expect(415);
    expect(res.body.error).to.equal("content-type must be application/json");
  });

  it("an empty body is a 400 naming the missing field by JSON path", async () => {
    const { app } = appWithLogs();
    const res = await request(app)
      .post("/sync")
      .set("content-type", "application/json")
      .send("")
      .expect(400);
    expect(res.body.error).to.match(/^invalid hook request: \$\.parent: /);
  });

  it("a malformed request is a 400 with the JSON path of the problem", async () => {
    const { app } = appWithLogs();
    const req = syncRequest(minimalSpec) as unknown as {
      parent: { metadata: Record<string, unknown> };
    };
    req.parent.metadata["name"] = 42;
    const res = await request(app).post("/sync").send(req).expect(400);
    expect(res.body.error).to.match(/^invalid hook request: \$\.parent\.metadata\.name: /);
    expect(res.body.issues[0].path).to.equal("$.parent.metadata.name");
  });

  it("POST /customize answers 200 with the referenced Secrets, also for an invalid spec", async () => {
    const { app } = appWithLogs();
    const valid = await request(app)
      .post("/customize")
      .send({ parent: syncRequest(minimalSpec).parent })
      .expect(200);
    expect(valid.body).to.deep.equal({
      relatedResources: [
        { apiVersion: "v1", resource: "secrets", namespace: "default", names: ["creds-a"] },
      ],
    });
    const invalidSpec = { ...minimalSpec, overrideConfig: { configMapName: "full" }, bogus: 1 };
    const invalid = await request(app)
      .post("/customize")
      .send({ parent: syncRequest(invalidSpec).parent })
      .expect(200);
    expect(invalid.body.relatedResources).to.deep.equal([
      { apiVersion: "v1", resource: "secrets", namespace: "default", names: ["creds-a"] },
      { apiVersion: "v1", resource: "configmaps", namespace: "default", names: ["full"] },
    ]);
  });

  it("an observed child without last-applied annotation during an invalid edit is a 409", async () => {
    const { app } = appWithLogs();
    const c = loadCases().find((x) => x.name === "hook-no-last-applied-conflict");
    if (c === undefined) throw new Error("golden case missing");
    const res = await request(app).post("/sync").send(buildRequest(c.file, "v1")).expect(409);
    expect(res.body.error).to.include(
      "has neither a managedFields Apply entry of field manager metacontroller (Apply entries found: none) nor a metacontroller.k8s.io/last-applied-configuration annotation",
    );
  });

  it("an unknown route is a 404", async () => {
    const { app } = appWithLogs();
    await request(app).get("/nope").expect(404);
  });

  it("a fault in the hook is a 500 with a message and no stack trace, the error in the log", async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    // A catalog whose image pins are broken data: a fault in the hook, whatever the core reads of them.
    const broken = {
      ...catalog,
      images: Object.fromEntries(Object.keys(catalog.images).map((name) => [name, null])),
    } as unknown as typeof catalog;
    const pool = createPool({
      catalog: broken,
      limits: DEFAULT_POOL_LIMITS,
      cacheBytes: generationCacheBytes(CACHE_BYTES),
    });
    const app = createApp({ pool, catalog: broken, logger: pino({ level: "error" }, stream) });
    const res = await request(app)
      .post("/sync")
      .send(syncRequest(minimalSpec))
      .expect(500)
      .then(async (got) => (await pool.close(), got));
    expect(res.body).to.deep.equal({ error: "internal error in llsd-hook; see the hook's log" });
    const logged = lines.map((l) => JSON.parse(l) as { msg: string; err?: { stack?: string } });
    const fault = logged.find((l) => l.msg === "internal error");
    expect(fault?.err?.stack, "the stack goes to the log").to.match(/TypeError/);
  });

  it("logs one structured line per request and never a Secret value", async () => {
    const { app, lines } = appWithLogs();
    await request(app).post("/sync").send(syncRequest(minimalSpec)).expect(200);
    await request(app)
      .post("/sync")
      .set("content-type", "application/json")
      .send(`{"x": "${CANARY}`)
      .expect(400);
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const syncLine = entries.find((e) => e["path"] === "/sync" && e["status"] === 200);
    expect(syncLine).to.include({
      method: "POST",
      parent: "default/llama",
      phase: "Initializing",
      children: 4,
    });
    expect(lines.join("")).not.to.include(CANARY);
  });
});
