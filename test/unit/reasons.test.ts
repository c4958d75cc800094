// The reasons round trip: the reasons table of docs/operations/status.md lists
// exactly the reasons of src/reasons.ts (test/unit/readme.test.ts checks one
// way, this the other); every reason it documents is emitted by some input
// through sync, and every condition an input emits is documented in the table
// with its type and status. The inputs are every golden case (the golden test
// holds their responses to what sync answers) and the few below for reasons no
// golden case reaches.
import { expect } from "chai";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import {
  CONDITION_TYPE_COUNT,
  MAX_CONDITIONS,
  Status,
  type Condition,
} from "../../src/api/status.js";
import type { Catalog, ReleaseData } from "../../src/config/catalog.js";
import { ALL_REASONS, isWarningReason, WARNING_REASONS } from "../../src/reasons.js";
import { sync } from "../../src/sync.js";
import {
  buildRequest,
  CASES_DIR,
  runCase,
  syncContext,
  type CaseFile,
} from "../support/harness.js";
import { docSection } from "../support/tools.js";

/** Each reason of the table, with the `Type=Status` pairs its condition(s) column names. */
function reasonsTable(): Map<string, Set<string>> {
  const table = docSection("docs/operations/status.md", "## Reasons");
  const rows = new Map<string, Set<string>>();
  for (const line of table.split("\n")) {
    const m = /^\| `(\w+)` \| ([^|]+) \|/.exec(line);
    if (m === null) continue;
    const [, reason = "", column = ""] = m;
    const pairs = new Set<string>();
    for (const entry of column.replace(/`|\(warning\)/g, "").split(",")) {
      const pair = /^([A-Za-z/]+)=(True|False|Unknown)$/.exec(entry.trim());
      if (pair === null)
        throw new Error(`status.md: ${reason}: "${entry.trim()}" is no Type=Status`);
      for (const type of (pair[1] ?? "").split("/")) pairs.add(`${type}=${pair[2]}`);
    }
    rows.set(reason, pairs);
  }
  return rows;
}

const HEAD = { distribution: { name: "starter", release: "1.5.0" } };

/** Inputs for the reasons no golden case reaches. */
const inputs: Record<string, CaseFile> = {
  DeprecatedProviderType: {
    description: "a provider type 0.7.3 deprecates with a warning",
    spec: {
      distribution: { name: "starter", release: "0.7.3" },
      providers: {
        vectorIo: [
          {
            provider: "inline::sqlite_vec",
            settings: {
              db_path: "/.llama/data/vec.db",
              persistence: { backend: "kv_default", namespace: "vector_io::vec" },
            },
          },
        ],
      },
    },
  },
  ConflictingProvider: {
    description: "a provider declared and disabled",
    spec: {
      ...HEAD,
      providers: { inference: [{ provider: "vllm", id: "vllm", endpoint: "http://vllm:8000/v1" }] },
      disabledProviders: ["vllm"],
    },
  },
  EnvVarCollision: {
    description: "two provider ids that give one env var name",
    spec: {
      ...HEAD,
      providers: {
        inference: ["a-b", "a.b"].map((id, i) => ({
          provider: "vllm",
          id,
          endpoint: `http://vllm-${i}:8000/v1`,
          apiKey: { secretKeyRef: { name: "keys", key: `k${i}` } },
        })),
      },
    },
    secrets: { keys: ["k0", "k1"] },
  },
  OverrideNotChecked: {
    description: "an overrideConfig nested deeper than the YAML bound",
    spec: { ...HEAD, overrideConfig: { configMapName: "deep" } },
    configMaps: {
      deep: {
        data: {
          "config.yaml": `a:\n${Array.from({ length: 70 }, (_, i) => `${"  ".repeat(i + 1)}b:`).join("\n")} 1\n`,
        },
      },
    },
  },
};

/**
 * UnsupportedAuthProvider: every supported release has both kinds of
 * authentication provider, so a catalog whose 1.5.0 lacks the Kubernetes one
 * (as a release may) stands for it.
 */
function withoutKubernetesAuth(catalog: Catalog): Catalog {
  const release = structuredClone(catalog.byRelease["1.5.0"]) as ReleaseData;
  let removed = 0;
  for (const schema of [release.stackConfigSchema, release.serverConfigSchema]) {
    const defs = (
      schema as { $defs?: Record<string, { properties?: { type?: { const?: string } } }> }
    )?.$defs;
    for (const [name, def] of Object.entries(defs ?? {}))
      if (/Auth(Provider)?Config$/.test(name) && def.properties?.type?.const === "kubernetes") {
        def.properties.type.const = "not-in-this-release";
        removed += 1;
      }
  }
  expect(removed, "the Kubernetes auth provider of 1.5.0's schema").to.be.greaterThan(0);
  return { ...catalog, byRelease: { ...catalog.byRelease, "1.5.0": release } };
}

/** Every condition the inputs give, by the input's name. */
function emitted(): [string, Condition][] {
  const out: [string, Condition][] = [];
  for (const name of readdirSync(CASES_DIR).sort()) {
    const response = parse(readFileSync(join(CASES_DIR, name, "response.yaml"), "utf8")) as {
      status?: Status;
    };
    for (const c of response.status?.conditions ?? []) out.push([name, c]);
  }
  for (const [name, input] of Object.entries(inputs)) {
    const outcome = runCase(input, "v2");
    if (outcome.kind !== "ok") throw new Error(`${name}: ${outcome.message}`);
    for (const c of outcome.response.status.conditions ?? []) out.push([name, c]);
  }
  const auth: CaseFile = {
    description: "spec.auth.kubernetes on a release without it",
    spec: { ...HEAD, auth: { kubernetes: {} } },
    configMaps: { "kube-root-ca.crt": ["ca.crt"] },
  };
  const ctx = syncContext();
  const outcome = sync(buildRequest(auth, "v2"), "2026-11-01T12:00:00Z", {
    ...ctx,
    catalog: withoutKubernetesAuth(ctx.catalog),
  });
  if (outcome.kind !== "ok") throw new Error(outcome.message);
  for (const c of outcome.response.status.conditions ?? [])
    out.push(["UnsupportedAuthProvider", c]);
  return out;
}

describe("the reasons round trip (docs/operations/status.md ⇄ what sync emits)", function () {
  this.timeout(60_000);
  const table = reasonsTable();
  let conditions: [string, Condition][];
  before(() => {
    conditions = emitted();
  });

  it("the table lists exactly the reasons of src/reasons.ts", () => {
    expect([...table.keys()].sort()).to.deep.equal([...ALL_REASONS].sort());
  });

  it("every documented reason is emitted by some input", () => {
    const seen = new Set(conditions.map(([, c]) => c.reason));
    expect([...table.keys()].filter((r) => !seen.has(r))).to.deep.equal([]);
  });

  it("every emitted condition is documented: its reason, and (but for Ready and Stalled, which carry any) its type and status", () => {
    const undocumented = conditions.flatMap(([input, c]) => {
      const pairs = table.get(c.reason);
      if (pairs === undefined) return [`${input}: ${c.type} ${c.reason} is not in the table`];
      if (c.type === "Ready" || c.type === "Stalled") return [];
      const pair = `${c.type}=${c.status}`;
      return pairs.has(pair) ? [] : [`${input}: ${c.reason} as ${pair} is not in its row`];
    });
    expect([...new Set(undocumented)]).to.deep.equal([]);
  });

  it("the status schema (and so the CRD) holds every condition at once: 7 checks and every warning", () => {
    expect(CONDITION_TYPE_COUNT).to.equal(7 + WARNING_REASONS.length);
    expect(CONDITION_TYPE_COUNT).to.be.at.most(MAX_CONDITIONS);
    const at = "2026-11-01T12:00:00Z";
    const condition = (type: string) => ({
      type,
      status: "True",
      reason: type,
      message: "",
      lastTransitionTime: at,
    });
    const all = Array.from({ length: CONDITION_TYPE_COUNT }, (_, i) => condition(`Type${i}`));
    expect(Status.safeParse({ conditions: all }).success).to.equal(true);
    expect(Status.safeParse({ conditions: [...all, ...all, ...all] }).success).to.equal(false);
  });

  it("a warning's condition has its reason as its type, status True, and is one of WARNING_REASONS", () => {
    for (const [input, c] of conditions.filter(([, c]) => isWarningReason(c.type))) {
      expect([c.status, c.reason], `${input}: ${c.type}`).to.deep.equal(["True", c.type]);
    }
    const types = new Set(conditions.map(([, c]) => c.type));
    expect(WARNING_REASONS.filter((r) => !types.has(r))).to.deep.equal([]);
    for (const reason of WARNING_REASONS)
      expect([...(table.get(reason) ?? [])], reason).to.include(`${reason}=True`);
  });
});
