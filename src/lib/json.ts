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

/**
 * `value` with every object and array in it frozen, itself included: a value
 * shared between requests (a memo's) cannot be changed by one of them, and a
 * change attempted throws (modules run in strict mode). An object frozen
 * already is not walked again: src/ freezes with this function only (the
 * dialect's functions and a Map's entries aside), so a frozen object is frozen
 * all the way down, which caches keyed by a frozen child's identity rely on
 * (children/canonical.ts, server/handle.ts).
 */
export function deepFreeze<T>(value: T): T {
  freezeAndCount(value);
  return value;
}

/** What deepFreeze froze: containers, their members, and the characters of the strings among those. */
export interface Frozen {
  containers: number;
  members: number;
  chars: number;
}

/** deepFreeze, counting what it froze (what a cache's entry holds beyond what was frozen before). */
export function freezeAndCount(value: unknown): Frozen {
  const counts = { containers: 0, members: 0, chars: 0 };
  // A stack, not recursion: a value as deep as its bounds allow must not overflow the call stack.
  const stack: unknown[] = [value];
  for (let v = stack.pop(); stack.length > 0 || v !== undefined; v = stack.pop()) {
    if (typeof v === "string") counts.chars += v.length;
    if (typeof v !== "object" || v === null || Object.isFrozen(v)) continue;
    Object.freeze(v);
    counts.containers += 1;
    for (const member of Object.values(v)) {
      counts.members += 1;
      stack.push(member);
    }
  }
  return counts;
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

/**
 * Whether two values have the same canonicalJson (undefinedAs left out),
 * found by one walk that stops at the first difference and builds nothing:
 * keys in any order, a member that JSON leaves out (undefined, a function, a
 * symbol) the same as a missing one, a non-finite number the same as null. A
 * value JSON.stringify would change first (toJSON, a boxed primitive, a
 * bigint) is compared by its canonicalJson instead.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const same = sameJson(a, b);
  return same === UNSURE ? canonicalJson(a) === canonicalJson(b) : same === SAME;
}

const SAME = 0;
const DIFFERENT = 1;
const UNSURE = 2;
type Sameness = typeof SAME | typeof DIFFERENT | typeof UNSURE;

/** What JSON writes for a member or an item: nothing (undefined), null for a non-finite number, else the value. */
function asJson(value: unknown): unknown {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "function" || typeof value === "symbol") return undefined;
  return value;
}

/** A value JSON.stringify writes as something else than itself, or its own members and items. */
export function rewritten(value: unknown): boolean {
  if (typeof value === "bigint") return true;
  if (typeof value !== "object" || value === null) return false;
  return (
    typeof (value as { toJSON?: unknown }).toJSON === "function" ||
    value instanceof Number ||
    value instanceof String ||
    value instanceof Boolean ||
    value instanceof BigInt
  );
}

function sameJson(x: unknown, y: unknown): Sameness {
  const a = asJson(x);
  const b = asJson(y);
  if (rewritten(a) || rewritten(b)) return UNSURE;
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null)
    return a === b ? SAME : DIFFERENT;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return DIFFERENT;
    for (let i = 0; i < a.length; i++) {
      // An item JSON leaves out is written as null.
      const item = sameJson(asJson(a[i]) ?? null, asJson(b[i]) ?? null);
      if (item !== SAME) return item;
    }
    return SAME;
  }
  return sameMembers(a as Record<string, unknown>, b as Record<string, unknown>);
}

function sameMembers(a: Record<string, unknown>, b: Record<string, unknown>): Sameness {
  let written = 0;
  for (const key of Object.keys(a)) {
    if (asJson(a[key]) === undefined) continue;
    written++;
    if (!Object.prototype.propertyIsEnumerable.call(b, key)) return DIFFERENT;
    const member = sameJson(a[key], b[key]);
    if (member !== SAME) return member;
  }
  // Every member a writes is in b, equal: b must write no other.
  for (const key of Object.keys(b)) if (asJson(b[key]) !== undefined) written--;
  return written === 0 ? SAME : DIFFERENT;
}

const NO_HEAD: readonly string[] = [];

/**
 * A copy with object keys in one order at every level, so that equal objects
 * give equal bytes: the keys in `head` first (in that order) at the top, the
 * keys in `headOf(key)` first in an object that is member `key` of another,
 * then the rest by code unit. Undefined members are left out; list order is
 * kept. A `__proto__` key stays an own key.
 */
export function orderKeys(
  value: unknown,
  head: readonly string[],
  headOf: (key: string) => readonly string[] = () => NO_HEAD,
): unknown {
  if (Array.isArray(value)) return value.map((v) => orderKeys(v, NO_HEAD, headOf));
  if (!isObject(value)) return value;
  const keys = Object.keys(value);
  const out: Record<string, unknown> = {};
  for (const key of head) if (keys.includes(key)) putOrdered(out, value, key, headOf);
  const rest = head.length === 0 ? keys : keys.filter((k) => !head.includes(k));
  // sort()'s own order is compareStrings' (code units), without a call per comparison.
  for (const key of rest.sort()) putOrdered(out, value, key, headOf);
  return out;
}

/** Member `key` of `from` with its keys ordered, set on `out`; left out when undefined. */
function putOrdered(
  out: Record<string, unknown>,
  from: JsonObject,
  key: string,
  headOf: (key: string) => readonly string[],
): void {
  const child = from[key];
  if (child === undefined) return;
  const ordered = orderKeys(child, headOf(key), headOf);
  // An assignment to __proto__ would set the prototype instead of a key.
  if (key === "__proto__")
    Object.defineProperty(out, key, {
      value: ordered,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else out[key] = ordered;
}

/** What scanJson tells of JSON text without parsing it. */
export interface JsonScan {
  /** It holds more than the values asked for. */
  tooMany: boolean;
  /** The string at each path asked for (object keys from the root), the last one written, as JSON.parse reads it. */
  found: (string | undefined)[];
}

/** A string token: its text, when short enough to be a key asked for or a value wanted. */
function stringAt(text: string, start: number, end: number, longest: number): string | undefined {
  if (end - start > longest) return undefined;
  try {
    return JSON.parse(text.slice(start, end + 1)) as string;
  } catch {
    return undefined;
  }
}

export interface JsonScanOptions {
  /** Values it may hold (default: no bound). */
  maxValues?: number;
  /** Paths of object keys from the root whose strings are wanted. */
  paths?: readonly (readonly string[])[];
  /** Stop where the value of this key of the root object ends (what follows is not walked). */
  stopAfter?: string;
}

/**
 * Walks JSON text once, without building it: whether it holds more than
 * `maxValues` values (every value but the outermost follows a `:` in an
 * object, or a `[` or `,` in an array; an empty `[]` counts one too many;
 * it stops at the bound), and the strings at `paths` of short keys. Linear.
 * Text that is not JSON is walked all the same; the parser refuses it later.
 */
export function scanJson(text: string, options: JsonScanOptions): JsonScan {
  const { maxValues = Infinity, paths = [], stopAfter } = options;
  const found: (string | undefined)[] = paths.map(() => undefined);
  const deepest = Math.max(stopAfter === undefined ? 0 : 1, ...paths.map((p) => p.length));
  let values = 1;
  if (values > maxValues && text.trim() !== "") return { tooMany: true, found };
  // Per open container, innermost at depth - 1: whether it is an array, and an object's current key.
  let arrays = new Uint8Array(256);
  const keys: (string | undefined)[] = [];
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) i++;
        else if (d === 0x22) break;
      }
      if (depth === 0 || depth > deepest) continue;
      if (expectKey) keys[depth - 1] = stringAt(text, start, i, 256);
      else if (depth === deepest)
        for (const [n, path] of paths.entries())
          if (path.length === depth && path.every((k, level) => keys[level] === k))
            found[n] = stringAt(text, start, i, 4096);
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (depth === arrays.length) {
        const grown = new Uint8Array(arrays.length * 2);
        grown.set(arrays);
        arrays = grown;
      }
      arrays[depth] = c === 0x5b ? 1 : 0;
      if (depth < deepest) keys[depth] = undefined;
      depth++;
      expectKey = c === 0x7b;
      if (c === 0x5b && ++values > maxValues) return { tooMany: true, found };
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      if (depth === 1 && stopAfter !== undefined && keys[0] === stopAfter) break;
      if (depth > 0) depth--;
      expectKey = false;
    } else if (c === 0x3a /* : */) {
      expectKey = false;
      if (++values > maxValues) return { tooMany: true, found };
    } else if (c === 0x2c /* , */ && depth > 0) {
      if (depth === 1 && stopAfter !== undefined && keys[0] === stopAfter) break;
      const inArray = arrays[depth - 1] === 1;
      expectKey = !inArray;
      if (inArray && ++values > maxValues) return { tooMany: true, found };
    }
  }
  return { tooMany: false, found };
}
