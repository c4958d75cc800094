// Table tests of the JSON helpers every layer uses.
import { expect } from "chai";
import { compareStrings, deepMerge, formatPath, canonicalJson } from "../../../src/lib/json.js";

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
