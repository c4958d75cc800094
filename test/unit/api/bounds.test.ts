// measure(): the shape bounds every request's spec and every record of what was
// applied pass before anything recursive reads them. Table rows for each bound,
// then a seeded property test against a recursive definition, so the iterative,
// allocation-free walk reports the same shape, problem and path.
import { expect } from "chai";
import fc from "fast-check";
import { measure, SPEC_BOUNDS, type Bounds, type Shape } from "../../../src/api/bounds.js";
import { msg } from "../../../src/messages.js";

type Problem = NonNullable<Shape["problem"]>;

const small: Bounds = { maxDepth: 3, maxEntries: 2, maxNodes: 8 };

/** `{"__proto__": value}` as JSON.parse builds it: an own key, not the prototype. */
const protoKey = (value: unknown): unknown => JSON.parse(`{"__proto__": ${JSON.stringify(value)}}`);

describe("measure: each bound", () => {
  const rows: { name: string; value: unknown; bounds?: Bounds; shape: Shape }[] = [
    { name: "a leaf", value: "x", shape: { depth: 0, nodes: 1 } },
    { name: "an empty object", value: {}, shape: { depth: 0, nodes: 1 } },
    { name: "two levels", value: { a: [1] }, shape: { depth: 2, nodes: 3 } },
    {
      name: "too deep: the path of the first container at the limit",
      value: { a: { b: { c: { d: 1 } } } },
      shape: {
        depth: 3,
        nodes: 4,
        problem: { kind: "depth", path: ["a", "b", "c"], detail: msg.tooDeep(3) },
      },
    },
    {
      name: "too wide: an array's index in the path",
      value: { a: [1, [1, 2, 3]] },
      shape: {
        depth: 2,
        nodes: 4,
        problem: { kind: "width", path: ["a", 1], detail: msg.tooWide(3, 2) },
      },
    },
    {
      name: "too wide: the root itself",
      value: { a: 1, b: 2, c: 3 },
      shape: {
        depth: 0,
        nodes: 1,
        problem: { kind: "width", path: [], detail: msg.tooWide(3, 2) },
      },
    },
    {
      name: "too many values: no path",
      value: [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
      bounds: { maxDepth: 5, maxEntries: 5, maxNodes: 8 },
      shape: { depth: 2, nodes: 9, problem: { kind: "nodes", path: [], detail: msg.tooMany(8) } },
    },
    {
      name: "a __proto__ key, as JSON.parse makes it: reported before its value is visited",
      value: { a: protoKey({ deep: { deeper: { deepest: 1 } } }) },
      shape: {
        depth: 1,
        nodes: 2,
        problem: { kind: "key", path: ["a", "__proto__"], detail: msg.forbiddenKey("__proto__") },
      },
    },
    {
      name: "document order: the first problem in the text is the one reported",
      value: { a: { b: { c: { d: 1 } } }, z: [1, 2, 3] },
      shape: {
        depth: 3,
        nodes: 4,
        problem: { kind: "depth", path: ["a", "b", "c"], detail: msg.tooDeep(3) },
      },
    },
  ];
  for (const row of rows)
    it(row.name, () => {
      expect(measure(row.value, row.bounds ?? small)).to.deep.equal(row.shape);
    });
});

/**
 * The definition, recursively: values in document order (pre-order), an
 * object's or array's bounds checked when it is reached, a __proto__ key
 * refused before any value under its object is visited.
 */
function reference(value: unknown, bounds: Bounds): Shape {
  const maxNodes = bounds.maxNodes ?? Infinity;
  let depth = 0;
  let nodes = 0;
  const visit = (v: unknown, level: number, path: (string | number)[]): Problem | undefined => {
    nodes += 1;
    depth = Math.max(depth, level);
    if (nodes > maxNodes) return { kind: "nodes", path: [], detail: msg.tooMany(maxNodes) };
    if (typeof v !== "object" || v === null) return undefined;
    const entries: [string | number, unknown][] = Array.isArray(v)
      ? Array.from(v, (item: unknown, i) => [i, item])
      : Object.entries(v);
    if (level >= bounds.maxDepth)
      return { kind: "depth", path, detail: msg.tooDeep(bounds.maxDepth) };
    if (entries.length > bounds.maxEntries)
      return { kind: "width", path, detail: msg.tooWide(entries.length, bounds.maxEntries) };
    if (!Array.isArray(v) && Object.hasOwn(v, "__proto__"))
      return { kind: "key", path: [...path, "__proto__"], detail: msg.forbiddenKey("__proto__") };
    for (const [key, child] of entries) {
      const problem = visit(child, level + 1, [...path, key]);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
  const problem = visit(value, 0, []);
  return problem === undefined ? { depth, nodes } : { depth, nodes, problem };
}

describe("measure: generated values", () => {
  const key = fc.oneof(
    fc.constantFrom("a", "b", "__proto__", "constructor"),
    fc.string({ maxLength: 3 }),
  );
  const { tree } = fc.letrec((tie) => ({
    tree: fc.oneof(
      { depthSize: "medium" },
      fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.constant(null), fc.boolean()),
      tie("list"),
      tie("map"),
    ),
    list: fc.array(tie("tree"), { maxLength: 5 }),
    // Through JSON text, as every measured value arrives: a __proto__ key is an own key.
    map: fc
      .array(fc.tuple(key, tie("tree")), { maxLength: 5 })
      .map((pairs) =>
        JSON.parse(
          `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`,
        ),
      ),
  }));
  const bounds = fc.oneof(
    fc.constant(SPEC_BOUNDS),
    fc.record({
      maxDepth: fc.integer({ min: 0, max: 6 }),
      maxEntries: fc.integer({ min: 0, max: 6 }),
      maxNodes: fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constant(Infinity)),
    }),
  );
  it("the same shape, problem and path as the recursive definition", () => {
    fc.assert(
      fc.property(tree, bounds, (value, b) => {
        expect(measure(value, b)).to.deep.equal(reference(value, b));
      }),
      { numRuns: 2000, seed: 20261128 },
    );
  });
});
