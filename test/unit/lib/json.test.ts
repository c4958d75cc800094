// Table tests of the JSON helpers every layer uses.
import { expect } from "chai";
import fc from "fast-check";
import {
  canonicalJson,
  compareStrings,
  deepMerge,
  formatPath,
  orderKeys,
  scanJson,
} from "../../../src/lib/json.js";

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
