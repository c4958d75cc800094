// Section 9b of npm run bench: the hook's memory in its worst case (issue 34,
// docs/adr/0017-worker-pool.md "Sizing"), all bounds full at once, on the real
// server (scripts/bench-tenant.ts's: dist/server/main.js with the Deployment's
// NODE_OPTIONS and the default settings):
//   1. the caches full: distinct parents at rest, each sent twice, until the
//      response cache holds its share of CACHE_MIB (the workers' generation
//      caches fill with the same parents);
//   2. each port at its connection limit with idle connections, reopened when
//      cut (the attack of reconnecting clients);
//   3. both body budgets full: the large bodies' share with bodies held open
//      just under the limit, the rest of the hook's with small ones (each at
//      the size a body is large from), all trickling above the progress floor
//      so that it does not cut them;
//   4. every worker on a worst-case request (4 MiB of 240,000 empty objects
//      and the slowest YAML within the bounds);
//   5. one more request, sent once the metrics show both budgets full and
//      every worker busy: it must be refused (503), and is counted a miss if
//      not. Before, it was sent as soon as the held bodies' sockets had
//      connected: their bytes could still be on their way (and the worst-case
//      requests answered), so it sometimes got the room and a 200.
// As root with cgroup v1, the hook runs in a memory cgroup of its own limited
// to the pod's limit (the Deployment's limits.memory), and the figure is the cgroup's peak
// (memory.max_usage_in_bytes: what the kubelet's limit counts), with its OOM
// kills; otherwise it is the process's resident memory, and says so. Each
// part's contribution is the growth of that figure as it is added. The
// section exits non-zero when the peak is over 85% of the limit, the hook did
// not survive, or the extra request was not refused.
import { once } from "node:events";
import { mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { connect as connectTls } from "node:tls";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { BODY_LIMIT_BYTES, CACHE_BYTES } from "../src/server/app.js";
import { API_SERVER_CLASS, HOOK_CLASS } from "../src/server/classes.js";
import { createBodyBudget, PROGRESS_FLOOR_BYTES } from "../src/server/body-budget.js";
import { DEFAULT_POOL_LIMITS } from "../src/server/pool/limits.js";
import { makeCa } from "../test/pki.js";
import { heavySpec, steadyParent } from "./bench-memory.js";
import {
  podLimitMib,
  send,
  shippedNodeOptions,
  startHook,
  worstParse,
  type Hook,
} from "./bench-tenant.js";

const MiB = 2 ** 20;
/** The target: the worst case's peak at most this share of the pod's limit. */
const TARGET_SHARE = 0.85;
/** What a held body has not sent yet, trickled at PROGRESS_FLOOR_BYTES a second (16 s of it). */
const HELD_RESERVE = 16 * PROGRESS_FLOOR_BYTES;
/** How long to wait for a state the metrics show, ms (the bench's own bound). */
const WAIT_MS = 60_000;

// ---------------------------------------------------------------- the figure

/** Where the figure comes from: a memory cgroup of the hook's own, or its resident memory. */
interface Gauge {
  what: string;
  /** MiB now, and the peak so far. */
  now(): number;
  peak(): number;
  /** OOM kills in the cgroup (0 without one). */
  oomKills(): number;
  cgroup?: string;
  remove(): void;
}

/** This process's cgroup v1 memory folder, or undefined (no v1 memory controller, or not root). */
function memoryCgroupRoot(): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync("/proc/self/cgroup", "utf8")
    .split("\n")
    .find((l) => /^\d+:memory:/.test(l));
  if (line === undefined) return undefined;
  return join("/sys/fs/cgroup/memory", line.split(":")[2] ?? "/");
}

function cgroupGauge(run: number): Gauge | undefined {
  const root = memoryCgroupRoot();
  if (root === undefined) return undefined;
  const dir = join(root, `llsd-bench-worst-${process.pid}-${run}`);
  try {
    mkdirSync(dir);
    writeFileSync(join(dir, "memory.limit_in_bytes"), String(podLimitMib() * MiB));
  } catch {
    return undefined;
  }
  const read = (file: string) => readFileSync(join(dir, file), "utf8");
  return {
    what: `its memory cgroup (v1, limit ${podLimitMib()} MiB): memory.usage_in_bytes / max_usage_in_bytes`,
    now: () => Number(read("memory.usage_in_bytes")) / MiB,
    peak: () => Number(read("memory.max_usage_in_bytes")) / MiB,
    oomKills: () => Number(/oom_kill (\d+)/.exec(read("memory.oom_control"))?.[1] ?? 0),
    cgroup: dir,
    remove: () => rmdirSync(dir),
  };
}

function rssGauge(pid: () => number): Gauge {
  const kb = (field: string) => {
    const status = readFileSync(`/proc/${pid()}/status`, "utf8");
    return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
  };
  return {
    what: "its resident memory (VmRSS / VmHWM): no cgroup v1 memory controller here as root",
    now: () => kb("VmRSS"),
    peak: () => kb("VmHWM"),
    oomKills: () => 0,
    remove: () => undefined,
  };
}

// ---------------------------------------------------------------- the hook's metrics

async function scrape(hook: Hook): Promise<string> {
  return (await send(hook.metricsPort, new http.Agent(), "GET", "/metrics")).text;
}

/** A sample's value from the exposition (0 when absent). */
function sample(text: string, name: string, labels = ""): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name}${labels} `));
  return Number(line?.split(" ")[1] ?? 0);
}

/** Scrapes until `done` holds of the exposition; throws after WAIT_MS, naming `what`. */
async function until(hook: Hook, what: string, done: (text: string) => boolean): Promise<string> {
  const start = performance.now();
  for (;;) {
    const text = await scrape(hook);
    if (done(text)) return text;
    if (performance.now() - start > WAIT_MS) throw new Error(`not reached: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// ---------------------------------------------------------------- the parts

/** Distinct parents at rest, each sent twice, until the response cache holds its share. */
async function fillCaches(hook: Hook): Promise<{ parents: number; bytes: number }> {
  const agent = new http.Agent({ keepAlive: true });
  const share = CACHE_BYTES / 2;
  let parents = 0;
  let bytes = 0;
  try {
    while (bytes < share * 0.95 && parents < 2000) {
      const body = steadyParent(heavySpec(parents + 7_000_000, 900));
      for (let t = 0; t < 2; t++) {
        const res = await send(hook.port, agent, "POST", "/sync", body);
        if (res.status !== 200) throw new Error(`a parent at rest answered ${res.status}`);
      }
      parents++;
      if (parents % 10 === 0)
        bytes = sample(await scrape(hook), "llsd_hook_cache_bytes", '{cache="response"}');
    }
  } finally {
    agent.destroy();
  }
  return { parents, bytes };
}

/**
 * What an idle connection sends: a request line and most of a header of the
 * largest size Node reads (16 KiB), never finished, so the hook holds it.
 */
const PARTIAL_HEADERS = `GET / HTTP/1.1\r\nX-Pad: ${"a".repeat(15 * 1024)}`;

/** `count` idle connections to `port` (PARTIAL_HEADERS sent), each reopened (after 50 ms) when the hook cuts it, until stopped. */
function holdConnections(
  port: number,
  count: number,
): { reopened: () => number; stop: () => void } {
  let stopped = false;
  let reopened = 0;
  const open = new Set<net.Socket>();
  const connect = () => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(PARTIAL_HEADERS));
    open.add(socket);
    socket.on("error", () => undefined);
    socket.on("close", () => {
      open.delete(socket);
      if (stopped) return;
      reopened++;
      setTimeout(connect, 50);
    });
  };
  for (let i = 0; i < count; i++) connect();
  return {
    reopened: () => reopened,
    stop: () => {
      stopped = true;
      for (const s of open) s.destroy();
    },
  };
}

/**
 * A body of `bytes` to `path` held open: all but HELD_RESERVE sent at once, the
 * rest at the progress floor each second, so that the floor does not cut it.
 */
async function heldBody(port: number, path: string, bytes: number): Promise<() => void> {
  const socket = net.connect(port, "127.0.0.1");
  await once(socket, "connect");
  socket.on("error", () => undefined);
  socket.on("data", () => undefined);
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${bytes}\r\n\r\n`,
  );
  socket.write(Buffer.alloc(bytes - HELD_RESERVE, 0x20));
  const trickle = setInterval(() => socket.write(Buffer.alloc(PROGRESS_FLOOR_BYTES, 0x20)), 1000);
  return () => {
    clearInterval(trickle);
    socket.destroy();
  };
}

/**
 * The status the hook answers a body of `bytes` it has no room for, sent 64 KiB
 * at a time until it answers. Sent whole, the rest would still be on its way
 * when the hook closes after its 503, and the write that fails then (EPIPE)
 * can close the socket before the answer is read; 0 when the hook closes
 * without an answer or gives none within 10 s of the last byte.
 */
async function refusedStatus(port: number, path: string, bytes: number): Promise<number> {
  const socket = net.connect(port, "127.0.0.1");
  socket.on("error", () => undefined);
  await once(socket, "connect");
  let status: number | undefined;
  let closed = false;
  let head = "";
  const answered = new Promise<void>((resolve) => {
    socket.on("data", (chunk: Buffer) => {
      head += chunk.toString("latin1");
      const code = /^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1];
      if (code !== undefined) status ??= Number(code);
      if (status !== undefined) resolve();
    });
    socket.on("close", () => {
      closed = true;
      resolve();
    });
  });
  const write = (data: string | Buffer) =>
    new Promise<void>((resolve) => socket.write(data, () => resolve()));
  await write(
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${bytes}\r\n\r\n`,
  );
  const piece = 64 * 1024;
  for (let sent = 0; sent < bytes && status === undefined && !closed; sent += piece) {
    await write(Buffer.alloc(Math.min(piece, bytes - sent), 0x20));
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.race([answered, new Promise((r) => setTimeout(r, 10_000))]);
  socket.destroy();
  return status ?? 0;
}

interface Run {
  load: number[];
  idle: number;
  cache: { parents: number; bytes: number; after: number };
  connections: { count: number; after: number; reopened: number };
  peak: number;
  rssPeak: number;
  extra: number;
  answers: number[];
  oomKills: number;
  alive: boolean;
}

/** A worst-case request whose connection was cut before it was answered: the run measured nothing. */
class CutBeforeAnswered extends Error {
  constructor(why: string) {
    super(
      `a worst-case request's connection was cut before it was answered (${why}): the holders' reconnections cut it while idle`,
    );
  }
}

/** Attempts of one run whose worst-case request is cut (about one run in five was, once). */
const ATTEMPTS = 3;

/** A run of the worst case, made again when a worst-case request's connection is cut. */
async function worstCaseRetried(run: number): Promise<{ run: Run; gauge: string }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await worstCase(run);
    } catch (err) {
      if (!(err instanceof CutBeforeAnswered) || attempt >= ATTEMPTS) throw err;
      console.log(`  run ${run + 1}, attempt ${attempt} of ${ATTEMPTS}: ${err.message}; again`);
    }
  }
}

async function worstCase(run: number): Promise<{ run: Run; gauge: string }> {
  const cgroup = cgroupGauge(run);
  const hook = await startHook({}, cgroup?.cgroup);
  const gauge = cgroup ?? rssGauge(() => hook.proc.pid ?? 0);
  const rss = rssGauge(() => hook.proc.pid ?? 0);
  const release: (() => void)[] = [];
  try {
    const load = loadavg();
    const idle = gauge.now();
    const filled = await fillCaches(hook);
    const cache = { ...filled, after: gauge.now() };
    // 2. Both ports at their connection limits.
    const counts = [HOOK_CLASS.defaultConnections, API_SERVER_CLASS.defaultConnections];
    const holders = [
      holdConnections(hook.port, HOOK_CLASS.defaultConnections),
      holdConnections(hook.apiServerPort, API_SERVER_CLASS.defaultConnections),
    ];
    for (const h of holders) release.push(h.stop);
    const total = counts.reduce((a, b) => a + b, 0);
    await until(
      hook,
      "both ports at their connection limits",
      (t) =>
        sample(t, "llsd_hook_connections", '{class="hook"}') +
          sample(t, "llsd_hook_connections", '{class="api-server"}') >=
        total,
    );
    const connections = { count: total, after: gauge.now(), reopened: 0 };
    // 3. Both budgets full but for what the worst-case requests will hold, then 4. every worker busy.
    const workers = DEFAULT_POOL_LIMITS.workers;
    const bodies = Array.from({ length: workers }, (_, i) =>
      worstParse(`worst-${i}`, BODY_LIMIT_BYTES - 1024),
    );
    const busyBytes = bodies.reduce((n, b) => n + Buffer.byteLength(b), 0);
    // Large bodies fill their share (the worst-case requests among them), small ones the rest.
    const { largeBytes, largeFrom } = createBodyBudget(
      HOOK_CLASS.defaultBudgetBytes,
      HOOK_CLASS.budgetVariable,
      BODY_LIMIT_BYTES,
    );
    const largeSize = BODY_LIMIT_BYTES - 1024;
    const largeCount = Math.floor((largeBytes - busyBytes) / largeSize);
    const smallCount = Math.floor((HOOK_CLASS.defaultBudgetBytes - largeBytes) / largeFrom);
    const sizes = [
      ...Array.from({ length: largeCount }, () => largeSize),
      ...Array.from({ length: smallCount }, () => largeFrom),
    ];
    for (const size of sizes) release.push(await heldBody(hook.port, "/sync", size));
    const heldSent = sizes.reduce((n, size) => n + size - HELD_RESERVE, 0);
    const apiHeld = API_SERVER_CLASS.defaultBudgetBytes - 1024;
    release.push(await heldBody(hook.apiServerPort, "/convert", apiHeld));
    const sent = (n: number) => n - HELD_RESERVE;
    await until(
      hook,
      "the held bodies' bytes read",
      (t) =>
        sample(t, "llsd_hook_body_budget_held_bytes", '{class="hook"}') >= heldSent &&
        sample(t, "llsd_hook_body_budget_held_bytes", '{class="api-server"}') >= sent(apiHeld),
    );
    const agent = new http.Agent({ keepAlive: true });
    // A worst-case request's connection can be cut before its headers are read (the holders'
    // reconnections cut the connection idle the longest): said, instead of an unhandled error.
    let cut: Error | undefined;
    const busy = bodies.map((b) =>
      send(hook.port, agent, "POST", "/sync", b).catch((err: Error) => {
        cut = err;
        return { status: 0 };
      }),
    );
    await until(hook, "every worker busy and the hook's budget full", (t) => {
      if (cut !== undefined) throw new CutBeforeAnswered(cut.message);
      return (
        sample(t, "llsd_hook_workers_busy") >= workers &&
        sample(t, "llsd_hook_body_budget_held_bytes", '{class="hook"}') >= heldSent + busyBytes
      );
    });
    // 5. One more: no room in the budget.
    const extra = await refusedStatus(hook.port, "/sync", Buffer.byteLength(bodies[0] ?? ""));
    const answers = (await Promise.all(busy)).map((a) => a.status);
    agent.destroy();
    connections.reopened = holders.reduce((n, h) => n + h.reopened(), 0);
    for (const r of release.splice(0)) r();
    const healthz = await send(hook.port, new http.Agent(), "GET", "/healthz").catch(() => ({
      status: 0,
    }));
    return {
      gauge: gauge.what,
      run: {
        load,
        idle,
        cache,
        connections,
        peak: gauge.peak(),
        rssPeak: rss.peak(),
        extra,
        answers,
        oomKills: gauge.oomKills(),
        alive: hook.proc.exitCode === null && healthz.status === 200,
      },
    };
  } finally {
    for (const r of release) r();
    await hook.stop();
    gauge.remove();
  }
}

/**
 * What an idle connection costs at the limits, in KiB: both ports filled with
 * connections that sent PARTIAL_HEADERS (over TLS: after their handshake), the
 * figure read before and after.
 */
async function connectionCost(run: number, tls: boolean): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "llsd-bench-tls-"));
  const cgroup = cgroupGauge(1000 + run);
  let hook: Hook | undefined;
  const sockets: net.Socket[] = [];
  try {
    makeCa(dir, "hook", "/CN=127.0.0.1");
    const env = tls
      ? { TLS_CERT_FILE: join(dir, "hook.crt"), TLS_KEY_FILE: join(dir, "hook.key") }
      : {};
    hook = await startHook(env, cgroup?.cgroup);
    const started = hook;
    const gauge = cgroup ?? rssGauge(() => started.proc.pid ?? 0);
    await new Promise((r) => setTimeout(r, 500));
    const before = gauge.now();
    const ports = [
      { port: hook.port, count: HOOK_CLASS.defaultConnections },
      { port: hook.apiServerPort, count: API_SERVER_CLASS.defaultConnections },
    ];
    for (const { port, count } of ports)
      for (let i = 0; i < count; i++) {
        const socket = tls
          ? connectTls({ port, host: "127.0.0.1", rejectUnauthorized: false })
          : net.connect(port, "127.0.0.1");
        socket.on("error", () => undefined);
        sockets.push(socket);
        await once(socket, tls ? "secureConnect" : "connect");
        socket.write(PARTIAL_HEADERS);
      }
    await new Promise((r) => setTimeout(r, 500));
    return ((gauge.now() - before) * 1024) / sockets.length;
  } finally {
    for (const s of sockets) s.destroy();
    await hook?.stop();
    cgroup?.remove();
    rmSync(dir, { recursive: true, force: true });
  }
}

// A small negative figure rounds to "-0": written as 0.
const f0 = (n: number) => (Math.round(n) === 0 ? "0" : n.toFixed(0));
const spread = (xs: number[]) =>
  `${f0(Math.min(...xs))}–${f0(Math.max(...xs))} (${xs.map(f0).join(", ")})`;

/** Section 9b; false when the target was missed. */
export async function benchWorst(runs = 3): Promise<boolean> {
  const results: Run[] = [];
  const plain: number[] = [];
  const secure: number[] = [];
  let what = "";
  for (let r = 0; r < runs; r++) {
    const { run, gauge } = await worstCaseRetried(r);
    results.push(run);
    what = gauge;
    plain.push(await connectionCost(r, false));
    secure.push(await connectionCost(r, true));
  }
  const limit = podLimitMib();
  const target = limit * TARGET_SHARE;
  const of = (read: (r: Run) => number) => spread(results.map(read));
  const perConnection = results.map(
    (r) => ((r.connections.after - r.cache.after) * 1024) / r.connections.count,
  );
  const limits = HOOK_CLASS.defaultConnections + API_SERVER_CLASS.defaultConnections;
  // The worst case runs over plain HTTP; with TLS (the HTTPS overlay) each held connection costs more.
  const tlsExtra = (Math.max(...secure) - Math.min(...plain)) * (limits / 1024);
  const met = results.every(
    (r) => r.peak + tlsExtra <= target && r.alive && r.oomKills === 0 && r.extra === 503,
  );
  console.log(
    `\n9b. Memory in the worst case: every bound full at once, the real server (${DEFAULT_POOL_LIMITS.workers} workers of ${DEFAULT_POOL_LIMITS.heapMib} MiB heap, NODE_OPTIONS=${shippedNodeOptions()}), ${runs} runs, MiB (min–max, each run)`,
  );
  console.log(`  measured: ${what}`);
  console.log(
    `  load averages at each run's start (1, 5, 15 min): ${results.map((r) => r.load.map((l) => l.toFixed(1)).join(" ")).join("; ")}`,
  );
  console.log(`  idle                                              ${of((r) => r.idle)}`);
  console.log(
    `  + caches full (${of((r) => r.cache.parents)} parents at rest; response cache ${of((r) => r.cache.bytes / MiB)} of ${CACHE_BYTES / 2 / MiB} MiB)  +${of((r) => r.cache.after - r.idle)}`,
  );
  console.log(
    `  + connections at both limits (${HOOK_CLASS.defaultConnections} + ${API_SERVER_CLASS.defaultConnections} idle with 15 KiB of headers, reopened when cut: ${of((r) => r.connections.reopened)} times)  +${of((r) => r.connections.after - r.cache.after)}: ${spread(perConnection)} KiB a connection`,
  );
  console.log(
    `  + both body budgets full (${HOOK_CLASS.defaultBudgetBytes / MiB} + ${API_SERVER_CLASS.defaultBudgetBytes / MiB} MiB) and every worker on a worst-case request: peak ${of((r) => r.peak)} (+${of((r) => r.peak - r.connections.after)}); resident peak ${of((r) => r.rssPeak)}`,
  );
  console.log(
    `  the worst-case requests answered ${results.map((r) => r.answers.join("/")).join(", ")}; one more with both budgets full answered ${results.map((r) => r.extra).join(", ")} (503 expected)`,
  );
  console.log(
    `  peak ${of((r) => r.peak)} of ${limit} MiB = ${spread(results.map((r) => (100 * r.peak) / limit))}%; OOM kills ${results.map((r) => r.oomKills).join(", ")}; the hook answered /healthz after: ${results.map((r) => (r.alive ? "yes" : "NO")).join(", ")}`,
  );
  console.log(
    `  an idle connection alone (both ports filled, 15 KiB of headers sent): plain ${spread(plain)} KiB, over TLS (handshake done) ${spread(secure)} KiB; × ${limits}: ${f0((Math.max(...plain) * limits) / 1024)} and ${f0((Math.max(...secure) * limits) / 1024)} MiB; the worst case over TLS: peak + ${f0(tlsExtra)} = ${of((r) => r.peak + tlsExtra)} MiB`,
  );
  console.log(
    `  target: peak ≤ ${TARGET_SHARE * 100}% of ${limit} MiB (${f0(target)} MiB) over TLS too, the hook alive, the extra request refused: ${met ? "met" : "MISSED"}`,
  );
  return met;
}

if (process.argv[1]?.endsWith("bench-worst.ts")) {
  const met = await benchWorst(Number(process.argv[2] ?? 3));
  if (!met) process.exitCode = 1;
}
