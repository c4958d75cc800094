// The restore list: what a conversion loses, kept so that converting back
// gives the original again. It is the difference between the original object
// and what the mapping back would make of the converted one, as a list of
// entries "at path, the mapping back gives `was` (absent: nothing); the
// original had `value` (absent: nothing)". An entry is applied only while the
// object still has `was` there, so a field changed through the other version
// since keeps its new value.
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { measure, type Bounds } from "../api/bounds.js";
import { clone, formatPath, isObject, own, canonicalJson } from "../lib/json.js";
import type { Json, JsonObject } from "../lib/json.js";
import { getAt, type Segment } from "./json-path.js";

export interface RestoreEntry {
  path: Segment[];
  /** What the original had here; absent: nothing. */
  value?: Json;
  /** What the mapping back gives here; absent: nothing. */
  was?: Json;
}

const same = (a: Json | undefined, b: Json | undefined) =>
  a === undefined ? b === undefined : b !== undefined && isDeepStrictEqual(a, b);

const sortedUnion = (a: JsonObject, b: JsonObject) =>
  [...new Set([...Object.keys(a), ...Object.keys(b)])].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));

/**
 * The entries that turn `mapped` into `original`, in path order. Objects are
 * compared key by key, lists of the same length item by item; anything else
 * that differs is one entry. No entry's path is a prefix of another's.
 */
export function diffRestore(
  original: Json,
  mapped: Json | undefined,
  path: Segment[] = [],
  out: RestoreEntry[] = [],
): RestoreEntry[] {
  if (same(original, mapped)) return out;
  if (isObject(original) && isObject(mapped)) {
    for (const key of sortedUnion(original, mapped)) {
      const o = own(original, key);
      const m = own(mapped, key);
      if (o === undefined) out.push({ path: [...path, key], was: clone(m ?? null) });
      else diffRestore(o, m, [...path, key], out);
    }
    return out;
  }
  if (Array.isArray(original) && Array.isArray(mapped) && original.length === mapped.length) {
    original.forEach((item, i) => diffRestore(item, mapped[i], [...path, i], out));
    return out;
  }
  out.push({
    path,
    value: clone(original),
    ...(mapped === undefined ? {} : { was: clone(mapped) }),
  });
  return out;
}

/** Applies one entry in place; false when the object no longer has `was` there. */
function applyEntry(root: JsonObject, entry: RestoreEntry): boolean {
  const last = entry.path[entry.path.length - 1];
  const parent = getAt(root, entry.path.slice(0, -1));
  if (Array.isArray(parent) && typeof last === "number" && last < parent.length) {
    if (!same(parent[last], entry.was) || entry.value === undefined) return false;
    parent[last] = clone(entry.value);
    return true;
  }
  if (!isObject(parent) || typeof last !== "string") return false;
  if (!same(own(parent, last), entry.was)) return false;
  if (entry.value === undefined) delete parent[last];
  else parent[last] = clone(entry.value);
  return true;
}

/** `target` with the entries applied (a copy), and how many no longer applied. */
export function applyRestore(
  target: JsonObject,
  entries: readonly RestoreEntry[],
): { value: JsonObject; skipped: number } {
  const value = clone(target);
  let skipped = 0;
  for (const entry of entries) if (!applyEntry(value, entry)) skipped += 1;
  return { value, skipped };
}

/** The annotation text: the same entries always give the same bytes. */
export function encodeRestore(entries: readonly RestoreEntry[]): string {
  return canonicalJson(entries);
}

const JsonValue: z.ZodType<Json> = z.json();

function entrySchema(bounds: Bounds) {
  return z
    .strictObject({
      path: z
        .array(
          z.union([
            z.string().refine((s) => s !== "__proto__", "__proto__ is not a field"),
            z.number().int().min(0).max(bounds.maxEntries),
          ]),
        )
        .min(1)
        .max(bounds.maxDepth),
      value: JsonValue.optional(),
      was: JsonValue.optional(),
    })
    .refine((e) => e.value !== undefined || e.was !== undefined, "an entry needs value or was");
}

/** Reads an annotation written by encodeRestore; anything else is an error saying why. */
export function decodeRestore(
  text: string,
  bounds: Bounds,
): { entries: RestoreEntry[] } | { error: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { error: "not JSON" };
  }
  const shape = measure(parsed, bounds);
  if (shape.problem !== undefined)
    return { error: `${formatPath(shape.problem.path) || "the list"} ${shape.problem.detail}` };
  const result = z.array(entrySchema(bounds)).safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    const at = (issue?.path ?? []).filter((s) => typeof s !== "symbol");
    return { error: `${formatPath(at) || "the list"}: ${issue?.message ?? ""}` };
  }
  return {
    entries: result.data.map((e) => ({
      path: e.path,
      ...(e.value === undefined ? {} : { value: e.value }),
      ...(e.was === undefined ? {} : { was: e.was }),
    })),
  };
}

/** The kept values as one object (lists where a path steps into a list), for reading and sizing. */
export function treeOf(entries: readonly RestoreEntry[]): JsonObject {
  const root: JsonObject = {};
  for (const entry of entries) {
    if (entry.value === undefined) continue;
    let node: JsonObject | Json[] = root;
    entry.path.forEach((segment, i) => {
      const next = entry.path[i + 1];
      const existing = childOf(node, segment);
      if (next === undefined) assign(node, segment, clone(entry.value ?? null));
      else if (Array.isArray(existing) || isObject(existing)) node = existing;
      else node = assign(node, segment, typeof next === "number" ? [] : {});
    });
  }
  return root;
}

function childOf(node: JsonObject | Json[], segment: Segment): Json | undefined {
  if (Array.isArray(node)) return typeof segment === "number" ? node[segment] : undefined;
  return typeof segment === "string" ? own(node, segment) : undefined;
}

function assign<T extends Json>(node: JsonObject | Json[], segment: Segment, value: T): T {
  if (Array.isArray(node)) {
    if (typeof segment === "number") node[segment] = value;
  } else if (typeof segment === "string") node[segment] = value;
  return value;
}
