// The waits and shares the pool derives from its limits (src/server/pool/limits.ts).
import { expect } from "chai";
import {
  busyWorkers,
  checkEveryMs,
  queueWaitMs,
  tenantWorkers,
  wallLimitMs,
} from "../../../../src/server/pool/limits.js";

describe("the pool's limits", () => {
  const rows: { deadlineMs: number; wall: number; wait: number; check: number }[] = [
    // The default: 8 s in all (Metacontroller's 10 s less 2), a request waits 6 s for a worker.
    { deadlineMs: 2000, wall: 8000, wait: 6000, check: 100 },
    // A small deadline is not hit by a busy node: 8 s in all still.
    { deadlineMs: 10, wall: 8000, wait: 7990, check: 5 },
    { deadlineMs: 500, wall: 8000, wait: 7500, check: 50 },
    // A large one: four times it in all, and a wait of the deadline at least.
    { deadlineMs: 5000, wall: 20_000, wait: 5000, check: 100 },
  ];
  for (const { deadlineMs, wall, wait, check } of rows)
    it(`a deadline of ${deadlineMs} ms: ${wall} ms in all, ${wait} ms of waiting, checked every ${check} ms`, () => {
      expect(wallLimitMs(deadlineMs)).to.equal(wall);
      expect(queueWaitMs(deadlineMs)).to.equal(wait);
      expect(checkEveryMs(deadlineMs)).to.equal(check);
    });

  it("one tenant holds all workers but one, and the one there is when there is one", () => {
    expect([1, 2, 3, 8].map(tenantWorkers)).to.deep.equal([1, 1, 2, 7]);
  });

  it("busy tenants hold as many together as one tenant may: one worker kept from them when there are two or more", () => {
    expect([1, 2, 3, 8].map(busyWorkers)).to.deep.equal([1, 1, 2, 7]);
  });
});
