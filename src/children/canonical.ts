// Children in one fixed form (cdk8s style): apiVersion, kind, metadata first,
// every other key sorted, list order kept. Identical input gives identical
// bytes, whatever the key order of the user's objects (env, nodeSelector, ...).
import { isObject } from "../lib/json.js";

const HEAD = ["apiVersion", "kind", "metadata"];
const METADATA_HEAD = ["name", "namespace"];

function sortedKeys(keys: string[], head: readonly string[]): string[] {
  return [...head.filter((k) => keys.includes(k)), ...keys.filter((k) => !head.includes(k)).sort()];
}

function canonical(value: unknown, head: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((v) => canonical(v, []));
  if (!isObject(value)) return value;
  // fromEntries defines each key as its own property, __proto__ included.
  return Object.fromEntries(
    sortedKeys(Object.keys(value), head).flatMap((key) => {
      const child = value[key];
      if (child === undefined) return [];
      return [[key, canonical(child, key === "metadata" ? METADATA_HEAD : [])]];
    }),
  );
}

/** The same object with its keys in canonical order (a reordering keeps its type). */
export function canonicalObject<T extends object>(obj: T): T {
  return canonical(obj, HEAD) as T;
}
