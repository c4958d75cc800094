// Which request a free worker takes, and which tenants wait
// (src/server/pool/choose.ts), one row per rule. The ledger is the real one,
// charged at given times; time is a number passed in.
import { expect } from "chai";
import {
  choose,
  handBack,
  mayStart,
  shareOf,
  waitOf,
  waitsPast,
  type Running,
  type WaitReason,
  type Waiting,
} from "../../../../src/server/pool/choose.js";
import { createLedger, type Ledger } from "../../../../src/server/pool/ledger.js";
import { busyWorkers, queueWaitMs, tenantWorkers } from "../../../../src/server/pool/limits.js";
import { API_SERVER_TENANT } from "../../../../src/server/answer.js";

const DEADLINE = 2000;
const NOW = 1000;

/** A ledger where `charged` tenants took these ms at 0, and `active` tenants started a request at 0. */
function ledgerOf(charged: Record<string, number> = {}, active: string[] = []): Ledger {
  const ledger = createLedger(DEADLINE);
  for (const tenant of active) ledger.started(tenant, 0);
  for (const [tenant, ms] of Object.entries(charged)) ledger.charge(tenant, { cpuMs: ms }, 0);
  return ledger;
}

/** `workers` workers, `held` of them held by these tenants, for `heldMs` so far. */
function runningOf(
  workers: number,
  held: Record<string, number> = {},
  heldMs: Record<string, number> = {},
): Running {
  return {
    share: tenantWorkers(workers),
    busyShare: busyWorkers(workers),
    held: (tenant) => held[tenant] ?? 0,
    heldMs: (tenant) => heldMs[tenant] ?? 0,
    holders: () => Object.entries(held).flatMap(([tenant, n]) => Array<string>(n).fill(tenant)),
  };
}

const queued = (...tenants: (string | undefined)[]): Waiting[] =>
  tenants.map((tenant) => ({ tenant }));

describe("the pool's chooser", () => {
  describe("which queued request a free worker takes", () => {
    const rows: {
      name: string;
      queue: Waiting[];
      ledger: Ledger;
      running: Running;
      /** The index taken; undefined: none may start. */
      takes: number | undefined;
    }[] = [
      {
        name: "requests not read yet: the first to come (as tenants with all their time in hand)",
        queue: queued(undefined, undefined),
        ledger: ledgerOf(),
        running: runningOf(2),
        takes: 0,
      },
      {
        name: "the tenant with the most time in hand goes first",
        queue: queued("a", "b"),
        ledger: ledgerOf({ a: 1500, b: 500 }),
        running: runningOf(2),
        takes: 1,
      },
      {
        name: "a request not read yet goes before a tenant that took time lately",
        queue: queued("a", undefined),
        ledger: ledgerOf({ a: 1000 }),
        running: runningOf(2),
        takes: 1,
      },
      {
        name: "equal time in hand: the first to come",
        queue: queued("a", "b", "a"),
        ledger: ledgerOf(),
        running: runningOf(2),
        takes: 0,
      },
      {
        name: "all workers but one: a tenant holding one of two waits, another goes",
        queue: queued("a", "b"),
        ledger: ledgerOf(),
        running: runningOf(2, { a: 1 }),
        takes: 1,
      },
      {
        name: "all workers but one: a tenant holding three of four waits",
        queue: queued("a"),
        ledger: ledgerOf(),
        running: runningOf(4, { a: 3 }),
        takes: undefined,
      },
      {
        name: "one worker: a tenant may hold it",
        queue: queued("a"),
        ledger: ledgerOf(),
        running: runningOf(1),
        takes: 0,
      },
      {
        name: "out of time while another tenant is active: it waits, with nothing else queued too",
        queue: queued("a"),
        ledger: ledgerOf({ a: 3000 }, ["b"]),
        running: runningOf(2),
        takes: undefined,
      },
      {
        name: "out of time, alone: it goes (the workers are free)",
        queue: queued("a"),
        ledger: ledgerOf({ a: 3000 }),
        running: runningOf(2),
        takes: 0,
      },
      {
        name: "a busy tenant holds one of two workers: another busy one waits, one with time in hand goes",
        queue: queued("b", "c"),
        ledger: ledgerOf({ a: 1500, b: 1500 }),
        running: runningOf(2, { a: 1 }),
        takes: 1,
      },
      {
        name: "four busy tenants, two of three workers held by two of them: the others wait, a request not read yet goes",
        queue: queued("c", "d", undefined),
        ledger: ledgerOf({ a: 1500, b: 1500, c: 1200, d: 1100 }),
        running: runningOf(3, { a: 1, b: 1 }),
        takes: 2,
      },
      {
        name: "an empty queue",
        queue: [],
        ledger: ledgerOf(),
        running: runningOf(2),
        takes: undefined,
      },
    ];
    for (const row of rows)
      it(row.name, () => {
        expect(choose(row.queue, row.ledger, row.running, NOW)).to.equal(row.takes);
      });
  });

  describe("why a tenant waits", () => {
    const rows: {
      name: string;
      /** The tenant asking (default "a"). */
      tenant?: string;
      ledger: Ledger;
      running: Running;
      /** Workers its own request holds (a request asking whether it may go on). */
      own?: number;
      why: WaitReason | undefined;
    }[] = [
      {
        name: "holding fewer than all workers but one: it may start",
        ledger: ledgerOf(),
        running: runningOf(3, { a: 1 }),
        why: undefined,
      },
      {
        name: "holding all workers but one",
        ledger: ledgerOf(),
        running: runningOf(3, { a: 2 }),
        why: "workers",
      },
      {
        name: "a request asking whether it may go on counts its own worker out",
        ledger: ledgerOf(),
        running: runningOf(2, { a: 1 }),
        own: 1,
        why: undefined,
      },
      {
        name: "a second request of the tenant, read side by side with the first, is told to wait",
        ledger: ledgerOf(),
        running: runningOf(2, { a: 2 }),
        own: 1,
        why: "workers",
      },
      {
        name: "out of time while another tenant is active",
        ledger: ledgerOf({ a: 3000 }, ["b"]),
        running: runningOf(2),
        why: "time",
      },
      {
        name: "busy (less than half its time in hand), another busy tenant holding one of two workers",
        ledger: ledgerOf({ a: 1500, b: 1500 }),
        running: runningOf(2, { b: 1 }),
        why: "busy",
      },
      {
        name: "busy, the worker held 1.5 s so far by a tenant charged nothing yet: that one counts as busy, it waits",
        ledger: ledgerOf({ a: 1500 }),
        running: runningOf(2, { b: 1 }, { b: 1500 }),
        why: "busy",
      },
      {
        name: "busy, the worker held by a tenant with time in hand: it may start",
        ledger: ledgerOf({ a: 1500, b: 500 }),
        running: runningOf(2, { b: 1 }),
        why: undefined,
      },
      {
        name: "with time in hand, busy tenants holding all they may: it may start (the worker kept for it)",
        ledger: ledgerOf({ b: 1500, c: 1500 }),
        running: runningOf(3, { b: 1, c: 1 }),
        why: undefined,
      },
      {
        name: "busy, of three workers: one held by another busy tenant, it may take the second",
        ledger: ledgerOf({ a: 1500, b: 1500 }),
        running: runningOf(3, { b: 1 }),
        why: undefined,
      },
      {
        name: "busy, of three workers: two held by busy tenants (itself one), it waits",
        ledger: ledgerOf({ a: 1500, b: 1500 }),
        running: runningOf(3, { a: 1, b: 1 }),
        why: "busy",
      },
      {
        name: "busy and asking, another busy tenant holding the other of two workers: told to wait",
        ledger: ledgerOf({ a: 1500, b: 1500 }),
        running: runningOf(2, { a: 1, b: 1 }),
        own: 1,
        why: "busy",
      },
      {
        name: "busy and asking, of three workers: its own and another busy tenant's, it may go on",
        ledger: ledgerOf({ a: 1500, b: 1500 }),
        running: runningOf(3, { a: 1, b: 1 }),
        own: 1,
        why: undefined,
      },
      {
        name: "busy, one worker: it may hold it (no worker to keep)",
        ledger: ledgerOf({ a: 1500 }),
        running: runningOf(1),
        why: undefined,
      },
      {
        name: "busy and out of time, the busy tenants holding their share: the busy rule is said first",
        ledger: ledgerOf({ a: 3000, b: 1500 }, ["b"]),
        running: runningOf(2, { b: 1 }),
        why: "busy",
      },
      {
        name: "the API server's endpoints holding one of four workers",
        tenant: API_SERVER_TENANT,
        ledger: ledgerOf(),
        running: runningOf(4, { [API_SERVER_TENANT]: 1 }),
        why: "workers",
      },
      {
        name: "the API server's endpoints holding none: they may start",
        tenant: API_SERVER_TENANT,
        ledger: ledgerOf(),
        running: runningOf(4),
        why: undefined,
      },
      {
        name: "both: holding its share is said first",
        ledger: ledgerOf({ a: 3000 }, ["b"]),
        running: runningOf(2, { a: 1 }),
        why: "workers",
      },
    ];
    for (const row of rows)
      it(row.name, () => {
        const tenant = row.tenant ?? "a";
        expect(waitOf(tenant, row.ledger, row.running, NOW, row.own)).to.equal(row.why);
        expect(mayStart(tenant, row.ledger, row.running, NOW, row.own)).to.equal(
          row.why === undefined,
        );
      });
  });

  describe("the share a 503's text names (shareOf): the share of the tenant that refused it", () => {
    const rows = [
      { name: "a namespace, of four workers: three", tenant: "a", workers: 4, share: 3 },
      { name: "a namespace, of one worker: one", tenant: "a", workers: 1, share: 1 },
      {
        name: "the API server's endpoints, of four workers: one",
        tenant: API_SERVER_TENANT,
        workers: 4,
        share: 1,
      },
      {
        name: "the API server's endpoints, of one worker: one",
        tenant: API_SERVER_TENANT,
        workers: 1,
        share: 1,
      },
    ];
    for (const row of rows)
      it(row.name, () => {
        expect(shareOf(row.tenant, runningOf(row.workers))).to.equal(row.share);
      });
  });

  it("the tenants a worker hands back a request of, unparsed: each that may not start now, once", () => {
    const ledger = ledgerOf({ c: 3000 }, ["b"]);
    const running = runningOf(2, { a: 1 });
    expect(handBack(["a", "b", "c", "a", "d"], ledger, running, NOW)).to.deep.equal(["a", "c"]);
  });

  it("a busy tenant's request is handed back while another busy tenant holds the workers it may", () => {
    const ledger = ledgerOf({ a: 1500, b: 1500, c: 100 });
    const running = runningOf(2, { a: 1 });
    expect(handBack(["a", "b", "c"], ledger, running, NOW)).to.deep.equal(["a", "b"]);
  });

  describe("the share refusal: a request that would wait for its tenant's time longer than for a worker", () => {
    const wait = queueWaitMs(DEADLINE);
    it("is refused at once, saying until when its tenant waits", () => {
      // 6000 ms short: back after 24000 ms, past the 6000 ms a request may wait.
      const ledger = ledgerOf({ a: 8000 }, ["b"]);
      expect(waitsPast("a", NOW + wait, ledger, NOW)).to.equal(24_000);
    });
    it("is queued when its tenant's time is back before its wait ends", () => {
      const ledger = ledgerOf({ a: 3000 }, ["b"]);
      expect(ledger.waitsUntil("a", NOW)).to.equal(4000);
      expect(waitsPast("a", NOW + wait, ledger, NOW)).to.equal(undefined);
    });
    it("is queued when its tenant need not wait", () => {
      expect(waitsPast("a", NOW + wait, ledgerOf({ a: 8000 }), NOW)).to.equal(undefined);
    });
  });
});
