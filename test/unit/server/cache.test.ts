// The edge's caches: one byte budget, least recently used out, and whole sync
// responses served again only when they cannot depend on the clock.
import type { Spec } from "../../../src/api/schema.js";
import { specBindings } from "../../../src/config/bindings.js";
import { expect } from "chai";
import fc from "fast-check";
import objectHash from "object-hash";
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { gzipSync } from "node:zlib";
import { pino } from "pino";
import request from "supertest";
import { generateConfig, type GenerateInput } from "../../../src/config/generate.js";
import { loadCatalog } from "../../../src/edge/load-catalog.js";
import { createApp } from "../../../src/server/app.js";
import { testPool } from "../../support/pool.js";
import {
  byteCache,
  GENERATION_KEY_HASH,
  generationKey,
  keyText,
  memoize,
} from "../../../src/server/memo.js";
import { dependsOnNow, requestKey } from "../../../src/server/responses.js";
import { buildRequest, loadCases, type CaseFile } from "../../support/harness.js";

const catalog = loadCatalog();

/** An app whose clock reads `at`, and the log lines of its requests. */
function appAt(at: string, options: { cacheBytes?: number } = {}) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      cb();
    },
  });
  const app = createApp({
    pool: testPool(),
    catalog,
    logger: pino({ level: "info" }, stream),
    now: () => new Date(at),
    ...options,
  });
  const syncLines = () => lines.filter((l) => l["path"] === "/sync");
  return { app, syncLines };
}

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

/** A parent at rest: two earlier syncs applied and rolled out, the status fed back. */
function steadyBody(s: unknown = spec): string {
  const c: CaseFile = {
    description: "steady",
    spec: s,
    generation: 1,
    secrets: { "creds-a": ["token"] },
    observed: [
      { spec: s, generation: 1 },
      { spec: s, generation: 1 },
    ],
  };
  return JSON.stringify(buildRequest(c, "v2"));
}

/** A parent's first sync: every condition transitions, so the answer holds `now`. */
function firstBody(): string {
  const c: CaseFile = { description: "first", spec, secrets: { "creds-a": ["token"] } };
  return JSON.stringify(buildRequest(c, "v2"));
}

type App = ReturnType<typeof appAt>["app"];

function postSync(app: App, body: string) {
  return request(app).post("/sync").set("content-type", "application/json").send(body);
}

/** A request as sent on the wire (supertest re-encodes Buffer bodies). */
async function rawPost(
  app: App,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ status: number; text: string }> {
  const server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      const req = http.request(
        { host: "127.0.0.1", port, path: "/sync", method: "POST", headers },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => (text += c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  } finally {
    server.close();
  }
}

const LATER = "2026-11-02T09:30:00.000Z";
const LATER_TEXT = "2026-11-02T09:30:00Z";

describe("the edge's response cache", () => {
  it("answers a steady parent's repeated request from the cache, byte for byte", async () => {
    const body = steadyBody();
    const { app, syncLines } = appAt(LATER);
    const first = await postSync(app, body);
    const again = await postSync(app, body);
    expect([first.status, again.status]).to.deep.equal([200, 200]);
    expect(again.text).to.equal(first.text);
    expect(again.headers["content-type"]).to.equal(first.headers["content-type"]);
    expect(again.headers["content-type"]).to.equal("application/json; charset=utf-8");
    expect(first.text).not.to.include(LATER_TEXT);
    const [miss, hit] = syncLines();
    expect(miss).not.to.have.property("cached");
    expect(hit).to.include({ cached: true, parent: "default/llama", children: 4 });
    expect(hit?.["phase"]).to.equal(miss?.["phase"]);
  });

  it("serves what a fresh hook would answer at another time", async () => {
    const body = steadyBody();
    const cachedApp = appAt(LATER).app;
    await postSync(cachedApp, body);
    const cached = await postSync(cachedApp, body);
    const fresh = await postSync(appAt("2027-03-04T05:06:07.000Z").app, body);
    expect(cached.text).to.equal(fresh.text);
  });

  it("does not keep an answer that holds now: a later request gets its own time", async () => {
    const body = firstBody();
    const early = appAt("2026-11-02T09:00:00.000Z");
    const first = await postSync(early.app, body);
    expect(first.text).to.include("2026-11-02T09:00:00Z");
    const second = await postSync(early.app, body);
    expect(early.syncLines()[1]).not.to.have.property("cached");
    expect(second.text).to.equal(first.text);
  });

  it("computes a conflict every time, as without a cache", async () => {
    const c = loadCases().find((x) => x.name === "hook-no-last-applied-conflict");
    if (c === undefined) throw new Error("golden case missing");
    const body = JSON.stringify(buildRequest(c.file, "v1"));
    const { app, syncLines } = appAt(LATER);
    const first = await postSync(app, body);
    const second = await postSync(app, body);
    expect(first.status).to.equal(409);
    expect(second.status).to.equal(409);
    expect(second.text).to.equal(first.text);
    expect(syncLines().map((l) => l["cached"])).to.deep.equal([undefined, undefined]);
    expect(syncLines()[1]).to.have.property("conflict");
  });

  it("keys the decoded body: the same request gzipped is the same entry", async () => {
    const body = steadyBody();
    const { app, syncLines } = appAt(LATER);
    const plain = await postSync(app, body);
    const zipped = await rawPost(
      app,
      { "content-type": "application/json", "content-encoding": "gzip" },
      gzipSync(body),
    );
    expect(zipped.status, zipped.text).to.equal(200);
    expect(zipped.text).to.equal(plain.text);
    expect(syncLines()[1]).to.include({ cached: true });
  });

  it("a different request is a different entry", async () => {
    const { app, syncLines } = appAt(LATER);
    await postSync(app, steadyBody());
    const other = {
      ...spec,
      providers: { inference: [{ provider: "vllm", endpoint: "http://other:8000/v1" }] },
    };
    const res = await postSync(app, steadyBody(other));
    expect(res.status).to.equal(200);
    expect(res.text).to.include("other:8000");
    expect(syncLines()[1]).not.to.have.property("cached");
  });

  it("does not cache anything when the budget is too small for one answer", async () => {
    const body = steadyBody();
    const { app, syncLines } = appAt(LATER, { cacheBytes: 1024 });
    await postSync(app, body);
    await postSync(app, body);
    expect(syncLines().map((l) => l["cached"])).to.deep.equal([undefined, undefined]);
  });
});

describe("requestKey and dependsOnNow", () => {
  const rows: {
    name: string;
    a: [string, string | null];
    b: [string, string | null];
    same: boolean;
  }[] = [
    // the same bytes in the same charset: one request
    { name: "equal bytes", a: ["{}", "utf-8"], b: ["{}", "utf-8"], same: true },
    // one byte apart
    { name: "other bytes", a: ["{}", "utf-8"], b: ["{ }", "utf-8"], same: false },
    // the same bytes read in another charset parse to another request
    { name: "other charset", a: ["{}", "utf-8"], b: ["{}", "utf-16le"], same: false },
    // the charset and the body do not run together
    { name: "no ambiguity", a: ["8{}", "utf-"], b: ["{}", "utf-8"], same: false },
    { name: "no charset", a: ["{}", null], b: ["{}", ""], same: true },
  ];
  for (const row of rows) {
    it(`${row.name}: ${row.same ? "one key" : "two keys"}`, () => {
      const key = ([text, charset]: [string, string | null]) =>
        requestKey(Buffer.from(text), charset);
      expect(key(row.a) === key(row.b)).to.equal(row.same);
    });
  }

  it("an answer holding the time depends on it; one without does not", () => {
    expect(dependsOnNow(`{"lastTransitionTime":"${LATER_TEXT}"}`, LATER_TEXT)).to.equal(true);
    expect(dependsOnNow(`{"lastTransitionTime":"2026-11-01T12:00:00Z"}`, LATER_TEXT)).to.equal(
      false,
    );
  });
});

describe("generationKey", () => {
  const base = {
    distribution: { name: "starter", release: "1.5.0", image: "img" },
    catalog,
    userEnvNames: ["A"],
  };
  const key = (spec: unknown, more: Record<string, unknown> = {}) =>
    generationKey({ ...base, spec, ...more } as unknown as GenerateInput);
  const rows: { name: string; a: unknown; b: unknown; same: boolean }[] = [
    // objects are unordered
    { name: "keys in another order", a: { x: 1, y: 2 }, b: { y: 2, x: 1 }, same: true },
    // lists are ordered
    { name: "a list in another order", a: { l: [1, 2] }, b: { l: [2, 1] }, same: false },
    // a set field is not a missing one
    { name: "undefined against missing", a: { x: undefined }, b: {}, same: false },
    { name: "undefined against null", a: { x: undefined }, b: { x: null }, same: false },
    // a string is not a number
    { name: "a string against a number", a: { x: "1" }, b: { x: 1 }, same: false },
    // __proto__ is a key like any other
    {
      name: "a __proto__ key",
      a: JSON.parse('{"s":{"__proto__":{"x":1}}}') as unknown,
      b: { s: {} },
      same: false,
    },
    // no string stands for undefined
    { name: "a string like undefined", a: { x: "undefined" }, b: { x: undefined }, same: false },
    // one object reached twice is hashed as a repeat, not as its value: a miss,
    // never a wrong hit, and parsed JSON never shares an object (ADR 0009)
    {
      name: "one object twice against two equal copies",
      a: (() => {
        const shared = { v: 1 };
        return { p: shared, q: shared };
      })(),
      b: { p: { v: 1 }, q: { v: 1 } },
      same: false,
    },
    // -0 is not 0: the config's YAML writes it as -0
    { name: "-0 against 0", a: { x: -0 }, b: { x: 0 }, same: false },
    { name: "-0 against -0", a: { x: [-0] }, b: { x: [-0] }, same: true },
    {
      name: "-0 against 0 in an object reached twice (object-hash writes the key)",
      a: (() => {
        const shared = { v: -0 };
        return { p: shared, q: shared };
      })(),
      b: (() => {
        const shared = { v: 0 };
        return { p: shared, q: shared };
      })(),
      same: false,
    },
    // nested objects are unordered too
    {
      name: "nested key order",
      a: { o: { a: 1, b: [{ c: 1, d: 2 }] } },
      b: { o: { b: [{ d: 2, c: 1 }], a: 1 } },
      same: true,
    },
  ];
  for (const row of rows) {
    it(`${row.name}: ${row.same ? "one key" : "two keys"}`, () => {
      expect(key(row.a) === key(row.b)).to.equal(row.same);
    });
  }

  it("reads the env names, port and server settings, not the catalog", () => {
    const spec = { distribution: { name: "starter" } };
    expect(key(spec)).to.equal(key(spec, { catalog: {} }));
    expect(key(spec)).not.to.equal(key(spec, { userEnvNames: ["B"] }));
    expect(key(spec)).not.to.equal(key(spec, { port: 8080 }));
    expect(key(spec)).not.to.equal(key(spec, { server: { tls_certfile: "/x" } }));
    expect(key(spec, { port: undefined })).to.equal(key(spec));
  });

  it("reads a custom image's base config text, not only its ConfigMap's name", () => {
    const spec = {
      distribution: { image: "img", release: "1.5.0", baseConfig: { configMapName: "b" } },
    };
    const base = (text: string) => ({ base: { configMapName: "b", key: "config.yaml", text } });
    expect(key(spec, base("apis: []\n"))).to.equal(key(spec, base("apis: []\n")));
    expect(key(spec, base("apis: []\n"))).not.to.equal(key(spec, base("apis: [files]\n")));
    expect(key(spec, base("apis: []\n"))).not.to.equal(key(spec));
  });
});

describe("generationKey is object-hash's key (ADR 0009)", () => {
  // The key is objectHash of the inputs with ADR 0009's options, however it is computed.
  const options = GENERATION_KEY_HASH;
  const distribution = { name: "starter", release: "1.5.0", image: "img" };
  const inputsOf = (spec: unknown, userEnvNames: string[], port?: number) => ({
    spec,
    distribution,
    env: userEnvNames,
    port: port ?? null,
    server: null,
    base: null,
  });
  it("on every golden case's spec", () => {
    for (const c of loadCases()) {
      const input = { spec: c.file.spec, distribution, catalog, userEnvNames: ["A"] };
      expect(generationKey(input as unknown as GenerateInput), c.name).to.equal(
        objectHash(inputsOf(c.file.spec, ["A"]), options),
      );
    }
  });
  it("on generated values, undefined and odd strings included (seeded); lone surrogates apart", () => {
    const value = fc.anything({ maxDepth: 3, withObjectString: true, stringUnit: "binary" });
    fc.assert(
      fc.property(
        value,
        fc.array(fc.string({ unit: "binary" })),
        fc.option(fc.nat(), { nil: undefined }),
        (spec, env, port) => {
          const input = { spec, distribution, catalog, userEnvNames: env, port };
          const text = objectHash(inputsOf(spec, env, port), {
            ...options,
            algorithm: "passthrough",
          });
          // A lone surrogate: object-hash's key is U+FFFD's for it; ours is its own (below).
          if (!text.isWellFormed()) return;
          expect(generationKey(input as unknown as GenerateInput)).to.equal(
            objectHash(inputsOf(spec, env, port), options),
          );
        },
      ),
      { numRuns: 120, seed: 20261131 },
    );
  });
});

describe("keyText is object-hash's text (ADR 0009)", () => {
  const passthrough = { ...GENERATION_KEY_HASH, algorithm: "passthrough" } as const;
  // What it writes itself (JSON trees), and what it leaves to object-hash, each against object-hash.
  const shared = { v: 1 };
  const rows: { name: string; value: object }[] = [
    { name: "a JSON tree", value: { b: [1, "x", null, true, { a: -0 }], a: "\ud800" } },
    { name: "an object reached twice", value: { p: shared, q: shared } },
    {
      name: "a list with a hole",
      value: { l: Object.assign(new Array<number>(3), { 0: 1, 2: 3 }) },
    },
    { name: "an object of another class", value: { d: new Date(0), m: new Map([["k", 1]]) } },
    {
      name: "an object without a prototype",
      value: { o: Object.assign(Object.create(null), { a: 1 }) },
    },
    { name: "a __proto__ key", value: JSON.parse('{"s":{"__proto__":{"x":1}}}') as object },
  ];
  for (const row of rows)
    it(row.name, () => {
      expect(keyText(row.value)).to.equal(objectHash(row.value, passthrough));
    });
  it("on generated values of every kind (seeded)", () => {
    const value = fc.anything({
      maxDepth: 3,
      withObjectString: true,
      withNullPrototype: true,
      withSparseArray: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withBigInt: true,
      withBoxedValues: true,
      withTypedArray: true,
      stringUnit: "binary",
    });
    fc.assert(
      fc.property(value, (v) => {
        const input = { v };
        expect(keyText(input)).to.equal(objectHash(input, passthrough));
      }),
      { numRuns: 300, seed: 20261128 },
    );
  });
});

describe("generationKey and lone surrogates", () => {
  // UTF-8 writes U+FFFD for a lone surrogate: object-hash's key of "\ud800",
  // "\udc00" and "\ufffd" is one, and a parent with one would be answered
  // with the generation of another.
  const distribution = { name: "starter", release: "1.5.0", image: "img" };
  const keyOf = (id: string) =>
    generationKey({
      spec: { models: [{ id }] },
      distribution,
      catalog,
      userEnvNames: [],
    } as unknown as GenerateInput);
  it("gives each its own key, where object-hash gives them one", () => {
    const ids = ["m\ud800", "m\udc00", "m\ufffd", "m\ud800\udc00", "m\udc00\ud800"];
    expect(new Set(ids.map(keyOf)).size).to.equal(ids.length);
    const oh = (id: string) => objectHash({ id }, GENERATION_KEY_HASH);
    expect(oh("m\ud800")).to.equal(oh("m\ufffd"));
  });
  it("is object-hash's key for well-formed text, whatever its characters (seeded)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (id) => {
        const inputs = {
          spec: { models: [{ id }] },
          distribution,
          env: [],
          port: null,
          server: null,
          base: null,
        };
        expect(keyOf(id)).to.equal(objectHash(inputs, GENERATION_KEY_HASH));
      }),
      { numRuns: 200, seed: 20261128 },
    );
  });
});

/** What the worker hands generateConfig for `spec`, on the catalog's first release. */
function generateInputOf(spec: Spec): GenerateInput {
  const release = catalog.releases[0] ?? "";
  return {
    spec,
    bindings: specBindings(spec),
    distribution: { name: "starter", release, image: "x" },
    catalog,
    userEnvNames: [],
  };
}

describe("byteCache", () => {
  it("drops the least recently used entries once the bytes pass the budget", () => {
    const cache = byteCache(100);
    const t = cache.tier<string>("t");
    t.set("a", "A", 10);
    t.set("b", "B", 10);
    t.set("c", "C", 10);
    expect(t.get("a")).to.equal("A"); // a is now the most recent
    t.set("d", "D", 12); // 12 bytes: at most an eighth of the budget, kept
    t.set("e", "E", 12);
    expect(cache.stats()).to.deep.equal({ entries: 5, bytes: 54 });
    for (let i = 0; i < 5; i++) t.set(`x${i}`, "X", 12);
    expect(cache.stats().bytes).to.be.at.most(100);
    expect(t.get("b")).to.equal(undefined);
    expect(t.get("x4")).to.equal("X");
  });

  it("refuses a value over an eighth of the budget", () => {
    const cache = byteCache(80);
    const t = cache.tier<string>("t");
    t.set("big", "B", 11);
    expect(t.get("big")).to.equal(undefined);
    expect(cache.stats()).to.deep.equal({ entries: 0, bytes: 0 });
  });

  it("keeps tiers apart and counts them against one budget", () => {
    const cache = byteCache(1000);
    const a = cache.tier<number>("a");
    const b = cache.tier<string>("b");
    a.set("k", 1, 100);
    b.set("k", "one", 100);
    expect(a.get("k")).to.equal(1);
    expect(b.get("k")).to.equal("one");
    a.set("k", 2, 50); // replacing an entry returns its bytes
    expect(cache.stats()).to.deep.equal({ entries: 2, bytes: 150 });
  });

  it("a tier with a budget of its own drops its own oldest entries past it, never another tier's", () => {
    const cache = byteCache(1000);
    const capped = cache.tier<string>("capped", 100);
    const other = cache.tier<string>("other");
    other.set("o", "O", 10);
    for (let i = 0; i < 9; i++) capped.set(`k${i}`, "K", 12); // 108 bytes: k0 goes
    expect(capped.get("k0")).to.equal(undefined);
    expect(capped.get("k1")).to.equal("K");
    expect(other.get("o")).to.equal("O");
    expect(cache.tierStats()["capped"]).to.deep.include({ entries: 8, bytes: 96 });
    capped.set("big", "B", 13); // over an eighth of its own budget: refused
    expect(capped.get("big")).to.equal(undefined);
    expect(cache.stats()).to.deep.equal({ entries: 9, bytes: 106 });
  });

  it("memoize shares a cache with other tiers", () => {
    const cache = byteCache(1 << 30);
    let calls = 0;
    const memo = memoize(
      (input) => {
        calls++;
        return generateConfig(input);
      },
      { sizeOf: () => 1, cache },
    );
    const input = generateInputOf({ distribution: { name: "starter" } });
    memo(input);
    memo({ ...input, spec: structuredClone(input.spec) });
    expect(calls).to.equal(1);
    expect(memo.stats()).to.deep.equal({ entries: 1, bytes: 1 });
  });
});

describe("the generation memo and -0", () => {
  it("a spec with -0 where another had 0 gets its own generation, whose config says -0", () => {
    const generate = memoize(generateConfig, { sizeOf: () => 1, maxBytes: 1 << 20 });
    const yamlOf = (value: number) => {
      const out = generate(
        generateInputOf({
          distribution: { name: "starter" },
          providers: { inference: [{ provider: "vllm", endpoint: "http://vllm:8000/v1" }] },
          resources: { models: [{ name: "m", metadata: { temperature: value } }] },
        }),
      );
      if (!out.ok) throw new Error(JSON.stringify(out.problems));
      return out.value.configYaml;
    };
    const zero = yamlOf(0);
    expect(zero).to.include("temperature: 0\n");
    expect(yamlOf(-0)).to.include("temperature: -0\n");
    expect(yamlOf(0)).to.equal(zero);
    expect(generate.stats().entries).to.equal(2);
  });
});
