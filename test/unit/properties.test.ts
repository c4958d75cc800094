// Invariants of the hook, checked on generated specs (fast-check).
import { expect } from "chai";
import fc from "fast-check";
import { Writable } from "node:stream";
import { pino } from "pino";
import supertest from "supertest";
import { parse } from "yaml";
import { LAST_APPLIED_ANNOTATION } from "../../src/api/hook.js";
import { LlamaStackDistributionSpec } from "../../src/api/schema.js";
import { createApp } from "../../src/server/app.js";
import { testPool } from "../support/pool.js";
import { loadCatalog } from "../../src/edge/load-catalog.js";
import { configOf } from "../support/harness.js";
import { applyAll, CANARY, request, syncOk } from "../support/request.js";
import { validSpec } from "./arbitraries.js";

const runs = { numRuns: 60 };

/** The same value with every object's keys in reverse order. */
function reorder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reorder);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reorder(v)]),
  );
}

describe("hook invariants (property tests)", () => {
  it("generated specs are accepted and produce a config", () => {
    fc.assert(
      fc.property(validSpec, (spec) => {
        const res = syncOk(request(spec));
        expect((res.status as { phase: string }).phase, JSON.stringify(res.status)).to.equal(
          "Initializing",
        );
        expect(configOf(res)).to.be.a("string");
      }),
      { ...runs, seed: 20261218 },
    );
  });

  it("same spec → same bytes, also with every key reordered", () => {
    fc.assert(
      fc.property(validSpec, (spec) => {
        const a = JSON.stringify(syncOk(request(spec)));
        const b = JSON.stringify(syncOk(request(spec)));
        const c = JSON.stringify(syncOk(request(reorder(spec))));
        expect(b).to.equal(a);
        expect(c).to.equal(a);
      }),
      { ...runs, seed: 20261219 },
    );
  });

  it("no Secret value ever appears in a response (ConfigMaps included)", () => {
    fc.assert(
      fc.property(validSpec, (spec) => {
        const text = JSON.stringify(syncOk(request(spec)));
        expect(text).not.to.include(CANARY);
        expect(text).not.to.include(Buffer.from(CANARY).toString("base64").slice(0, 16));
      }),
      { ...runs, seed: 20261220 },
    );
  });

  it("every registered resource names an enabled provider of the right API", () => {
    const apiOf: Record<string, string> = {
      models: "inference",
      shields: "safety",
      tool_groups: "tool_runtime",
      vector_stores: "vector_io",
    };
    fc.assert(
      fc.property(validSpec, (spec) => {
        const config = parse(configOf(syncOk(request(spec))) ?? "", { version: "1.1" }) as {
          providers: Record<string, { provider_id: string }[]>;
          registered_resources: Record<string, { provider_id?: string }[]>;
        };
        for (const [kind, list] of Object.entries(config.registered_resources)) {
          const api = apiOf[kind];
          if (api === undefined) continue;
          const literalIds = (config.providers[api] ?? [])
            .map((p) => p.provider_id)
            .filter((id) => !id.startsWith("${"));
          for (const entry of list) {
            const id = entry.provider_id;
            // Conditional entries (`${env.X:+id}`) register only when their provider is enabled.
            if (id === undefined || id.startsWith("${")) continue;
            // OGX: a model on provider "all" is an alias on the first active inference provider.
            if (kind === "models" && id === "all") continue;
            expect(literalIds, `${kind} entry on ${id}`).to.include(id);
          }
        }
      }),
      { ...runs, seed: 20261221 },
    );
  });

  it("status is a fixed point: feeding it back gives the same response at a later time", () => {
    fc.assert(
      fc.property(validSpec, fc.boolean(), (spec, rolledOut) => {
        const first = syncOk(request(spec));
        const children = applyAll(first, rolledOut);
        const second = syncOk(
          request(spec, { children, status: first.status }),
          "2026-11-01T13:00:00Z",
        );
        const third = syncOk(
          request(spec, { children, status: second.status }),
          "2026-11-02T09:30:00Z",
        );
        expect(JSON.stringify(third)).to.equal(JSON.stringify(second));
      }),
      { ...runs, seed: 20261222 },
    );
  });

  it("an edit that makes a running parent invalid, or points it at a missing Secret, returns exactly the last-applied children", () => {
    const breakSpec = fc.constantFrom<
      (s: Record<string, unknown>) => { spec: unknown; dropSecrets: boolean }
    >(
      (s) => ({
        spec: { ...s, providers: { inference: [{ provider: "vllm" }, { provider: "ollama" }] } },
        dropSecrets: false,
      }),
      (s) => ({
        spec: { ...s, distribution: { name: "starter", image: "x/y:z" } },
        dropSecrets: false,
      }),
      (s) => ({
        spec: { ...s, providers: { inference: [{ provider: "no-such-provider" }] } },
        dropSecrets: false,
      }),
      (s) => ({ spec: { ...s, unexpected: true }, dropSecrets: false }),
      (s) => ({ spec: { ...s, disabled: ["vectorIo"] }, dropSecrets: false }),
      (s) => ({
        spec: {
          ...s,
          providers: {
            inference: [{ provider: "vllm", apiKey: { secretKeyRef: { name: "gone", key: "k" } } }],
          },
        },
        dropSecrets: false,
      }),
      (s) => ({ spec: s, dropSecrets: true }),
      () => ({ spec: null, dropSecrets: false }),
    );
    fc.assert(
      fc.property(validSpec, breakSpec, (spec, mutate) => {
        const first = syncOk(request(spec));
        const children = applyAll(first);
        const broken = mutate(spec);
        // dropSecrets: only meaningful if the spec used a Secret; otherwise the edit is a no-op.
        const related = broken.dropSecrets ? [] : undefined;
        const res = syncOk(
          request(broken.spec, {
            children,
            status: first.status,
            generation: 2,
            ...(related === undefined ? {} : { related }),
          }),
        );
        const usesSecret = JSON.stringify(spec).includes("secretKeyRef");
        if (broken.dropSecrets && !usesSecret) return;
        const lastApplied = children.map(
          (c) => JSON.parse(c.metadata.annotations?.[LAST_APPLIED_ANNOTATION] ?? "null") as unknown,
        );
        expect(res.children).to.deep.equal(lastApplied);
        expect((res.status as { phase: string }).phase).to.equal("Failed");
      }),
      { ...runs, seed: 20261223 },
    );
  });
  it("any generated edit the schema rejects returns exactly the last-applied children", () => {
    const keys = [
      "distribution",
      "providers",
      "resources",
      "storage",
      "disabled",
      "disabledProviders",
      "networking",
      "workload",
      "overrideConfig",
      "notAField",
    ];
    fc.assert(
      fc.property(
        validSpec,
        fc.constantFrom(...keys),
        fc.jsonValue({ maxDepth: 3 }),
        (spec, key, value) => {
          const broken = { ...spec, [key]: value };
          fc.pre(!LlamaStackDistributionSpec.safeParse(broken).success);
          const first = syncOk(request(spec));
          const children = applyAll(first);
          const res = syncOk(request(broken, { children, status: first.status, generation: 2 }));
          const lastApplied = children.map(
            (c) =>
              JSON.parse(c.metadata.annotations?.[LAST_APPLIED_ANNOTATION] ?? "null") as unknown,
          );
          expect(res.children).to.deep.equal(lastApplied);
          expect((res.status as { phase: string }).phase).to.equal("Failed");
        },
      ),
      { ...runs, seed: 20261224 },
    );
  });

  it("no Secret value ever reaches an HTTP response or a log line, valid input or not", async function () {
    // The workers start first (seconds under tsx on a busy machine).
    this.timeout(120_000);
    const lines: string[] = [];
    const logger = pino(
      { level: "debug" },
      new Writable({
        write(chunk: Buffer, _enc, cb) {
          lines.push(chunk.toString());
          cb();
        },
      }),
    );
    const pool = testPool();
    const app = createApp({ pool, catalog: loadCatalog(), logger });
    await pool.ready();
    const encoded = Buffer.from(CANARY).toString("base64").slice(0, 16);
    await fc.assert(
      fc.asyncProperty(
        validSpec,
        fc.option(fc.tuple(fc.constantFrom("providers", "storage", "workload"), fc.jsonValue())),
        fc.constantFrom("/sync", "/customize"),
        async (spec, edit, path) => {
          const body = request(edit === null ? spec : { ...spec, [edit[0]]: edit[1] });
          lines.length = 0;
          const res = await supertest(app).post(path).send(body);
          const seen = res.text + lines.join("");
          expect(lines.length, "one log line per request").to.be.greaterThan(0);
          expect(seen).not.to.include(CANARY);
          expect(seen).not.to.include(encoded);
        },
      ),
      { numRuns: 40, seed: 20261225 },
    );
  });
});
