// Small helpers to read and build JSON objects by path. Reads never throw and
// only see own properties; writes are for objects the conversion is building.
import { isObject, own, type Json, type JsonObject } from "../lib/json.js";

export type Segment = string | number;
type Path = readonly Segment[];

/** `spec.server.containerSpec.port` → its segments. */
export function pathOf(dotted: string): string[] {
  return dotted.split(".");
}

/** The value at `path`, or undefined when a step is missing or not a container of the right kind. */
export function getAt(root: Json | undefined, path: Path): Json | undefined {
  let node = root;
  for (const segment of path) {
    if (typeof segment === "number") {
      if (!Array.isArray(node) || segment >= node.length) return undefined;
      node = node[segment];
    } else {
      if (!isObject(node)) return undefined;
      node = own(node, segment);
    }
    if (node === undefined) return undefined;
  }
  return node;
}

/** The object at `path`, created (and replacing anything that is not an object) on the way. */
export function ensureAt(root: JsonObject, path: readonly string[]): JsonObject {
  let node = root;
  for (const segment of path) {
    const next = own(node, segment);
    if (isObject(next)) {
      node = next;
    } else {
      const made: JsonObject = {};
      node[segment] = made;
      node = made;
    }
  }
  return node;
}

/** Sets `value` at `path`, creating objects on the way. */
export function setAt(root: JsonObject, path: readonly string[], value: Json): void {
  const last = path[path.length - 1];
  if (last === undefined) return;
  ensureAt(root, path.slice(0, -1))[last] = value;
}

/** Removes the value at `path`, and every object on the way that is left empty. */
export function deleteAt(root: JsonObject, path: readonly string[]): void {
  const parents: JsonObject[] = [root];
  for (const segment of path.slice(0, -1)) {
    const next = own(parents[parents.length - 1] ?? {}, segment);
    if (!isObject(next)) return;
    parents.push(next);
  }
  for (let i = path.length - 1; i >= 0; i--) {
    const parent = parents[i];
    const key = path[i];
    if (parent === undefined || key === undefined) return;
    delete parent[key];
    if (i > 0 && Object.keys(parent).length > 0) return;
  }
}
