// The hook's workers apply the confused-deputy rule as the server was told:
// ALLOWED_POD_FIELDS, read by settingsFromEnv (an unknown name stops the hook
// at start, naming it) and handed by main.ts to createPool. Through the pool,
// an nfs volume is a RestrictedPodField warning by default and passes
// silently where nfs is allowed.
import { expect } from "chai";
import { pino } from "pino";
import request from "supertest";
import { CACHE_BYTES, createApp, generationCacheBytes } from "../../../src/server/app.js";
import { loadCatalog } from "../../../src/edge/load-catalog.js";
import { createPool } from "../../../src/server/pool/index.js";
import { DEFAULT_POOL_LIMITS } from "../../../src/server/pool/limits.js";
import { settingsFromEnv } from "../../../src/server/settings.js";
import { request as syncRequest } from "../../support/request.js";

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

/** The condition types a sync of the spec reports, through a pool made from this environment. */
async function conditionTypes(env: Record<string, string>): Promise<string[]> {
  const { allowedPodFields } = settingsFromEnv(env);
  const pool = createPool({
    catalog,
    limits: { ...DEFAULT_POOL_LIMITS, workers: 1 },
    cacheBytes: generationCacheBytes(CACHE_BYTES),
    ...(allowedPodFields === undefined ? {} : { allowedPodFields }),
  });
  try {
    const app = createApp({ pool, catalog, logger });
    const res = await request(app).post("/sync").send(syncRequest(spec)).expect(200);
    return (res.body.status.conditions as { type: string }[]).map((c) => c.type);
  } finally {
    await pool.close();
  }
}

describe("ALLOWED_POD_FIELDS", function () {
  this.timeout(60_000);

  describe("in the server's settings", () => {
    it("unset or empty: nothing allowed (no setting)", () => {
      expect(settingsFromEnv({}).allowedPodFields).to.equal(undefined);
      expect(settingsFromEnv({ ALLOWED_POD_FIELDS: " " }).allowedPodFields).to.equal(undefined);
    });

    it("names separated by commas or spaces, sorted", () => {
      expect(
        settingsFromEnv({ ALLOWED_POD_FIELDS: "nfs, hostPorts iscsi" }).allowedPodFields,
      ).to.deep.equal(["hostPorts", "iscsi", "nfs"]);
    });

    it("an unknown name stops the hook at start, naming it", () => {
      expect(() => settingsFromEnv({ ALLOWED_POD_FIELDS: "nfs,hostpath" })).to.throw(
        /ALLOWED_POD_FIELDS.*hostpath/,
      );
    });
  });

  describe("through the worker pool", () => {
    it("by default, an nfs volume is a RestrictedPodField warning", async () => {
      expect(await conditionTypes({})).to.include("RestrictedPodField");
    });

    it("with nfs allowed, it passes without one", async () => {
      expect(await conditionTypes({ ALLOWED_POD_FIELDS: "nfs" })).to.not.include(
        "RestrictedPodField",
      );
    });
  });
});
