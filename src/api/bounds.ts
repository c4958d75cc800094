// Bounds on the shape of a JSON value, checked without recursion before
// anything recursive (zod, the config merge, hashing, JSON.stringify) sees it.
// The API server stores any spec up to its request limit, and the free-form
// fields (provider settings, model metadata) have no depth bound a CRD can
// express, so depth and width are bounded here, with the path of the first
// value that is out of bounds.
import { msg } from "../messages.js";

export interface Bounds {
  /** Levels below the root (the root's own entries are level 1). */
  maxDepth: number;
  /** Entries of any one object or array. */
  maxEntries: number;
  /** Values in the whole tree (Infinity: no bound). */
  maxNodes?: number;
}

export interface Shape {
  depth: number;
  nodes: number;
  /** The first bound broken, with where. */
  problem?: {
    kind: "depth" | "width" | "nodes" | "key";
    path: (string | number)[];
    detail: string;
  };
}

/** Keys that JavaScript objects treat specially: refused wherever they appear. */
const FORBIDDEN_KEYS = new Set(["__proto__"]);

/** The spec of a LlamaStackDistribution (docs/guide/resource.md). */
export const SPEC_BOUNDS: Bounds = { maxDepth: 32, maxEntries: 1024, maxNodes: 50_000 };

/** Why a container at `level` with `count` entries is out of bounds, before its entries are visited. */
function refusal(
  count: number,
  level: number,
  bounds: Bounds,
): Omit<NonNullable<Shape["problem"]>, "path"> | undefined {
  if (level >= bounds.maxDepth) return { kind: "depth", detail: msg.tooDeep(bounds.maxDepth) };
  if (count > bounds.maxEntries)
    return { kind: "width", detail: msg.tooWide(count, bounds.maxEntries) };
  return undefined;
}

/**
 * Depth, size and the first out-of-bounds value of `value`, iteratively, in
 * document order. It runs on every request (the spec, each record of what was
 * applied), so it builds nothing per value: four parallel stacks, and a path
 * only for the one value reported.
 */
export function measure(value: unknown, bounds: Bounds): Shape {
  const maxNodes = bounds.maxNodes ?? Infinity;
  // Each entry: the value, its depth, and the index of its parent entry with its key.
  const values: unknown[] = [value];
  const depths: number[] = [0];
  const parents: number[] = [-1];
  const keys: (string | number)[] = [""];
  const pathOf = (index: number): (string | number)[] => {
    const path: (string | number)[] = [];
    for (let i = index; i > 0; i = parents[i] ?? 0) path.push(keys[i] ?? "");
    return path.reverse();
  };
  const visit = (child: unknown, level: number, parent: number, key: string | number): number => {
    const index = values.length;
    values.push(child);
    depths.push(level);
    parents.push(parent);
    keys.push(key);
    return index;
  };
  let depth = 0;
  let nodes = 0;
  const stack = [0];
  for (let index = stack.pop(); index !== undefined; index = stack.pop()) {
    const current = values[index];
    const level = depths[index] ?? 0;
    nodes += 1;
    if (level > depth) depth = level;
    if (nodes > maxNodes)
      return { depth, nodes, problem: { kind: "nodes", path: [], detail: msg.tooMany(maxNodes) } };
    if (typeof current !== "object" || current === null) continue;
    // Entries are pushed last first, so that they are visited in order.
    if (Array.isArray(current)) {
      const refused = refusal(current.length, level, bounds);
      if (refused !== undefined)
        return { depth, nodes, problem: { ...refused, path: pathOf(index) } };
      for (let i = current.length - 1; i >= 0; i--)
        stack.push(visit(current[i], level + 1, index, i));
      continue;
    }
    const names = Object.keys(current);
    const refused = refusal(names.length, level, bounds);
    if (refused !== undefined)
      return { depth, nodes, problem: { ...refused, path: pathOf(index) } };
    for (let i = names.length - 1; i >= 0; i--) {
      const key = names[i] ?? "";
      const childIndex = visit((current as Record<string, unknown>)[key], level + 1, index, key);
      if (FORBIDDEN_KEYS.has(key)) {
        const problem = {
          kind: "key" as const,
          path: pathOf(childIndex),
          detail: msg.forbiddenKey(key),
        };
        return { depth, nodes, problem };
      }
      stack.push(childIndex);
    }
  }
  return { depth, nodes };
}
