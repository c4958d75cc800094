// Table tests for the size budget: bytes as Go writes them, where they are,
// and which children (or the config's ConfigMap) would not fit.
import { expect } from "chai";
import fc from "fast-check";
import type { KubeObject } from "../../../src/api/hook.js";
import {
  CHILD_BUDGET,
  checkConfigSize,
  checkSizes,
  goJsonBytes,
  goJsonBytesAtMost,
  largestParts,
} from "../../../src/api/budget.js";

describe("goJsonBytes and largestParts", () => {
  const rows: [value: unknown, bytes: number][] = [
    ["a", 3],
    ["<&>", 5 + 3 * 5], // Go escapes each as \u003c (six bytes)
    ["é", 4], // UTF-8: two bytes
    [{ a: [1, 2] }, 11],
  ];
  for (const [value, bytes] of rows)
    it(`${JSON.stringify(value)} → ${bytes} bytes`, () =>
      expect(goJsonBytes(value)).to.equal(bytes));

  it("follows the entry that holds most of the bytes", () => {
    const value = {
      small: "x",
      big: { models: Array.from({ length: 3 }, (_, i) => "y".repeat(1024 * (i + 1))) },
    };
    expect(largestParts(value)).to.equal(
      "big.models (7 KiB in 3 entries; largest [2] 4 KiB, [1] 3 KiB, [0] 2 KiB)",
    );
  });
});

describe("goJsonBytes, hostile values", () => {
  const rows: [why: string, value: unknown, bytes: number][] = [
    ["undefined writes nothing", undefined, 0],
    ["null", null, 4],
    ["an empty object", {}, 2],
    ["U+2028 is escaped by Go as \\u2028", "\u2028", 2 + 6],
    ["an astral character is four UTF-8 bytes", "😀", 2 + 4],
  ];
  for (const [why, value, bytes] of rows) it(why, () => expect(goJsonBytes(value)).to.equal(bytes));
});

describe("largestParts, hostile values", () => {
  const rows: [why: string, value: unknown, text: string][] = [
    ["a scalar", "x", "the whole object (1 KiB)"],
    ["an empty object", {}, "the whole object (1 KiB)"],
    [
      "spread evenly: named at the top",
      { a: "x".repeat(1500), b: "y".repeat(1500), c: "z".repeat(1500) },
      "the whole object (5 KiB in 3 entries; largest a 2 KiB, b 2 KiB, c 2 KiB)",
    ],
    ["one deep entry holding everything", { a: { b: { c: "x".repeat(3000) } } }, "a.b.c (3 KiB)"],
  ];
  for (const [why, value, text] of rows) it(why, () => expect(largestParts(value)).to.equal(text));
});

function configMap(bytes: number): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "llama-config-0123456789" },
    data: { "config.yaml": "x".repeat(bytes) },
  };
}

describe("checkSizes", () => {
  const overhead = goJsonBytes(configMap(0));
  const rows: [why: string, children: KubeObject[], problems: number][] = [
    ["no children", [], 0],
    ["small children", [configMap(10), configMap(10)], 0],
    ["exactly the budget", [configMap(CHILD_BUDGET - overhead)], 0],
    ["one byte over", [configMap(CHILD_BUDGET - overhead + 1)], 1],
    [
      "each child over is reported",
      [configMap(CHILD_BUDGET), configMap(10), configMap(CHILD_BUDGET)],
      2,
    ],
    [
      "Go's escapes count: 40k of < is 240 KiB",
      [configMap(0), { ...configMap(0), data: { x: "<".repeat(40_000) } }],
      1,
    ],
  ];
  for (const [why, children, count] of rows)
    it(why, () => expect(checkSizes(children)).to.have.length(count));

  it("counts a child whose text is short uncounted, and agrees with goJsonBytes either side of the budget (seeded)", () => {
    // Characters of each width in Go's JSON: 1 byte, 2, 3, 4 (a surrogate pair), 6 (an escape).
    const unit = fc.constantFrom("x", "é", "€", "😀", "<", "\u2028");
    fc.assert(
      fc.property(
        fc.array(unit, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: Math.floor(CHILD_BUDGET / 6) - 64, max: CHILD_BUDGET }),
        (units, length) => {
          const text = units
            .join("")
            .repeat(Math.ceil(length / units.length))
            .slice(0, length);
          const child = { ...configMap(0), data: { "config.yaml": text } };
          const over = goJsonBytes(child) > CHILD_BUDGET;
          expect(checkSizes([child])).to.have.length(over ? 1 : 0);
        },
      ),
      { numRuns: 40, seed: 20261130 },
    );
  });

  it("names the child, its size and where the bytes are", () => {
    const [p] = checkSizes([configMap(CHILD_BUDGET)]);
    expect(p?.reason).to.equal("ChildTooLarge");
    expect(p?.path).to.equal("spec.workload");
    expect(p?.detail).to.match(/^ConfigMap llama-config-0123456789 would take 233 KiB as JSON/);
    expect(p?.detail).to.contain("largest parts: data.config.yaml (233 KiB)");
  });
});

describe("checkConfigSize", () => {
  const rows: [why: string, configYaml: string, fits: boolean][] = [
    ["small", "version: 2\n", true],
    ["empty", "", true],
    [
      "just under the budget with the ConfigMap's overhead",
      "x".repeat(CHILD_BUDGET - 1024 - 2),
      true,
    ],
    ["just over", "x".repeat(CHILD_BUDGET - 1024 - 1), false],
  ];
  for (const [why, configYaml, fits] of rows)
    it(why, () => expect(checkConfigSize(configYaml, { models: [] }) === undefined).to.equal(fits));

  it("points into the config, not the YAML text", () => {
    const config = { registered_resources: { models: ["m".repeat(300_000)] } };
    const p = checkConfigSize("x".repeat(300_000), config);
    expect(p?.path).to.equal("spec");
    expect(p?.detail).to.contain("in config.yaml, registered_resources.models[0] (293 KiB)");
  });
});

describe("goJsonBytesAtMost", () => {
  it("is never below goJsonBytes, for any JSON value (seeded)", () => {
    const text = fc.string({
      unit: fc.constantFrom(
        "x",
        "é",
        "€",
        "😀",
        "<",
        "\u2028",
        '"',
        "\\",
        "\n",
        "\u0001",
        "\ud800",
      ),
      maxLength: 12,
    });
    const { tree } = fc.letrec((tie) => ({
      tree: fc.oneof(
        { depthSize: "medium" },
        text,
        fc.double(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.constant(undefined),
        tie("list"),
        tie("map"),
      ),
      list: fc.array(tie("tree"), { maxLength: 5 }),
      map: fc.dictionary(text, tie("tree"), { maxKeys: 5 }),
    }));
    fc.assert(
      fc.property(tree, (value) => {
        const exact = goJsonBytes(value);
        expect(goJsonBytesAtMost(value, Infinity)).to.be.at.least(exact);
      }),
      { numRuns: 1000, seed: 20261128 },
    );
  });

  const rows: [why: string, value: unknown, limit: number, bound: number][] = [
    ['"ab": two units at six bytes each, and the quotes', "ab", 100, 14],
    ["a number as written", -1.5, 100, 4],
    ["past the limit: Infinity", "x".repeat(100), 50, Infinity],
    ["a Date (toJSON): Infinity", { at: new Date(0) }, 1e6, Infinity],
    ["a Map (another prototype): Infinity", new Map(), 1e6, Infinity],
    ["a bigint: Infinity", [1n], 1e6, Infinity],
    [
      "a list with toJSON: Infinity",
      Object.assign([1], { toJSON: () => "x".repeat(99) }),
      1e6,
      Infinity,
    ],
  ];
  for (const [why, value, limit, bound] of rows)
    it(why, () => expect(goJsonBytesAtMost(value, limit)).to.equal(bound));
});
