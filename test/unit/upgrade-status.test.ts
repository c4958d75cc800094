// No surprise on upgrade: a status the hook wrote before warnings became
// conditions (test/data/status-before-warning-conditions.yaml, real answers of
// commit 13e2989 for golden cases with warnings, failures and Ready), fed back
// to this hook, is rewritten in one sync into exactly today's status (what it
// writes once a status of its own is there, times aside): every
// condition whose status holds keeps its lastTransitionTime, only the new
// warning conditions start at the sync, and a second sync changes nothing.
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import type { Condition, Status } from "../../src/api/status.js";
import { isWarningReason } from "../../src/reasons.js";
import { sync } from "../../src/sync.js";
import { buildRequest, loadCases, runCase, syncContext } from "../support/harness.js";

const BEFORE = "2026-10-01T08:00:00Z";
const UPGRADED = "2026-11-02T08:00:00Z";
const LATER = "2026-11-03T09:30:00Z";

const previous = parse(
  readFileSync(
    join(import.meta.dirname, "..", "data", "status-before-warning-conditions.yaml"),
    "utf8",
  ),
) as Record<string, Status>;

/**
 * The status with every lastTransitionTime set to `at`, and without generatedAt (a time too:
 * a status kept while the spec fails keeps whatever its writer put there, present or not).
 */
function at(status: Status, time: string): Status {
  const generation =
    status.configGeneration === undefined
      ? {}
      : { configGeneration: { ...status.configGeneration, generatedAt: undefined } };
  return {
    ...status,
    conditions: status.conditions?.map((c) => ({ ...c, lastTransitionTime: time })),
    ...generation,
  };
}

const byType = (s: Status) => new Map((s.conditions ?? []).map((c) => [c.type, c]));

describe("upgrading: a status written before warnings were conditions", () => {
  const cases = new Map(loadCases().map((c) => [c.name, c]));
  it("covers warnings in ConfigGenerated and DeploymentUpdated, failures, and Ready", () => {
    const text = JSON.stringify(previous);
    expect(text).to.include("\\nWarnings:\\n");
    const stalled = Object.values(previous).filter((s) => byType(s).has("Stalled"));
    const ready = Object.values(previous).filter((s) => s.phase === "Ready");
    expect(stalled.length).to.be.at.least(2);
    expect(ready.length).to.be.at.least(1);
  });

  for (const [name, old] of Object.entries(previous)) {
    it(`${name}: one sync gives today's status, and the next changes nothing`, () => {
      const c = cases.get(name);
      if (c === undefined) throw new Error(`no golden case ${name}`);
      const request = buildRequest(c.file, "v2");
      const stored = at(old, BEFORE);
      const first = sync(
        { ...request, parent: { ...request.parent, status: stored } },
        UPGRADED,
        syncContext(),
      );
      if (first.kind !== "ok") throw new Error(first.message);
      const upgraded = first.response.status;
      // The same conditions and values as a hook of today writes on that request once it has
      // written a status of its own (its first status for a new parent differs: ADR 16), times aside.
      const own = runCase(c.file, "v2");
      if (own.kind !== "ok") throw new Error(own.message);
      const today = sync(
        { ...request, parent: { ...request.parent, status: own.response.status } },
        UPGRADED,
        syncContext(),
      );
      if (today.kind !== "ok") throw new Error(today.message);
      expect(at(upgraded, "")).to.deep.equal(at(today.response.status, ""));
      // A condition whose status holds keeps its time; a new one (a warning) starts now.
      const before = byType(stored);
      for (const cond of upgraded.conditions ?? []) {
        const prior: Condition | undefined = before.get(cond.type);
        const want = prior?.status === cond.status ? BEFORE : UPGRADED;
        expect(cond.lastTransitionTime, cond.type).to.equal(want);
        if (prior === undefined) expect(isWarningReason(cond.type), cond.type).to.equal(true);
      }
      // The fixed point: fed back, the answer is the same at any later time.
      const second = sync(
        { ...request, parent: { ...request.parent, status: upgraded } },
        LATER,
        syncContext(),
      );
      if (second.kind !== "ok") throw new Error(second.message);
      expect(JSON.stringify(second.response)).to.equal(JSON.stringify(first.response));
    });
  }
});
