// Related ConfigMaps whose YAML would take the process out of heap or block
// it for seconds when parsed whole (issue: one tenant cannot stall the hook):
// through the HTTP edge, each is a 200 whose status names the ConfigMap and
// the bound, answered in bounded time (in a worker of the pool, which no
// request here may make it replace).
import { expect } from "chai";
import { pino } from "pino";
import request from "supertest";
import type { KubeObject } from "../../../src/api/hook.js";
import { createApp } from "../../../src/server/app.js";
import { loadCatalog } from "../../../src/edge/load-catalog.js";
import { testPool } from "../../support/pool.js";
import { request as syncRequest } from "../../support/request.js";

const pool = testPool();
const app = createApp({ pool, catalog: loadCatalog(), logger: pino({ level: "silent" }) });

const configMap = (name: string, text: string): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "default", uid: `uid-${name}`, resourceVersion: "7" },
  data: { "config.yaml": text },
});

const hostileTexts = [
  {
    what: "240 KB of tiny nodes",
    text: "- a\n".repeat(60_000),
    bound: "more than 20000 YAML nodes",
  },
  {
    what: "one mapping of 25,000 keys",
    text: Array.from({ length: 25_000 }, (_, i) => `k${i}: 1`).join("\n"),
    bound: "more than 20000 YAML nodes",
  },
  {
    what: "1,000 levels",
    text: `${"- ".repeat(1000)}a\n`,
    bound: "nested more than 32 levels deep",
  },
];

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

async function post(
  body: object,
): Promise<{ status: { conditions: Condition[] }; kinds: string[] }> {
  const res = await request(app).post("/sync").send(body).expect(200);
  const kinds = (res.body.children as { kind: string }[]).map((c) => c.kind);
  return { status: res.body.status, kinds };
}

describe("related ConfigMaps past the YAML bounds, through /sync", () => {
  // Each answer within the workers' deadline (WORKER_DEADLINE_MS of processing): past it, or
  // out of heap, the pool would have replaced a worker.
  let replaced = 0;
  before(async () => {
    await pool.ready();
    replaced = pool.stats().replaced;
  });
  afterEach(() => expect(pool.stats().replaced - replaced).to.equal(0));

  for (const { what, text, bound } of hostileTexts) {
    it(`a base config of ${what}: InvalidBaseConfig naming the ConfigMap and the bound`, async () => {
      const spec = {
        distribution: {
          image: "acme/stack:1",
          release: "1.5.0",
          baseConfig: { configMapName: "acme" },
        },
      };
      const { status } = await post(syncRequest(spec, { related: [configMap("acme", text)] }));
      const config = status.conditions.find((c) => c.type === "ConfigGenerated");
      expect(config?.reason).to.equal("InvalidBaseConfig");
      expect(config?.message).to.include(
        "spec.distribution.baseConfig: ConfigMap acme's config.yaml",
      );
      expect(config?.message).to.include(bound);
    });

    it(`an override of ${what}: mounted, with an OverrideNotChecked warning naming the ConfigMap`, async () => {
      const spec = {
        distribution: { name: "starter" },
        overrideConfig: { configMapName: "whole" },
      };
      const { status, kinds } = await post(
        syncRequest(spec, { related: [configMap("whole", text)] }),
      );
      expect(kinds).to.include("Deployment");
      const messages = status.conditions.map((c) => c.message).join("\n");
      expect(messages).to.include(
        "spec.overrideConfig.configMapName: ConfigMap whole's config.yaml was not checked for the server's TLS settings: it",
      );
      expect(messages).to.include(bound);
    });
  }
});
