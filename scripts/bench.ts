// npm run bench: what generation, sync and render cost, printed as tables of
// figures (never asserted: this machine is shared and noisy; compare the rows
// of one run, which are measured side by side). In one process:
//   1. in-process generation of the Go peer's five shapes (sync as render runs
//      it, and the whole of render), beside the figures published for the OGX
//      operator's offline generator (Go) as reference text;
//   2. cost in models: cold generation and sync at 1, 10, 100 and 1000 models;
//   3. config generation of a typical and a large spec, cold and memoized;
//   4. sync over HTTP on one keep-alive connection, requests interleaved with
//      the floor: a bare express app on the same server and connection that
//      parses the same request and returns the same response bytes. Steady
//      state is a parent at rest (its children applied and rolled out, its
//      status fed back), answered with and without the response cache (without
//      it, and cold, a worker of the pool answers); cold is a new spec each
//      request;
//   5. the whole process: `node dist/cli/main.js render <file>`, per shape;
//   6. memory of the hook process (scripts/bench-memory.ts);
//   7. a fleet: CPU and memory per parent for 1,000 distinct parents through the
//      stand-in Metacontroller, creation wave to idle resync (scripts/bench-scale.ts).
//   8. a rolling restart of the hook's pods on the real node under steady
//      syncs: failed syncs, and each old pod's SIGTERM → exit
//      (scripts/bench-restart.ts; needs root and the node, else SKIPPED).
//   9. one hostile tenant beside typical parents (scripts/bench-tenant.ts), and
//      the memory of the worst case, every bound full at once, in a memory
//      cgroup of the pod's limit (scripts/bench-worst.ts): each with a target,
//      exiting non-zero when it is missed.
//  10. the per-parent series (src/server/condition-metrics.ts) of 1,000 Ready
//      parents: series by family, /metrics bytes, the time to render a scrape.
//  11. the admission webhook: POST /validate (on the API server's port, as
//      main.ts serves it) beside a /sync the response cache cannot answer, for
//      a typical and a large parent, interleaved, one keep-alive connection to
//      each port, one worker pool; a target (/validate within 1.5× of that /sync), exiting
//      non-zero when it is missed.
//  12. bounds the tests check by outcome, not by time: how soon the hook cuts
//      stalled clients at its default timeouts, and the bounded YAML reader on
//      hostile text (scripts/bench-bounds.ts).
// `npm run bench -- 5` runs section 5 only (any list of section numbers).
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import express from "express";
import { pino } from "pino";
import { stringify } from "yaml";
import { LlamaStackDistributionSpec } from "../src/api/schema.js";
import { requestOf, render } from "../src/cli/render.js";
import { resolveDistribution } from "../src/config/distribution.js";
import { specBindings } from "../src/config/bindings.js";
import { generateConfig } from "../src/config/generate.js";
import { isoSeconds } from "../src/edge/clock.js";
import { loadCatalog } from "../src/edge/load-catalog.js";
import { createApp } from "../src/server/app.js";
import { API_SERVER_CLASS } from "../src/server/classes.js";
import { createMetrics } from "../src/server/metrics.js";
import { memoize } from "../src/server/memo.js";
import type { Pool } from "../src/server/pool/index.js";
import { sync } from "../src/sync.js";
import { buildRequest, type CaseFile } from "../test/support/harness.js";
import { testPool } from "../test/support/pool.js";
import { benchMemory, buildDist } from "./bench-memory.js";
import { benchScale } from "./bench-scale.js";
import { benchRestart } from "./bench-restart.js";
import { benchTenant } from "./bench-tenant.js";
import { benchWorst } from "./bench-worst.js";
import { benchBounds } from "./bench-bounds.js";

const catalog = loadCatalog();
const ctx = { catalog, generate: generateConfig };

// ---------------------------------------------------------------- shapes

const creds = { secretKeyRef: { name: "creds-a", key: "token" } };

/** starter 0.7.3 (the release the figures were measured on), one vLLM provider, n models. */
function typicalSpec(salt = "", models = 2): Record<string, unknown> {
  return {
    distribution: { name: "starter", release: "0.7.3" },
    providers: {
      inference: [
        {
          provider: "vllm",
          endpoint: `http://vllm${salt}:8000/v1`,
          apiKey: creds,
          settings: { max_tokens: 8192 },
        },
      ],
    },
    resources: {
      models: Array.from({ length: models }, (_, i) =>
        i < 2 ? { name: ["llama3.2-8b", "llama3.2-70b"][i] } : { name: `model-${i}` },
      ),
    },
    disabled: ["eval"],
  };
}

/** 20 providers (12 vLLM, 4 safety, 4 MCP on 0.7.3; 16 vLLM and 4 MCP on OGX), 200 models. */
function largeSpec(salt = "", release: string | undefined = "0.7.3"): Record<string, unknown> {
  const safetyApi = release === "0.7.3";
  const inferenceCount = safetyApi ? 12 : 16;
  const inference = Array.from({ length: inferenceCount }, (_, i) => ({
    id: `vllm-${i}`,
    provider: "vllm",
    endpoint: `http://vllm-${i}${salt}:8000/v1`,
    apiKey: creds,
    settings: { max_tokens: 4096 + i },
  }));
  const safety = Array.from({ length: 4 }, (_, i) => ({
    id: `guard-${i}`,
    provider: "llama-guard",
  }));
  const toolRuntime = Array.from({ length: 4 }, (_, i) => ({
    id: `mcp-${i}`,
    provider: "model-context-protocol",
  }));
  const models = Array.from({ length: 200 }, (_, i) => ({
    name: `model-${i}`,
    provider: `vllm-${i % inferenceCount}`,
  }));
  return {
    distribution: { name: "starter", ...(release === undefined ? {} : { release }) },
    providers: { inference, ...(safetyApi ? { safety } : {}), toolRuntime },
    resources: { models },
  };
}

const vllm = {
  provider: "vllm",
  endpoint: "http://vllm.models.svc:8000/v1",
  apiKey: { secretKeyRef: { name: "creds-a", key: "token" } },
};
const oneModel = { models: [{ name: "meta-llama/Llama-3.2-3B-Instruct" }] };

/** The five resources the Go peer was run on (the default release, OGX 1.5.0), with its p50s. */
const goShapes: { name: string; spec: Record<string, unknown>; go: string }[] = [
  {
    name: "starter + vLLM + key",
    spec: {
      distribution: { name: "starter" },
      providers: { inference: [vllm] },
      resources: oneModel,
    },
    go: "1.6–2.8 ms",
  },
  {
    name: "two providers",
    spec: {
      distribution: { name: "starter" },
      providers: {
        inference: [
          { id: "vllm", ...vllm },
          { id: "ollama", provider: "ollama", endpoint: "http://ollama.models.svc:11434" },
        ],
      },
      resources: {
        models: [
          { name: "meta-llama/Llama-3.2-3B-Instruct", provider: "vllm" },
          { name: "llama3.2:3b", provider: "ollama" },
        ],
      },
    },
    go: "1.6–2.8 ms",
  },
  {
    name: "postgres storage",
    spec: {
      distribution: { name: "starter" },
      providers: { inference: [vllm] },
      resources: oneModel,
      storage: {
        kv: { type: "postgres", secretName: "pg" },
        sql: { type: "postgres", secretName: "pg" },
      },
    },
    go: "1.6–2.8 ms",
  },
  {
    name: "a disabled API",
    spec: {
      distribution: { name: "starter" },
      providers: { inference: [vllm] },
      resources: oneModel,
      disabled: ["batches"],
    },
    go: "1.6–2.8 ms",
  },
  { name: "20 providers × 200 models", spec: largeSpec("", undefined), go: "4.2–5.6 ms" },
];

function crText(spec: unknown): string {
  return stringify({
    apiVersion: "llamastack.io/v1alpha2",
    kind: "LlamaStackDistribution",
    metadata: { name: "llama", namespace: "default" },
    spec,
  });
}

/** Keys of every Secret the shapes read. */
const secrets = {
  "creds-a": ["token"],
  pg: ["host", "port", "dbname", "user", "password"],
};

/** A parent at rest: two earlier syncs applied and rolled out, the status fed back. */
function steadyRequest(spec: unknown, parent: { namespace?: string; name?: string } = {}): string {
  const c: CaseFile = {
    description: "steady state",
    ...parent,
    spec,
    generation: 1,
    secrets,
    observed: [
      { spec, generation: 1 },
      { spec, generation: 1 },
    ],
  };
  return JSON.stringify(buildRequest(c, "v2"));
}

/** A parent's first sync. */
function firstRequest(spec: unknown): string {
  return JSON.stringify(buildRequest({ description: "first sync", spec, secrets }, "v2"));
}

// ---------------------------------------------------------------- timing

function timeIt(fn: () => void, iterations: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t = process.hrtime.bigint();
    fn();
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return out;
}

/** Calls fn on each input in turn, timing each call. */
function timeEach<T>(inputs: readonly T[], fn: (input: T) => void): number[] {
  return inputs.map((input) => {
    const t = process.hrtime.bigint();
    fn(input);
    return Number(process.hrtime.bigint() - t) / 1e6;
  });
}

function pct(samples: readonly number[], p: number): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
const p50 = (s: readonly number[]) => ms(pct(s, 50));
const p99 = (s: readonly number[]) => ms(pct(s, 99));

/** Prints rows under a header, each column as wide as its widest cell. */
function table(title: string, header: string[], rows: string[][], notes: string[] = []): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    `  ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ")}`.trimEnd();
  console.log(`\n${title}`);
  console.log(line(header));
  for (const r of rows) console.log(line(r));
  for (const n of notes) console.log(`  ${n}`);
}

// ---------------------------------------------------------------- 1. the Go peer's shapes

function benchGoShapes(): void {
  const rows: string[][] = [];
  const now = isoSeconds(new Date());
  for (const shape of goShapes) {
    const text = crText(shape.spec);
    const { request } = requestOf(text, shape.name);
    const check = sync(request, now, ctx);
    const phase = check.kind === "ok" ? (check.response.status as { phase?: string }).phase : "409";
    const input = generateInput(shape.spec);
    for (let i = 0; i < 50; i++) generateConfig(input);
    const generations = timeIt(() => generateConfig(input), 300);
    for (let i = 0; i < 50; i++) sync(request, now, ctx);
    const syncs = timeIt(() => sync(request, now, ctx), 300);
    const date = new Date();
    for (let i = 0; i < 20; i++) render(text, "cr.yaml", ctx, date);
    const renders = timeIt(() => render(text, "cr.yaml", ctx, date), 200);
    rows.push([
      shape.name,
      p50(generations),
      p99(generations),
      p50(syncs),
      p99(syncs),
      p50(renders),
      p99(renders),
      shape.go,
      phase ?? "",
    ]);
  }
  table(
    "1. In-process generation of the Go peer's shapes (OGX 1.5.0; the same request each time, no cache), ms",
    [
      "shape",
      "generate p50",
      "p99",
      "sync p50",
      "p99",
      "render p50",
      "p99",
      "Go peer p50 (reference)",
      "phase",
    ],
    rows,
    [
      "generate: the config alone (generateConfig), what the Go peer's generator makes;",
      "sync: the hook's answer to the resource's first sync; render: the CLI's work after loading",
      "(parse the YAML, sync, print children and status). Go peer: the OGX operator's offline",
      "generator as published, 1.6–2.8 ms on the small cases and 4.2–5.6 ms on the large one.",
    ],
  );
}

// ---------------------------------------------------------------- 2. cost in models

function generateInput(raw: unknown) {
  const spec = LlamaStackDistributionSpec.parse(raw);
  const d = resolveDistribution(spec.distribution, catalog);
  if (!d.ok) throw new Error("bad distribution");
  return {
    spec,
    bindings: specBindings(spec),
    distribution: { ...d.value, name: d.value.name ?? "", release: d.value.release ?? "" },
    catalog,
    userEnvNames: [],
  };
}

/** The schema's bound on spec.resources.models (src/api/fields.ts LIMITS): sync refuses more. */
const MAX_MODELS = 256;

/** A parsed typical spec with n models; past the bound, built from a parsed one (generation only). */
function modelsInput(salt: string, n: number) {
  const input = generateInput(typicalSpec(salt, Math.min(n, MAX_MODELS)));
  const models = input.spec.resources?.models ?? [];
  const template = models[models.length - 1];
  if (n <= MAX_MODELS || template === undefined) return input;
  const more = Array.from(
    { length: n },
    (_, i) => models[i] ?? { ...template, name: `model-${i}` },
  );
  const spec = { ...input.spec, resources: { ...input.spec.resources, models: more } };
  return { ...input, spec, bindings: specBindings(spec) };
}

function benchModels(): void {
  const rows: string[][] = [];
  const now = isoSeconds(new Date());
  let previous: { n: number; gen: number; sync: number } | undefined;
  for (const n of [1, 10, 100, MAX_MODELS, 1000]) {
    const iterations = n >= 1000 ? 40 : n >= 100 ? 100 : 200;
    for (let i = 0; i < 10; i++) generateConfig(modelsInput(`warm${i}`, n));
    const inputs = Array.from({ length: iterations }, (_, i) => modelsInput(`c${i}`, n));
    const gen = timeEach(inputs, (input) => generateConfig(input));
    const requests =
      n > MAX_MODELS
        ? []
        : Array.from(
            { length: iterations },
            (_, k) => requestOf(crText(typicalSpec(`s${k}`, n)), "cr.yaml").request,
          );
    const syncs = timeEach(requests, (request) => sync(request, now, ctx));
    const marginal = (value: number, before: number | undefined) =>
      previous === undefined || before === undefined
        ? ""
        : (((value - before) * 1000) / (n - previous.n)).toFixed(1);
    rows.push([
      String(n),
      p50(gen),
      p99(gen),
      marginal(pct(gen, 50), previous?.gen),
      syncs.length === 0 ? "refused" : p50(syncs),
      syncs.length === 0 ? "" : p99(syncs),
      syncs.length === 0 ? "" : marginal(pct(syncs, 50), previous?.sync),
    ]);
    previous = { n, gen: pct(gen, 50), sync: pct(syncs, 50) };
  }
  table(
    "2. Cost in models: cold (a new spec each call), starter 0.7.3, one vLLM provider, ms",
    [
      "models",
      "generate p50",
      "p99",
      "µs per added model",
      "sync p50",
      "p99",
      "µs per added model",
    ],
    rows,
    [
      "linear when the cost of an added model stays flat from row to row. Past 256 models (the",
      "schema's bound) sync refuses the spec; generation is timed on a spec built past the bound.",
    ],
  );
}

// ---------------------------------------------------------------- 3. generation

function benchGeneration(): void {
  const rows: string[][] = [];
  for (const [name, make] of [
    ["typical (starter, 1 provider, 2 models)", (s: string) => typicalSpec(s)],
    ["large (20 providers, 200 models)", (s: string) => largeSpec(s)],
  ] as const) {
    // warm up the JIT on other inputs
    for (let i = 0; i < 30; i++) generateConfig(generateInput(make(`warm${i}`)));
    const inputs = Array.from({ length: 200 }, (_, i) => generateInput(make(`c${i}`)));
    const cold = timeEach(inputs, (input) => generateConfig(input));
    const memo = memoize(generateConfig, { maxBytes: 1 << 30, sizeOf: () => 1 });
    const same = generateInput(make("memo"));
    memo(same);
    const hit = timeIt(() => memo(same), 2000);
    rows.push([name, p50(cold), p99(cold), p50(hit), p99(hit)]);
  }
  table(
    "3. Config generation (generateConfig), ms: cold = a new spec each call; memoized = the generation cache's hit",
    ["spec", "cold p50", "p99", "memoized p50", "p99"],
    rows,
  );
}

// ---------------------------------------------------------------- 4. HTTP

async function post(
  port: number,
  path: string,
  body: string,
  agent: http.Agent,
): Promise<{ ms: number; text: string }> {
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const ms = Number(process.hrtime.bigint() - start) / 1e6;
          if (res.statusCode !== 200) reject(new Error(`${path}: status ${res.statusCode}`));
          else resolve({ ms, text: Buffer.concat(chunks).toString("utf8") });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** The floor: parse the request as the hook does, answer bytes made in advance. */
function floorApp(answers: Map<string, Buffer>) {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(express.json({ limit: 4 * 1024 * 1024, strict: false }));
  app.post("/floor/:parent", (req, res) => {
    if (typeof req.body !== "object") throw new Error("floor: not parsed");
    const answer = answers.get(String(req.params["parent"])) ?? Buffer.from("{}");
    res.status(200).set("content-type", "application/json; charset=utf-8").send(answer);
  });
  return app;
}

/** `handler` listening on a free port of 127.0.0.1 once `pool`'s workers are up, and one keep-alive connection to it. */
async function serve(handler: http.RequestListener, pool: Pool) {
  const server = http.createServer(handler);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  await pool.ready();
  const port = (server.address() as AddressInfo).port;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return { server, port, agent };
}

async function benchHttp(): Promise<void> {
  let hits = 0;
  const counter = new Writable({
    write(chunk: Buffer, _enc, cb) {
      if (chunk.includes('"cached":true')) hits++;
      cb();
    },
  });
  // Both hooks answer with one pool, whose workers start before anything is timed.
  const pool = testPool();
  const hook = createApp({ pool, catalog, logger: pino({ level: "info" }, counter) });
  const uncached = createApp({
    pool,
    catalog,
    logger: pino({ level: "silent" }),
    cacheResponses: false,
  });
  const answers = new Map<string, Buffer>();
  const floor = floorApp(answers);
  // One server, one connection: the floor and both hooks differ only in what runs for a request.
  const { server, port, agent } = await serve((req, res) => {
    const url = req.url ?? "";
    if (url.startsWith("/floor/")) return floor(req, res);
    if (url.startsWith("/uncached/")) {
      req.url = url.slice("/uncached".length);
      return uncached(req, res);
    }
    return hook(req, res);
  }, pool);

  const parents: { name: string; make: (salt: string) => unknown; n: number }[] = [
    { name: "typical", make: (s) => typicalSpec(s), n: 500 },
    { name: "large (20 × 200)", make: (s) => largeSpec(s), n: 300 },
    ...[1, 10, 100, MAX_MODELS].map((m) => ({
      name: `${m} model${m === 1 ? "" : "s"}`,
      make: (s: string) => typicalSpec(s, m),
      n: m >= 100 ? 150 : 300,
    })),
  ];
  const rows: string[][] = [];
  for (const [index, parent] of parents.entries()) {
    const steady = steadyRequest(parent.make(""));
    const first = await post(port, "/sync", steady, agent);
    if (first.text.includes(isoSeconds(new Date())))
      throw new Error(`${parent.name}: the steady answer holds the current time`);
    answers.set(String(index), Buffer.from(first.text));
    const floorPath = `/floor/${index}`;
    for (let i = 0; i < 30; i++) {
      await post(port, floorPath, steady, agent);
      await post(port, "/sync", steady, agent);
      await post(port, "/uncached/sync", steady, agent);
    }
    const floorMs: number[] = [];
    const steadyMs: number[] = [];
    const uncachedMs: number[] = [];
    hits = 0;
    for (let i = 0; i < parent.n; i++) {
      const f = await post(port, floorPath, steady, agent);
      const s = await post(port, "/sync", steady, agent);
      const u = await post(port, "/uncached/sync", steady, agent);
      if (s.text !== f.text || u.text !== f.text)
        throw new Error(`${parent.name}: the hook's answer moved in steady state`);
      floorMs.push(f.ms);
      steadyMs.push(s.ms);
      uncachedMs.push(u.ms);
    }
    const steadyHits = hits;
    const coldMs: number[] = [];
    const coldCount = Math.min(parent.n, 200);
    const coldBodies = Array.from({ length: coldCount }, (_, i) =>
      firstRequest(parent.make(`cold${i}`)),
    );
    for (const b of coldBodies) coldMs.push((await post(port, "/sync", b, agent)).ms);
    rows.push([
      parent.name,
      `${(Buffer.byteLength(steady) / 1024).toFixed(0)}/${(first.text.length / 1024).toFixed(0)}`,
      p50(floorMs),
      p99(floorMs),
      p50(steadyMs),
      p99(steadyMs),
      `${(pct(steadyMs, 50) / pct(floorMs, 50)).toFixed(2)}×`,
      `${steadyHits}/${parent.n}`,
      p50(uncachedMs),
      p99(uncachedMs),
      `${(pct(uncachedMs, 50) / pct(floorMs, 50)).toFixed(2)}×`,
      p50(coldMs),
      p99(coldMs),
    ]);
  }
  agent.destroy();
  server.close();
  table(
    "4. Sync over HTTP: one keep-alive connection, floor and hook requests interleaved, ms",
    [
      "parent",
      "req/resp KiB",
      "floor p50",
      "p99",
      "steady p50",
      "p99",
      "÷floor",
      "cache hits",
      "no resp. cache p50",
      "p99",
      "÷floor",
      "cold p50",
      "p99",
    ],
    rows,
    [
      "floor: a bare express app (express.json, the hook's body options) on the same server and",
      "connection, parsing the same request and sending the same response bytes, made in advance.",
      "steady: a parent at rest (children applied and rolled out, status fed back), same bytes each",
      "request. no resp. cache: the same with the whole-response cache off (the generation cache",
      "still on: the edge before). cold: a first sync of a new spec each request (nothing cached).",
    ],
  );
}

// ---------------------------------------------------------------- 10. per-parent series

/** The exposition's series (sample lines) by metric name, and its bytes. */
function seriesOf(text: string): Map<string, number> {
  const byName = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0] ?? "";
    byName.set(name, (byName.get(name) ?? 0) + 1);
  }
  return byName;
}

async function benchParentSeries(count = 1000, scrapes = 20): Promise<void> {
  const metrics = createMetrics({ processMetrics: true });
  const pool = testPool();
  const hook = createApp({ pool, catalog, logger: pino({ level: "silent" }), metrics });
  const { server, port, agent } = await serve(hook, pool);
  const before = Buffer.byteLength(await metrics.exposition());
  const spec = typicalSpec();
  for (let i = 0; i < count; i++) {
    const parent = { namespace: `team-${i % 50}`, name: `llama-${i}` };
    await post(port, "/sync", steadyRequest(spec, parent), agent);
  }
  agent.destroy();
  server.close();
  let text = "";
  const renderMs: number[] = [];
  for (let i = 0; i < scrapes; i++) {
    const start = process.hrtime.bigint();
    text = await metrics.exposition();
    renderMs.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const series = seriesOf(text);
  const parentSeries = [...series]
    .filter(([name]) => name.startsWith("llsd_hook_parent"))
    .map(([name, n]) => [name, String(n)]);
  const total = [...series.values()].reduce((a, b) => a + b, 0);
  const bytes = Buffer.byteLength(text);
  table(
    `10. Per-parent series at ${count.toLocaleString("en")} Ready parents (typical spec, 50 namespaces): one replica's /metrics`,
    ["series", "count"],
    [
      ...parentSeries,
      ["all series of the scrape", String(total)],
      [
        "/metrics bytes",
        `${(bytes / 1024).toFixed(0)} KiB (${(before / 1024).toFixed(0)} KiB before the syncs)`,
      ],
      ["bytes per parent", ((bytes - before) / count).toFixed(0)],
      ["scrape render p50 / max, ms", `${p50(renderMs)} / ${ms(Math.max(...renderMs))}`],
    ],
    [
      `A Ready parent: its phase and the conditions that hold (the six checks and Ready);`,
      `a warning adds one each. Render: what GET /metrics sends, ${scrapes} times.`,
    ],
  );
}

// ---------------------------------------------------------------- 5. whole process

/** Wall time of one run of `command args` (default: this Node.js). */
function wallMs(args: string[], command = process.execPath): number {
  const start = process.hrtime.bigint();
  const out = spawnSync(command, args, { stdio: ["ignore", "ignore", "pipe"] });
  const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  if (out.status !== 0 && out.status !== 1)
    throw new Error(`${command} ${args.join(" ")}: exit ${out.status}: ${String(out.stderr)}`);
  return elapsed;
}

function processRow(label: string, samples: number[], go: string): string[] {
  return [label, p50(samples), ms(Math.min(...samples)), ms(Math.max(...samples)), go];
}

function benchProcess(runs = 10): void {
  const dir = mkdtempSync(join(tmpdir(), "llsd-bench-"));
  try {
    const rows: string[][] = [];
    const startup = Array.from({ length: runs }, () => wallMs(["-e", "0"]));
    rows.push(processRow("node -e 0 (Node.js itself)", startup, ""));
    const bare = { ...process.env };
    delete bare["NODE_EXTRA_CA_CERTS"];
    const bareStart = Array.from({ length: runs }, () => {
      const start = process.hrtime.bigint();
      spawnSync(process.execPath, ["-e", "0"], { env: bare });
      return Number(process.hrtime.bigint() - start) / 1e6;
    });
    rows.push(processRow("node -e 0 without NODE_EXTRA_CA_CERTS", bareStart, ""));
    const files: [string, string, string][] = [
      ["examples/minimal.yaml", "examples/minimal.yaml", ""],
      ...goShapes.map((s, i): [string, string, string] => {
        const file = join(dir, `shape-${i}.yaml`);
        writeFileSync(file, crText(s.spec));
        return [s.name, file, "25–45 ms"];
      }),
    ];
    for (const [name, file, go] of files) {
      const launcher = Array.from({ length: runs }, () =>
        wallMs(["render", file], "bin/llsd-hook"),
      );
      rows.push(processRow(`bin/llsd-hook render ${name} (snapshot)`, launcher, go));
      const plain = Array.from({ length: runs }, () =>
        wallMs(["dist/cli/main.js", "render", file]),
      );
      rows.push(processRow(`node dist/cli/main.js render ${name}`, plain, go));
    }
    table(
      `5. Whole process: render <file> from the startup snapshot (bin/llsd-hook) and without it, ${runs} runs each, wall ms`,
      ["command", "p50", "min", "max", "Go peer (reference)"],
      rows,
      [
        "Go peer: 25–45 ms as a whole process, beside our render's 0.47–0.72 s in the same",
        "comparison (161–232 ms of it loading all 14 base configs). Node.js reads",
        `NODE_EXTRA_CA_CERTS at every start: ${process.env["NODE_EXTRA_CA_CERTS"] === undefined ? "unset here" : "set here, which adds to every row but the snapshot's"}`,
        "(bin/llsd-hook drops it for render, which opens no connection). Run npm run build first:",
        "the snapshot is dist/cli/render-<node version>-<arch>.blob, its catalog dist/cli/render-catalog/.",
      ],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- 11. admission

/** The AdmissionReview the API server sends when `spec` replaces `previous` (an UPDATE the webhook checks). */
function admissionReview(spec: unknown, previous: unknown, uid: string): string {
  const object = (s: unknown) => ({
    apiVersion: "llamastack.io/v1alpha2",
    kind: "LlamaStackDistribution",
    metadata: {
      name: "llama",
      namespace: "default",
      uid: "uid-parent",
      generation: 2,
      resourceVersion: "42",
    },
    spec: s,
  });
  const kind = { group: "llamastack.io", version: "v1alpha2", kind: "LlamaStackDistribution" };
  const resource = {
    group: "llamastack.io",
    version: "v1alpha2",
    resource: "llamastackdistributions",
  };
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid,
      kind,
      resource,
      requestKind: kind,
      requestResource: resource,
      name: "llama",
      namespace: "default",
      operation: "UPDATE",
      userInfo: { username: "alice", groups: ["system:authenticated"] },
      object: object(spec),
      oldObject: object(previous),
      dryRun: false,
      options: { apiVersion: "meta.k8s.io/v1", kind: "UpdateOptions" },
    },
  });
}

/** The target of section 11: /validate's p50 and p99 within this multiple of a cache-miss /sync's. */
const ADMISSION_TARGET = 1.5;

async function benchAdmission(): Promise<boolean> {
  const pool = testPool();
  const hook = createApp({
    pool,
    catalog,
    logger: pino({ level: "silent" }),
    cacheResponses: false,
  });
  // As main.ts serves them: /validate in the API server's class, on a port of its own, one pool.
  const apiServer = createApp({
    pool,
    catalog,
    logger: pino({ level: "silent" }),
    endpoints: API_SERVER_CLASS,
  });
  const { server, port, agent } = await serve(hook, pool);
  const webhook = await serve(apiServer, pool);
  let uid = 0;
  const validate = async (spec: unknown, previous: unknown) => {
    const review = admissionReview(spec, previous, `u${uid++}`);
    const res = await post(webhook.port, "/validate", review, webhook.agent);
    if (!res.text.includes('"allowed":true')) throw new Error(`/validate refused: ${res.text}`);
    return res;
  };
  const parents = [
    { name: "typical", make: (s: string) => typicalSpec(s), n: 400 },
    { name: "large (20 × 200)", make: (s: string) => largeSpec(s), n: 200 },
  ];
  const rows: string[][] = [];
  let met = true;
  for (const parent of parents) {
    const spec = parent.make("");
    const previous = parent.make("-before");
    const steady = steadyRequest(spec);
    for (let i = 0; i < 30; i++) {
      await post(port, "/sync", steady, agent);
      await validate(spec, previous);
    }
    const syncMs: number[] = [];
    const validateMs: number[] = [];
    for (let i = 0; i < parent.n; i++) {
      syncMs.push((await post(port, "/sync", steady, agent)).ms);
      validateMs.push((await validate(spec, previous)).ms);
    }
    const coldSyncMs: number[] = [];
    const coldValidateMs: number[] = [];
    for (let i = 0; i < Math.min(parent.n, 200); i++) {
      coldSyncMs.push((await post(port, "/sync", firstRequest(parent.make(`s${i}`)), agent)).ms);
      coldValidateMs.push((await validate(parent.make(`v${i}`), previous)).ms);
    }
    const ratio = (a: number[], b: number[], p: number) => pct(a, p) / pct(b, p);
    for (const [kind, v, s] of [
      ["same spec", validateMs, syncMs],
      ["new spec", coldValidateMs, coldSyncMs],
    ] as const) {
      const r50 = ratio(v, s, 50);
      const r99 = ratio(v, s, 99);
      met &&= r50 <= ADMISSION_TARGET && r99 <= ADMISSION_TARGET;
      rows.push([
        parent.name,
        kind,
        `${(Buffer.byteLength(steady) / 1024).toFixed(0)}/${(Buffer.byteLength(admissionReview(spec, previous, "u")) / 1024).toFixed(0)}`,
        p50(s),
        p99(s),
        p50(v),
        p99(v),
        `${r50.toFixed(2)}×`,
        `${r99.toFixed(2)}×`,
      ]);
    }
  }
  agent.destroy();
  server.close();
  webhook.agent.destroy();
  webhook.server.close();
  table(
    `11. Admission: POST /validate (API server port) beside a cache-miss /sync (hook port), one keep-alive connection each, interleaved, ms (target: ≤ ${ADMISSION_TARGET}× at p50 and p99: ${met ? "met" : "MISSED"})`,
    [
      "parent",
      "spec",
      "sync/validate KiB",
      "sync p50",
      "p99",
      "validate p50",
      "p99",
      "÷sync p50",
      "÷sync p99",
    ],
    rows,
    [
      "sync: a parent at rest with the response cache off, so a worker answers (its generation cache",
      "on); validate: an UPDATE of the same spec, a new uid each time (the API server's), oldObject",
      "another spec. new spec: a first sync, and a review, of a spec never seen (nothing cached).",
    ],
  );
  return met;
}

// ---------------------------------------------------------------- run

console.log(
  "npm run bench: figures, not assertions. Rows of one table are measured in one run, side by side.",
);
// `npm run bench -- 5 6` runs only those sections (`9b` only 9's worst case); no argument, all of them.
const only = new Set(process.argv.slice(2));
const wanted = (section: number | string) => only.size === 0 || only.has(String(section));
buildDist();
if (wanted(1)) benchGoShapes();
if (wanted(2)) benchModels();
if (wanted(3)) benchGeneration();
if (wanted(4)) await benchHttp();
if (wanted(5)) benchProcess();
if (wanted(6)) await benchMemory({ build: false });
if (wanted(7)) await benchScale({ build: false });
if (wanted(8)) await benchRestart();
if (wanted(9) && !(await benchTenant())) process.exitCode = 1;
if ((wanted(9) || wanted("9b")) && !(await benchWorst())) process.exitCode = 1;
if (wanted(10)) await benchParentSeries();
if (wanted(11) && !(await benchAdmission())) process.exitCode = 1;
if (wanted(12)) await benchBounds();
const mem = process.memoryUsage();
console.log(
  `\nmemory of this process: rss ${(mem.rss / 2 ** 20).toFixed(0)} MiB, heap used ${(mem.heapUsed / 2 ** 20).toFixed(0)} MiB`,
);
