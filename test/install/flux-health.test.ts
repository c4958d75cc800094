// Flux's health of a LlamaStackDistribution, computed by kstatus as Flux's
// kustomize-controller computes it (github.com/fluxcd/cli-utils, through
// test/flux/flux-kstatus), for every golden case's status as Metacontroller
// stores it, once as stored and once under a newer spec, and for what may be
// stored before and beside the hook's answers: one table, each row's phase
// and conditions giving the status docs/operations/gitops.md says. Ready →
// Current, Reconciling → InProgress, Stalled → Failed, a newer spec →
// InProgress; and a resource without any status yet is Current (kstatus' own
// rule, which the page states).
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { requestOf } from "../../src/cli/render.js";
import { sync } from "../../src/sync.js";
import { syncContext } from "../support/harness.js";
import { fluxKstatus, root } from "../support/tools.js";
import {
  parentOf,
  storedGoldenParents,
  type StoredParent,
  type StoredStatus,
} from "./stored-statuses.js";

type Kstatus = "Current" | "InProgress" | "Failed";

interface Row {
  name: string;
  obj: StoredParent;
  want: Kstatus;
}

const isTrue = (status: StoredStatus | undefined, type: string) =>
  status?.conditions?.some((c) => c.type === type && c.status === "True") === true;

/** What Flux must say, from the generation, the phase and the three conditions alone. */
function expected(status: StoredStatus | undefined, generation: number): Kstatus {
  if (status?.observedGeneration !== undefined && status.observedGeneration !== generation)
    return "InProgress";
  if (isTrue(status, "Reconciling")) return "InProgress";
  if (isTrue(status, "Stalled")) return "Failed";
  const ready = status?.conditions?.find((c) => c.type === "Ready");
  if (ready === undefined) return "Current";
  return ready.status === "True" ? "Current" : "InProgress";
}

const condition = (type: string, status: string) => ({
  type,
  status,
  reason: type,
  message: `${type} is ${status}.`,
});

/**
 * The status the hook writes for examples/minimal.yaml on its second sync when
 * Metacontroller's cache shows no Deployment yet: phase Pending, which no golden case stores.
 */
function pendingStatus(): StoredStatus {
  const { request } = requestOf(
    readFileSync(join(root, "examples", "minimal.yaml"), "utf8"),
    "minimal.yaml",
  );
  const now = "2026-11-01T12:00:00Z";
  const first = sync(request, now, syncContext());
  if (first.kind !== "ok") throw new Error(first.message);
  const parent = { ...request.parent, status: first.response.status };
  const second = sync({ ...request, parent }, now, syncContext());
  if (second.kind !== "ok") throw new Error(second.message);
  const status = second.response.status as StoredStatus;
  expect(status.phase, "the second sync's phase").to.equal("Pending");
  return { ...status, observedGeneration: 1 };
}

// What Metacontroller may store before and beside the hook's answers.
const edgeRows = (): Row[] => [
  {
    name: "Pending: a second sync before the Deployment is seen",
    obj: parentOf("a", 1, pendingStatus()),
    want: "InProgress",
  },
  { name: "no status (not synced yet)", obj: parentOf("a", 1, undefined), want: "Current" },
  {
    name: "a status without conditions",
    obj: parentOf("a", 1, { observedGeneration: 1 }),
    want: "Current",
  },
  {
    name: "Ready at generation 3 of 4",
    obj: parentOf("a", 4, {
      phase: "Ready",
      observedGeneration: 3,
      conditions: [condition("Ready", "True")],
    }),
    want: "InProgress",
  },
  {
    name: "Stalled at generation 1 of 2",
    obj: parentOf("a", 2, {
      phase: "Failed",
      observedGeneration: 1,
      conditions: [condition("Ready", "False"), condition("Stalled", "True")],
    }),
    want: "InProgress",
  },
  {
    name: "Ready Unknown",
    obj: parentOf("a", 1, {
      phase: "Initializing",
      observedGeneration: 1,
      conditions: [condition("Ready", "Unknown")],
    }),
    want: "InProgress",
  },
];

function goldenRows(): Row[] {
  return storedGoldenParents().map((r) => ({
    name: r.name,
    obj: r.obj,
    want: expected(r.obj.status, r.generation),
  }));
}

function kstatus(objects: StoredParent[]): { status?: string; message?: string; error?: string }[] {
  const out = execFileSync(fluxKstatus(), [], {
    input: JSON.stringify(objects),
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out) as { status?: string; message?: string; error?: string }[];
}

describe("Flux health (kstatus, as kustomize-controller computes it) of every status the hook writes", function () {
  this.timeout(60_000);

  it("one table: each golden case's stored status, then under a newer spec, and the edge rows, get the status the page says", () => {
    const rows = [...goldenRows(), ...edgeRows()];
    const got = kstatus(rows.map((r) => r.obj));
    const wrong = rows.flatMap((row, i) =>
      got[i]?.status === row.want && got[i]?.error === undefined
        ? []
        : [`${row.name}: want ${row.want}, got ${JSON.stringify(got[i])}`],
    );
    expect(wrong).to.deep.equal([]);
    // Every phase the hook writes is in the table, and gives each status it can.
    const seen = new Map<string, Set<string>>();
    rows.forEach((row, i) => {
      const key = `${row.obj.status?.phase ?? "(none)"}`;
      seen.set(key, new Set([...(seen.get(key) ?? []), got[i]?.status ?? ""]));
    });
    const table = Object.fromEntries([...seen].map(([k, v]) => [k, [...v].sort()]));
    console.log(`    phase → kstatus: ${JSON.stringify(table)}`);
    expect(table).to.deep.include({
      Ready: ["Current", "InProgress"],
      Failed: ["Failed", "InProgress"],
    });
    expect(table["Pending"]).to.deep.equal(["InProgress"]);
    expect(table["Initializing"]).to.deep.equal(["InProgress"]);
  });

  it("says why when Failed: the Stalled condition's message", () => {
    const rows = goldenRows().filter((r) => !r.name.includes("spec edited"));
    const got = kstatus(rows.map((r) => r.obj));
    let failed = 0;
    rows.forEach((row, i) => {
      if (got[i]?.status !== "Failed") return;
      const stalled = row.obj.status?.conditions?.find((c) => c.type === "Stalled");
      expect(got[i]?.message, row.name).to.equal(stalled?.message);
      failed += 1;
    });
    expect(failed, "golden cases that are Failed").to.be.greaterThan(10);
  });
});
