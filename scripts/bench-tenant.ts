// Section 9 of npm run bench: one hostile tenant, and several busy ones
// (docs/adr/0017-worker-pool.md).
// The real server (dist/server/main.js, the Deployment's heap bound, the
// default pool) runs in a process of its own; this process is the load
// generator, over keep-alive connections:
//   - typical parents in ten namespaces, each synced again and again: at rest
//     (the same bytes: answered from the response cache in the main thread)
//     and changed (a new resourceVersion each time: answered by a worker);
//   - GET /healthz every 10 ms;
//   - and, beside them, one hostile parent retried as fast as five
//     Metacontroller workers would (five loops, no pause): its base config is
//     the YAML within every bound that takes the longest to read found
//     (tests: test/unit/server/pool.test.ts), a new text each time so that no
//     cache answers it; in the second scenario the server's deadline is below
//     what that takes, so every attempt runs to the deadline and costs a worker;
//   - or several busy namespaces (two, four), each a legitimate heavy parent
//     (48 models of 1,000 metadata keys, about 0.3 s of CPU, ending in
//     ChildTooLarge) changed and retried by five loops with no pause;
//   - or direct callers in two namespaces sending bodies that take a worker
//     out of heap, a new body each time (five loops each).
// Each scenario is run three times; the rows are the medians, and the section
// exits non-zero when the target is missed: typical sync p99 beside the
// hostile parent at most twice what it is alone, /healthz p99 at most 50 ms.
// The memory of the worst case (9b) is scripts/bench-worst.ts, on this file's server.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { BODY_LIMIT_BYTES } from "../src/server/app.js";
import { DEFAULT_POOL_LIMITS } from "../src/server/pool/limits.js";
import { buildRequest, type CaseFile } from "../test/support/harness.js";
import { hookContainerOf, type HookContainer } from "../test/support/hook-container.js";

const MiB = 2 ** 20;

/**
 * The checkout whose built server is run (BENCH_HOOK_DIR, default this one):
 * another one's, to compare (its dist/ built, its manifests read).
 */
const HOOK_DIR = process.env["BENCH_HOOK_DIR"] ?? ".";

/** The hook's container as manifests/hook/deployment.yaml ships it. */
function shippedContainer(): HookContainer {
  const file = "manifests/hook/deployment.yaml";
  return hookContainerOf(parse(readFileSync(join(HOOK_DIR, file), "utf8")), file);
}

/** NODE_OPTIONS as the hook's Deployment sets it. */
export function shippedNodeOptions(): string {
  return shippedContainer().env.find((e) => e.name === "NODE_OPTIONS")?.value ?? "";
}

/** The pod's memory limit, MiB, as the Deployment ships it (a whole number of Mi). */
export function podLimitMib(): number {
  const memory = shippedContainer().resources.limits.memory;
  const mib = /^(\d+)Mi$/.exec(memory)?.[1];
  if (mib === undefined) throw new Error(`the hook's memory limit ${memory} is not a whole Mi`);
  return Number(mib);
}

async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as net.AddressInfo;
  server.close();
  return port;
}

export interface Hook {
  proc: ChildProcess;
  port: number;
  /** The API server's port (/convert). */
  apiServerPort: number;
  metricsPort: number;
  stop: () => Promise<void>;
}

/**
 * The server as the image runs it, with the Deployment's NODE_OPTIONS and `env`;
 * given `cgroup` (a cgroup v1 memory folder), in that cgroup from its first byte.
 */
export async function startHook(env: Record<string, string> = {}, cgroup?: string): Promise<Hook> {
  const port = await freePort();
  const apiServerPort = await freePort();
  const metricsPort = await freePort();
  const command = [process.execPath, "dist/server/main.js"];
  const [file, ...args] =
    cgroup === undefined
      ? command
      : ["/bin/sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', cgroup, ...command];
  const proc = spawn(file ?? "", args, {
    cwd: HOOK_DIR,
    env: {
      PATH: process.env["PATH"] ?? "",
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      API_SERVER_PORT: String(apiServerPort),
      LOG_LEVEL: "warn",
      NODE_OPTIONS: shippedNodeOptions(),
      ...env,
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  for (let i = 0; ; i++) {
    if (proc.exitCode !== null) throw new Error(`the hook exited (${proc.exitCode})`);
    const up = await new Promise<boolean>((resolve) => {
      http
        // The metrics port: plain HTTP whether or not the hook's ports serve TLS, opened with them.
        .get({ host: "127.0.0.1", port: metricsPort, path: "/metrics" }, (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        })
        .on("error", () => resolve(false));
    });
    if (up) break;
    if (i > 600) throw new Error("the hook did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    proc,
    port,
    apiServerPort,
    metricsPort,
    stop: async () => {
      proc.kill("SIGKILL");
      if (proc.exitCode === null) await once(proc, "exit");
    },
  };
}

/** Sockets that already ignore an error after their request is done (send). */
const guarded = new WeakSet<object>();

export function send(
  port: number,
  agent: http.Agent,
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; ms: number; text: string }> {
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        method,
        agent,
        headers:
          body === undefined
            ? {}
            : { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            ms: Number(process.hrtime.bigint() - start) / 1e6,
            text,
          }),
        );
      },
    );
    req.on("error", reject);
    // A body the hook refuses at once (a 503 with Connection: close) is still being written when
    // the answer is in: the write then fails (EPIPE) on a socket the request has let go of.
    req.on("socket", (socket) => {
      // Once a socket: a keep-alive agent hands one socket to many requests.
      if (guarded.has(socket)) return;
      guarded.add(socket);
      socket.on("error", () => undefined);
    });
    req.end(body);
  });
}

// ---------------------------------------------------------------- requests

const typicalSpec = {
  distribution: { name: "starter" },
  providers: {
    inference: [
      {
        provider: "vllm",
        endpoint: "http://vllm.models.svc:8000/v1",
        apiKey: { secretKeyRef: { name: "creds-a", key: "token" } },
      },
    ],
  },
  resources: { models: [{ name: "meta-llama/Llama-3.2-3B-Instruct" }] },
};

/** A typical parent at rest in `namespace`: two earlier syncs applied and rolled out. */
function typicalParent(namespace: string): Record<string, unknown> {
  const c: CaseFile = {
    description: "typical",
    namespace,
    spec: typicalSpec,
    generation: 1,
    secrets: { "creds-a": ["token"] },
    observed: [
      { spec: typicalSpec, generation: 1 },
      { spec: typicalSpec, generation: 1 },
    ],
  };
  return buildRequest(c, "v2");
}

/** The same parent after a change Metacontroller watches (a new resourceVersion): a new request. */
function changed(request: Record<string, unknown>, n: number): string {
  const parent = request["parent"] as { metadata: Record<string, unknown> };
  return JSON.stringify({
    ...request,
    parent: { ...parent, metadata: { ...parent.metadata, resourceVersion: String(1000 + n) } },
  });
}

/** The slowest YAML within every bound found: 1,000 lines of 18-deep flow lists (19,001 nodes, 39 KiB). */
function slowYaml(salt: string): string {
  const line = `- ${"[".repeat(18)}a${"]".repeat(18)}`;
  return `${Array.from({ length: 1000 }, () => line).join("\n")}\n# ${salt}\n`;
}

/** The hostile parent: its base config a new text of the slowest YAML each time. */
function hostileRequest(n: number): string {
  const namespace = "hostile";
  return JSON.stringify({
    parent: {
      apiVersion: "llamastack.io/v1alpha2",
      kind: "LlamaStackDistribution",
      metadata: { name: "slow", namespace, uid: "uid-hostile", generation: 1 },
      spec: {
        distribution: {
          image: "acme/stack:1",
          release: "1.5.0",
          baseConfig: { configMapName: "base" },
        },
      },
    },
    children: {},
    related: {
      "ConfigMap.v1": {
        [`${namespace}/base`]: {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "base", namespace, uid: "uid-base", resourceVersion: String(n) },
          data: { "config.yaml": slowYaml(String(n)) },
        },
      },
    },
  });
}

/** A legitimate heavy spec: 48 models of 1,000 metadata keys (about 0.3 s of CPU; its config is over a child's budget). */
const heavySpec = {
  ...typicalSpec,
  resources: {
    models: Array.from({ length: 48 }, (_, m) => ({
      name: `org/model-${m}`,
      metadata: Object.fromEntries(Array.from({ length: 1000 }, (_, k) => [`k${k}`, `v${m}`])),
    })),
  },
};

/** The heavy parent of a busy namespace. */
function heavyParent(namespace: string): Record<string, unknown> {
  return buildRequest(
    { description: "heavy", namespace, spec: heavySpec, secrets: { "creds-a": ["token"] } },
    "v2",
  );
}

/** The worker heap of the out-of-heap scenario, MiB: the bodies below take a worker past it. */
const SMALL_HEAP_MIB = 32;

/**
 * Bodies that take a worker of SMALL_HEAP_MIB out of its heap within every
 * bound of the edge: 120,000 objects of one key each, every key new (each
 * object a shape of its own), in the spec of a parent of `namespace`. The values are made
 * once (not while the load is measured); `n`, in the parent's name, makes
 * each body new.
 */
function outOfHeapRequests(namespace: string): (n: number) => string {
  const values = Array.from({ length: 120_000 }, (_, i) => `{"k${i}":${i}}`).join(",");
  const parent = JSON.stringify({
    apiVersion: "llamastack.io/v1alpha2",
    kind: "LlamaStackDistribution",
    metadata: { name: "heap-N", namespace, uid: "uid-heap", generation: 1 },
    spec: { distribution: { name: "starter" }, x: "X" },
  });
  const [head, tail] = parent.split('"X"');
  return (n) =>
    `{"parent":${(head ?? "").replace("heap-N", `heap-${n}`)}[${values}]${tail ?? ""},"children":{}}`;
}

// ---------------------------------------------------------------- one run

function pct(samples: readonly number[], p: number): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

interface Phase {
  /** Typical syncs answered other than 200, and the first such answer. */
  failed: number;
  failure?: string;
  healthz: number[];
  rest: number[];
  changed: number[];
  hostile: { ms: number[]; statuses: Map<number, number>; reasons: Map<string, number> };
}

const PHASE_MS = 12_000;
/** The hostile parent runs this long before the measured phase: retried forever is its steady state. */
const HOSTILE_LEAD_MS = 5000;
const TYPICAL_LOOPS = 4;
const HOSTILE_LOOPS = 5;

/** Header-only holders on each port (issue 34): this many connections per port. */
const HOLDERS = 4;

/**
 * A connection that sends only the headers of a `path` request declaring a
 * body at the limit, reopened when the server cuts it, until `until`; counts
 * how each was answered.
 */
async function holder(
  port: number,
  path: string,
  until: number,
  statuses: Map<number, number>,
): Promise<void> {
  while (performance.now() < until) {
    const socket = net.connect(port, "127.0.0.1");
    socket.on("error", () => undefined);
    let answer = "";
    socket.on("data", (b: Buffer) => (answer += b.toString()));
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${BODY_LIMIT_BYTES}\r\n\r\n`,
    );
    // Past `until` already (the write took the last of it): a timer of 0, not a negative one.
    const left = Math.max(0, until - performance.now());
    await Promise.race([once(socket, "close"), new Promise((r) => setTimeout(r, left))]);
    socket.destroy();
    const status = Number(/^HTTP\/1\.1 (\d+)/.exec(answer)?.[1] ?? 0);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
}

/** One phase: typical load and /healthz, with or without the hostile load. */
async function phase(hook: Hook, hostile: Hostile | false, counter: { n: number }): Promise<Phase> {
  const { port } = hook;
  const out: Phase = {
    failed: 0,
    healthz: [],
    rest: [],
    changed: [],
    hostile: { ms: [], statuses: new Map(), reasons: new Map() },
  };
  const lead = hostile ? HOSTILE_LEAD_MS : 0;
  const until = performance.now() + lead + PHASE_MS;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const parents = Array.from({ length: 10 }, (_, i) => typicalParent(`team-${i}`));
  const restBodies = parents.map((p) => JSON.stringify(p));
  // Warm each parent's cached answer.
  for (const body of restBodies) await send(port, agent, "POST", "/sync", body);
  const loops: Promise<void>[] = [];
  if (hostile === "holders")
    for (let l = 0; l < HOLDERS; l++)
      loops.push(
        holder(hook.apiServerPort, "/convert", until, out.hostile.statuses),
        holder(port, "/sync", until, out.hostile.statuses),
      );
  const count = <K>(m: Map<K, number>, k: K) => m.set(k, (m.get(k) ?? 0) + 1);
  /** HOSTILE_LOOPS loops with no pause sending `body(n)`, each answer counted. */
  const retried = (body: (n: number) => string) => {
    for (let l = 0; l < HOSTILE_LOOPS; l++)
      loops.push(
        (async () => {
          while (performance.now() < until) {
            const res = await send(port, agent, "POST", "/sync", body(counter.n++));
            out.hostile.ms.push(res.ms);
            count(out.hostile.statuses, res.status);
            count(out.hostile.reasons, readyReason(res.text));
          }
        })(),
      );
  };
  if (hostile === "parent") retried(hostileRequest);
  if (typeof hostile === "object")
    for (let t = 0; t < hostile.namespaces; t++) {
      const namespace = `${hostile.kind}-${t}`;
      const heavy = heavyParent(namespace);
      const outOfHeap = hostile.kind === "heap" ? outOfHeapRequests(namespace) : undefined;
      retried((n) => (outOfHeap === undefined ? changed(heavy, n) : outOfHeap(n)));
    }
  await new Promise((r) => setTimeout(r, lead));
  for (let l = 0; l < TYPICAL_LOOPS; l++)
    loops.push(
      (async () => {
        for (let i = l; performance.now() < until; i += TYPICAL_LOOPS) {
          const k = i % parents.length;
          const rest = await send(port, agent, "POST", "/sync", restBodies[k]);
          const fresh = await send(
            port,
            agent,
            "POST",
            "/sync",
            changed(parents[k] ?? {}, counter.n++),
          );
          if (rest.status !== 200 || fresh.status !== 200) {
            out.failed += 1;
            out.failure ??= `${rest.status}/${fresh.status}: ${(fresh.status === 200 ? rest : fresh).text.slice(0, 200)}`;
          }
          out.rest.push(rest.ms);
          out.changed.push(fresh.ms);
          await new Promise((r) => setTimeout(r, 5));
        }
      })(),
    );
  loops.push(
    (async () => {
      while (performance.now() < until) {
        const res = await send(port, agent, "GET", "/healthz");
        if (res.status !== 200) throw new Error(`/healthz answered ${res.status}`);
        out.healthz.push(res.ms);
        await new Promise((r) => setTimeout(r, 10));
      }
    })(),
  );
  await Promise.all(loops);
  agent.destroy();
  return out;
}

interface RunFigures {
  alone: Phase;
  beside: Phase;
}

const median = (xs: number[]) => pct(xs, 50);
const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

/**
 * The hostile load beside the typical one: the slowest parent retried,
 * header-only holders, or several namespaces each retrying a heavy parent or
 * bodies out of a worker's heap.
 */
type Hostile = "parent" | "holders" | { kind: "busy" | "heap"; namespaces: number };

/** A sync answer's Ready reason (200), or its error up to what it names ("llsd-hook had no free worker"). */
function readyReason(text: string): string {
  try {
    const body = JSON.parse(text) as {
      status?: { conditions?: { type: string; reason: string }[] };
      error?: string;
    };
    const ready = body.status?.conditions?.find((c) => c.type === "Ready");
    return ready?.reason ?? /^(.*?)(?: for | on | \(|:|$)/.exec(body.error ?? "")?.[1] ?? "";
  } catch {
    return text.slice(0, 60);
  }
}

interface Scenario {
  name: string;
  env: Record<string, string>;
  hostile: Hostile;
}

async function scenario(s: Scenario, runs: number): Promise<{ rows: string[][]; met: boolean }> {
  const figures: RunFigures[] = [];
  for (let r = 0; r < runs; r++) {
    const hook = await startHook(s.env);
    try {
      const counter = { n: r * 1_000_000 };
      const alone = await phase(hook, false, counter);
      const beside = await phase(hook, s.hostile, counter);
      figures.push({ alone, beside });
    } finally {
      await hook.stop();
    }
  }
  const row = (label: string, of: (p: Phase) => number[]) => {
    const alone50 = median(figures.map((f) => pct(of(f.alone), 50)));
    const alone99 = median(figures.map((f) => pct(of(f.alone), 99)));
    const beside50 = median(figures.map((f) => pct(of(f.beside), 50)));
    const beside99 = median(figures.map((f) => pct(of(f.beside), 99)));
    const ratios = figures.map((f) => pct(of(f.beside), 99) / pct(of(f.alone), 99));
    return {
      cells: [
        label,
        String(median(figures.map((f) => of(f.beside).length))),
        ms(alone50),
        ms(alone99),
        ms(beside50),
        ms(beside99),
        `${median(ratios).toFixed(2)}× (${ratios.map((x) => x.toFixed(2)).join(", ")})`,
      ],
      beside99,
      ratio: median(ratios),
    };
  };
  const healthz = row("/healthz", (p) => p.healthz);
  const rest = row("typical sync at rest (cache)", (p) => p.rest);
  const fresh = row("typical sync changed (worker)", (p) => p.changed);
  const statuses = new Map<number, number>();
  const reasons = new Map<string, number>();
  for (const f of figures) {
    for (const [k, v] of f.beside.hostile.statuses) statuses.set(k, (statuses.get(k) ?? 0) + v);
    for (const [k, v] of f.beside.hostile.reasons) reasons.set(k, (reasons.get(k) ?? 0) + v);
  }
  const hostileMs = figures.flatMap((f) => f.beside.hostile.ms);
  const hostile = [
    s.hostile === "parent"
      ? "hostile parent's answers"
      : s.hostile === "holders"
        ? "holders' cuts (0: none by the end)"
        : `${s.hostile.kind === "busy" ? "busy" : "out-of-heap"} namespaces' answers`,
    String(Math.round(hostileMs.length / runs)),
    "",
    "",
    ms(pct(hostileMs, 50)),
    ms(pct(hostileMs, 99)),
    [...statuses].map(([k, v]) => `${k}: ${v}`).join(", "),
  ];
  const failed = figures.reduce((n, f) => n + f.alone.failed + f.beside.failed, 0);
  const failure = figures.flatMap((f) => [f.alone.failure, f.beside.failure]).find((x) => x);
  const met = healthz.beside99 <= 50 && rest.ratio <= 2 && fresh.ratio <= 2 && failed === 0;
  return {
    rows: [
      [s.name, "", "", "", "", "", ""],
      ...[healthz, rest, fresh].map((r) => r.cells),
      hostile,
      ...(reasons.size === 0 || s.hostile === "holders"
        ? []
        : [
            [
              "  their reasons",
              "",
              "",
              "",
              "",
              "",
              [...reasons].map(([k, v]) => `${k}: ${v}`).join("; "),
            ],
          ]),
      ...(failed === 0
        ? []
        : [["typical syncs not answered 200", String(failed), "", "", "", "", failure ?? ""]]),
    ],
    met,
  };
}

// ---------------------------------------------------------------- worst case (scripts/bench-worst.ts)

/**
 * A request body of about `bytes` that costs a worker the most heap within the
 * bounds found: 240,000 empty objects (the shape JSON.parse amplifies most),
 * a long string, and a base config of the slowest YAML to read.
 */
export function worstParse(namespace: string, bytes: number): string {
  const hostile = JSON.parse(hostileRequest(Number.MAX_SAFE_INTEGER)) as Record<string, unknown>;
  const parent = hostile["parent"] as { metadata: Record<string, unknown> };
  const related = JSON.stringify(hostile["related"]).replaceAll('"hostile', `"${namespace}`);
  const head = JSON.stringify({
    parent: { ...parent, metadata: { ...parent.metadata, name: "worst", namespace } },
    children: {},
  }).slice(0, -1);
  const objects = Array.from({ length: 240_000 }, () => "{}").join(",");
  const pad = Math.max(0, bytes - head.length - related.length - objects.length - 40);
  return `${head},"related":${related},"x":[${objects}],"pad":"${"p".repeat(pad)}"}`;
}

// ---------------------------------------------------------------- section

function table(title: string, header: string[], rows: string[][], notes: string[]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    `  ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ")}`.trimEnd();
  console.log(`\n${title}`);
  console.log(line(header));
  for (const r of rows) console.log(line(r));
  for (const n of notes) console.log(`  ${n}`);
}

/**
 * Section 9; false when the target was missed. `only`: the scenarios whose
 * name includes it (BENCH_TENANT_ONLY, to compare two checkouts on a few).
 */
export async function benchTenant(
  runs = 3,
  only = process.env["BENCH_TENANT_ONLY"] ?? "",
): Promise<boolean> {
  const all: Scenario[] = [
    {
      name: "the slowest YAML within the bounds, a new text each time",
      env: {},
      hostile: "parent",
    },
    {
      name: "the same, past the deadline: WORKER_DEADLINE_MS=150, each attempt stopped",
      env: { WORKER_DEADLINE_MS: "150" },
      hostile: "parent",
    },
    {
      name: `header-only holders: ${HOLDERS} on /convert and ${HOLDERS} on /sync, each declaring ${BODY_LIMIT_BYTES / MiB} MiB, reopened when cut`,
      env: {},
      hostile: "holders",
    },
    ...[2, 4].map((namespaces): Scenario => ({
      name: `${namespaces} busy namespaces: 48 models of 1,000 metadata keys each (ChildTooLarge)`,
      env: {},
      hostile: { kind: "busy", namespaces },
    })),
    {
      name: `direct callers in 2 namespaces, each body out of a worker's heap (WORKER_HEAP_MIB=${SMALL_HEAP_MIB})`,
      env: { WORKER_HEAP_MIB: String(SMALL_HEAP_MIB) },
      hostile: { kind: "heap", namespaces: 2 },
    },
  ];
  const scenarios = all.filter((s) => s.name.includes(only));
  const load = loadavg();
  const rows: string[][] = [];
  let met = true;
  for (const s of scenarios) {
    const result = await scenario(s, runs);
    rows.push(...result.rows);
    met &&= result.met;
  }
  table(
    `9. Hostile and busy tenants: the real server (${HOOK_DIR === "." ? `${DEFAULT_POOL_LIMITS.workers} workers` : `of ${HOOK_DIR}`}), load from this process, ${PHASE_MS / 1000} s alone then ${PHASE_MS / 1000} s beside it, median of ${runs} runs, ms`,
    [
      "scenario / row",
      "n beside",
      "alone p50",
      "p99",
      "beside p50",
      "p99",
      "p99 beside ÷ alone (each run)",
    ],
    rows,
    [
      `typical: ${TYPICAL_LOOPS} loops over 10 parents in 10 namespaces, each sync at rest then changed, 5 ms apart;`,
      `/healthz every 10 ms; hostile: ${HOSTILE_LOOPS} loops with no pause, one parent in its own namespace`,
      `(busy, out-of-heap: ${HOSTILE_LOOPS} loops in each namespace), started ${HOSTILE_LEAD_MS / 1000} s before the measured`,
      `${PHASE_MS / 1000} s (retried forever: its steady state). Load averages (1, 5, 15 min) at the start: ${load.map((l) => l.toFixed(2)).join(", ")}.`,
      `target: typical sync p99 beside ≤ 2× alone, /healthz p99 ≤ 50 ms: ${met ? "met" : "MISSED"}`,
    ],
  );
  return met;
}

if (process.argv[1]?.endsWith("bench-tenant.ts")) {
  // The worst case's memory, 9b, runs alone: npx tsx scripts/bench-worst.ts.
  const met = await benchTenant(Number(process.argv[2] ?? 3));
  if (!met) process.exitCode = 1;
}
