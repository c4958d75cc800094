// Which request a free worker takes next, and which tenants wait: pure
// functions of the queue, the ledger (./ledger.ts), the workers each tenant
// holds and the time, deciding nothing else (the shell, ./index.ts, acts).
// The rule is ADR 17's "Tenants" (docs/adr/0017-worker-pool.md).
//
// A tenant may start a request unless a row of WAITS holds for it. Of the
// queued requests whose tenant may start one, a free worker takes the first
// of the tenant with the most time in hand; a request not read yet (its
// tenant unknown) counts as one with all its time in hand.
import { API_SERVER_TENANT } from "../answer.js";
import type { Ledger } from "./ledger.js";
import { API_SERVER_WORKERS } from "./limits.js";

/** A request in the queue, as the chooser sees it. */
export interface Waiting {
  /** Its tenant, once a worker has read it; undefined before. */
  tenant?: string | undefined;
}

/** The workers tenants hold now. */
export interface Running {
  /** Workers `tenant` holds: answering its requests, or starting in place of one its request stopped. */
  held(tenant: string): number;
  /** The tenant of each worker held, once a worker (a request not read yet holds one for no tenant). */
  holders(): Iterable<string>;
  /** The wall time, ms, the requests of `tenant` still running have held their workers so far. */
  heldMs(tenant: string): number;
  /** The most one tenant may hold (limits.ts tenantWorkers). */
  share: number;
  /** The most the busy tenants (ledger.ts busy) may hold together (limits.ts busyWorkers). */
  busyShare: number;
}

/** What a rule sees of one tenant. */
interface Scene {
  tenant: string;
  ledger: Ledger;
  running: Running;
  now: number;
  /** Of the workers the tenant holds, those its own request holds (a request asking whether it may go on). */
  own: number;
}

/**
 * Why a tenant waits: it holds its share of the workers; it is busy and the
 * busy tenants hold theirs together (the rest is kept for the others); or it
 * took more than its share of their time.
 */
export type WaitReason = "workers" | "busy" | "time";

/** The rules that keep a tenant from starting another request now, in order; the first that holds is why. */
const WAITS: readonly { why: WaitReason; holds: (scene: Scene) => boolean }[] = [
  // It holds its share of the workers (shareOf).
  {
    why: "workers",
    holds: (s) => s.running.held(s.tenant) - s.own >= shareOf(s.tenant, s.running),
  },
  // It is busy, and the busy tenants hold their share together: the workers left are for the others.
  {
    why: "busy",
    holds: (s) => isBusy(s, s.tenant) && busyHeld(s) - s.own >= s.running.busyShare,
  },
  // It took more worker time lately than its share, and makes it up first (./ledger.ts).
  { why: "time", holds: (s) => s.ledger.waitsUntil(s.tenant, s.now) > 0 },
];

/** Whether `tenant` is busy, counting the time its running requests hold workers as taken. */
const isBusy = (s: Scene, tenant: string) => s.ledger.busy(tenant, s.now, s.running.heldMs(tenant));

/** The workers busy tenants hold now (the scene's tenant among them when it is busy). */
function busyHeld(s: Scene): number {
  let n = 0;
  for (const tenant of s.running.holders()) if (isBusy(s, tenant)) n += 1;
  return n;
}

/**
 * The most workers `tenant` may hold: all but one (running.share), and the
 * API server's endpoints (../classes.ts) API_SERVER_WORKERS however many there are.
 */
export function shareOf(tenant: string, running: Running): number {
  return tenant === API_SERVER_TENANT ? Math.min(running.share, API_SERVER_WORKERS) : running.share;
}

/** Why `tenant` may not start a request now; undefined when it may. */
export function waitOf(
  tenant: string,
  ledger: Ledger,
  running: Running,
  now: number,
  own = 0,
): WaitReason | undefined {
  const scene = { tenant, ledger, running, now, own };
  return WAITS.find((rule) => rule.holds(scene))?.why;
}

/** Whether `tenant` may start a request now (`own`: workers its request already holds). */
export function mayStart(...args: Parameters<typeof waitOf>): boolean {
  return waitOf(...args) === undefined;
}

/**
 * The index in `queue` (in arrival order) of the request a free worker takes
 * now; undefined when none may start.
 */
export function choose(
  queue: readonly Waiting[],
  ledger: Ledger,
  running: Running,
  now: number,
): number | undefined {
  let best: number | undefined;
  let bestInHand = -Infinity;
  for (const [i, { tenant }] of queue.entries()) {
    if (tenant !== undefined && !mayStart(tenant, ledger, running, now)) continue;
    // Not read yet: as a tenant with all its time in hand.
    const inHand = tenant === undefined ? ledger.full : ledger.timeInHand(tenant, now);
    if (inHand > bestInHand) [best, bestInHand] = [i, inHand];
    if (inHand >= ledger.full) break;
  }
  return best;
}

/** Of `tenants`, those that may not start a request now: a request found to be theirs is handed back. */
export function handBack(
  tenants: Iterable<string>,
  ledger: Ledger,
  running: Running,
  now: number,
): string[] {
  return [...new Set(tenants)].filter((t) => !mayStart(t, ledger, running, now));
}

/**
 * Until when a request of `tenant` would wait for its tenant's time, when
 * that is later than `deadline` (the most it may wait for a worker): it is
 * refused at once rather than queued.
 */
export function waitsPast(
  tenant: string,
  deadline: number,
  ledger: Ledger,
  now: number,
): number | undefined {
  const until = ledger.waitsUntil(tenant, now);
  return until > deadline ? until : undefined;
}
