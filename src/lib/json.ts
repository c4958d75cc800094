// JSON values and small pure helpers over them.

export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `obj[key]` only if it is the object's own property: a user's key such as
 * `constructor` or `toString` must never find what every object inherits.
 */
export function own<T>(obj: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return obj !== undefined && Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** Only keys with a value: the API server drops empty fields, and what we return must match what it stores. */
export function defined<T extends object>(obj: { [K in keyof T]?: T[K] | undefined }): T {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as T;
}

/** A deep copy that shares nothing with its input. */
export function clone<T extends Json>(value: T): T {
  return structuredClone(value);
}

/**
 * Overlays `over` on `base`: objects merge key by key (recursively), anything
 * else in `over` replaces what `base` has. Neither input is modified.
 */
export function deepMerge(base: Json, over: Json): Json {
  if (!isObject(base) || !isObject(over)) return clone(over);
  const out: JsonObject = clone(base);
  for (const [key, value] of Object.entries(over)) {
    const prior = own(out, key);
    out[key] = prior === undefined ? clone(value) : deepMerge(prior, value);
  }
  return out;
}

/** `providers.inference[0].config` from path segments (zod's issue paths included). */
export function formatPath(segments: readonly PropertyKey[]): string {
  let out = "";
  for (const s of segments) {
    if (typeof s === "number") out += `[${s}]`;
    else out += out === "" ? String(s) : `.${String(s)}`;
  }
  return out;
}

/**
 * JSON with object keys sorted at every level (compareStrings' order): equal
 * values give equal text. Each object is rebuilt without a prototype, so a key
 * named __proto__ stays a key. JSON drops `undefined`; with `undefinedAs`, it
 * is written as that string instead, so a field set to undefined stays apart
 * from a missing one (for keys of in-memory values, never for written bytes).
 */
export function canonicalJson(value: unknown, undefinedAs?: string): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === undefined) return undefinedAs;
    if (typeof v !== "object" || v === null || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = Object.create(null);
    for (const [k, child] of Object.entries(v).sort(([a], [b]) => compareStrings(a, b)))
      sorted[k] = child;
    return sorted;
  });
}

/**
 * Orders strings by UTF-16 code unit, as Array.prototype.sort does: the same in
 * every process, unlike localeCompare, which follows the process's locale.
 */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
