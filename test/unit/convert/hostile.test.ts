// Hostile and heavy input: values of the wrong type, nesting and width past
// the bounds, annotations anyone with `edit` can rewrite, and objects past the
// 256 KiB annotation budget. A conversion never throws: it answers, or refuses
// with the field and the fix.
import { expect } from "chai";
import fc from "fast-check";
import type { JsonObject } from "../../../src/lib/json.js";
import { V1ALPHA2_FIELDS_ANNOTATION } from "../../../src/convert/annotations.js";
import { toV1alpha1, toV1alpha2 } from "../../../src/convert/convert.js";
import { getAt, pathOf } from "../../../src/convert/json-path.js";
import { V1ALPHA2_ONLY } from "../../../src/convert/table.js";
import { canonicalJson } from "../../../src/lib/json.js";
import { formatProblem, type Problem, type Result } from "../../../src/problems.js";
import { v1alpha2Object } from "./arbitraries.js";

const V1 = { apiVersion: "llamastack.io/v1alpha1", kind: "LlamaStackDistribution" };
const V2 = { apiVersion: "llamastack.io/v1alpha2", kind: "LlamaStackDistribution" };
const META = { name: "llama", namespace: "team-a" };
const SERVER = { distribution: { name: "starter" } };
const FIX1 = "correct it through llamastack.io/v1alpha1 (kubectl edit) so that the object converts";
const FIX2 = "correct it through llamastack.io/v1alpha2 (kubectl edit) so that the object converts";
const BAD = (why: string) =>
  `metadata.annotations.llamastack.io/v1alpha2-fields: is not a restore list written by llsd-hook (${why}); remove the annotation (the fields it kept are then lost) so that the object converts`;

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { x: value };
  return value;
};
const withKept = (text: unknown) => ({
  ...V1,
  metadata: { ...META, annotations: { [V1ALPHA2_FIELDS_ANNOTATION]: text } },
  spec: { server: SERVER },
});

function problemsOf(result: Result<JsonObject, Problem>): string[] {
  return result.ok ? [] : result.problems.map(formatProblem);
}

const ROWS: {
  label: string;
  convert: (o: unknown) => Result<JsonObject, Problem>;
  input: unknown;
  expected: string;
}[] = [
  // not an object at all
  {
    label: "null",
    convert: toV1alpha2,
    input: null,
    expected:
      "object: must be a LlamaStackDistribution object (a JSON object with apiVersion, kind, metadata and spec)",
  },
  {
    label: "a list",
    convert: toV1alpha1,
    input: [],
    expected:
      "object: must be a LlamaStackDistribution object (a JSON object with apiVersion, kind, metadata and spec)",
  },
  {
    label: "a string",
    convert: toV1alpha2,
    input: "LlamaStackDistribution",
    expected:
      "object: must be a LlamaStackDistribution object (a JSON object with apiVersion, kind, metadata and spec)",
  },
  // wrong version or kind
  {
    label: "{}",
    convert: toV1alpha2,
    input: {},
    expected:
      "apiVersion: is missing; this conversion takes llamastack.io/v1alpha1 (llsd-hook converts between llamastack.io/v1alpha1 and llamastack.io/v1alpha2)",
  },
  {
    label: "v1alpha2 given to toV1alpha2",
    convert: toV1alpha2,
    input: { ...V2, metadata: META, spec: {} },
    expected:
      'apiVersion: is "llamastack.io/v1alpha2"; this conversion takes llamastack.io/v1alpha1 (llsd-hook converts between llamastack.io/v1alpha1 and llamastack.io/v1alpha2)',
  },
  {
    label: "wrong kind",
    convert: toV1alpha1,
    input: { ...V2, kind: "Pod" },
    expected: 'kind: is "Pod"; llsd-hook converts only LlamaStackDistribution objects',
  },
  // wrong types
  {
    label: "metadata a string",
    convert: toV1alpha2,
    input: { ...V1, metadata: "llama" },
    expected: `metadata: must be an object, not a string; ${FIX1}`,
  },
  {
    label: "annotations a list",
    convert: toV1alpha2,
    input: { ...V1, metadata: { name: "x", annotations: [] } },
    expected: `metadata.annotations: must be an object, not a list; ${FIX1}`,
  },
  {
    label: "spec a string",
    convert: toV1alpha2,
    input: { ...V1, metadata: META, spec: "x" },
    expected: `spec: must be an object, not a string; ${FIX1}`,
  },
  {
    label: "replicas a string",
    convert: toV1alpha2,
    input: { ...V1, metadata: META, spec: { replicas: "3", server: SERVER } },
    expected: `spec.replicas: must be an integer, not a string; ${FIX1}`,
  },
  {
    label: "server a list",
    convert: toV1alpha2,
    input: { ...V1, metadata: META, spec: { server: [] } },
    expected: `spec.server: must be an object, not a list; ${FIX1}`,
  },
  {
    label: "env an object",
    convert: toV1alpha2,
    input: { ...V1, metadata: META, spec: { server: { ...SERVER, containerSpec: { env: {} } } } },
    expected: `spec.server.containerSpec.env: must be a list, not an object; ${FIX1}`,
  },
  {
    label: "distribution name a number",
    convert: toV1alpha2,
    input: { ...V1, metadata: META, spec: { server: { distribution: { name: 5 } } } },
    expected: `spec.server.distribution.name: must be a string, not an integer; ${FIX1}`,
  },
  {
    label: "status null",
    convert: toV1alpha2,
    input: { ...V1, metadata: META, spec: { server: SERVER }, status: null },
    expected: `status: must be an object, not null; ${FIX1}`,
  },
  {
    label: "v1alpha2 replicas a string",
    convert: toV1alpha1,
    input: {
      ...V2,
      metadata: META,
      spec: { distribution: { name: "starter" }, workload: { replicas: "3" } },
    },
    expected: `spec.workload.replicas: must be an integer, not a string; ${FIX2}`,
  },
  {
    label: "v1alpha2 networking a list",
    convert: toV1alpha1,
    input: { ...V2, metadata: META, spec: { distribution: { name: "starter" }, networking: [] } },
    expected: `spec.networking: must be an object, not a list; ${FIX2}`,
  },
  // past the bounds
  {
    label: "nested 100 deep",
    convert: toV1alpha2,
    input: { ...V1, metadata: META, spec: { server: SERVER, x: nested(100) } },
    expected: `spec${".x".repeat(47)}: is nested more than 48 levels deep; flatten it (llsd-hook refuses deeper values so that validation cannot overflow)`,
  },
  {
    label: "5000 env entries",
    convert: toV1alpha2,
    input: {
      ...V1,
      metadata: META,
      spec: {
        server: {
          ...SERVER,
          containerSpec: { env: Array.from({ length: 5000 }, (_, i) => ({ name: `V${i}` })) },
        },
      },
    },
    expected:
      "spec.server.containerSpec.env: has 5000 entries, more than the 4096 llsd-hook accepts in one object or list; shorten it",
  },
  {
    label: "a __proto__ key",
    convert: toV1alpha1,
    input: {
      ...V2,
      metadata: META,
      spec: JSON.parse('{"distribution":{},"x":{"__proto__":{"polluted":1}}}') as unknown,
    },
    expected: "spec.x.__proto__: __proto__ cannot be used as a key; rename or remove it",
  },
  // the annotation, rewritten by hand
  {
    label: "annotation not JSON",
    convert: toV1alpha2,
    input: withKept("nope"),
    expected: BAD("not JSON"),
  },
  {
    label: "annotation a number",
    convert: toV1alpha2,
    input: withKept(5),
    expected: BAD("not a string"),
  },
  {
    label: "annotation an object",
    convert: toV1alpha2,
    input: withKept("{}"),
    expected: BAD("the list: Invalid input: expected array, received object"),
  },
  {
    label: "annotation path __proto__",
    convert: toV1alpha2,
    input: withKept('[{"path":["__proto__"],"value":1}]'),
    expected: BAD("[0].path[0]: __proto__ is not a field"),
  },
  {
    label: "annotation empty path",
    convert: toV1alpha2,
    input: withKept('[{"path":[],"value":1}]'),
    expected: BAD("[0].path: Too small: expected array to have >=1 items"),
  },
  {
    label: "annotation entry with neither value nor was",
    convert: toV1alpha2,
    input: withKept('[{"path":["spec"]}]'),
    expected: BAD("[0]: an entry needs value or was"),
  },
  {
    label: "annotation huge list index",
    convert: toV1alpha2,
    input: withKept('[{"path":["spec",100000000],"value":1}]'),
    expected: BAD("[0].path[1]: Too big: expected number to be <=4096"),
  },
  {
    label: "annotation past 256 KiB",
    convert: toV1alpha2,
    input: withKept(`[${" ".repeat(262_144)}]`),
    expected: BAD("longer than 256 KiB"),
  },
  {
    label: "annotation nested 100 deep",
    convert: toV1alpha2,
    input: withKept(`[{"path":["a"],"value":${JSON.stringify(nested(100))}}]`),
    expected: BAD(
      `[0].value${".x".repeat(46)} is nested more than 48 levels deep; flatten it (llsd-hook refuses deeper values so that validation cannot overflow)`,
    ),
  },
];

describe("conversion of hostile objects", function () {
  this.timeout(60_000);

  for (const row of ROWS) {
    it(`refuses ${row.label}`, () => {
      expect(problemsOf(row.convert(row.input))).to.deep.equal([row.expected]);
    });
  }

  it("an entry the object changed since is not restored, with a warning", () => {
    const stale = '[{"path":["spec","distribution","release"],"value":"1.5.0","was":"9.9.9"}]';
    const result = toV1alpha2(withKept(stale));
    expect(result.ok && (result.value["spec"] as JsonObject)["distribution"]).to.deep.equal({
      name: "starter",
      release: "0.7.3",
    });
    expect(result.warnings.map(formatProblem)).to.deep.equal([
      "metadata.annotations.llamastack.io/v1alpha2-fields: 1 field(s) kept in the annotation llamastack.io/v1alpha2-fields were not restored, because the object changed there since they were kept; the newer values are used",
    ]);
  });

  it("never throws, on anything", () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        toV1alpha2(value);
        toV1alpha1(value);
        toV1alpha2({ ...V1, metadata: META, spec: value, status: value });
        toV1alpha1({ ...V2, metadata: META, spec: value, status: value });
        toV1alpha2(withKept(value));
      }),
      { numRuns: 500, seed: 20261202 },
    );
  });

  it("any JSON that converts, converts back deep-equal", () => {
    // Objects as JSON text gives them: a -0 written as 0 (the annotation is JSON text too).
    const json = fc
      .oneof(fc.jsonValue(), fc.dictionary(fc.string(), fc.jsonValue()))
      .map((v) => JSON.parse(JSON.stringify(v)) as unknown);
    const anyObject = (version: typeof V1 | typeof V2, annotation: string) =>
      fc
        .record({ spec: json, status: json, kept: fc.option(fc.string()) })
        .map(({ spec, status, kept }) => ({
          ...version,
          metadata: { ...META, ...(kept === null ? {} : { annotations: { [annotation]: kept } }) },
          spec,
          status,
        }));
    fc.assert(
      fc.property(anyObject(V1, "x"), anyObject(V2, "y"), (a1, a2) => {
        const up = toV1alpha2(a1);
        if (up.ok) expect(toV1alpha1(up.value)).to.deep.include({ ok: true, value: a1 });
        const down = toV1alpha1(a2);
        if (down.ok) expect(toV1alpha2(down.value)).to.deep.include({ ok: true, value: a2 });
      }),
      { numRuns: 300, seed: 20261203 },
    );
  });
});

// ---------------------------------------------------------------- the 256 KiB budget

/** A v1alpha2 object with `blob` bytes of provider settings and `other` bytes of another annotation. */
function sized(blob: number, other = 0): JsonObject {
  return {
    ...V2,
    metadata: {
      ...META,
      ...(other === 0
        ? {}
        : {
            annotations: { "kubectl.kubernetes.io/last-applied-configuration": "y".repeat(other) },
          }),
    },
    spec: {
      distribution: { name: "starter", release: "1.5.0" },
      providers: { inference: [{ provider: "vllm", settings: { blob: "x".repeat(blob) } }] },
    },
  };
}

const LIMIT = 256 * 1024;

/** The documented bound: the v1alpha2-only fields as JSON, plus the object's other annotations. */
function documentedSize(obj: JsonObject): number {
  const only = V1ALPHA2_ONLY.map((p) => getAt(obj, pathOf(p))).filter((v) => v !== undefined);
  const annotations = getAt(obj, ["metadata", "annotations"]) ?? {};
  return Buffer.byteLength(canonicalJson(only)) + Buffer.byteLength(canonicalJson(annotations));
}

describe("the 256 KiB annotation budget (v1alpha2 → v1alpha1)", function () {
  this.timeout(60_000);

  it("an object within it converts and converts back", () => {
    const obj = sized(250_000);
    const down = toV1alpha1(obj);
    expect(problemsOf(down)).to.deep.equal([]);
    expect(down.ok && toV1alpha2(down.value)).to.deep.include({ ok: true, value: obj });
  });

  it("an object beyond it is refused, naming the largest fields", () => {
    expect(problemsOf(toV1alpha1(sized(300_000)))).to.deep.equal([
      "metadata.annotations.llamastack.io/v1alpha2-fields: the fields llamastack.io/v1alpha1 has no place for take 294 KiB in the annotation llamastack.io/v1alpha2-fields, and with the object's other annotations (0 KiB) that passes the 256 KiB Kubernetes allows for all annotations of one object; largest: spec.providers.inference[0].settings.blob (293 KiB). Read the object as llamastack.io/v1alpha2, or shrink those fields",
    ]);
  });

  it("the object's other annotations count too", () => {
    expect(problemsOf(toV1alpha1(sized(150_000, 120_000)))).to.deep.equal([
      "metadata.annotations.llamastack.io/v1alpha2-fields: the fields llamastack.io/v1alpha1 has no place for take 147 KiB in the annotation llamastack.io/v1alpha2-fields, and with the object's other annotations (118 KiB) that passes the 256 KiB Kubernetes allows for all annotations of one object; largest: spec.providers.inference[0].settings.blob (147 KiB). Read the object as llamastack.io/v1alpha2, or shrink those fields",
    ]);
  });

  it("objects within the documented bound round-trip; objects beyond it are refused", () => {
    const blob = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 300_000 }));
    const other = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 150_000 }));
    fc.assert(
      fc.property(v1alpha2Object, blob, other, (base, b, o) => {
        const obj = structuredClone(base) as JsonObject;
        const spec = obj["spec"] as JsonObject;
        if (b > 0)
          spec["resources"] = { models: [{ name: "m", metadata: { blob: "x".repeat(b) } }] };
        if (o > 0) (obj["metadata"] as JsonObject)["annotations"] = { note: "y".repeat(o) };
        const size = documentedSize(obj);
        const down = toV1alpha1(obj);
        // A few hundred bytes go to the paths of the kept fields.
        if (size + 2048 <= LIMIT) expect(problemsOf(down), `${size} bytes`).to.deep.equal([]);
        if (size > LIMIT)
          expect(problemsOf(down)[0]).to.match(/passes the 256 KiB Kubernetes allows/);
        if (down.ok) expect(toV1alpha2(down.value)).to.deep.include({ ok: true, value: obj });
      }),
      { numRuns: 60, seed: 20261204 },
    );
  });
});
