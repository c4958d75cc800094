// The worker pool: every request body is read and answered in a worker
// thread (src/server/worker.ts), never in the main thread, which only
// receives bytes, hashes them, answers from its caches and sends. So a
// request that takes long, or runs a worker out of its heap, costs one worker
// for a bounded time, and /healthz, /readyz, /metrics and the other parents
// keep their latency (docs/adr/0017-worker-pool.md):
//   - a deadline per request (WORKER_DEADLINE_MS of its worker thread's CPU
//     time, read from /proc; and, for a worker the node starves, four times
//     that in wall time, 8 s at least): past it the worker is stopped and
//     replaced, and the request is answered 503 naming the parent and the limit;
//   - a heap bound per worker (WORKER_HEAP_MIB): a worker that reaches it is
//     replaced the same way, the answer naming the parent and the bound;
//   - one tenant (a parent's namespace; all of /convert) holds at most all
//     workers but one: a request is read first, and handed back to wait if
//     its tenant already holds its share;
//   - the same bytes asked again while they are being answered share that
//     answer, and bytes that ran past the deadline or out of heap are answered
//     so again for a while without running (Metacontroller retries a failing
//     parent with the same request);
//   - a request waits for a worker at most a bounded time, then gets a 503.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { serialize } from "node:v8";
import { Worker } from "node:worker_threads";
import type { Catalog } from "../config/catalog.js";
import {
  CONVERT_TENANT,
  errorAnswer,
  type Answer,
  type Job,
  type RefusalReason,
  type Route,
} from "./answer.js";
import type { TierStats } from "./memo.js";
import { copyOf, moving, owned } from "./transfer.js";
import type { JobMessage, VerdictMessage, WorkerData, WorkerMessage } from "./worker.js";

export interface PoolLimits {
  /** Worker threads (HOOK_WORKERS). */
  workers: number;
  /** Each worker's old-generation heap, MiB (WORKER_HEAP_MIB). */
  heapMib: number;
  /** CPU time one request may take in its worker, ms (WORKER_DEADLINE_MS); see wallLimitMs for wall time. */
  deadlineMs: number;
}

/** For two replicas on small nodes: the shipped pod's 384 Mi holds them (docs/operations/hook-server.md). */
export const DEFAULT_POOL_LIMITS: PoolLimits = { workers: 2, heapMib: 64, deadlineMs: 2000 };

/** A whole number from the environment, within bounds, or a message naming the variable and the fix. */
function whole(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const text = env[name];
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`${name}=${text} must be a whole number from ${min} to ${max}`);
  return value;
}

/** The pool's limits from HOOK_WORKERS, WORKER_HEAP_MIB and WORKER_DEADLINE_MS (docs/operations/hook-server.md). */
export function poolLimitsFromEnv(env: NodeJS.ProcessEnv): PoolLimits {
  const d = DEFAULT_POOL_LIMITS;
  return {
    workers: whole(env, "HOOK_WORKERS", d.workers, 1, 32),
    heapMib: whole(env, "WORKER_HEAP_MIB", d.heapMib, 32, 4096),
    deadlineMs: whole(env, "WORKER_DEADLINE_MS", d.deadlineMs, 10, 60_000),
  };
}

/** Each worker's young generation, MiB: counted in the sizing beside WORKER_HEAP_MIB. */
const YOUNG_GENERATION_MIB = 8;

/** How long bytes that ran past a limit are answered so again without running. */
const REPEAT_COOLDOWN_MS = 30_000;

/** Metacontroller's hook timeout in our CompositeController (metacontroller/compositecontroller.yaml). */
const HOOK_TIMEOUT_MS = 10_000;

/**
 * Each tenant has worker time in hand, up to BURST deadlines, refilled at
 * this share of one worker and charged each request's CPU time (a stopped one:
 * the deadline and the start of the worker that replaces it). A tenant with
 * less in hand goes after those with more, so that a namespace whose requests
 * take long never delays a typical one (milliseconds a sync), and still runs
 * when the workers are free; one whose request was stopped at a limit waits
 * until its time is back in hand, so that a parent retried forever past the
 * deadline costs the node at most a quarter of a core. A tenant out of time
 * also waits to make it up while other tenants are active: two workers are
 * then not one for the typical namespaces and one for the heavy one.
 */
const TENANT_SHARE = 0.25;
const BURST = 1;
/** How recently another tenant must have started a request for one out of time to be held to its share. */
const ACTIVE_MS = 2000;

/** How long starting the workers may take (loading the code and the catalog). */
const START_MS = 60_000;

/**
 * Wall time a request may take in its worker, for one the node starves of
 * CPU: four times its CPU deadline, and at least what Metacontroller's hook
 * timeout leaves (8 s), so that a small deadline is not hit by a busy node.
 */
function wallLimitMs(deadlineMs: number): number {
  return Math.max(4 * deadlineMs, HOOK_TIMEOUT_MS - 2000);
}

/**
 * How long a request may wait for a worker: what Metacontroller's hook
 * timeout leaves after the deadline, less 2 s (6 s by default), and never
 * less than the deadline itself.
 */
function queueWaitMs(deadlineMs: number): number {
  return Math.max(deadlineMs, HOOK_TIMEOUT_MS - 2000 - deadlineMs);
}

/** What the pool tells the app of one request besides its answer (metrics and log lines). */
export interface PoolEvents {
  /** It ran past the deadline; its worker was replaced. */
  timeout?(parent: string | undefined): void;
  /** Its worker stopped while answering (out of heap, or another fault); it was replaced. */
  crash?(parent: string | undefined, reason: string): void;
  /**
   * It was answered 503 without running: it waited too long for a worker, it
   * is bytes that ran past a limit, or its tenant took its share of the workers' time lately.
   */
  refused?(why: RefusalReason): void;
}

export interface PoolOptions {
  catalog: Catalog;
  limits: PoolLimits;
  /** Bytes each worker's generation cache may hold. */
  cacheBytes: number;
  fieldManager?: string;
  allowedPodFields?: readonly string[];
}

/** One request for the pool; `key` (the route and the sha256 of its bytes) joins equal requests. */
interface PoolRequest extends Job {
  key?: string;
}

interface PoolStats {
  workers: number;
  busy: number;
  queued: number;
  /** Requests the workers answered, and workers replaced (past a deadline, out of heap), since the pool was made. */
  answered: number;
  replaced: number;
  /** The workers' generation caches together (hits and misses of replaced workers included). */
  generation: TierStats;
}

export interface Pool {
  /** The answer; always resolves (a 503 when the pool could not answer in time). */
  run(request: PoolRequest, events?: PoolEvents): Promise<Answer>;
  /** Starts every worker; resolves when all are ready, rejects when they cannot start. */
  ready(): Promise<void>;
  stats(): PoolStats;
  /** Stops every worker; queued requests are answered 503. */
  close(): Promise<void>;
}

/** The worker's code: the compiled file beside this one, or under tsx (tests, the bench) the TypeScript source. */
function workerEntry(): { entry: URL | string; eval: boolean } {
  if (!import.meta.url.endsWith(".ts"))
    return { entry: new URL("./worker.js", import.meta.url), eval: false };
  // Node.js applies module hooks per thread: a worker registers tsx itself before importing the source.
  // Its ESM entry, as package.json's exports name it (require.resolve would give the CommonJS one).
  const manifest = createRequire(import.meta.url).resolve("tsx/package.json");
  const exported = (
    JSON.parse(readFileSync(manifest, "utf8")) as {
      exports: Record<string, { import: { default: string } }>;
    }
  ).exports["./esm/api"]?.import.default;
  const tsx = new URL(exported ?? "./dist/esm/api/index.mjs", pathToFileURL(manifest)).href;
  const source = new URL("./worker.ts", import.meta.url).href;
  return {
    entry: `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(source)}); })`,
    eval: true,
  };
}

interface Waiter {
  resolve: (answer: Answer) => void;
  events: PoolEvents;
}

interface Pending {
  id: number;
  request: PoolRequest;
  /** The request and any equal ones that came while it was pending. */
  waiters: Waiter[];
  /** When it came (Date.now()): it waits for a worker at most queueWaitMs from then. */
  since: number;
  /** Known once a worker has read it. */
  tenant?: string;
  /** namespace/name, once read and valid. */
  parent?: string;
  waitTimer?: NodeJS.Timeout | undefined;
  /** It asked whether it may go on, and waits for the answer. */
  asking?: boolean;
  /** It was told to hand itself back: it no longer counts for its tenant. */
  leaving?: boolean;
}

interface Slot {
  worker: Worker;
  /** Shared with the worker: set to make its request ask before it goes on (WorkerData.ask). */
  ask: Int32Array;
  ready: boolean;
  job?: Pending | undefined;
  /** The worker's thread id, when /proc shows its CPU time. */
  tid?: number;
  /** When its job started: performance.now(), and its thread's CPU time then (ms). */
  startedAt: number;
  cpuAt: number;
  /** Set when the pool stops this worker itself: its exit is not a crash. */
  retired: boolean;
  /** The error it reported before exiting, if any. */
  error?: { code?: string; message: string };
  generation: TierStats;
  /** A worker starting in place of one stopped on this tenant's request: it counts for that tenant until ready. */
  heldBy?: string | undefined;
}

const noStats = (): TierStats => ({ entries: 0, bytes: 0, hits: 0, misses: 0 });

/** CPU time (user + system) of one thread of this process, ms; undefined where /proc cannot tell. */
function threadCpuMs(tid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
    // After the command's ")": state, then 10 fields, then utime and stime in clock ticks (1/100 s).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/** What a request is, in a message: the parent when it was read, else the route. */
function subject(job: Pending): string {
  if (job.parent !== undefined)
    return `the ${job.request.route === "customize" ? "/customize request" : "sync"} of ${job.parent}`;
  if (job.request.route === "convert") return "a /convert request";
  return `a /${job.request.route} request (its parent not read yet)`;
}

/** An answer saying to retry: a 503 with Retry-After. */
const unavailable = (route: Route, message: string): Answer => ({
  ...errorAnswer(route, 503, message),
  retryAfter: 1,
});

const FIX =
  "Metacontroller retries; if it keeps failing, the resource or its related objects take more than the hook allows: make them smaller (docs/operations/hook-server.md)";

class WorkerPool implements Pool {
  private readonly limits: PoolLimits;
  /** One tenant may hold every worker but one (all of them when there is one). */
  private readonly tenantShare: number;
  private readonly waitMs: number;
  private readonly wallMs: number;
  private readonly checkMs: number;
  private readonly entry: { entry: URL | string; eval: boolean };
  private readonly data: Omit<WorkerData, "ask">;
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private readonly inFlight = new Map<string, Pending>();
  private readonly repeats = new Map<string, { answer: Answer; until: number }>();
  /** Hits and misses of the generation caches of workers that were replaced. */
  private readonly retiredStats = noStats();
  private nextId = 1;
  private answered = 0;
  private replaced = 0;
  private started = false;
  private startedAt = 0;
  private closed = false;
  private startFailures = 0;
  private readyWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private broken: string | undefined;
  private watch: NodeJS.Timeout | undefined;
  /** Each tenant's worker time in hand (see tokens), for the tenants charged lately. */
  private readonly budgets = new Map<string, { tokens: number; at: number; stopped: boolean }>();
  /** The last two tenants to start a request, and when (for heldUntil). */
  private recent: { tenant: string; at: number }[] = [];

  constructor(
    options: PoolOptions,
    private readonly onClose?: () => void,
  ) {
    const { limits } = options;
    if (!Number.isInteger(limits.workers) || limits.workers < 1)
      throw new Error(`HOOK_WORKERS must be a whole number of at least 1, not ${limits.workers}`);
    this.limits = limits;
    this.tenantShare = Math.max(1, limits.workers - 1);
    this.waitMs = queueWaitMs(limits.deadlineMs);
    this.wallMs = wallLimitMs(limits.deadlineMs);
    this.checkMs = Math.min(100, Math.max(5, limits.deadlineMs / 10));
    this.entry = workerEntry();
    // Serialized once, shared: a replaced worker costs the main thread no copy of the catalog.
    const serialized = serialize(options.catalog);
    const catalog = new Uint8Array(new SharedArrayBuffer(serialized.length));
    catalog.set(serialized);
    this.data = {
      catalog,
      cacheBytes: options.cacheBytes,
      ...(options.fieldManager === undefined ? {} : { fieldManager: options.fieldManager }),
      ...(options.allowedPodFields === undefined
        ? {}
        : { allowedPodFields: [...options.allowedPodFields] }),
    };
  }

  run(request: PoolRequest, events: PoolEvents = {}): Promise<Answer> {
    const { key, route } = request;
    if (this.broken !== undefined) return Promise.resolve(this.brokenAnswer(route));
    if (this.closed)
      return Promise.resolve(unavailable(route, "llsd-hook is shutting down; retry"));
    this.startAll();
    if (key !== undefined) {
      const repeat = this.repeats.get(key);
      if (repeat !== undefined && repeat.until > Date.now()) {
        events.refused?.("repeat");
        return Promise.resolve({ ...repeat.answer, body: copyOf(repeat.answer.body) });
      }
      if (repeat !== undefined) this.repeats.delete(key);
      const same = this.inFlight.get(key);
      if (same !== undefined)
        return new Promise((resolve) => same.waiters.push({ resolve, events }));
    }
    return new Promise((resolve) => {
      const job: Pending = {
        id: this.nextId++,
        request,
        waiters: [{ resolve, events }],
        since: Date.now(),
        // /convert is one tenant, known before it is read.
        ...(route === "convert" ? { tenant: CONVERT_TENANT } : {}),
      };
      if (key !== undefined) this.inFlight.set(key, job);
      this.enqueue(job);
      this.pump();
    });
  }

  ready(): Promise<void> {
    if (this.broken !== undefined)
      return Promise.reject(new Error(`llsd-hook's workers do not start: ${this.broken}`));
    this.startAll();
    return new Promise((resolve, reject) => {
      // A timer of its own: it also keeps the process alive while the (unref'd) workers start.
      const timer = setTimeout(
        () => reject(new Error(`llsd-hook's workers did not start within ${START_MS / 1000} s`)),
        START_MS,
      );
      const done = () => clearTimeout(timer);
      this.readyWaiters.push({
        resolve: () => (done(), resolve()),
        reject: (err) => (done(), reject(err)),
      });
      this.notifyReady();
    });
  }

  stats(): PoolStats {
    const generation = { ...this.retiredStats, entries: 0, bytes: 0 };
    for (const { generation: g } of this.slots) {
      generation.entries += g.entries;
      generation.bytes += g.bytes;
      generation.hits += g.hits;
      generation.misses += g.misses;
    }
    return {
      workers: this.slots.length,
      busy: this.slots.filter((s) => s.job !== undefined).length,
      queued: this.queue.length,
      answered: this.answered,
      replaced: this.replaced,
      generation,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.onClose?.();
    const stopping = (job: Pending) =>
      this.settle(job, unavailable(job.request.route, "llsd-hook is shutting down; retry"));
    for (const job of this.queue.splice(0)) stopping(job);
    for (const slot of this.slots) if (slot.job !== undefined) stopping(slot.job);
    if (this.watch !== undefined) clearInterval(this.watch);
    await Promise.all(
      this.slots.map((s) => {
        s.retired = true;
        return s.worker.terminate();
      }),
    );
  }

  /** The answer while the workers cannot start: a 500, the reason for the log. */
  private brokenAnswer(route: Route): Answer {
    return {
      ...errorAnswer(route, 500, "internal error in llsd-hook; see the hook's log"),
      fault: { note: "llsd-hook's workers do not start", message: this.broken ?? "" },
    };
  }

  private settle(job: Pending, answer: Answer): void {
    if (job.waitTimer !== undefined) clearTimeout(job.waitTimer);
    const key = job.request.key;
    if (key !== undefined && this.inFlight.get(key) === job) this.inFlight.delete(key);
    // Each waiter gets its own copy of the bytes: one may be transferred or cached apart from another.
    for (const [i, waiter] of job.waiters.entries())
      waiter.resolve(i === 0 ? answer : { ...answer, body: copyOf(answer.body) });
  }

  /** Bytes that ran past a limit are answered so again, without running, for a while. */
  private remember(job: Pending, answer: Answer): void {
    const key = job.request.key;
    if (key === undefined) return;
    this.repeats.set(key, { answer, until: Date.now() + REPEAT_COOLDOWN_MS });
    // A bounded record: the oldest goes first.
    if (this.repeats.size > 1024) this.repeats.delete(this.repeats.keys().next().value as string);
  }

  /** Queues a request in its arrival order, with a timer for the rest of its wait. */
  private enqueue(job: Pending): void {
    const held = job.tenant === undefined ? 0 : this.heldUntil(job.tenant);
    if (held > job.since + this.waitMs) return this.holdBack(job, held);
    const at = this.queue.findIndex((q) => q.id > job.id);
    this.queue.splice(at === -1 ? this.queue.length : at, 0, job);
    const left = Math.max(0, job.since + this.waitMs - Date.now());
    job.waitTimer = setTimeout(() => this.expire(job), left);
  }

  /** A request of a tenant held back longer than it may wait: a 503 at once. */
  private holdBack(job: Pending, until: number): void {
    for (const w of job.waiters) w.events.refused?.("share");
    const seconds = Math.ceil((until - Date.now()) / 1000);
    const who = job.tenant === CONVERT_TENANT ? "/convert" : `namespace ${job.tenant ?? ""}`;
    this.settle(
      job,
      unavailable(
        job.request.route,
        `llsd-hook holds back ${subject(job)} for ${seconds} s more: ${this.budgets.get(job.tenant ?? "")?.stopped === true ? `a request of ${who} was stopped at a worker's limits lately (WORKER_DEADLINE_MS, WORKER_HEAP_MIB)` : `the requests of ${who} took more worker time lately than its share beside the other namespaces`}, and its requests wait until that time is made up at a quarter of a worker; Metacontroller retries`,
      ),
    );
  }

  /** A request that waited its whole time for a worker: a 503. */
  private expire(job: Pending): void {
    const index = this.queue.indexOf(job);
    if (index === -1) return;
    // While the workers first start (a pool started by its first request), waiting is no one's share.
    if (!this.slots.some((s) => s.ready) && performance.now() - this.startedAt < START_MS) {
      job.waitTimer = setTimeout(() => this.expire(job), this.waitMs);
      return;
    }
    this.queue.splice(index, 1);
    for (const w of job.waiters) w.events.refused?.("queue");
    const { workers } = this.limits;
    const why =
      job.tenant === undefined
        ? `all ${workers} busy`
        : `${job.tenant === CONVERT_TENANT ? "/convert" : `namespace ${job.tenant}`} holds ${this.tenantShare} of the ${workers} at most`;
    this.settle(
      job,
      unavailable(
        job.request.route,
        `llsd-hook had no free worker for ${subject(job)} within ${this.waitMs} ms (HOOK_WORKERS: ${why}); Metacontroller retries`,
      ),
    );
  }

  /** Workers a tenant holds: answering its requests, or starting in place of one its request stopped. */
  private running(tenant: string): number {
    return this.slots.reduce(
      (n, s) =>
        n +
        ((s.job?.tenant === tenant && s.job.leaving !== true) || (!s.ready && s.heldBy === tenant)
          ? 1
          : 0),
      0,
    );
  }

  /**
   * A tenant's worker time in hand, ms: a bucket of BURST deadlines that fills
   * at TENANT_SHARE of a worker and is charged each request's processing.
   */
  private tokens(tenant: string): number {
    const budget = this.budgets.get(tenant);
    const full = BURST * this.limits.deadlineMs;
    if (budget === undefined) return full;
    return Math.min(full, budget.tokens + (Date.now() - budget.at) * TENANT_SHARE);
  }

  /**
   * Until when a tenant's requests wait (0: they need not): a tenant out of
   * worker time, while another tenant has started a request within the last
   * ACTIVE_MS (alone, a namespace is not slowed), or whose request was stopped
   * at a limit (past the deadline, out of heap) whether alone or not.
   */
  private heldUntil(tenant: string): number {
    const tokens = this.tokens(tenant);
    if (tokens > 0) return 0;
    if (this.budgets.get(tenant)?.stopped !== true && !this.othersActive(tenant)) return 0;
    return Date.now() + Math.ceil(-tokens / TENANT_SHARE);
  }

  /** Whether a tenant other than `tenant` started a request lately. */
  private othersActive(tenant: string): boolean {
    const since = Date.now() - ACTIVE_MS;
    return this.recent.some((r) => r.tenant !== tenant && r.at > since);
  }

  /** Notes that `tenant` starts a request: the last two tenants to, each once. */
  private active(tenant: string): void {
    const now = Date.now();
    const [last] = this.recent;
    this.recent =
      last?.tenant === tenant
        ? [{ tenant, at: now }, ...this.recent.slice(1)]
        : [{ tenant, at: now }, ...(last === undefined ? [] : [last])];
  }

  /** Whether another request of `tenant` may start now, `extra` of its own already counted. */
  private mayStart(tenant: string, extra = 0): boolean {
    return this.running(tenant) - extra < this.tenantShare && this.heldUntil(tenant) === 0;
  }

  /**
   * Charges a tenant what one of its requests took of a worker; `stopped`: a
   * request stopped at a limit, charged all it was let take and the start of
   * the worker that replaces it.
   */
  private charge(tenant: string | undefined, ms: number, stopped = false): void {
    if (tenant === undefined) return;
    const tokens = this.tokens(tenant) - ms;
    // A tenant stopped lately stays so until its time is back in hand.
    const wasStopped = this.budgets.get(tenant)?.stopped === true && tokens <= 0;
    this.budgets.delete(tenant);
    this.budgets.set(tenant, { tokens, at: Date.now(), stopped: stopped || wasStopped });
    // A bounded record: the tenant charged longest ago goes first (its bucket has refilled, or nearly).
    if (this.budgets.size > 4096) this.budgets.delete(this.budgets.keys().next().value as string);
    if (tokens <= 0) setTimeout(() => this.pump(), Math.ceil(-tokens / TENANT_SHARE) + 1).unref();
  }

  /** What a slot's request has taken so far, ms: its thread's CPU time, or wall time where /proc cannot tell. */
  private used(slot: Slot): number {
    const cpu = slot.tid === undefined ? undefined : threadCpuMs(slot.tid);
    return cpu === undefined ? performance.now() - slot.startedAt : cpu - slot.cpuAt;
  }

  /**
   * Answers the requests that asked whether they may go on, once every other
   * request being read has said whom it is for: one whose tenant holds its
   * share with the others is handed back.
   */
  private decide(): void {
    if (this.slots.some((s) => s.job !== undefined && s.job.tenant === undefined)) return;
    for (const slot of this.slots) {
      const job = slot.job;
      if (job?.asking !== true || job.tenant === undefined) continue;
      job.asking = false;
      const go = this.mayStart(job.tenant, 1);
      // One handed back no longer counts for its tenant.
      if (!go) job.leaving = true;
      const verdict: VerdictMessage = { type: "verdict", id: job.id, go };
      slot.worker.postMessage(verdict);
    }
  }

  private notifyReady(): void {
    if (!this.slots.every((s) => s.ready)) return;
    for (const w of this.readyWaiters) w.resolve();
    this.readyWaiters = [];
  }

  private startAll(): void {
    if (this.started) return;
    this.started = true;
    this.startedAt = performance.now();
    for (let i = 0; i < this.limits.workers; i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const ask = new Int32Array(new SharedArrayBuffer(4));
    const workerData: WorkerData = { ...this.data, ask };
    const worker = new Worker(this.entry.entry, {
      eval: this.entry.eval,
      workerData,
      resourceLimits: {
        maxOldGenerationSizeMb: this.limits.heapMib,
        maxYoungGenerationSizeMb: YOUNG_GENERATION_MIB,
      },
    });
    const slot: Slot = {
      worker,
      ask,
      ready: false,
      retired: false,
      generation: noStats(),
      startedAt: 0,
      cpuAt: 0,
    };
    worker.on("message", (message: WorkerMessage) => this.onMessage(slot, message));
    worker.on("error", (err: Error & { code?: string }) => {
      slot.error = { message: err.message, ...(err.code === undefined ? {} : { code: err.code }) };
    });
    worker.on("exit", () => this.onExit(slot));
    // Workers never keep the process alive by themselves: the server (or a pending timer) does.
    // (After the listeners: adding a "message" listener refs the worker's port again.)
    worker.unref();
    return slot;
  }

  /** A new worker in the place of one stopped on a request of `tenant` (counted for it until ready). */
  private replace(slot: Slot, tenant?: string): void {
    this.retiredStats.hits += slot.generation.hits;
    this.retiredStats.misses += slot.generation.misses;
    const index = this.slots.indexOf(slot);
    if (index === -1 || this.closed) return;
    this.replaced += 1;
    const next = this.spawn();
    next.heldBy = tenant;
    this.slots[index] = next;
  }

  private onExit(slot: Slot): void {
    const job = slot.job;
    slot.job = undefined;
    if (slot.retired || this.closed) return;
    if (!slot.ready && this.startFailed(slot)) return;
    if (job !== undefined) {
      const outOfHeap = slot.error?.code === "ERR_WORKER_OUT_OF_MEMORY";
      const reason = outOfHeap ? "out of heap" : (slot.error?.message ?? "exited");
      for (const w of job.waiters) w.events.crash?.(job.parent, reason);
      const answer = unavailable(
        job.request.route,
        outOfHeap
          ? `llsd-hook's worker ran out of memory on ${subject(job)}: its heap is bounded at ${this.limits.heapMib} MiB (WORKER_HEAP_MIB); the worker was replaced. ${FIX}, or raise WORKER_HEAP_MIB with the memory limit`
          : `llsd-hook's worker stopped on ${subject(job)} and was replaced; see the hook's log`,
      );
      this.remember(job, answer);
      this.settle(job, answer);
      this.charge(job.tenant, this.limits.deadlineMs, true);
    }
    this.replace(slot, job?.tenant);
    this.pump();
  }

  /** A worker that exited before it was ready; true when the pool gives up (the code or catalog is broken). */
  private startFailed(slot: Slot): boolean {
    this.startFailures += 1;
    if (this.startFailures < 3) return false;
    const why = slot.error?.message ?? "it exited before it was ready";
    this.broken = why;
    for (const w of this.readyWaiters)
      w.reject(new Error(`llsd-hook's workers do not start: ${why}`));
    this.readyWaiters = [];
    for (const queued of this.queue.splice(0))
      this.settle(queued, this.brokenAnswer(queued.request.route));
    return true;
  }

  private onTimeout(slot: Slot, by: "cpu" | "wall"): void {
    const job = slot.job;
    if (job === undefined) return;
    slot.job = undefined;
    slot.retired = true;
    for (const w of job.waiters) w.events.timeout?.(job.parent);
    const { deadlineMs } = this.limits;
    const limit =
      by === "cpu"
        ? `${deadlineMs} ms of processing, the most one request may take (WORKER_DEADLINE_MS)`
        : `${this.wallMs} ms in all, on a node too busy to give it the ${deadlineMs} ms of processing one request may take (WORKER_DEADLINE_MS)`;
    const answer = unavailable(
      job.request.route,
      `llsd-hook stopped ${subject(job)} after ${limit}, and replaced its worker. ${FIX}`,
    );
    this.remember(job, answer);
    this.settle(job, answer);
    this.charge(job.tenant, this.limits.deadlineMs, true);
    void slot.worker.terminate();
    this.replace(slot, job.tenant);
    this.pump();
  }

  private onMessage(slot: Slot, message: WorkerMessage): void {
    if (message.type === "ready") {
      if (message.tid !== undefined && threadCpuMs(message.tid) !== undefined)
        slot.tid = message.tid;
      slot.ready = true;
      // A worker started in place of one a tenant's request stopped: the start is that tenant's cost too.
      this.charge(slot.heldBy, message.startMs ?? 0, slot.heldBy !== undefined);
      slot.heldBy = undefined;
      this.startFailures = 0;
      this.notifyReady();
      this.pump();
      return;
    }
    const job = slot.job;
    if (job === undefined || job.id !== message.id) return;
    if (message.type === "read") {
      job.tenant = message.tenant;
      this.active(message.tenant);
      if (message.parent !== undefined) job.parent = message.parent;
      if (message.ask) job.asking = true;
      this.pump();
      return;
    }
    slot.job = undefined;
    this.charge(job.tenant, this.used(slot));
    if (message.type === "deferred") {
      // Back in the queue in its arrival order, with its body and its tenant now known.
      job.request = { ...job.request, body: message.body };
      job.leaving = false;
      this.enqueue(job);
    } else {
      slot.generation = message.generation;
      this.answered += 1;
      this.settle(job, message.answer);
    }
    this.pump();
  }

  private start(slot: Slot, job: Pending): void {
    slot.job = job;
    if (job.tenant !== undefined) this.active(job.tenant);
    const defer = [
      ...new Set([...this.slots.map((s) => s.job?.tenant ?? s.heldBy), ...this.budgets.keys()]),
    ].filter((t): t is string => t !== undefined && !this.mayStart(t));
    const { body } = job.request;
    // The body's own buffer moves to the worker (a deferred request's comes back).
    const sent = body === null ? null : owned(body);
    // A request still being read elsewhere may be of this one's tenant: it asks before it goes on.
    const reading = this.slots.filter(
      (s) => s !== slot && s.job !== undefined && s.job.tenant === undefined,
    );
    for (const other of reading) Atomics.store(other.ask, 0, 1);
    Atomics.store(slot.ask, 0, reading.length > 0 ? 1 : 0);
    const message: JobMessage = {
      type: "job",
      id: job.id,
      job: {
        route: job.request.route,
        body: sent,
        charset: job.request.charset,
        at: job.request.at,
      },
      defer,
      known: job.tenant !== undefined,
    };
    slot.startedAt = performance.now();
    slot.cpuAt = slot.tid === undefined ? 0 : (threadCpuMs(slot.tid) ?? 0);
    slot.worker.postMessage(message, moving(sent));
    job.request = { ...job.request, body: null };
    this.watch ??= setInterval(() => this.check(), this.checkMs);
  }

  /** The deadlines of the requests being answered; the timer runs only while one is. */
  private check(): void {
    const now = performance.now();
    for (const slot of this.slots) {
      if (slot.job === undefined) continue;
      const wall = now - slot.startedAt;
      const cpu =
        slot.tid === undefined ? wall : (threadCpuMs(slot.tid) ?? slot.cpuAt) - slot.cpuAt;
      if (cpu >= this.limits.deadlineMs)
        this.onTimeout(slot, slot.tid === undefined ? "wall" : "cpu");
      else if (wall >= this.wallMs) this.onTimeout(slot, "wall");
    }
    if (this.watch !== undefined && this.slots.every((s) => s.job === undefined)) {
      clearInterval(this.watch);
      this.watch = undefined;
    }
  }

  /**
   * Gives each idle worker a request whose tenant may start one: of those,
   * the first of the tenant with the most worker time in hand (a request not
   * read yet counts as in hand), so that a tenant that took much lately goes
   * after the others, but still goes when no one else waits.
   */
  private pump(): void {
    this.decide();
    for (const slot of this.slots) {
      if (!slot.ready || slot.job !== undefined) continue;
      const full = BURST * this.limits.deadlineMs;
      let best = -1;
      let bestTokens = -Infinity;
      for (const [i, job] of this.queue.entries()) {
        if (job.tenant !== undefined && !this.mayStart(job.tenant)) continue;
        const tokens = job.tenant === undefined ? full : this.tokens(job.tenant);
        if (tokens > bestTokens) [best, bestTokens] = [i, tokens];
        if (tokens >= full) break;
      }
      const job = best === -1 ? undefined : this.queue.splice(best, 1)[0];
      if (job === undefined) return;
      clearTimeout(job.waitTimer);
      job.waitTimer = undefined;
      this.start(slot, job);
    }
  }
}

/** One pool per configuration and catalog in a process: apps made alike (tests, the bench) share its workers. */
const shared = new Map<string, Pool>();

/** The pool of these options, made on first use. */
export function sharedPool(options: PoolOptions): Pool {
  const { limits, cacheBytes, fieldManager, allowedPodFields } = options;
  const key = JSON.stringify([
    limits,
    cacheBytes,
    fieldManager ?? null,
    allowedPodFields ?? [],
    createHash("sha256").update(serialize(options.catalog)).digest("base64"),
  ]);
  let pool = shared.get(key);
  if (pool === undefined) {
    pool = new WorkerPool(options, () => shared.delete(key));
    shared.set(key, pool);
  }
  return pool;
}
