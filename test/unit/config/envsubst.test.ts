// Bare ${env.X} placeholders in a document, with their paths.
import { expect } from "chai";
import { barePlaceholders } from "../../../src/config/envsubst.js";
import type { Json } from "../../../src/lib/json.js";

describe("barePlaceholders", () => {
  const rows: [string, Json, { name: string; path: (string | number)[] }[]][] = [
    ["a scalar document", "${env.A}", [{ name: "A", path: [] }]],
    ["defaults and conditionals are not bare", { a: "${env.A:=x}", b: "${env.B:+y}" }, []],
    [
      "several in one string, in order",
      { s: "${env.A}-${env.B:=1}-${env.C}" },
      [
        { name: "A", path: ["s"] },
        { name: "C", path: ["s"] },
      ],
    ],
    [
      "lists and mappings",
      { a: [{ b: [0, "${env.X}"] }] },
      [{ name: "X", path: ["a", 0, "b", 1] }],
    ],
    ["hostile: null, numbers, empty containers", { a: null, b: 1, c: [], d: {} }, []],
    ["hostile: a near miss", { a: "${env.lower} ${env.} $env.X {env.Y}" }, []],
  ];
  for (const [what, input, want] of rows)
    it(what, () => expect(barePlaceholders(input)).to.deep.equal(want));

  it("starts from a path prefix, which it leaves as it was", () => {
    const prefix = Object.freeze(["providers"]);
    expect(barePlaceholders({ x: "${env.A}" }, prefix)).to.deep.equal([
      { name: "A", path: ["providers", "x"] },
    ]);
  });

  it("hostile: a huge, deep document", () => {
    let deep: Json = "${env.DEEP}";
    for (let i = 0; i < 500; i++) deep = [deep];
    const wide = Object.fromEntries(Array.from({ length: 20000 }, (_, i) => [`k${i}`, "${env.W}"]));
    const found = barePlaceholders({ deep, wide });
    expect(found).to.have.length(20001);
    expect(found[0]?.path).to.have.length(501);
  });
});
