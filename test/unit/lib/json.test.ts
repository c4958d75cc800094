// Table tests of the JSON helpers every layer uses.
import { expect } from "chai";
import fc from "fast-check";
import {
  canonicalJson,
  compareStrings,
  deepFreeze,
  deepMerge,
  freezeAndCount,
  formatPath,
  isObject,
  jsonEqual,
  orderKeys,
  scanJson,
} from "../../../src/lib/json.js";

/** orderKeys as it was written before its one-walk form: the reference the property holds it to. */
function orderKeysBefore(
  value: unknown,
  head: readonly string[],
  headOf: (key: string) => readonly string[] = () => [],
): unknown {
  if (Array.isArray(value)) return value.map((v) => orderKeysBefore(v, [], headOf));
  if (!isObject(value)) return value;
  const keys = Object.keys(value);
  const ordered = [
    ...head.filter((k) => keys.includes(k)),
    ...keys.filter((k) => !head.includes(k)).sort(compareStrings),
  ];
  return Object.fromEntries(
    ordered.flatMap((k) => {
      const child = value[k];
      return child === undefined ? [] : [[k, orderKeysBefore(child, headOf(k), headOf)]];
    }),
  );
}

/** A copy with every object's keys in reverse order. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reversed(v)]),
  );
}

/** Values as the hook meets them (parsed JSON, objects it built) and what JSON writes differently. */
const anyValue = fc.anything({
  maxDepth: 3,
  withBoxedValues: true,
  withNullPrototype: true,
  withSparseArray: true,
  withObjectString: true,
  withDate: true,
  key: fc.oneof(fc.constantFrom("__proto__", "a", "b", "toJSON", "0", "10"), fc.string()),
});

/** A pair that is often equal as JSON: a value beside itself, its reordered copy, a changed copy, or another value. */
const pairs = fc.oneof(
  anyValue.map((a) => [a, a] as const),
  anyValue.map((a) => [a, reversed(a)] as const),
  anyValue.map((a) => [a, JSON.parse(JSON.stringify(a) ?? "null") as unknown] as const),
  fc
    .tuple(fc.jsonValue({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 0 }))
    .map(([a, leaf]) => [a, isObject(a) ? { ...(reversed(a) as object), z: leaf } : leaf] as const),
  fc.tuple(anyValue, anyValue),
);

describe("json helpers", () => {
  it("deepMerge overlays objects and replaces everything else, without touching its inputs", () => {
    const base = { a: { x: 1, y: [1, 2] }, b: "keep" };
    const over = { a: { y: [3], z: null }, c: true };
    const merged = deepMerge(base, over);
    expect(merged).to.deep.equal({ a: { x: 1, y: [3], z: null }, b: "keep", c: true });
    expect(base).to.deep.equal({ a: { x: 1, y: [1, 2] }, b: "keep" });
    expect(deepMerge({}, {})).to.deep.equal({});
    expect(deepMerge([1], { a: 1 })).to.deep.equal({ a: 1 });
  });
  it("formatPath", () => {
    expect(formatPath(["providers", "inference", 0, "config"])).to.equal(
      "providers.inference[0].config",
    );
    expect(formatPath([])).to.equal("");
  });
  it("canonicalJson does not depend on key order", () => {
    expect(canonicalJson({ b: 1, a: { d: 1, c: 2 } })).to.equal(
      canonicalJson({ a: { c: 2, d: 1 }, b: 1 }),
    );
  });
  it("canonicalJson keeps a __proto__ key, and marks undefined only when asked", () => {
    const hostile = JSON.parse('{"__proto__":{"x":1},"a":1}') as unknown;
    expect(canonicalJson(hostile)).to.equal('{"__proto__":{"x":1},"a":1}');
    expect(canonicalJson({ a: undefined, b: [undefined] })).to.equal('{"b":[null]}');
    expect(canonicalJson({ a: undefined, b: [undefined] }, "U")).to.equal('{"a":"U","b":["U"]}');
  });
  const equalRows: [string, unknown, unknown, boolean][] = [
    [
      "keys in another order",
      { b: 1, a: { d: [1, { x: 2 }], c: 2 } },
      { a: { c: 2, d: [1, { x: 2 }] }, b: 1 },
      true,
    ],
    ["a member set to undefined and a missing one", { a: 1, b: undefined }, { a: 1 }, true],
    ["an undefined item and null", [undefined, () => 1], [null, null], true],
    ["NaN and null, -0 and 0", [NaN, -0], [null, 0], true],
    ["a number and its text", { a: 1 }, { a: "1" }, false],
    ["one more member", { a: 1 }, { a: 1, b: null }, false],
    ["a list and an object with its indices", [1], { 0: 1 }, false],
    ["a longer list", [1, 2], [1, 2, 3], false],
    [
      "a __proto__ key",
      JSON.parse('{"__proto__":{"x":1}}'),
      JSON.parse('{"__proto__":{"x":2}}'),
      false,
    ],
    ["toJSON, as JSON writes it", { toJSON: () => 1 }, 1, true],
  ];
  for (const [name, a, b, want] of equalRows)
    it(`jsonEqual: ${name}`, () => {
      expect(jsonEqual(a, b)).to.equal(want);
      expect(jsonEqual(a, b)).to.equal(canonicalJson(a) === canonicalJson(b));
    });
  it("jsonEqual agrees with comparing canonicalJson texts on generated values (seeded)", () => {
    fc.assert(
      fc.property(pairs, ([a, b]) => {
        const texts = canonicalJson(a) === canonicalJson(b);
        expect(jsonEqual(a, b)).to.equal(texts);
        expect(jsonEqual(b, a)).to.equal(texts);
      }),
      { numRuns: 300, seed: 20261128 },
    );
  });
  it("orderKeys gives what its former form gave, key order and own __proto__ keys included (seeded)", () => {
    const headOf = (key: string) => (key === "metadata" ? ["name", "namespace"] : []);
    fc.assert(
      fc.property(
        anyValue,
        fc.constantFrom([], ["kind", "apiVersion", "metadata"], ["b", "a"]),
        (value, head) => {
          const now = orderKeys(value, head, headOf);
          const before = orderKeysBefore(value, head, headOf);
          expect(now).to.deep.equal(before);
          if (isObject(now)) expect(Object.keys(now)).to.deep.equal(Object.keys(before as object));
          expect(canonicalJson(now)).to.equal(canonicalJson(before));
          let text: string | undefined;
          try {
            text = JSON.stringify(before);
          } catch {
            return;
          }
          expect(JSON.stringify(now)).to.equal(text);
        },
      ),
      { numRuns: 300, seed: 20261129 },
    );
  });
});

describe("compareStrings", () => {
  const rows: [string, string, number][] = [
    ["a", "b", -1],
    ["b", "a", 1],
    ["a", "a", 0],
    ["B", "a", -1], // code units: upper case before lower case, in every locale
    ["a-b", "a_b", -1],
    ["ä", "z", 1],
  ];
  for (const [a, b, want] of rows)
    it(`${a} vs ${b}`, () => expect(compareStrings(a, b)).to.equal(want));
});

describe("scanJson", () => {
  /** The values scanJson counts: the least bound it does not exceed. */
  const counted = (text: string) => {
    let n = 1;
    while (scanJson(text, { maxValues: n }).tooMany) n++;
    return n;
  };
  const rows: [string, number][] = [
    ["1", 1],
    ["[1,2,3]", 4],
    ['{"a":1,"b":[1,2]}', 5],
    ['{"a":"x,:[{","b":{"c":null}}', 4], // structure inside strings is no structure
    ['["\\"[,"]', 2], // an escaped quote does not end the string
    ["[{},{}]", 3],
    ["[[[[1]]]]", 5],
    ["[]", 2], // an empty array counts one too many
  ];
  for (const [text, values] of rows)
    it(`${text}: ${values} values`, () => expect(counted(text)).to.equal(values));

  it("counts what JSON.parse builds (as an upper bound) for nested and wide values, and fuzzed JSON", () => {
    const nodes = (v: unknown): number =>
      typeof v === "object" && v !== null
        ? 1 + Object.values(v).reduce((n: number, x) => n + nodes(x), 0)
        : 1;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const text = JSON.stringify(value);
        const n = nodes(JSON.parse(text));
        expect(scanJson(text, { maxValues: n - 1 }).tooMany, text).to.equal(true);
        // At most one more per empty array.
        const empties = (text.match(/\[\]/g) ?? []).length;
        expect(scanJson(text, { maxValues: n + empties }).tooMany, text).to.equal(false);
      }),
      { numRuns: 300, seed: 20261127 },
    );
  });

  const paths = [
    ["parent", "metadata", "namespace"],
    ["parent", "metadata", "name"],
  ];
  it("finds strings at paths of keys, as JSON.parse reads them (escapes, the last duplicate)", () => {
    const text =
      '{"controller":{"metadata":{"name":"no"}},"parent":{"spec":{"metadata":{"name":"deeper"}},' +
      '"metadata":{"labels":{"name":"label"},"n\\u0061me":"first","namespace":"t\\u0065am","name":"llama"}}}';
    const parsed = JSON.parse(text) as {
      parent: { metadata: { namespace: string; name: string } };
    };
    expect(scanJson(text, { paths }).found).to.deep.equal([
      parsed.parent.metadata.namespace,
      parsed.parent.metadata.name,
    ]);
    expect(scanJson(text, { paths }).found).to.deep.equal(["team", "llama"]);
  });

  it("stops where the value of a key of the root ends: a later duplicate is not seen", () => {
    const text =
      '{"controller":{},"parent":{"metadata":{"namespace":"team","name":"a"}},"children":{},"parent":{"metadata":{"namespace":"other","name":"b"}}}';
    expect(scanJson(text, { paths, stopAfter: "parent" }).found).to.deep.equal(["team", "a"]);
    expect(scanJson(text, { paths }).found).to.deep.equal(["other", "b"]);
  });

  it("finds nothing where there is nothing, or no string", () => {
    expect(scanJson('{"parent":{"metadata":{"name":7}}}', { paths }).found).to.deep.equal([
      undefined,
      undefined,
    ]);
    expect(scanJson("[1,2]", { paths }).found).to.deep.equal([undefined, undefined]);
  });
});

describe("deepFreeze", () => {
  /** Every object and array reachable from `value`, itself included. */
  const containers = (value: unknown): object[] =>
    typeof value !== "object" || value === null
      ? []
      : [value, ...Object.values(value).flatMap(containers)];
  const rows: { what: string; value: unknown }[] = [
    { what: "a primitive is given back", value: 3 },
    { what: "null", value: null },
    { what: "nested objects and arrays", value: { a: [{ b: { c: [1, 2] } }, undefined], d: "x" } },
    { what: "an array at the top", value: [[], {}, [[{ e: null }]]] },
    { what: "a __proto__ own key", value: JSON.parse('{"__proto__": {"x": {"y": 1}}}') as unknown },
  ];
  for (const row of rows)
    it(`${row.what}: the same value, every container frozen`, () => {
      expect(deepFreeze(row.value)).to.equal(row.value);
      for (const c of containers(row.value)) expect(Object.isFrozen(c)).to.equal(true);
    });

  it("freezes 100,000 levels without overflowing the stack", () => {
    let deep: unknown = { end: {} };
    for (let i = 0; i < 100_000; i++) deep = [deep];
    deepFreeze(deep);
    let at: unknown = deep;
    while (Array.isArray(at)) {
      expect(Object.isFrozen(at)).to.equal(true);
      at = at[0];
    }
    expect(Object.isFrozen((at as { end: object }).end)).to.equal(true);
  });

  it("freezeAndCount counts the containers it froze, their members and the characters of their strings", () => {
    const shared = Object.freeze({ held: "elsewhere" });
    expect(freezeAndCount({ a: ["xy", { b: "z" }], c: 1, shared })).to.deep.equal({
      containers: 3,
      members: 6,
      chars: 3,
    });
    expect(freezeAndCount("text")).to.deep.equal({ containers: 0, members: 0, chars: 4 });
  });

  it("does not walk into an object frozen already", () => {
    const inner = { open: {} };
    const value = { shallow: Object.freeze(inner) };
    deepFreeze(value);
    expect(Object.isFrozen(value)).to.equal(true);
    expect(Object.isFrozen(inner.open)).to.equal(false);
  });
});

describe("orderKeys", () => {
  const metadataFirst = (key: string) => (key === "metadata" ? ["name", "namespace"] : []);
  const rows: { what: string; value: unknown; want: string }[] = [
    {
      what: "the top's head first, the rest by code unit",
      value: { spec: 1, b: 2, kind: "K", apiVersion: "v1", B: 3 },
      want: '{"apiVersion":"v1","kind":"K","B":3,"b":2,"spec":1}',
    },
    {
      what: "a member's own head below (metadata: name, namespace first)",
      value: { metadata: { uid: "u", namespace: "n", name: "x" } },
      want: '{"metadata":{"name":"x","namespace":"n","uid":"u"}}',
    },
    {
      what: "list elements keep their order and get no top head",
      value: { list: [{ name: "b", apiVersion: "v", kind: "K" }, 2] },
      want: '{"list":[{"apiVersion":"v","kind":"K","name":"b"},2]}',
    },
    {
      what: "undefined members left out, null kept",
      value: { b: undefined, a: null },
      want: '{"a":null}',
    },
  ];
  for (const row of rows)
    it(row.what, () => {
      const got = orderKeys(row.value, ["apiVersion", "kind", "metadata"], metadataFirst);
      expect(JSON.stringify(got)).to.equal(row.want);
    });

  it("a __proto__ key stays an own key (an assignment would have set the prototype)", () => {
    const got = orderKeys(JSON.parse('{"spec":{"__proto__":{"x":1},"a":2}}'), []) as {
      spec: object;
    };
    expect(Object.keys(got.spec)).to.deep.equal(["__proto__", "a"]);
    expect(Object.getPrototypeOf(got.spec)).to.equal(Object.prototype);
  });

  it("equal objects give equal bytes whatever their key order", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const reordered = JSON.parse(JSON.stringify(value), (_k, v: unknown) =>
          v !== null && typeof v === "object" && !Array.isArray(v)
            ? Object.fromEntries(Object.entries(v).reverse())
            : v,
        ) as unknown;
        expect(JSON.stringify(orderKeys(reordered, ["kind"]))).to.equal(
          JSON.stringify(orderKeys(value, ["kind"])),
        );
      }),
      { seed: 7, numRuns: 200 },
    );
  });
});
