// The worker pool's shell: every request body is read and answered in a
// worker thread (../worker.ts), never in the main thread, which only receives
// bytes, hashes them, answers from its caches and sends. This file owns the
// threads, the messages (./protocol.ts) and the timers; what the rules decide
// is elsewhere, each part owning its state (docs/adr/0017-worker-pool.md has
// the rules, docs/architecture.md "One request" the path of a request):
//   - ./limits.ts: the limits, the fixed numbers and the waits derived from them;
//   - ./ledger.ts: each tenant's time in hand, and when it waits to make it up;
//   - ./choose.ts: which queued request a free worker takes, which tenants wait;
//   - ./pending.ts: the requests not answered yet, joined when equal, and the refusals remembered;
//   - ./answers.ts: what the pool answers itself (503s);
//   - ./cpu.ts: a thread's CPU time, for the deadline;
//   - ./clock.ts: the one wall clock, passed in (tests move it by hand).
// Here: a request past its deadline or out of heap is answered 503 and its
// worker replaced; a request waits for a worker a bounded time.
import { serialize } from "node:v8";
import { Worker } from "node:worker_threads";
import type { Catalog } from "../../config/catalog.js";
import { serverMsg } from "../../server-messages.js";
import type { Answer } from "../answer.js";
import type { TierStats } from "../memo.js";
import { moving, owned } from "../transfer.js";
import { poolAnswers, type Figures } from "./answers.js";
import { choose, handBack, mayStart, shareOf, waitOf, waitsPast, type Running } from "./choose.js";
import { systemClock, type Clock } from "./clock.js";
import { threadCpuMs } from "./cpu.js";
import { workerEntry, type WorkerEntry } from "./entry.js";
import { createLedger, type Ledger, type Taken } from "./ledger.js";
import {
  busyWorkers,
  checkEveryMs,
  queueWaitMs,
  START_MS,
  tenantWorkers,
  wallLimitMs,
  YOUNG_GENERATION_MIB,
  type PoolLimits,
} from "./limits.js";
import {
  pendingRequests,
  type Pending,
  type PendingRequests,
  type PoolEvents,
  type PoolRequest,
} from "./pending.js";
import type { JobMessage, VerdictMessage, WorkerData, WorkerMessage } from "./protocol.js";

export type { PoolEvents } from "./pending.js";

export interface PoolOptions {
  catalog: Catalog;
  limits: PoolLimits;
  /** Bytes the workers' caches (generation and plan tiers) may hold together (each an equal part). */
  cacheBytes: number;
  fieldManager?: string;
  /** What the confused-deputy rule lets pods have (ALLOWED_POD_FIELDS; default nothing). */
  allowedPodFields?: readonly string[];
}

interface PoolStats {
  workers: number;
  busy: number;
  queued: number;
  /** Requests the workers answered, and workers replaced (past a deadline, out of heap), since the pool was made. */
  answered: number;
  replaced: number;
  /** The workers' cache tiers (generation, plan) by name, together (hits and misses of replaced workers included). */
  tiers: Record<string, TierStats>;
}

export interface Pool {
  readonly limits: PoolLimits;
  /** The answer; always resolves (a 503 when the pool could not answer in time). */
  run(request: PoolRequest, events?: PoolEvents): Promise<Answer>;
  /** Starts every worker; resolves when all are ready, rejects when they cannot start. */
  ready(): Promise<void>;
  stats(): PoolStats;
  /** Stops every worker; queued requests are answered 503. */
  close(): Promise<void>;
}

/**
 * A pool of `options.limits.workers` workers; they start on the first request
 * or on ready(). `clock` and `ledger` are for tests: a clock they move, a
 * ledger with tenants charged before.
 */
export function createPool(
  options: PoolOptions,
  clock: Clock = systemClock,
  ledger: Ledger = createLedger(options.limits.deadlineMs),
): Pool {
  return new WorkerPool(options, clock, ledger);
}

interface Slot {
  worker: Worker;
  /** Shared with the worker: set to make its request ask before it goes on (WorkerData.ask). */
  ask: Int32Array;
  ready: boolean;
  job?: Pending | undefined;
  /** The worker's thread id, when /proc shows its CPU time. */
  tid?: number;
  /** When its job started (before its first job: when the worker was made). */
  startedAt: number;
  /** The CPU time its thread had taken at its last message (ms): a job's start, for the deadline. */
  cpuAt: number;
  /** Set when the pool stops this worker itself: its exit is not a crash. */
  retired: boolean;
  /** The error it reported before exiting, if any. */
  error?: { code?: string; message: string };
  /** Its cache's tiers at its last answer. */
  tiers: Record<string, TierStats>;
  /** A worker starting in place of one stopped on this tenant's request: the tenant holds it until it is ready. */
  heldBy?: string | undefined;
}

const noStats = (): TierStats => ({ entries: 0, bytes: 0, hits: 0, misses: 0 });

class WorkerPool implements Pool {
  readonly limits: PoolLimits;
  /** The limits and the figures derived from them, as the pool's answers name them. */
  private readonly figures: Figures;
  private readonly entry: WorkerEntry;
  private readonly data: Omit<WorkerData, "ask">;
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private readonly pending: PendingRequests = pendingRequests();
  /** Hits and misses of the cache tiers of workers that were replaced, by tier. */
  private readonly retiredStats = new Map<string, TierStats>();
  private answered = 0;
  private replaced = 0;
  private startedAt: number | undefined;
  private closed = false;
  private startFailures = 0;
  private readyWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private broken: string | undefined;
  /** What cancels each tenant's wakes from its last charge (charge). */
  private readonly wakes = new Map<string, (() => void)[]>();
  /** Cancels the next check of the deadlines; set while a request is being answered. */
  private watch: (() => void) | undefined;

  constructor(
    options: PoolOptions,
    private readonly clock: Clock,
    private readonly ledger: Ledger,
  ) {
    const { limits } = options;
    if (!Number.isInteger(limits.workers) || limits.workers < 1)
      throw new Error(serverMsg.tooFewWorkers(limits.workers));
    this.limits = limits;
    this.figures = {
      ...limits,
      share: tenantWorkers(limits.workers),
      busyShare: busyWorkers(limits.workers),
      waitMs: queueWaitMs(limits.deadlineMs),
      wallMs: wallLimitMs(limits.deadlineMs),
    };
    this.entry = workerEntry();
    // Serialized once, shared: a replaced worker costs the main thread no copy of the catalog.
    const serialized = serialize(options.catalog);
    const catalog = new Uint8Array(new SharedArrayBuffer(serialized.length));
    catalog.set(serialized);
    this.data = {
      catalog,
      cacheBytes: options.cacheBytes / limits.workers,
      ...(options.fieldManager === undefined ? {} : { fieldManager: options.fieldManager }),
      ...(options.allowedPodFields === undefined
        ? {}
        : { allowedPodFields: [...options.allowedPodFields] }),
    };
  }

  run(request: PoolRequest, events: PoolEvents = {}): Promise<Answer> {
    const { key, route } = request;
    if (this.broken !== undefined) return Promise.resolve(poolAnswers.broken(route, this.broken));
    if (this.closed) return Promise.resolve(poolAnswers.shuttingDown(route));
    this.startAll();
    const now = this.clock.now();
    const repeat = this.pending.repeat(key, now);
    if (repeat !== undefined) {
      events.refused?.("repeat");
      return Promise.resolve(repeat);
    }
    return new Promise((resolve) => {
      const waiter = { resolve, events };
      if (this.pending.join(key, waiter)) return;
      this.enqueue(this.pending.open(request, waiter, now));
      this.pump();
    });
  }

  ready(): Promise<void> {
    if (this.broken !== undefined)
      return Promise.reject(new Error(serverMsg.workersDoNotStart(this.broken)));
    this.startAll();
    return new Promise((resolve, reject) => {
      // A timer of its own: it also keeps the process alive while the (unref'd) workers start.
      const cancel = this.clock.after(START_MS, () =>
        reject(new Error(serverMsg.workersDidNotStart(START_MS / 1000))),
      );
      this.readyWaiters.push({
        resolve: () => (cancel(), resolve()),
        reject: (err) => (cancel(), reject(err)),
      });
      this.notifyReady();
    });
  }

  stats(): PoolStats {
    const tiers: Record<string, TierStats> = {};
    for (const [name, retired] of this.retiredStats) tiers[name] = { ...retired };
    for (const slot of this.slots)
      for (const [name, g] of Object.entries(slot.tiers)) {
        const sum = (tiers[name] ??= noStats());
        sum.entries += g.entries;
        sum.bytes += g.bytes;
        sum.hits += g.hits;
        sum.misses += g.misses;
      }
    return {
      workers: this.slots.length,
      busy: this.slots.filter((s) => s.job !== undefined).length,
      queued: this.queue.length,
      answered: this.answered,
      replaced: this.replaced,
      tiers,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const stopping = (job: Pending) =>
      this.pending.settle(job, poolAnswers.shuttingDown(job.request.route));
    for (const job of this.queue.splice(0)) stopping(job);
    for (const slot of this.slots) if (slot.job !== undefined) stopping(slot.job);
    this.watch?.();
    await Promise.all(
      this.slots.map((s) => {
        s.retired = true;
        return s.worker.terminate();
      }),
    );
  }

  /** Queues a request in its arrival order, with a timer for the rest of its wait. */
  private enqueue(job: Pending): void {
    const now = this.clock.now();
    const deadline = job.since + this.figures.waitMs;
    const until =
      job.tenant === undefined ? undefined : waitsPast(job.tenant, deadline, this.ledger, now);
    if (job.tenant !== undefined && until !== undefined)
      return this.refuseForTime(job, job.tenant, until, now);
    const at = this.queue.findIndex((q) => q.id > job.id);
    this.queue.splice(at === -1 ? this.queue.length : at, 0, job);
    job.cancelWait = this.clock.after(Math.max(0, deadline - now), () => this.expire(job));
  }

  /** A request whose tenant waits for its time longer than it may wait for a worker: a 503 at once. */
  private refuseForTime(job: Pending, tenant: string, until: number, now: number): void {
    for (const w of job.waiters) w.events.refused?.("share");
    const seconds = Math.ceil((until - now) / 1000);
    const answer = poolAnswers.waitsForTime(job, tenant, seconds, this.ledger.stopped(tenant));
    this.pending.settle(job, answer);
  }

  /** A request that waited its whole time for a worker: a 503. */
  private expire(job: Pending): void {
    const index = this.queue.indexOf(job);
    if (index === -1) return;
    // While the workers first start (a pool started by its first request), waiting is no one's share.
    const starting = this.clock.now() - (this.startedAt ?? 0) < START_MS;
    if (!this.slots.some((s) => s.ready) && starting) {
      job.cancelWait = this.clock.after(this.figures.waitMs, () => this.expire(job));
      return;
    }
    this.queue.splice(index, 1);
    for (const w of job.waiters) w.events.refused?.("queue");
    // The share wording only when its tenant's share (or the busy tenants') is what kept it waiting.
    const { tenant } = job;
    const running = this.running();
    const why =
      tenant === undefined ? undefined : waitOf(tenant, this.ledger, running, this.clock.now());
    const held =
      tenant !== undefined && why === "workers"
        ? { share: shareOf(tenant, running) }
        : why === "busy"
          ? { busyShare: running.busyShare }
          : undefined;
    this.pending.settle(job, poolAnswers.noFreeWorker(job, this.figures, held));
  }

  /** The workers tenants hold now, read from the slots (and the clock) each time it is asked. */
  private running(): Running {
    // A request's tenant (none once handed back), or the tenant a starting worker replaces one of.
    const holderOf = (s: Slot): string | undefined => {
      if (s.job !== undefined) return s.job.handedBack === true ? undefined : s.job.tenant;
      return s.ready ? undefined : s.heldBy;
    };
    return {
      share: this.figures.share,
      busyShare: this.figures.busyShare,
      held: (tenant) => this.slots.filter((s) => holderOf(s) === tenant).length,
      holders: () => this.slots.map(holderOf).filter((t) => t !== undefined),
      heldMs: (tenant) => {
        const now = this.clock.now();
        let ms = 0;
        for (const s of this.slots) if (holderOf(s) === tenant) ms += now - s.startedAt;
        return ms;
      },
    };
  }

  /**
   * Charges a tenant (./ledger.ts) what it took of a worker; one the charge
   * keeps waiting is looked at again when its time is back, and when it is no
   * longer busy.
   */
  private charge(tenant: string | undefined, taken: Taken, now: number): void {
    if (tenant === undefined) return;
    const waits = this.ledger.charge(tenant, taken, now);
    // A charge's waits follow from the tenant's state after it alone (its time refills linearly
    // from there; ledger test "each charge's waits end just past..."): they replace the earlier
    // ones, so a tenant has at most one timer per wait, not one per request. A wait the new state
    // no longer has was met by this charge's own pump.
    for (const cancel of this.wakes.get(tenant) ?? []) cancel();
    if (waits.length === 0) {
      this.wakes.delete(tenant);
      return;
    }
    const last = Math.max(...waits);
    const wakes = waits.map((after) =>
      this.clock.after(
        after,
        () => {
          if (after === last && this.wakes.get(tenant) === wakes) this.wakes.delete(tenant);
          this.pump();
        },
        true,
      ),
    );
    this.wakes.set(tenant, wakes);
  }

  /**
   * Charges a slot's request (or start) to `tenant`: the CPU time the worker
   * tells (from now on the baseline for its deadline), and the wall time it
   * held the worker since `startedAt`, never less than that CPU time.
   */
  private chargeHeld(
    slot: Slot,
    tenant: string | undefined,
    cpuMs: number,
    now: number,
    stopped = false,
  ): void {
    const cpu = this.tookMs(slot, cpuMs);
    this.charge(tenant, { cpuMs: cpu, wallMs: Math.max(now - slot.startedAt, cpu), stopped }, now);
  }

  /** The CPU time a worker took since its last message, as it tells it (ms); from now on its baseline. */
  private tookMs(slot: Slot, cpuMs: number): number {
    const took = cpuMs - slot.cpuAt;
    slot.cpuAt = cpuMs;
    return took;
  }

  /**
   * Gives its verdict to each request that asked whether it may go on, once
   * every other request being read has said whom it is for: one whose tenant
   * holds its share with the others is handed back.
   */
  private giveVerdicts(): void {
    if (this.slots.some((s) => s.job !== undefined && s.job.tenant === undefined)) return;
    for (const slot of this.slots) {
      const job = slot.job;
      if (job?.asking !== true || job.tenant === undefined) continue;
      job.asking = false;
      const go = mayStart(job.tenant, this.ledger, this.running(), this.clock.now(), 1);
      // One handed back no longer counts for its tenant.
      if (!go) job.handedBack = true;
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
    if (this.startedAt !== undefined) return;
    this.startedAt = this.clock.now();
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
      tiers: {},
      startedAt: this.clock.now(),
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

  /** A new worker in the place of one stopped on a request of `tenant` (which holds it until it is ready). */
  private replace(slot: Slot, tenant?: string): void {
    for (const [name, g] of Object.entries(slot.tiers)) {
      const retired = this.retiredStats.get(name) ?? noStats();
      retired.hits += g.hits;
      retired.misses += g.misses;
      this.retiredStats.set(name, retired);
    }
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
    if (job === undefined) {
      this.replace(slot);
      this.pump();
      return;
    }
    const outOfHeap = slot.error?.code === "ERR_WORKER_OUT_OF_MEMORY";
    const reason = outOfHeap ? "out of heap" : (slot.error?.message ?? "exited");
    for (const w of job.waiters) w.events.crash?.(job.parent, reason);
    this.stopped(slot, job, poolAnswers.crashed(job, outOfHeap, this.figures));
  }

  /**
   * A request whose worker stopped at a limit (or in a fault): its answer,
   * remembered for its bytes; its tenant charged the whole deadline; a new
   * worker in the old one's place, held by that tenant until it is ready.
   */
  private stopped(slot: Slot, job: Pending, answer: Answer): void {
    const now = this.clock.now();
    this.pending.remember(job, answer, now);
    this.pending.settle(job, answer);
    // The deadline, and the wall time it held the worker, at least the deadline (out of heap may be sooner).
    const { deadlineMs } = this.limits;
    const wallMs = Math.max(deadlineMs, now - slot.startedAt);
    this.charge(job.tenant, { cpuMs: deadlineMs, wallMs, stopped: true }, now);
    this.replace(slot, job.tenant);
    this.pump();
  }

  /** A worker that exited before it was ready; true when the pool gives up (the code or catalog is broken). */
  private startFailed(slot: Slot): boolean {
    this.startFailures += 1;
    if (this.startFailures < 3) return false;
    const why = slot.error?.message ?? "it exited before it was ready";
    this.broken = why;
    for (const w of this.readyWaiters) w.reject(new Error(serverMsg.workersDoNotStart(why)));
    this.readyWaiters = [];
    for (const queued of this.queue.splice(0))
      this.pending.settle(queued, poolAnswers.broken(queued.request.route, why));
    return true;
  }

  private onTimeout(slot: Slot, by: "cpu" | "wall"): void {
    const job = slot.job;
    if (job === undefined) return;
    slot.job = undefined;
    slot.retired = true;
    for (const w of job.waiters) w.events.timeout?.(job.parent);
    void slot.worker.terminate();
    this.stopped(slot, job, poolAnswers.stopped(job, by, this.figures));
  }

  private onMessage(slot: Slot, message: WorkerMessage): void {
    const now = this.clock.now();
    if (message.type === "ready") {
      if (message.tid !== undefined && threadCpuMs(message.tid) !== undefined)
        slot.tid = message.tid;
      slot.ready = true;
      // A worker started in place of one a tenant's request stopped: the start is that tenant's cost too.
      this.chargeHeld(slot, slot.heldBy, message.cpuMs, now, slot.heldBy !== undefined);
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
      this.ledger.started(message.tenant, now);
      if (message.parent !== undefined) job.parent = message.parent;
      if (message.ask) job.asking = true;
      this.pump();
      return;
    }
    slot.job = undefined;
    this.chargeHeld(slot, job.tenant, message.cpuMs, now);
    if (message.type === "handedBack") {
      // Back in the queue in its arrival order, with its body and its tenant now known.
      job.request = { ...job.request, body: message.body };
      job.handedBack = false;
      this.enqueue(job);
    } else {
      slot.tiers = message.tiers;
      this.answered += 1;
      this.pending.settle(job, message.answer);
    }
    this.pump();
  }

  private start(slot: Slot, job: Pending): void {
    slot.job = job;
    const now = this.clock.now();
    if (job.tenant !== undefined) this.ledger.started(job.tenant, now);
    // Only a tenant holding a worker or busy can be one that waits.
    const holding = this.slots.map((s) => s.job?.tenant ?? s.heldBy);
    const tenants = [...holding, ...this.ledger.spent()].filter((t) => t !== undefined);
    const { body } = job.request;
    // The body's own buffer moves to the worker (a request handed back brings it back).
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
      handBack: handBack(tenants, this.ledger, this.running(), now),
      known: job.tenant !== undefined,
    };
    slot.startedAt = now;
    slot.worker.postMessage(message, moving(sent));
    job.request = { ...job.request, body: null };
    this.watchDeadlines();
  }

  /** Checks the deadlines of the requests being answered every checkEveryMs, while there are any. */
  private watchDeadlines(): void {
    this.watch ??= this.clock.after(checkEveryMs(this.limits.deadlineMs), () => {
      this.watch = undefined;
      this.check();
    });
  }

  private check(): void {
    const now = this.clock.now();
    for (const slot of this.slots) {
      if (slot.job === undefined) continue;
      const wall = now - slot.startedAt;
      const cpu =
        slot.tid === undefined ? wall : (threadCpuMs(slot.tid) ?? slot.cpuAt) - slot.cpuAt;
      if (cpu >= this.limits.deadlineMs)
        this.onTimeout(slot, slot.tid === undefined ? "wall" : "cpu");
      else if (wall >= this.figures.wallMs) this.onTimeout(slot, "wall");
    }
    if (this.slots.some((s) => s.job !== undefined)) this.watchDeadlines();
  }

  /** Gives each free worker the request ./choose.ts picks, while there is one. */
  private pump(): void {
    this.giveVerdicts();
    for (const slot of this.slots) {
      if (!slot.ready || slot.job !== undefined) continue;
      const index = choose(this.queue, this.ledger, this.running(), this.clock.now());
      const job = index === undefined ? undefined : this.queue.splice(index, 1)[0];
      if (job === undefined) return;
      job.cancelWait?.();
      job.cancelWait = undefined;
      this.start(slot, job);
    }
  }
}
