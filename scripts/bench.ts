// npm run bench: generation and sync costs, printed as figures (not asserted:
// this machine is shared and noisy). Runs in one process, side by side:
//   1. config generation for a typical and a large spec, cold and memoized;
//   2. sync over HTTP (supertest-free: a real listening server and keep-alive
//      requests) for a typical and a large parent, steady state (memoized) and
//      cold (a new spec each request), p50/p99 and throughput;
//   3. the floor: bare JSON.parse + JSON.stringify of the same request and response;
//   4. memory of the hook process under distinct large requests (scripts/bench-memory.ts).
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { LlamaStackDistributionSpec, type Spec } from "../src/api/schema.js";
import { generateConfig } from "../src/config/generate.js";
import { resolveDistribution } from "../src/config/distribution.js";
import { createApp } from "../src/server/app.js";
import { loadCatalog } from "../src/server/catalog.js";
import { memoize } from "../src/server/memo.js";
import { benchMemory } from "./bench-memory.js";
import { request as buildRequest, canarySecrets } from "../test/unit/arbitraries.js";

const catalog = loadCatalog();

function typicalSpec(salt = ""): unknown {
  return {
    // 0.7.3: the shapes the figures were first measured on (the large one has safety providers).
    distribution: { name: "starter", release: "0.7.3" },
    providers: {
      inference: [
        {
          provider: "vllm",
          endpoint: `http://vllm${salt}:8000/v1`,
          apiKey: { secretKeyRef: { name: "creds-a", key: "token" } },
          settings: { max_tokens: 8192 },
        },
      ],
    },
    resources: { models: [{ name: "llama3.2-8b" }, { name: "llama3.2-70b" }] },
    disabled: ["eval"],
  };
}

/** 20 providers, 200 models. */
function largeSpec(salt = ""): unknown {
  const inference = Array.from({ length: 12 }, (_, i) => ({
    id: `vllm-${i}`,
    provider: "vllm",
    endpoint: `http://vllm-${i}${salt}:8000/v1`,
    apiKey: { secretKeyRef: { name: "creds-a", key: "token" } },
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
    provider: `vllm-${i % 12}`,
  }));
  return {
    // 0.7.3: the shapes the figures were first measured on (the large one has safety providers).
    distribution: { name: "starter", release: "0.7.3" },
    providers: { inference, safety, toolRuntime },
    resources: { models },
  };
}

function generateInput(raw: unknown) {
  const spec = LlamaStackDistributionSpec.parse(raw) as Spec;
  const d = resolveDistribution(spec.distribution, catalog);
  if (!d.ok) throw new Error("bad distribution");
  return {
    spec,
    distribution: { ...d.value, name: d.value.name ?? "", release: d.value.release ?? "" },
    catalog,
    userEnvNames: [],
  };
}

function timeIt(fn: () => void, iterations: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t = process.hrtime.bigint();
    fn();
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return out;
}

function pct(samples: number[], p: number): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

const fmt = (ms: number) => `${ms.toFixed(3)} ms`;

function row(label: string, samples: number[]): void {
  console.log(
    `  ${label.padEnd(44)} p50 ${fmt(pct(samples, 50)).padStart(11)}  p99 ${fmt(pct(samples, 99)).padStart(11)}  (n=${samples.length})`,
  );
}

async function benchGeneration(): Promise<void> {
  console.log(
    "config generation (generateConfig; cold = a new spec each call, memoized = the edge's cache hit)",
  );
  for (const [name, make] of [
    ["typical (starter, 1 provider, 2 models)", typicalSpec],
    ["large (20 providers, 200 models)", largeSpec],
  ] as const) {
    // warm up the JIT on other inputs
    for (let i = 0; i < 30; i++) generateConfig(generateInput(make(`warm${i}`)));
    const inputs = Array.from({ length: 200 }, (_, i) => generateInput(make(`c${i}`)));
    const same0 = generateInput(make("c0"));
    let i = 0;
    row(
      `${name}: cold`,
      timeIt(() => generateConfig(inputs[i++ % inputs.length] ?? same0), 200),
    );
    const memo = memoize(generateConfig, { maxBytes: 1 << 30, sizeOf: () => 1 });
    const same = generateInput(make("memo"));
    memo(same);
    row(
      `${name}: memoized`,
      timeIt(() => memo(same), 2000),
    );
  }
}

async function post(port: number, body: string, agent: http.Agent): Promise<number> {
  const start = process.hrtime.bigint();
  await new Promise<void>((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path: "/sync",
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on("end", () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`)),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Sequential requests (or operations) per second: n over the summed latencies. */
function rate(samples: readonly number[]): string {
  const ms = samples.reduce((a, b) => a + b, 0);
  return `${((samples.length * 1000) / ms).toFixed(0)}/s`;
}

async function benchHttp(): Promise<void> {
  const app = createApp({ catalog, logger: pino({ level: "silent" }) });
  const server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  console.log("\nsync over HTTP (one keep-alive connection, sequential requests)");
  for (const [name, make] of [
    ["typical", typicalSpec],
    ["large", largeSpec],
  ] as const) {
    const steady = JSON.stringify(buildRequest(make(), { related: canarySecrets() }));
    for (let i = 0; i < 50; i++) await post(port, steady, agent);
    const steadySamples: number[] = [];
    for (let i = 0; i < 500; i++) steadySamples.push(await post(port, steady, agent));
    row(`${name}: steady state (memoized)`, steadySamples);
    console.log(
      `  ${"".padEnd(44)} throughput ${rate(steadySamples)} requests; request ${(steady.length / 1024).toFixed(1)} KiB`,
    );
    const coldBodies = Array.from({ length: 200 }, (_, i) =>
      JSON.stringify(buildRequest(make(`cold${i}`), { related: canarySecrets() })),
    );
    const coldSamples: number[] = [];
    for (const b of coldBodies) coldSamples.push(await post(port, b, agent));
    row(`${name}: cold (new spec each request)`, coldSamples);
    console.log(`  ${"".padEnd(44)} throughput ${rate(coldSamples)} requests`);

    // The floor: parse the request and serialize the response, nothing else.
    const responseText = await new Promise<string>((resolve) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port,
          path: "/sync",
          method: "POST",
          agent,
          headers: { "content-type": "application/json" },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => (text += c));
          res.on("end", () => resolve(text));
        },
      );
      req.end(steady);
    });
    const response: unknown = JSON.parse(responseText);
    const floorSamples = timeIt(() => {
      JSON.parse(steady);
      JSON.stringify(response);
    }, 2000);
    row(`${name}: floor (JSON.parse req + stringify resp)`, floorSamples);
    console.log(
      `  ${"".padEnd(44)} throughput ${rate(floorSamples)} pairs; response ${(responseText.length / 1024).toFixed(1)} KiB`,
    );
  }
  agent.destroy();
  server.close();
}

await benchGeneration();
await benchHttp();
await benchMemory();
const mem = process.memoryUsage();
console.log(
  `\nmemory: rss ${(mem.rss / 2 ** 20).toFixed(0)} MiB, heap used ${(mem.heapUsed / 2 ** 20).toFixed(0)} MiB`,
);
