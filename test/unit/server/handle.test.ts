// syncResponseText: the bytes JSON.stringify writes for a sync response,
// written by parts. Every golden case's response, then shapes sync never makes.
import { expect } from "chai";
import type { SyncResponse } from "../../../src/api/hook.js";
import { syncResponseText } from "../../../src/server/handle.js";
import { loadCases, runCase } from "../../support/harness.js";

describe("syncResponseText", () => {
  it("the same bytes as JSON.stringify for every golden case's response", () => {
    let compared = 0;
    for (const { name, file } of loadCases()) {
      const outcome = runCase(file, "v2");
      if (outcome.kind !== "ok") continue;
      expect(syncResponseText(outcome.response), name).to.equal(JSON.stringify(outcome.response));
      compared++;
    }
    expect(compared).to.be.above(20);
  });

  const status = { phase: "Ready", note: "<é\u2028\ud800>" };
  const holey: unknown[] = [undefined];
  holey[2] = { a: 1 };
  const rows: [why: string, response: unknown][] = [
    ["no children", { status, children: [] }],
    ["an item JSON leaves out, and a hole: null", { status, children: holey }],
    ["the members in the other order", { children: [{ a: 1 }], status }],
    ["a third member", { status, children: [], resyncAfterSeconds: 5 }],
    ["no status", { status: undefined, children: [{ a: 1 }] }],
    ["a child with toJSON", { status, children: [{ toJSON: () => "x" }] }],
    ["children with toJSON", { status, children: Object.assign([1], { toJSON: () => "x" }) }],
  ];
  for (const [why, response] of rows)
    it(why, () =>
      expect(syncResponseText(response as SyncResponse)).to.equal(JSON.stringify(response)),
    );
});
