// Invariants of the conversion, checked on generated objects (fast-check):
// both round trips are deep-equal, conversion is deterministic, the
// annotation keeps only what has no home, and literal env values never reach
// an annotation.
import { expect } from "chai";
import fc from "fast-check";
import { LlamaStackDistribution } from "../../../src/api/schema.js";
import type { JsonObject } from "../../../src/lib/json.js";
import {
  V1ALPHA1_FIELDS_ANNOTATION,
  V1ALPHA2_FIELDS_ANNOTATION,
} from "../../../src/convert/annotations.js";
import { toV1alpha1, toV1alpha2 } from "../../../src/convert/convert.js";
import { decodeRestore } from "../../../src/convert/restore.js";
import { OBJECT_BOUNDS } from "../../../src/convert/convert.js";
import { FIELD_RULES, V1ALPHA2_ONLY } from "../../../src/convert/table.js";
import { V1alpha1LlamaStackDistribution } from "../../../src/api/v1alpha1.js";
import { CANARY, reorder, v1alpha1Object, v1alpha2Object } from "./arbitraries.js";

const runs = { numRuns: 300 };

function ok(result: ReturnType<typeof toV1alpha2>): JsonObject {
  if (!result.ok) expect.fail(result.problems.map((p) => `${p.path}: ${p.detail}`).join("\n"));
  return result.value;
}

/** The kept entries: dotted path (list indices as [i]) and the kept value. */
function kept(obj: JsonObject, key: string): { path: string; value: unknown }[] {
  const text = (obj["metadata"] as { annotations?: Record<string, string> }).annotations?.[key];
  if (text === undefined) return [];
  const decoded = decodeRestore(text, OBJECT_BOUNDS);
  if ("error" in decoded) expect.fail(decoded.error);
  return decoded.entries.map((e) => ({
    path: e.path
      .map((s) => (typeof s === "number" ? `[${s}]` : `.${s}`))
      .join("")
      .slice(1),
    value: e.value,
  }));
}

/** Frozen all the way down: writing to it throws (modules are strict). */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

const under = (path: string, prefix: string) =>
  path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`);

const isEmpty = (value: unknown) =>
  typeof value === "object" && value !== null && Object.keys(value).length === 0;

/** v1alpha1 paths the annotation may keep: no home, a Go zero value, or a meaning that changed shape. */
const MAY_KEEP_V1ALPHA1 = [
  ...FIELD_RULES.filter(
    (r) => r.v1alpha2 === null || r.custom !== undefined || r.zeroIsDefault,
  ).map((r) => r.v1alpha1),
  "spec.server.userConfig", // a ConfigMap in another namespace: kept whole
  "spec.server.storage.size", // a quantity written as a number becomes a string
];
/** v1alpha2 paths the annotation may keep: no v1alpha1 home, or a meaning that changed shape. */
const MAY_KEEP_V1ALPHA2 = [
  ...V1ALPHA2_ONLY,
  ...FIELD_RULES.filter((r) => r.custom !== undefined && r.v1alpha2 !== null).map(
    (r) => r.v1alpha2 ?? "",
  ),
  "spec.networking.expose", // enabled: false, or an empty expose
  "spec.workload.podDisruptionBudget", // the v1alpha1 default budget
];
/** Objects either version may hold empty, which the other has nothing for. */
const MAY_KEEP_EMPTY = [
  "metadata.annotations", // dropped with the only annotation, the conversion's own
  "spec",
  "spec.server",
  "spec.server.containerSpec",
  "spec.server.podOverrides",
  "spec.server.tlsConfig",
  "spec.network",
  "spec.networking",
  "spec.workload",
  "spec.workload.overrides",
  "status",
];

/** A kept object as its leaves, so that a kept container is judged by what it holds. */
function leaves(entry: { path: string; value: unknown }): { path: string; value: unknown }[] {
  const { path, value } = entry;
  if (typeof value !== "object" || value === null || Array.isArray(value) || isEmpty(value))
    return [entry];
  return Object.entries(value).flatMap(([k, v]) => leaves({ path: `${path}.${k}`, value: v }));
}

function mayKeep(kept: { path: string; value: unknown }, allowed: readonly string[]): boolean {
  return leaves(kept).every((entry) => mayKeepLeaf(entry, allowed));
}

/** v1alpha2 homes of fields whose v1alpha1 zero value meant "the default": a zero there maps to nothing. */
const ZERO_HOMES = FIELD_RULES.filter((r) => r.zeroIsDefault).map((r) => r.v1alpha2 ?? "");
const isZero = (value: unknown) => isEmpty(value) || value === 0 || value === "" || value === false;

function mayKeepLeaf(entry: { path: string; value: unknown }, allowed: readonly string[]): boolean {
  return (
    allowed.some((p) => under(entry.path, p)) ||
    (isZero(entry.value) && ZERO_HOMES.includes(entry.path)) ||
    entry.path.includes("x-fork") ||
    (isEmpty(entry.value) && MAY_KEEP_EMPTY.includes(entry.path))
  );
}

describe("conversion invariants (property tests)", function () {
  this.timeout(120_000);

  it("generated v1alpha1 objects are valid v1alpha1", () => {
    fc.assert(
      fc.property(v1alpha1Object, (obj) => {
        const parsed = V1alpha1LlamaStackDistribution.safeParse(obj);
        expect(parsed.success, JSON.stringify(parsed.error?.issues)).to.equal(true);
      }),
      { numRuns: 100, seed: 20261206 },
    );
  });

  it("generated v1alpha2 objects are valid v1alpha2", () => {
    fc.assert(
      fc.property(v1alpha2Object, (obj) => {
        const parsed = LlamaStackDistribution.safeParse(obj);
        expect(parsed.success, JSON.stringify(parsed.error?.issues)).to.equal(true);
      }),
      { numRuns: 100, seed: 20261207 },
    );
  });

  it("v1alpha1 → v1alpha2 → v1alpha1 is deep-equal", () => {
    fc.assert(
      fc.property(v1alpha1Object, (obj) => {
        const up = ok(toV1alpha2(obj));
        expect(up["apiVersion"]).to.equal("llamastack.io/v1alpha2");
        expect(ok(toV1alpha1(up))).to.deep.equal(obj);
      }),
      { ...runs, seed: 20261208 },
    );
  });

  it("v1alpha2 → v1alpha1 → v1alpha2 is deep-equal", () => {
    fc.assert(
      fc.property(v1alpha2Object, (obj) => {
        const down = ok(toV1alpha1(obj));
        expect(down["apiVersion"]).to.equal("llamastack.io/v1alpha1");
        expect(ok(toV1alpha2(down))).to.deep.equal(obj);
      }),
      { ...runs, seed: 20261209 },
    );
  });

  it("a converted object converts to itself again: the round trip is stable", () => {
    fc.assert(
      fc.property(v1alpha1Object, (obj) => {
        const up = ok(toV1alpha2(obj));
        expect(ok(toV1alpha2(ok(toV1alpha1(up))))).to.deep.equal(up);
      }),
      { numRuns: 100, seed: 20261210 },
    );
  });

  it("never changes its input", () => {
    fc.assert(
      fc.property(v1alpha1Object, v1alpha2Object, (a1, a2) => {
        const up = ok(toV1alpha2(deepFreeze(structuredClone(a1))));
        ok(toV1alpha1(deepFreeze(up)));
        ok(toV1alpha1(deepFreeze(structuredClone(a2))));
      }),
      { numRuns: 100, seed: 20261211 },
    );
  });

  it("same object → same bytes, also with every key reordered", () => {
    fc.assert(
      fc.property(v1alpha1Object, v1alpha2Object, (a1, a2) => {
        const up = JSON.stringify(toV1alpha2(a1));
        expect(JSON.stringify(toV1alpha2(a1))).to.equal(up);
        expect(JSON.stringify(toV1alpha2(reorder(a1)))).to.equal(up);
        const down = JSON.stringify(toV1alpha1(a2));
        expect(JSON.stringify(toV1alpha1(reorder(a2)))).to.equal(down);
      }),
      { numRuns: 100, seed: 20261212 },
    );
  });

  it("the annotations keep only what has no home in the other version", () => {
    fc.assert(
      fc.property(v1alpha1Object, v1alpha2Object, (a1, a2) => {
        for (const entry of kept(ok(toV1alpha2(a1)), V1ALPHA1_FIELDS_ANNOTATION))
          expect(mayKeep(entry, MAY_KEEP_V1ALPHA1), `v1alpha1 ${entry.path} kept`).to.equal(true);
        for (const entry of kept(ok(toV1alpha1(a2)), V1ALPHA2_FIELDS_ANNOTATION))
          expect(mayKeep(entry, MAY_KEEP_V1ALPHA2), `v1alpha2 ${entry.path} kept`).to.equal(true);
      }),
      { ...runs, seed: 20261213 },
    );
  });

  it("literal env values stay in env: never in an annotation", () => {
    fc.assert(
      fc.property(v1alpha1Object, v1alpha2Object, (a1, a2) => {
        const up = ok(toV1alpha2(a1));
        const down = ok(toV1alpha1(a2));
        expect(JSON.stringify(up["metadata"])).not.to.include(CANARY);
        expect(JSON.stringify(down["metadata"])).not.to.include(CANARY);
      }),
      { ...runs, seed: 20261214 },
    );
  });

  it("a converted object names its release, and never the newest line by default", () => {
    fc.assert(
      fc.property(v1alpha1Object, (obj) => {
        const spec = ok(toV1alpha2(obj))["spec"] as { distribution?: Record<string, string> };
        const d = spec.distribution;
        if (d?.["name"] !== undefined) expect(d["release"]).to.match(/^\d+\.\d+\.\d+$/);
        const version = (obj as { status?: { version?: { llamaStackServerVersion?: string } } })
          .status?.version?.llamaStackServerVersion;
        const image = (obj.spec.server as { distribution: { image?: string } }).distribution.image;
        if (d?.["release"] === "1.5.0")
          expect(
            `${version ?? ""} ${image ?? ""}`,
            "1.5.0 only when the object says so",
          ).to.include("1.5.0");
      }),
      { ...runs, seed: 20261215 },
    );
  });
});
