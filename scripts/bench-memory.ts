// The memory rows of npm run bench (docs/operations/hook-server.md): the real server
// (src/server/main.ts) in its own process, its resident memory read from
// /proc after each phase. Figures, not assertions:
//   1. idle;
//   2. after N distinct large requests (each with ~0.9 MB of model metadata,
//      the shape that filled a count-bounded cache): the cache is bounded by bytes;
//   3. after N distinct parents at rest (their children applied, their status
//      fed back), each sent twice: whole answers cached, within the same bound;
//   4. peak while reading one request of the largest accepted size, made of the
//      smallest JSON objects (the worst amplification; since the worker pool,
//      refused with a 413 past 250,000 JSON values before it is parsed).
// The worker pool's own memory (every worker busy, the budget full) is section 7.
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import http from "node:http";
import { BODY_LIMIT_BYTES, CACHE_BYTES } from "../src/server/app.js";
import { buildRequest } from "../test/support/harness.js";

const MiB = 2 ** 20;

/** The heap flags the hook's Deployment sets for the main thread (manifests/hook/deployment.yaml, NODE_OPTIONS). */
function heapFlags(): string[] {
  const text = readFileSync("manifests/hook/deployment.yaml", "utf8");
  const options = /name: NODE_OPTIONS\s+value: (.+)/.exec(text)?.[1] ?? "";
  return options.split(/\s+/).filter((f) => /^--max-(old|semi)-space-size=\d+$/.test(f));
}

function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { rss: (kb("VmRSS") * 1024) / MiB, peak: (kb("VmHWM") * 1024) / MiB };
}

function post(port: number, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path: "/sync",
        method: "POST",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

function parent(spec: unknown, related: unknown = {}): string {
  return JSON.stringify({
    parent: {
      apiVersion: "llamastack.io/v1alpha2",
      kind: "LlamaStackDistribution",
      metadata: { name: "llama", namespace: "default", generation: 1, uid: "u" },
      spec,
    },
    children: {},
    related,
  });
}

/** 200 models with `bytes` of metadata each, different for each i. */
export function heavySpec(i: number, bytes: number): unknown {
  const word = `${i}-`;
  const models = Array.from({ length: 200 }, (_, m) => ({
    name: `model-${i}-${m}`,
    provider: "vllm",
    metadata: { description: word.repeat(Math.ceil(bytes / word.length)) },
  }));
  return {
    distribution: { name: "starter" },
    providers: { inference: [{ provider: "vllm", endpoint: "http://vllm:8000/v1" }] },
    resources: { models },
  };
}

/** The request of a parent at rest: two earlier syncs applied and rolled out, the status fed back. */
export function steadyParent(spec: unknown): string {
  const observed = [
    { spec, generation: 1 },
    { spec, generation: 1 },
  ];
  return JSON.stringify(
    buildRequest({ description: "at rest", spec, generation: 1, observed }, "v2"),
  );
}

/** A body just under the limit made of tiny objects: a related Secret with many small keys. */
function worstBody(limit: number): string {
  const head = parent({ distribution: { name: "starter" } }).slice(0, -"{}}".length);
  const keys: string[] = [];
  let size = head.length + 200;
  for (let i = 0; size < limit - 64; i++) {
    const entry = `"k${i}":"a"`;
    keys.push(entry);
    size += entry.length + 1;
  }
  return `${head}{"Secret.v1":{"default/big":{"apiVersion":"v1","kind":"Secret","metadata":{"name":"big","namespace":"default"},"data":{${keys.join(",")}}}}}}`;
}

/** The production build (dist/), as the image runs it. */
export function buildDist(): void {
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"]);
}

export async function benchMemory(
  options: { distinct?: number; build?: boolean } = {},
): Promise<void> {
  const distinct = options.distinct ?? 200;
  if (options.build !== false) buildDist();
  const port = 18000 + Math.floor(Math.random() * 2000);
  const child = spawn(process.execPath, [...heapFlags(), "dist/server/main.js"], {
    env: { ...process.env, PORT: String(port), LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "ignore"],
  });
  // One log line per request: count those answered from the response cache.
  let cachedAnswers = 0;
  child.stdout.on("data", (chunk: Buffer) => {
    cachedAnswers += chunk.toString().split('"cached":true').length - 1;
  });
  try {
    for (let i = 0; i < 100; i++) {
      try {
        await post(port, "{}");
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const pid = child.pid as number;
    const idle = memoryOf(pid);
    console.log(
      `\n6. Memory of the hook process (cache bound ${CACHE_BYTES / MiB} MiB, body limit ${BODY_LIMIT_BYTES / MiB} MiB)`,
    );
    console.log(`  idle                                          rss ${idle.rss.toFixed(0)} MiB`);
    const phases: { label: string; body: (i: number) => string; times: number }[] = [
      {
        label: "configs just under the size budget (generations cached)",
        body: (i) => parent(heavySpec(i + 900_000, 900)),
        times: 1,
      },
      {
        label: "0.9 MB of model metadata (refused: too large)",
        body: (i) => parent(heavySpec(i + 4_500_000, 4500)),
        times: 1,
      },
      {
        label: "parents at rest with configs just under the budget, each sent twice",
        body: (i) => steadyParent(heavySpec(i + 2_000_000, 900)),
        times: 2,
      },
    ];
    for (const phase of phases) {
      let size = 0;
      cachedAnswers = 0;
      for (let i = 0; i < distinct; i++) {
        const body = phase.body(i);
        size = Math.max(size, body.length);
        for (let t = 0; t < phase.times; t++) {
          const status = await post(port, body);
          if (status !== 200) throw new Error(`heavy request ${i} answered ${status}`);
        }
      }
      await new Promise((r) => setTimeout(r, 200)); // the last log lines
      const heavy = memoryOf(pid);
      const hits = phase.times > 1 ? ` (${cachedAnswers} answers from the response cache)` : "";
      console.log(
        `  after ${distinct} distinct ${(size / 1e6).toFixed(2)} MB requests, ${phase.label}: rss ${heavy.rss.toFixed(0)} MiB, peak ${heavy.peak.toFixed(0)} MiB (limit 384 MiB)${hits}`,
      );
    }
    const body = worstBody(BODY_LIMIT_BYTES);
    const before = memoryOf(pid);
    const status = await post(port, body);
    const after = memoryOf(pid);
    const grew = after.peak - before.rss;
    console.log(
      `  one ${(body.length / MiB).toFixed(1)} MiB body of tiny objects (answered ${status})  peak ${after.peak.toFixed(0)} MiB: +${grew.toFixed(0)} MiB over rss, ${(grew / (body.length / MiB)).toFixed(0)}× the body`,
    );
  } finally {
    child.kill("SIGTERM");
    await once(child, "exit");
  }
}

if (process.argv[1]?.endsWith("bench-memory.ts")) await benchMemory();
