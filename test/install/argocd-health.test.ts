// The Argo CD health check of docs/operations/argocd.md, run by the Lua that Argo CD embeds
// (gopher-lua, through test/argocd/argocd-health, which runs it as Argo CD
// v3.5 does) against every golden case's status as Metacontroller stores it:
// the hook's status plus the top-level observedGeneration, on a parent with
// metadata.generation (test/k8s/children.test.ts shows the API server keeps
// such a status unpruned). Healthy only when the server runs the current spec,
// Degraded when it is stuck (phase Failed, Stalled), Progressing otherwise,
// and never Healthy on a status older than the spec.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { GROUP, KIND } from "../../src/api/schema.js";
import { isWarningReason } from "../../src/reasons.js";
import {
  parentOf,
  storedGoldenParents,
  type StoredCondition,
  type StoredParent,
  type StoredStatus,
} from "./stored-statuses.js";
import { argocdHealth, codeBlocks, docSection } from "../support/tools.js";

interface Health {
  status?: string;
  message?: string;
  error?: string;
}
interface Row {
  name: string;
  obj: StoredParent;
  want: Health;
}

const ARGOCD_KEY = `resource.customizations.health.${GROUP}_${KIND}`;
const WAITING = "Waiting for the Llama Stack server";

/** The data of the argocd-cm snippet in docs/operations/argocd.md. */
function readmeArgocdCm(): Record<string, string> {
  const [block] = codeBlocks(
    docSection("docs/operations/argocd.md", "# Argo CD health check"),
    "yaml",
  );
  const cm = parse(block ?? "") as { data?: Record<string, string> } | null;
  return cm?.data ?? {};
}

/** Its Lua. */
function readmeLua(): string {
  const lua = readmeArgocdCm()[ARGOCD_KEY];
  if (lua === undefined)
    throw new Error(`docs/operations/argocd.md: no data key ${ARGOCD_KEY} in its yaml block`);
  return lua;
}

const cond = (status: StoredStatus | undefined, type: string) =>
  status?.conditions?.find((c) => c.type === type);

/** What the check must say, from the phase and conditions alone. */
function expected(status: StoredStatus | undefined, generation: number): Health {
  const ready = cond(status, "Ready");
  const stalled = cond(status, "Stalled");
  if (status?.conditions === undefined) return { status: "Progressing", message: WAITING };
  if ((status.observedGeneration ?? generation) < generation)
    return { status: "Progressing", message: WAITING };
  if (status.phase === "Failed" || stalled?.status === "True")
    return { status: "Degraded", message: stalled?.message ?? ready?.message ?? "" };
  if (status.phase === "Ready") {
    expect(ready?.status, "phase Ready with the Ready condition True").to.equal("True");
    return { status: "Healthy", message: ready?.message ?? "" };
  }
  expect(ready?.status, `phase ${status.phase} with Ready True`).to.not.equal("True");
  return { status: "Progressing", message: ready?.message ?? WAITING };
}

/** Every golden case as Metacontroller stores its parent after the sync, and once more with a newer spec. */
function goldenRows(): Row[] {
  return storedGoldenParents().map((r) => ({
    name: r.name,
    obj: r.obj,
    want: r.edited
      ? { status: "Progressing", message: WAITING }
      : expected(r.obj.status, r.generation),
  }));
}

const ready: StoredCondition = {
  type: "Ready",
  status: "True",
  message: "The server is running the current spec.",
};
const stalled: StoredCondition = {
  type: "Stalled",
  status: "True",
  message: "spec.x: wrong; fix it",
};

// Hand-written rows: what Metacontroller may store before, between and beside the hook's answers.
const edgeRows: Row[] = [
  // A parent Metacontroller has not synced yet.
  {
    name: "no status",
    obj: parentOf("a", 1, undefined),
    want: { status: "Progressing", message: WAITING },
  },
  // Only the top-level observedGeneration (a status the hook never answered).
  {
    name: "status without conditions",
    obj: parentOf("a", 1, { observedGeneration: 1 }),
    want: { status: "Progressing", message: WAITING },
  },
  {
    name: "empty conditions",
    obj: parentOf("a", 1, { observedGeneration: 1, conditions: [] }),
    want: { status: "Progressing", message: WAITING },
  },
  // Ready, but for an older spec.
  {
    name: "Ready at generation 3 of 4",
    obj: parentOf("a", 4, { phase: "Ready", observedGeneration: 3, conditions: [ready] }),
    want: { status: "Progressing", message: WAITING },
  },
  // Stuck, but for an older spec: the new spec may have fixed it.
  {
    name: "Stalled at generation 1 of 2",
    obj: parentOf("a", 2, { phase: "Failed", observedGeneration: 1, conditions: [stalled] }),
    want: { status: "Progressing", message: WAITING },
  },
  // Stalled wins over a Ready that claims True.
  {
    name: "Stalled beside Ready",
    obj: parentOf("a", 1, { phase: "Failed", observedGeneration: 1, conditions: [ready, stalled] }),
    want: { status: "Degraded", message: stalled.message ?? "" },
  },
  // A Stalled condition that is not True is no problem.
  {
    name: "Stalled False, Ready True",
    obj: parentOf("a", 1, {
      phase: "Ready",
      observedGeneration: 1,
      conditions: [{ ...stalled, status: "False" }, ready],
    }),
    want: { status: "Healthy", message: ready.message ?? "" },
  },
  // Ready Unknown: still coming up.
  {
    name: "Ready Unknown",
    obj: parentOf("a", 1, {
      phase: "Initializing",
      observedGeneration: 1,
      conditions: [{ type: "Ready", status: "Unknown", message: "Rolling out." }],
    }),
    want: { status: "Progressing", message: "Rolling out." },
  },
];

function runAll(lua: string, rows: Row[]): Health[] {
  const dir = mkdtempSync(join(tmpdir(), "llsd-argocd-"));
  try {
    writeFileSync(join(dir, "health.lua"), lua);
    const out = execFileSync(argocdHealth(), [join(dir, "health.lua")], {
      input: JSON.stringify(rows.map((r) => r.obj)),
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    return JSON.parse(out) as Health[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function mismatches(lua: string, rows: Row[]): string[] {
  const got = runAll(lua, rows);
  return rows.flatMap((row, i) => {
    const g = got[i] ?? {};
    return g.status === row.want.status && (g.message ?? "") === row.want.message && !g.error
      ? []
      : [`${row.name}: want ${JSON.stringify(row.want)}, got ${JSON.stringify(g)}`];
  });
}

describe("Argo CD health check (docs/operations/argocd.md, run by gopher-lua as Argo CD runs it)", function () {
  this.timeout(60_000);
  let lua: string;
  let golden: Row[];
  before(() => {
    lua = readmeLua();
    golden = goldenRows();
  });

  it("is keyed by the resource's group and kind in argocd-cm", () => {
    expect(Object.keys(readmeArgocdCm())).to.deep.equal([ARGOCD_KEY]);
    expect(lua).to.include("return hs");
  });

  it("gives every golden case's stored status its health: Healthy only when Ready, Degraded when stuck, Progressing otherwise", () => {
    const healths = new Set(golden.map((r) => r.want.status));
    expect([...healths].sort()).to.deep.equal(["Degraded", "Healthy", "Progressing"]);
    expect(mismatches(lua, golden)).to.deep.equal([]);
  });

  it("says why: Degraded names the False condition that holds the detail, Healthy the warning conditions", () => {
    const got = runAll(lua, golden);
    const checked = { degraded: 0, warned: 0 };
    golden.forEach((row, i) => {
      const health = got[i] ?? {};
      const conditions = row.obj.status?.conditions ?? [];
      if (health.status === "Degraded") {
        const named = /^(\w+) is False: (\w+) at \S/.exec(health.message ?? "");
        expect(named, `${row.name}: ${health.message}`).to.not.equal(null);
        const held = conditions.find((c) => c.type === named?.[1]);
        expect(held?.status, row.name).to.equal("False");
        expect(held?.message.split("\n")[0], row.name).to.match(/^\S+: \S/);
        checked.degraded += 1;
      }
      const warnings = conditions.filter((c) => c.status === "True" && isWarningReason(c.type));
      if (health.status === "Healthy" && warnings.length > 0) {
        expect(health.message, row.name).to.include(
          `Warning conditions: ${warnings.map((c) => c.type).join(", ")}.`,
        );
        checked.warned += 1;
      }
    });
    expect(checked.degraded).to.be.greaterThan(10);
    expect(checked.warned).to.be.greaterThan(0);
  });

  it("never says Healthy for a status older than the spec, nor before the hook answered", () => {
    expect(mismatches(lua, edgeRows)).to.deep.equal([]);
  });

  it("the rows fail a check that ignores observedGeneration or Stalled (the test can fail)", () => {
    // The same script with its generation guard removed, and with Stalled read as Progressing.
    const noGuard = lua.replace("obj.status.observedGeneration < obj.metadata.generation", "false");
    const noStalled = lua.replace('c.type == "Stalled"', 'c.type == "NoSuchCondition"');
    expect(noGuard).to.not.equal(lua);
    expect(noStalled).to.not.equal(lua);
    expect(mismatches(noGuard, [...golden, ...edgeRows])).to.not.deep.equal([]);
    expect(mismatches(noStalled, golden)).to.not.deep.equal([]);
  });
});
