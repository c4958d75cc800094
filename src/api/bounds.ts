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

/** The spec of a LlamaStackDistribution (README "Limits"). */
export const SPEC_BOUNDS: Bounds = { maxDepth: 32, maxEntries: 1024, maxNodes: 50_000 };

/** Depth, size and the first out-of-bounds value of `value`, iteratively. */
export function measure(value: unknown, bounds: Bounds): Shape {
  const maxNodes = bounds.maxNodes ?? Infinity;
  // Each stack entry: the value, its depth and the index of its parent entry with its key,
  // so a path is only built for the one value reported.
  const values: unknown[] = [value];
  const depths: number[] = [0];
  const parents: number[] = [-1];
  const keys: (string | number)[] = [""];
  const pathOf = (index: number): (string | number)[] => {
    const path: (string | number)[] = [];
    for (let i = index; i > 0; i = parents[i] ?? 0) path.push(keys[i] ?? "");
    return path.reverse();
  };
  let depth = 0;
  let nodes = 0;
  const stack = [0];
  while (stack.length > 0) {
    const index = stack.pop() as number;
    const current = values[index];
    const level = depths[index] ?? 0;
    nodes += 1;
    if (level > depth) depth = level;
    if (nodes > maxNodes)
      return { depth, nodes, problem: { kind: "nodes", path: [], detail: msg.tooMany(maxNodes) } };
    if (typeof current !== "object" || current === null) continue;
    if (level >= bounds.maxDepth)
      return {
        depth,
        nodes,
        problem: { kind: "depth", path: pathOf(index), detail: msg.tooDeep(bounds.maxDepth) },
      };
    const isArray = Array.isArray(current);
    const names = isArray ? [] : Object.keys(current);
    const count = isArray ? current.length : names.length;
    if (count > bounds.maxEntries)
      return {
        depth,
        nodes,
        problem: {
          kind: "width",
          path: pathOf(index),
          detail: msg.tooWide(count, bounds.maxEntries),
        },
      };
    for (let i = count - 1; i >= 0; i--) {
      const key: string | number = isArray ? i : (names[i] as string);
      const child: unknown = (current as Record<string | number, unknown>)[key];
      const childIndex = values.length;
      values.push(child);
      depths.push(level + 1);
      parents.push(index);
      keys.push(key);
      if (typeof key === "string" && FORBIDDEN_KEYS.has(key))
        return {
          depth,
          nodes,
          problem: { kind: "key", path: pathOf(childIndex), detail: msg.forbiddenKey(key) },
        };
      stack.push(childIndex);
    }
  }
  return { depth, nodes };
}
