// The hook's workers apply the confused-deputy rule as the app was told
// (createApp's allowedPodFields, which main.ts reads from ALLOWED_POD_FIELDS):
// through the pool, an nfs volume is a RestrictedPodField warning by default
// and passes silently where nfs is allowed.
import { expect } from "chai";
import { pino } from "pino";
import request from "supertest";
import { createApp } from "../../../src/server/app.js";
import { loadCatalog } from "../../../src/edge/load-catalog.js";
import { request as syncRequest } from "../arbitraries.js";

const catalog = loadCatalog();
const logger = pino({ level: "silent" });

const spec = {
  distribution: { name: "starter" },
  providers: { inference: [{ provider: "vllm", endpoint: "http://vllm:8000/v1" }] },
  workload: {
    overrides: {
      volumes: [{ name: "models", nfs: { server: "nas", path: "/models" } }],
      volumeMounts: [{ name: "models", mountPath: "/models", readOnly: true }],
    },
  },
};

async function conditionTypes(allowedPodFields?: string[]): Promise<string[]> {
  const app = createApp({
    catalog,
    logger,
    ...(allowedPodFields === undefined ? {} : { allowedPodFields }),
  });
  const res = await request(app).post("/sync").send(syncRequest(spec)).expect(200);
  return (res.body.status.conditions as { type: string }[]).map((c) => c.type);
}

describe("ALLOWED_POD_FIELDS through the worker pool", function () {
  this.timeout(60_000);

  it("by default, an nfs volume is a RestrictedPodField warning", async () => {
    expect(await conditionTypes()).to.include("RestrictedPodField");
  });

  it("with nfs allowed, it passes without one", async () => {
    expect(await conditionTypes(["nfs"])).to.not.include("RestrictedPodField");
  });
});
