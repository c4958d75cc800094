// The tenant ledger (src/server/pool/ledger.ts), one row per rule. Time is a
// number passed in: no clock is read, and no assertion is on a duration.
// With a deadline of 2000 ms a tenant has at most 2000 ms in hand, refilled
// at a quarter of a worker: 1 ms back for every 4 ms that pass; below 1000 ms
// of wall time in hand it is busy. The rows charge as much wall time as CPU
// unless they say; what a request is charged is the shell's.
import { expect } from "chai";
import fc from "fast-check";
import { createLedger, type Ledger } from "../../../../src/server/pool/ledger.js";
import { LEDGER_TENANTS } from "../../../../src/server/pool/limits.js";

const DEADLINE = 2000;

/** What happens to the ledger before the row looks: charges and starts, each at a time. */
type Event =
  { at: number; charge: string; ms: number; stopped?: boolean } | { at: number; started: string };

function replay(events: readonly Event[]): Ledger {
  const ledger = createLedger(DEADLINE);
  for (const e of events)
    if ("charge" in e) ledger.charge(e.charge, { cpuMs: e.ms, stopped: e.stopped ?? false }, e.at);
    else ledger.started(e.started, e.at);
  return ledger;
}

const rows: {
  name: string;
  events: Event[];
  /** When the row looks at tenant "a". */
  at: number;
  inHand: number;
  waitsUntil: number;
  stopped?: boolean;
  /** Whether it is busy (default: when less than 1000 ms is in hand). */
  busy?: boolean;
}[] = [
  {
    name: "a tenant not charged lately has all its time in hand",
    events: [],
    at: 0,
    inHand: 2000,
    waitsUntil: 0,
  },
  {
    name: "charged within its time: it need not wait",
    events: [{ at: 0, charge: "a", ms: 500 }],
    at: 0,
    inHand: 1500,
    waitsUntil: 0,
  },
  {
    name: "its time comes back at a quarter of a worker",
    events: [{ at: 0, charge: "a", ms: 1000 }],
    at: 2000,
    inHand: 1500,
    waitsUntil: 0,
  },
  {
    name: "never more than one deadline in hand",
    events: [{ at: 0, charge: "a", ms: 100 }],
    at: 60_000,
    inHand: 2000,
    waitsUntil: 0,
  },
  {
    name: "out of time, alone: it is not slowed",
    events: [{ at: 0, charge: "a", ms: 3000 }],
    at: 1000,
    inHand: -750,
    waitsUntil: 0,
  },
  {
    name: "out of time, its own requests the only ones started: it is not slowed",
    events: [
      { at: 0, started: "a" },
      { at: 0, charge: "a", ms: 3000 },
    ],
    at: 1000,
    inHand: -750,
    waitsUntil: 0,
  },
  {
    name: "out of time while another tenant started a request within 2 s: it waits until its time is back",
    events: [
      { at: 0, started: "b" },
      { at: 0, charge: "a", ms: 3000 },
    ],
    at: 1000,
    inHand: -750,
    waitsUntil: 4000,
  },
  {
    name: "out of time, another tenant's last start more than 2 s ago: it is not slowed",
    events: [
      { at: 0, started: "b" },
      { at: 2500, charge: "a", ms: 3000 },
    ],
    at: 2500,
    inHand: -1000,
    waitsUntil: 0,
  },
  {
    name: "its own later starts do not push the other tenant out of the last two to start",
    events: [
      { at: 0, started: "b" },
      { at: 10, started: "a" },
      { at: 20, started: "a" },
      { at: 20, charge: "a", ms: 3000 },
    ],
    at: 20,
    inHand: -1000,
    waitsUntil: 4020,
  },
  {
    name: "stopped at a limit (charged the deadline and its replacement's start): it waits, alone too",
    events: [
      { at: 0, charge: "a", ms: 2000, stopped: true },
      { at: 0, charge: "a", ms: 400, stopped: true },
    ],
    at: 0,
    inHand: -400,
    waitsUntil: 1600,
    stopped: true,
  },
  {
    name: "stopped, then its time back in hand: it goes as any tenant",
    events: [
      { at: 0, charge: "a", ms: 2400, stopped: true },
      { at: 2000, charge: "a", ms: 10 },
    ],
    at: 2000,
    inHand: 90,
    waitsUntil: 0,
    stopped: false,
  },
  {
    name: "half its time in hand: not busy yet",
    events: [{ at: 0, charge: "a", ms: 1000 }],
    at: 0,
    inHand: 1000,
    waitsUntil: 0,
    busy: false,
  },
  {
    name: "less than half its time in hand: busy, with time in hand still (it need not wait)",
    events: [{ at: 0, charge: "a", ms: 1001 }],
    at: 0,
    inHand: 999,
    waitsUntil: 0,
    busy: true,
  },
  {
    name: "busy until half its time is back at a quarter of a worker",
    events: [{ at: 0, charge: "a", ms: 1800 }],
    at: 3200,
    inHand: 1000,
    waitsUntil: 0,
    busy: false,
  },
  {
    name: "another tenant's charges are its own",
    events: [{ at: 0, charge: "b", ms: 5000, stopped: true }],
    at: 0,
    inHand: 2000,
    waitsUntil: 0,
    stopped: false,
  },
];

describe("the pool's tenant ledger", () => {
  for (const row of rows)
    it(row.name, () => {
      const ledger = replay(row.events);
      expect(ledger.timeInHand("a", row.at)).to.equal(row.inHand);
      expect(ledger.waitsUntil("a", row.at)).to.equal(row.waitsUntil);
      if (row.stopped !== undefined) expect(ledger.stopped("a")).to.equal(row.stopped);
      expect(ledger.busy("a", row.at)).to.equal(row.busy ?? row.inHand < 1000);
    });

  it("CPU and wall time are counted apart: the wall time says busy, the CPU time when it waits", () => {
    const ledger = createLedger(DEADLINE);
    // 200 ms of CPU in 2500 ms held: busy with CPU time in hand.
    ledger.started("b", 0);
    expect(ledger.charge("a", { cpuMs: 200, wallMs: 2500 }, 0)).to.deep.equal([6001]);
    expect([ledger.timeInHand("a", 0), ledger.wallInHand("a", 0)]).to.deep.equal([1800, -500]);
    expect(ledger.busy("a", 0)).to.equal(true);
    expect(ledger.waitsUntil("a", 0)).to.equal(0);
    expect([...ledger.spent()]).to.deep.equal(["a"]);
  });

  it("a tenant with its time in hand is busy while its running requests have held workers half of it", () => {
    const ledger = createLedger(DEADLINE);
    expect(ledger.busy("a", 0, 1000)).to.equal(false);
    expect(ledger.busy("a", 0, 1001)).to.equal(true);
  });

  describe("what a charge says: when it stops keeping the tenant waiting, and whether it counts the tenant spent", () => {
    const charges: {
      name: string;
      /** Charges of "a" at 0, the last one looked at. */
      ms: number[];
      /** In how many ms its time is back, then it is no longer busy. */
      changes: number[];
      spent: boolean;
    }[] = [
      { name: "time left over half: nothing to wait for", ms: [500], changes: [], spent: false },
      {
        // 1500 in hand, charged 1000: 500, busy; 1000 back after 2000 ms (and 1 ms more).
        name: "busy, with time in hand: when it is no longer busy",
        ms: [500, 1000],
        changes: [2001],
        spent: true,
      },
      {
        // 1500 in hand, charged 2500: 1000 short, back after 4000 ms, half back after 8000 ms.
        name: "out of time: when its time is back, then when it is no longer busy",
        ms: [500, 2500],
        changes: [4001, 8001],
        spent: true,
      },
    ];
    for (const row of charges)
      it(row.name, () => {
        const ledger = createLedger(DEADLINE);
        const said = row.ms.map((ms) => ledger.charge("a", { cpuMs: ms }, 0));
        expect(said.at(-1)).to.deep.equal(row.changes);
        expect([...ledger.spent()]).to.deep.equal(row.spent ? ["a"] : []);
        expect(ledger.full).to.equal(2000);
      });

    it("a charge that leaves it over half its time: no longer spent", () => {
      const ledger = createLedger(DEADLINE);
      ledger.charge("a", { cpuMs: 2500 }, 0);
      expect(ledger.charge("a", { cpuMs: 1 }, 12_000)).to.deep.equal([]);
      expect([...ledger.spent()]).to.deep.equal([]);
    });
  });

  it("each charge's waits end just past what they wait for, from the tenant's state at that charge alone (seeded): so the shell replaces a tenant's earlier wakes with them", () => {
    const charge = fc.record({
      after: fc.double({ min: 0, max: 5000, noNaN: true }),
      ms: fc.double({ min: 0, max: 3000, noNaN: true }),
      wallExtra: fc.double({ min: 0, max: 3000, noNaN: true }),
      stopped: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(charge, { minLength: 1, maxLength: 12 }), (charges) => {
        const ledger = createLedger(DEADLINE);
        let now = 0;
        for (const c of charges) {
          now += c.after;
          const taken = { cpuMs: c.ms, wallMs: c.ms + c.wallExtra, stopped: c.stopped };
          const waits = ledger.charge("a", taken, now);
          const out = ledger.timeInHand("a", now) <= 0;
          const busy = ledger.busy("a", now);
          expect(waits).to.have.length((out ? 1 : 0) + (busy ? 1 : 0));
          // Past the moment by 1 ms at least, by 2 ms at most (rounded up to whole ms).
          if (out) {
            const back = now + (waits[0] ?? NaN);
            expect(ledger.timeInHand("a", back)).to.be.above(0);
            expect(ledger.timeInHand("a", back - 2)).to.be.at.most(0);
          }
          if (busy) {
            const free = now + (waits.at(-1) ?? NaN);
            expect(ledger.busy("a", free)).to.equal(false);
            expect(ledger.busy("a", free - 2)).to.equal(true);
          }
        }
      }),
      { numRuns: 500, seed: 20261128 },
    );
  });

  it(`remembers the ${LEDGER_TENANTS} tenants charged last: the one charged longest ago is forgotten`, () => {
    const ledger = createLedger(DEADLINE);
    ledger.started("other", 0);
    ledger.charge("first", { cpuMs: 5000 }, 0);
    ledger.charge("second", { cpuMs: 5000 }, 0);
    for (let i = 0; i < LEDGER_TENANTS - 1; i++) ledger.charge(`t${i}`, { cpuMs: 1 }, 0);
    expect(ledger.timeInHand("first", 0)).to.equal(2000);
    expect(ledger.timeInHand("second", 0)).to.equal(-3000);
    expect([...ledger.spent()]).to.deep.equal(["second"]);
  });
});
