// What bounds the worker pool: the settings an operator may change (their
// variables and ranges, read by ../settings.ts), and the fixed numbers and
// waits derived from them (docs/adr/0017-worker-pool.md).

export interface PoolLimits {
  /** Worker threads (HOOK_WORKERS). */
  workers: number;
  /** Each worker's old-generation heap, MiB (WORKER_HEAP_MIB). */
  heapMib: number;
  /** CPU time one request may take in its worker, ms (WORKER_DEADLINE_MS); see wallLimitMs for wall time. */
  deadlineMs: number;
}

/** For two replicas on small nodes: the shipped pod's 448 Mi holds them with 15 % to spare (docs/operations/hook-server.md). */
export const DEFAULT_POOL_LIMITS: PoolLimits = { workers: 2, heapMib: 64, deadlineMs: 2000 };

/** One limit as an environment variable: a whole number within a range. */
export interface LimitSetting {
  variable: string;
  limit: keyof PoolLimits;
  min: number;
  max: number;
}

export const POOL_SETTINGS: readonly LimitSetting[] = [
  { variable: "HOOK_WORKERS", limit: "workers", min: 1, max: 32 },
  { variable: "WORKER_HEAP_MIB", limit: "heapMib", min: 32, max: 4096 },
  { variable: "WORKER_DEADLINE_MS", limit: "deadlineMs", min: 10, max: 60_000 },
];

/** Each worker's young generation, MiB: counted in the sizing beside WORKER_HEAP_MIB. */
export const YOUNG_GENERATION_MIB = 8;

/** How long bytes that ran past a limit are answered so again without running. */
export const REPEAT_COOLDOWN_MS = 30_000;

/** Metacontroller's hook timeout in our CompositeController (metacontroller/compositecontroller.yaml). */
const HOOK_TIMEOUT_MS = 10_000;

/** How long starting the workers may take (loading the code and the catalog). */
export const START_MS = 60_000;

/**
 * A tenant's share of the workers' time (./ledger.ts): its time in hand fills
 * at this share of one worker, up to BURST deadlines. It is charged the wall
 * time its requests hold a worker (never less than their CPU time).
 */
export const TENANT_SHARE = 0.25;
export const BURST = 1;
/**
 * A tenant with less than this part of its time in hand is busy: busy tenants
 * together hold at most busyWorkers (./choose.ts), the rest is kept for the
 * tenants with time in hand.
 */
export const BUSY_BELOW = 0.5;
/** How recently another tenant must have started a request for one out of time to wait for its time. */
export const ACTIVE_MS = 2000;
/** Tenants the ledger remembers; the one charged longest ago goes first. */
export const LEDGER_TENANTS = 4096;
/** Byte strings whose refusal is remembered (REPEAT_COOLDOWN_MS); the oldest goes first. */
export const REMEMBERED_REFUSALS = 1024;

/**
 * Workers the API server's endpoints (/convert; one tenant) may hold: one. It
 * sends a handful of objects at a time, and whoever can reach its port needs no token.
 */
export const API_SERVER_WORKERS = 1;

/** Workers one tenant may hold: all but one (all of them when there is one). */
export function tenantWorkers(workers: number): number {
  return Math.max(1, workers - 1);
}

/**
 * Workers the busy tenants (BUSY_BELOW) may hold together, however many they
 * are: as many as one tenant may, so one worker is kept for the others.
 */
export function busyWorkers(workers: number): number {
  return tenantWorkers(workers);
}

/**
 * Wall time a request may take in its worker, for one the node starves of
 * CPU: four times its CPU deadline, and at least what Metacontroller's hook
 * timeout leaves (8 s), so that a small deadline is not hit by a busy node.
 */
export function wallLimitMs(deadlineMs: number): number {
  return Math.max(4 * deadlineMs, HOOK_TIMEOUT_MS - 2000);
}

/**
 * How long a request may wait for a worker: what Metacontroller's hook
 * timeout leaves after the deadline, less 2 s (6 s by default), and never
 * less than the deadline itself.
 */
export function queueWaitMs(deadlineMs: number): number {
  return Math.max(deadlineMs, HOOK_TIMEOUT_MS - 2000 - deadlineMs);
}

/** How often the deadlines of running requests are checked: a tenth of the deadline, 5 to 100 ms. */
export function checkEveryMs(deadlineMs: number): number {
  return Math.min(100, Math.max(5, deadlineMs / 10));
}
