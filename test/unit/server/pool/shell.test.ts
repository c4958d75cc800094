// The pool's shell (src/server/pool/index.ts) on a clock the test moves, with
// real workers running the real sync, one row per rule the shell carries out:
// the wall time a tenant is charged (and past a limit), the worker kept from
// busy tenants for the others, a queue wait that expires (for all workers
// busy, for a tenant holding its share, and not while the workers first
// start), the share refusal, and close with queued requests. A request holding a worker is the slowest sync found
// within the bounds (a second or so of processing): the rows move the clock
// while it runs, and no assertion is on a duration.
import { expect } from "chai";
import type { Answer } from "../../../../src/server/answer.js";
import { CACHE_BYTES, generationCacheBytes } from "../../../../src/server/app.js";
import { loadCatalog } from "../../../../src/edge/load-catalog.js";
import { createPool, type Pool } from "../../../../src/server/pool/index.js";
import { createLedger, type Ledger } from "../../../../src/server/pool/ledger.js";
import { queueWaitMs, type PoolLimits } from "../../../../src/server/pool/limits.js";
import { fakeClock, type FakeClock } from "./fake-clock.js";
import { job, slowRequest, typicalRequest, until } from "./requests.js";

const catalog = loadCatalog();
/** A deadline no row reaches: a worker is stopped only by close(). */
const LONG = 60_000;

/** What the row's requests came to: each answer's status and text, and the pool's refusals. */
interface Outcome {
  answers: { status: number; text: string }[];
  refusals: string[];
  /** Each answer's log fields (the request's log line), when the row says them. */
  logs?: Record<string, unknown>[];
  /** Tenants' wall time in hand as the last answer came (whole ms: a hand-back costs a fraction of one), when the row says it. */
  wallInHand?: Record<string, number>;
}

interface Row {
  name: string;
  limits: PoolLimits;
  /** The ledger the pool starts with (default: empty). */
  ledger?: () => Ledger;
  /** Whether the workers are started before the row (default true). */
  started?: boolean;
  scene: (pool: Pool, clock: FakeClock, refused: (why: string) => void) => Promise<Answer[]>;
  want: Outcome;
  /** How the row reads the answers' texts (default: as they are). */
  texts?: (text: string) => string;
}

/** A row of the share refusal: a request of tenant-a, its ledger charged by `charge`, refused saying `why`. */
function shareRefusal(name: string, charge: (ledger: Ledger) => void, why: string): Row {
  return {
    name,
    limits: { workers: 2, heapMib: 64, deadlineMs: 2000 },
    ledger: () => {
      const ledger = createLedger(2000);
      charge(ledger);
      return ledger;
    },
    scene: async (pool, _clock, refused) => [
      await pool.run(job(typicalRequest("tenant-a", "fine")), { refused }),
    ],
    want: {
      answers: [
        {
          status: 503,
          text: `llsd-hook holds back the sync of tenant-a/fine for 24 s more: ${why}, and its requests wait until that time is made up at a quarter of a worker; Metacontroller retries`,
        },
      ],
      refusals: ["share"],
      // The 503's log line names the parent it was read for.
      logs: [{ parent: "tenant-a/fine" }],
    },
  };
}

/**
 * A row of a queue wait that expires: one worker busy on a slow sync, `waiter`
 * queued behind it until the clock passes its wait; its 503 says `text`, and
 * its log line names no parent (it was not read).
 */
function queueWaitExpires(name: string, waiter: Parameters<Pool["run"]>[0], text: string): Row {
  return {
    name,
    limits: { workers: 1, heapMib: 64, deadlineMs: LONG },
    scene: async (pool, clock, refused) => {
      void pool.run(job(slowRequest("tenant-a", "slow", name)));
      const waiting = pool.run(waiter, { refused });
      await until(() => pool.stats().busy === 1 && pool.stats().queued === 1);
      clock.advance(queueWaitMs(LONG));
      return [await waiting];
    },
    want: { answers: [{ status: 503, text }], refusals: ["queue"], logs: [{}] },
  };
}

/** Limits under which no real request reaches the CPU deadline: the rows of worker time move the clock. */
const TEN_S = { workers: 2, heapMib: 64, deadlineMs: 10_000 };

/**
 * A row of the kept worker: two busy tenants (each charged `charged` at 0 of
 * its 10 s) send a slow sync together; one holds a worker, the other's is
 * handed back (which is which depends on which is read first: the texts name
 * it tenant-a|b). The clock moves `advance` ms, then tenant-c's typical sync
 * comes: the other worker is kept for it.
 */
function keptWorker(
  name: string,
  charged: number,
  advance: number,
  waiter: Outcome["answers"][0],
): Row {
  return {
    name,
    limits: TEN_S,
    ledger: () => {
      const ledger = createLedger(TEN_S.deadlineMs);
      ledger.charge("tenant-a", { cpuMs: charged }, 0);
      ledger.charge("tenant-b", { cpuMs: charged }, 0);
      return ledger;
    },
    scene: async (pool, clock, refused) => {
      const busy = ["tenant-a", "tenant-b"].map((tenant) =>
        pool.run(job(slowRequest(tenant, "slow", name)), { refused }),
      );
      await until(() => pool.stats().busy === 1 && pool.stats().queued === 1);
      clock.advance(advance);
      const typical = await pool.run(job(typicalRequest("tenant-c", "fine")), { refused });
      const [first, second] = await Promise.all(busy);
      // The one that held the worker is answered 200; the other as `waiter` says.
      return [typical, ...(first?.status === 200 ? [first, second] : [second, first])].filter(
        (a) => a !== undefined,
      );
    },
    want: {
      answers: [{ status: 200, text: "" }, { status: 200, text: "" }, waiter],
      refusals: waiter.status === 200 ? [] : ["queue"],
    },
    texts: (text) => text.replaceAll(/tenant-[ab]\b/g, "tenant-a|b"),
  };
}

const rows: Row[] = [
  {
    name: "a tenant is charged the wall time its request held a worker, not its CPU time alone",
    limits: TEN_S,
    scene: async (pool, clock) => {
      const answer = pool.run(job(slowRequest("tenant-a", "slow", "wall")));
      await until(() => pool.stats().busy === 1);
      // Held 6 s of the clock; its CPU time is well under a second.
      clock.advance(6000);
      return [await answer];
    },
    want: { answers: [{ status: 200, text: "" }], refusals: [], wallInHand: { "tenant-a": 4000 } },
  },
  {
    name: "a request stopped at the wall limit: its tenant is charged the wall time it held the worker, past the deadline",
    limits: { workers: 2, heapMib: 64, deadlineMs: 2000 },
    scene: async (pool, clock, refused) => {
      // Two of one tenant: the second is handed back, so both were read (the first's tenant is known).
      const both = ["first", "second"].map((salt) =>
        pool.run(job(slowRequest("tenant-a", "slow", salt)), { refused }),
      );
      await until(() => pool.stats().busy === 1 && pool.stats().queued === 1);
      // The second's wait ends at 6 s; the first is stopped at the 8 s wall limit.
      clock.advance(8000);
      const answers = await Promise.all(both);
      return answers.sort(
        (x, y) => x.status - y.status || String(x.body).localeCompare(String(y.body)),
      );
    },
    want: {
      answers: [
        {
          status: 503,
          text: "llsd-hook had no free worker for the sync of tenant-a/slow within 6000 ms (HOOK_WORKERS: namespace tenant-a holds 1 of the 2 at most); Metacontroller retries",
        },
        {
          status: 503,
          text: "llsd-hook stopped the sync of tenant-a/slow after 8000 ms in all, on a node too busy to give it the 2000 ms of processing one request may take (WORKER_DEADLINE_MS), and replaced its worker. Metacontroller retries; if it keeps failing, the resource or its related objects take more than the hook allows: make them smaller (docs/operations/hook-server.md)",
        },
      ],
      refusals: ["queue"],
      // 2000 in hand, charged the 8000 it held the worker (not the 2000 of the deadline).
      wallInHand: { "tenant-a": -6000 },
    },
  },
  keptWorker(
    "two busy tenants: one holds a worker, the other's request waits, a tenant with time in hand gets the other worker; the wait's 503 says why",
    9000,
    10_000,
    {
      status: 503,
      text: "llsd-hook had no free worker for the sync of tenant-a|b/slow within 10000 ms (HOOK_WORKERS: namespace tenant-a|b took more than half its worker time lately, and such namespaces hold 1 of the 2 at most together, the rest kept for the others); Metacontroller retries",
    },
  ),
  keptWorker(
    "a busy tenant waiting for the kept worker gets it once half its time is back",
    6000,
    4100,
    { status: 200, text: "" },
  ),
  queueWaitExpires(
    "a queue wait that expires, every worker busy: a 503 naming the wait and the workers",
    job(typicalRequest("tenant-b", "fine")),
    "llsd-hook had no free worker for a /sync request (its parent not read yet) within 60000 ms (HOOK_WORKERS: all 1 busy); Metacontroller retries",
  ),
  {
    name: "a queue wait that expires, its tenant holding all workers but one: a 503 naming the tenant and its share",
    limits: { workers: 2, heapMib: 64, deadlineMs: LONG },
    scene: async (pool, clock, refused) => {
      // Two requests of one parent with different bytes: one runs, the other is handed back.
      const both = ["first", "second"].map((salt) =>
        pool.run(job(slowRequest("tenant-a", "slow", salt)), { refused }),
      );
      await until(() => pool.stats().busy === 1 && pool.stats().queued === 1);
      clock.advance(queueWaitMs(LONG));
      const first = await Promise.race(both);
      return [first];
    },
    want: {
      answers: [
        {
          status: 503,
          text: "llsd-hook had no free worker for the sync of tenant-a/slow within 60000 ms (HOOK_WORKERS: namespace tenant-a holds 1 of the 2 at most); Metacontroller retries",
        },
      ],
      refusals: ["queue"],
    },
  },
  queueWaitExpires(
    "a /convert request's queue wait that expires behind another tenant's sync: the 503 says no worker was free and the API server does not retry",
    {
      ...job({
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "ConversionReview",
        request: { uid: "u", desiredAPIVersion: "llamastack.io/v1alpha2", objects: [] },
      }),
      route: "convert",
      key: "convert\0waits",
    },
    "llsd-hook had no free worker for a /convert request within 60000 ms (HOOK_WORKERS: all 1 busy); the API server does not retry: the read or write that needed the conversion fails, and its client retries it",
  ),
  {
    name: "a queue wait does not expire while the workers first start: the request is answered",
    limits: { workers: 1, heapMib: 64, deadlineMs: 2000 },
    started: false,
    scene: async (pool, clock, refused) => {
      const answer = pool.run(job(typicalRequest("tenant-b", "fine")), { refused });
      // Before any worker can be ready (and within the minute they may take to): its wait starts again.
      clock.advance(queueWaitMs(2000));
      return [await answer];
    },
    want: { answers: [{ status: 200, text: "" }], refusals: [] },
  },
  {
    name: "close with queued requests: each, queued or running, and each after, is a 503 saying to retry",
    limits: { workers: 1, heapMib: 64, deadlineMs: LONG },
    scene: async (pool) => {
      const running = pool.run(job(slowRequest("tenant-a", "slow", "close")));
      const queued = ["one", "two"].map((name) => pool.run(job(typicalRequest("tenant-b", name))));
      await until(() => pool.stats().busy === 1 && pool.stats().queued === 2);
      await pool.close();
      const after = await pool.run(job(typicalRequest("tenant-b", "three")));
      return [await running, ...(await Promise.all(queued)), after];
    },
    want: {
      answers: Array.from({ length: 4 }, () => ({
        status: 503,
        text: "llsd-hook is shutting down; retry",
      })),
      refusals: [],
    },
  },
  shareRefusal(
    "the share refusal: a tenant out of time while another is active, its time back after its wait would end, is refused at once",
    (ledger) => {
      ledger.started("tenant-b", 0);
      // 6000 ms short: back in hand after 24 s at a quarter of a worker; a request waits 6 s at most.
      ledger.charge("tenant-a", { cpuMs: 8000 }, 0);
    },
    "the requests of namespace tenant-a took more worker time lately than its share beside the other namespaces",
  ),
  shareRefusal(
    "the share refusal after a request was stopped at a limit: alone too, saying so",
    (ledger) => void ledger.charge("tenant-a", { cpuMs: 8000, stopped: true }, 0),
    "a request of namespace tenant-a was stopped at a worker's limits lately (WORKER_DEADLINE_MS, WORKER_HEAP_MIB)",
  ),
];

/** An answer as the row compares it: its status, and its error's text (none for a 200). */
function outcomeOf(answer: Answer): { status: number; text: string } {
  const body = JSON.parse(Buffer.from(answer.body).toString()) as {
    error?: string;
    response?: { result: { message?: string } };
  };
  if (answer.status === 503) expect(answer.retryAfter, "a 503 says when to retry").to.equal(1);
  // /convert's errors are Failure ConversionReviews.
  return { status: answer.status, text: body.error ?? body.response?.result.message ?? "" };
}

/**
 * The seconds a tenant waits, in a refusal: its time was charged the CPU the
 * hand-back took too (0 to a few ticks of 10 ms), so 24 or 25 s.
 */
const chargedSeconds = (text: string) => text.replace(/for 25 s more/, "for 24 s more");

describe("the pool's shell, on a clock the test moves", function () {
  this.timeout(120_000);
  for (const row of rows)
    it(row.name, async () => {
      const clock = fakeClock();
      const options = {
        catalog,
        limits: row.limits,
        cacheBytes: generationCacheBytes(CACHE_BYTES),
      };
      const ledger = row.ledger?.() ?? createLedger(row.limits.deadlineMs);
      const pool = createPool(options, clock, ledger);
      const refusals: string[] = [];
      try {
        if (row.started !== false) await pool.ready();
        const answers = await row.scene(pool, clock, (why) => refusals.push(why));
        const read = row.texts ?? ((text: string) => text);
        const got = answers
          .map(outcomeOf)
          .map((a) => ({ ...a, text: read(chargedSeconds(a.text)) }));
        const logs = row.want.logs === undefined ? {} : { logs: answers.map((a) => a.log) };
        const wallInHand =
          row.want.wallInHand === undefined
            ? {}
            : {
                wallInHand: Object.fromEntries(
                  Object.keys(row.want.wallInHand).map((t) => [
                    t,
                    Math.round(ledger.wallInHand(t, clock.now())),
                  ]),
                ),
              };
        expect({ answers: got, refusals, ...logs, ...wallInHand }).to.deep.equal(row.want);
      } finally {
        await pool.close();
      }
    });
});

describe("the pool's wakes for a tenant's waits", function () {
  this.timeout(60_000);
  it("a tenant kept waiting by each of its charges holds one wake per wait, the last charge's, not one per request", async () => {
    const clock = fakeClock();
    const limits = { workers: 2, heapMib: 64, deadlineMs: 2000 };
    const ledger = createLedger(limits.deadlineMs);
    // Out of time and busy before the first request: each charge keeps it waiting, in two ways.
    ledger.charge("tenant-a", { cpuMs: 8000 }, 0);
    const pool = createPool(
      { catalog, limits, cacheBytes: generationCacheBytes(CACHE_BYTES) },
      clock,
      ledger,
    );
    try {
      await pool.ready();
      const statuses: number[] = [];
      // Alone, it is not refused: each request runs, and each charge returns both waits.
      for (const salt of ["1", "2", "3", "4", "5"])
        statuses.push((await pool.run(job(typicalRequest("tenant-a", `p${salt}`)))).status);
      expect(ledger.charge("tenant-a", { cpuMs: 0 }, clock.now())).to.have.length(2);
      expect({ statuses, timers: clock.pending() }).to.deep.equal({
        statuses: [200, 200, 200, 200, 200],
        // The two wakes of the last charge, and the watch on the deadlines armed by the last request.
        timers: 3,
      });
    } finally {
      await pool.close();
    }
  });
});
