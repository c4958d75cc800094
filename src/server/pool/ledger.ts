// What each tenant (a parent's namespace; all of /convert) has taken of the
// workers' time lately, counted twice: their CPU time, which its time in hand
// and its waits follow, and the wall time its requests held a worker, which
// says whether it is busy; and which tenants started a request last. The rule it keeps is ADR 17's
// "Tenants" (docs/adr/0017-worker-pool.md). Every function takes `now` (ms on
// ./clock.ts's clock): the ledger never reads a clock.
import { ACTIVE_MS, BURST, BUSY_BELOW, LEDGER_TENANTS, TENANT_SHARE } from "./limits.js";

/** What one request (or a worker's start) took of a worker, as the ledger is charged it. */
export interface Taken {
  /** CPU time, ms: what the tenant's time in hand and its waits follow. */
  cpuMs: number;
  /** Wall time it held the worker, ms (default: as much as cpuMs): what says whether it is busy. */
  wallMs?: number;
  /** It was stopped at a limit: the tenant stays stopped until its time is back in hand. */
  stopped?: boolean;
}

export interface Ledger {
  /** All the time a tenant may have in hand, ms: BURST deadlines. */
  readonly full: number;
  /** A tenant's worker time in hand (CPU), ms: full (BURST deadlines) when it was not charged lately. */
  timeInHand(tenant: string, now: number): number;
  /** The same, of the wall time its requests held workers: what says whether it is busy. */
  wallInHand(tenant: string, now: number): number;
  /**
   * Whether a tenant has less than BUSY_BELOW of its wall time in hand, less
   * `holding` (ms its requests still running have held workers so far):
   * busy tenants share busyWorkers (./choose.ts).
   */
  busy(tenant: string, now: number, holding?: number): boolean;
  /** Until when a tenant's requests wait to make up its time (0: they need not). */
  waitsUntil(tenant: string, now: number): number;
  /** Whether a request of the tenant was stopped at a limit, and its time is not back in hand since. */
  stopped(tenant: string): boolean;
  /** Notes that a request of `tenant` starts (for waitsUntil: whether others are active). */
  started(tenant: string, now: number): void;
  /**
   * Charges `tenant` what one of its requests took of a worker. Returns in
   * how many ms the charge stops keeping it waiting: its time back in hand
   * (when it is out of time now), its wall time no longer busy (when it is
   * busy now); empty when it is neither.
   */
  charge(tenant: string, taken: Taken, now: number): number[];
  /**
   * The tenants their last charge left busy (out of time among them): of the
   * tenants holding no worker, the only ones that can be waiting.
   */
  spent(): Iterable<string>;
}

interface Entry {
  /** Time in hand at `at`, ms: negative when the tenant took more than it had. */
  inHand: number;
  /** Wall time in hand at `at`, ms. */
  wallInHand: number;
  at: number;
  stopped: boolean;
}

/** A ledger for requests of at most `deadlineMs` of processing each. */
export function createLedger(deadlineMs: number): Ledger {
  const full = BURST * deadlineMs;
  const busyBelow = BUSY_BELOW * full;
  // Insertion order: the tenant charged longest ago first.
  const entries = new Map<string, Entry>();
  const spent = new Set<string>();
  /** The last two tenants to start a request, each once, the latest first. */
  let recent: { tenant: string; at: number }[] = [];

  const refilled = (tenant: string, now: number, of: "inHand" | "wallInHand"): number => {
    const entry = entries.get(tenant);
    if (entry === undefined) return full;
    return Math.min(full, entry[of] + (now - entry.at) * TENANT_SHARE);
  };
  const timeInHand = (tenant: string, now: number) => refilled(tenant, now, "inHand");
  const wallInHand = (tenant: string, now: number) => refilled(tenant, now, "wallInHand");
  const othersActive = (tenant: string, now: number): boolean =>
    recent.some((r) => r.tenant !== tenant && r.at > now - ACTIVE_MS);
  const stopped = (tenant: string): boolean => entries.get(tenant)?.stopped === true;

  /** In how many ms a tenant with `inHand` now has `level` in hand (1 ms after, so it is past it). */
  const reaches = (inHand: number, level: number) => Math.ceil((level - inHand) / TENANT_SHARE) + 1;

  return {
    full,
    timeInHand,
    wallInHand,
    stopped,
    busy: (tenant, now, holding = 0) => wallInHand(tenant, now) - holding < busyBelow,
    waitsUntil(tenant, now) {
      const inHand = timeInHand(tenant, now);
      if (inHand > 0) return 0;
      if (!stopped(tenant) && !othersActive(tenant, now)) return 0;
      return now + Math.ceil(-inHand / TENANT_SHARE);
    },
    started(tenant, now) {
      const [last] = recent;
      recent =
        last?.tenant === tenant
          ? [{ tenant, at: now }, ...recent.slice(1)]
          : [{ tenant, at: now }, ...(last === undefined ? [] : [last])];
    },
    charge(tenant, { cpuMs, wallMs = cpuMs, stopped: stoppedNow = false }, now) {
      const inHand = timeInHand(tenant, now) - cpuMs;
      const wall = wallInHand(tenant, now) - wallMs;
      // A tenant stopped lately stays so until its time is back in hand.
      const stillStopped = stopped(tenant) && inHand <= 0;
      entries.delete(tenant);
      entries.set(tenant, {
        inHand,
        wallInHand: wall,
        at: now,
        stopped: stoppedNow || stillStopped,
      });
      if (inHand <= 0 || wall < busyBelow) spent.add(tenant);
      else spent.delete(tenant);
      // A bounded record: the tenant charged longest ago goes first (its time has come back, or nearly).
      const [oldest] = entries.keys();
      if (entries.size > LEDGER_TENANTS && oldest !== undefined) {
        entries.delete(oldest);
        spent.delete(oldest);
      }
      const changes = inHand <= 0 ? [reaches(inHand, 0)] : [];
      return wall < busyBelow ? [...changes, reaches(wall, busyBelow)] : changes;
    },
    spent: () => spent,
  };
}
