// The pool's shell (src/server/pool/index.ts) on a clock the test moves, with
// real workers running the real sync, one row per rule the shell carries out:
// a queue wait that expires (for all workers busy, for a tenant holding its
// share, and not while the workers first start), the share refusal, and close
// with queued requests. A request holding a worker is the slowest sync found
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

const rows: Row[] = [
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
      ledger.charge("tenant-a", 8000, 0);
    },
    "the requests of namespace tenant-a took more worker time lately than its share beside the other namespaces",
  ),
  shareRefusal(
    "the share refusal after a request was stopped at a limit: alone too, saying so",
    (ledger) => void ledger.charge("tenant-a", 8000, 0, true),
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
      const pool = createPool(options, clock, row.ledger?.());
      const refusals: string[] = [];
      try {
        if (row.started !== false) await pool.ready();
        const answers = await row.scene(pool, clock, (why) => refusals.push(why));
        const got = answers.map(outcomeOf).map((a) => ({ ...a, text: chargedSeconds(a.text) }));
        const logs = row.want.logs === undefined ? {} : { logs: answers.map((a) => a.log) };
        expect({ answers: got, refusals, ...logs }).to.deep.equal(row.want);
      } finally {
        await pool.close();
      }
    });
});
