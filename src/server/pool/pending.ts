// The requests the pool has not answered yet, each with whoever waits for its
// answer, and the refusals it remembers: equal bytes in flight share one run
// (five Metacontroller workers retrying one parent are one job), and bytes
// stopped at a limit are answered so again for REPEAT_COOLDOWN_MS without
// running (Metacontroller retries a failing parent with the same request).
import { API_SERVER_TENANT, type Answer, type Job, type RefusalReason } from "../answer.js";
import { fromApiServer } from "../classes.js";
import { copyOf } from "../transfer.js";
import { REMEMBERED_REFUSALS, REPEAT_COOLDOWN_MS } from "./limits.js";

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

/** One request for the pool; `key` (the route and the sha256 of its bytes) joins equal requests. */
export interface PoolRequest extends Job {
  key?: string;
}

interface Waiter {
  resolve: (answer: Answer) => void;
  events: PoolEvents;
}

/** A request the pool has not answered yet: queued, or being answered by a worker. */
export interface Pending {
  id: number;
  request: PoolRequest;
  /** The request and any equal ones that came while it was pending. */
  waiters: Waiter[];
  /** When it came: it waits for a worker at most queueWaitMs from then. */
  since: number;
  /** Known once a worker has read it. */
  tenant?: string;
  /** namespace/name, once read and valid. */
  parent?: string;
  /** Cancels the timer of its wait in the queue. */
  cancelWait?: (() => void) | undefined;
  /** It asked whether it may go on, and waits for the verdict. */
  asking?: boolean;
  /** It was told to hand itself back: it no longer counts for its tenant. */
  handedBack?: boolean;
}

export interface PendingRequests {
  /** The refusal remembered for these bytes, as a copy; undefined when there is none now. */
  repeat(key: string | undefined, now: number): Answer | undefined;
  /** Adds `waiter` to the request with these bytes in flight; false when there is none. */
  join(key: string | undefined, waiter: Waiter): boolean;
  /** A new pending request, in flight under its key. */
  open(request: PoolRequest, waiter: Waiter, now: number): Pending;
  /** Answers each waiter of `job` (its wait is over, it leaves the flight). */
  settle(job: Pending, answer: Answer): void;
  /** Answers `job`'s bytes so again for a while. */
  remember(job: Pending, answer: Answer, now: number): void;
}

export function pendingRequests(): PendingRequests {
  let nextId = 1;
  const inFlight = new Map<string, Pending>();
  // Insertion order: the oldest first.
  const repeats = new Map<string, { answer: Answer; until: number }>();
  return {
    repeat(key, now) {
      const repeat = key === undefined ? undefined : repeats.get(key);
      if (key === undefined || repeat === undefined) return undefined;
      if (repeat.until > now) return { ...repeat.answer, body: copyOf(repeat.answer.body) };
      repeats.delete(key);
      return undefined;
    },
    join(key, waiter) {
      const same = key === undefined ? undefined : inFlight.get(key);
      same?.waiters.push(waiter);
      return same !== undefined;
    },
    open(request, waiter, now) {
      const job: Pending = {
        id: nextId++,
        request,
        waiters: [waiter],
        since: now,
        // The API server's routes are one tenant, known before a request is read.
        ...(fromApiServer(request.route) ? { tenant: API_SERVER_TENANT } : {}),
      };
      if (request.key !== undefined) inFlight.set(request.key, job);
      return job;
    },
    settle(job, answer) {
      job.cancelWait?.();
      const key = job.request.key;
      if (key !== undefined && inFlight.get(key) === job) inFlight.delete(key);
      // Each waiter gets its own copy of the bytes: one may be transferred or cached apart from another.
      for (const [i, waiter] of job.waiters.entries())
        waiter.resolve(i === 0 ? answer : { ...answer, body: copyOf(answer.body) });
    },
    remember(job, answer, now) {
      const key = job.request.key;
      if (key === undefined) return;
      repeats.set(key, { answer, until: now + REPEAT_COOLDOWN_MS });
      // A bounded record: the oldest goes first.
      const [oldest] = repeats.keys();
      if (repeats.size > REMEMBERED_REFUSALS && oldest !== undefined) repeats.delete(oldest);
    },
  };
}
