// The edge's caches. Metacontroller re-syncs every parent periodically with
// unchanged input, so most calls repeat an earlier one. Three tiers share one
// budget of bytes (CACHE_MIB), bounded by what the values hold, not by their
// count (one large config weighs as much as hundreds of small ones), least
// recently used first out:
//   - the spec's plan (return-children.ts, planSpec: the resolution and the
//     children), keyed by the sha256 of the JSON text of everything it reads
//     of the request (observe.ts, SpecInputs), docs/adr/0009: it serves
//     requests whose observed children or status changed but whose spec and
//     references did not, the usual reason the whole response is not cached;
//   - config generation, keyed by the object-hash (sha256) of the inputs that
//     matter (the spec, the resolved distribution, env names, server settings,
//     a custom image's base config text), docs/adr/0009:
//     it serves requests whose plan changed but whose config did not;
//   - whole sync responses, keyed by the request's bytes (./responses.ts).
// The catalog and the app's options are fixed per process, so neither is in a key.
import { createHash } from "node:crypto";
import objectHash from "object-hash";
import type { GenerateInput } from "../config/generate.js";
import type { KubeObject } from "../api/hook.js";
import { KEYED_DATA_FIELDS } from "../api/object-data.js";
import { freezeAndCount, isObject, type Frozen } from "../lib/json.js";
import type { SpecInputs } from "../observe.js";
import type { SpecPlan } from "../return-children.js";

interface CacheStats {
  entries: number;
  bytes: number;
}

/** One tier's figures: held now, and lookups since the cache was made (for /metrics). */
export interface TierStats extends CacheStats {
  hits: number;
  misses: number;
}

/** One tier of a ByteCache: its own keys, values of one type. */
export interface CacheTier<V> {
  get(key: string): V | undefined;
  /** Keeps the value unless it would take more than an eighth of the budget. */
  set(key: string, value: V, bytes: number): void;
  /** Entries and bytes this tier holds now. */
  held(): CacheStats;
}

export interface ByteCache {
  /**
   * A tier whose keys cannot meet another tier's; with `maxBytes`, its own
   * entries beyond that many bytes go first (least recently used first), so
   * that the other tiers keep the rest of the budget.
   */
  tier<V>(name: string, maxBytes?: number): CacheTier<V>;
  /** Entries and bytes held now, across tiers (for tests and the bench). */
  stats(): CacheStats;
  /** Each tier's figures, by tier name (for /metrics). */
  tierStats(): Record<string, TierStats>;
  /** The budget all tiers share. */
  readonly maxBytes: number;
}

/** A least-recently-used cache bounded by the bytes its values hold together. */
export function byteCache(maxBytes: number): ByteCache {
  // Map keeps insertion order: re-inserting on a hit makes the first entry the oldest.
  const entries = new Map<string, { value: unknown; bytes: number; stats: TierStats }>();
  const tiers = new Map<string, TierStats>();
  let held = 0;
  const drop = (id: string, entry: { bytes: number; stats: TierStats }) => {
    entries.delete(id);
    held -= entry.bytes;
    entry.stats.bytes -= entry.bytes;
    entry.stats.entries -= 1;
  };
  const tier = <V>(name: string, tierMax = maxBytes): CacheTier<V> => {
    const stats = tiers.get(name) ?? { entries: 0, bytes: 0, hits: 0, misses: 0 };
    tiers.set(name, stats);
    return {
      get(key) {
        const id = `${name}\0${key}`;
        const hit = entries.get(id);
        if (hit === undefined) {
          stats.misses += 1;
          return undefined;
        }
        stats.hits += 1;
        entries.delete(id);
        entries.set(id, hit);
        // Only this tier's set() stores under its prefix, always a V.
        return hit.value as V;
      },
      set(key, value, bytes) {
        if (bytes * 8 > tierMax) return;
        const id = `${name}\0${key}`;
        const old = entries.get(id);
        if (old !== undefined) drop(id, old);
        entries.set(id, { value, bytes, stats });
        held += bytes;
        stats.bytes += bytes;
        stats.entries += 1;
        for (const [oldest, entry] of entries) {
          if (stats.bytes <= tierMax) break;
          if (entry.stats === stats) drop(oldest, entry);
        }
        for (const [oldest, entry] of entries) {
          if (held <= maxBytes) break;
          drop(oldest, entry);
        }
      },
      held: () => ({ entries: stats.entries, bytes: stats.bytes }),
    };
  };
  const tierStats = () =>
    Object.fromEntries([...tiers].map(([name, stats]) => [name, { ...stats }]));
  return { tier, stats: () => ({ entries: entries.size, bytes: held }), tierStats, maxBytes };
}

export type MemoOptions<R> = {
  /** What one value holds, roughly, in bytes. */
  sizeOf: (value: R) => number;
} & (
  | { /** A cache shared with other tiers. */ cache: ByteCache }
  | { /** Bytes a cache of its own may hold. */ maxBytes: number }
);

export interface Memoized<R> {
  (input: GenerateInput): R;
  /** Entries and bytes held now by its cache (all tiers, when shared). */
  stats(): CacheStats;
}

/**
 * What a -0 is written as in a key: object-hash writes a number as its
 * toString(), "0" for -0 too, where the config's YAML says `-0`; a spec with
 * one would have been answered with the generation of the spec with 0 in its
 * place. No JSON value writes as a symbol.
 */
const NEGATIVE_ZERO = Symbol("-0");
const NEGATIVE_ZERO_TEXT = `symbol:${NEGATIVE_ZERO.toString()}`;

/**
 * object-hash's options for a key: keys in any order, lists in theirs, each
 * value's type written (a string is not a number, a field set to undefined is
 * not a missing one, -0 is not 0), and no prototypes (the inputs are parsed
 * JSON). An object reached twice is hashed as a repeat, not as its value: the
 * inputs must stay trees (docs/adr/0009).
 */
export const GENERATION_KEY_HASH = {
  algorithm: "sha256",
  encoding: "base64",
  respectType: false,
  unorderedArrays: false,
  unorderedObjects: true,
  replacer: (value: unknown): unknown => (Object.is(value, -0) ? NEGATIVE_ZERO : value),
} as const;

/**
 * The same text object-hash feeds its hash, written once: sha256 of it is the
 * key objectHash(inputs, GENERATION_KEY_HASH) gives, without one hash update per token (on the
 * large spec that was a quarter of a sync's time; docs/adr/0009).
 */
const SERIALIZE = { ...GENERATION_KEY_HASH, algorithm: "passthrough" } as const;

/** Thrown inside keyText by what it leaves to object-hash. */
const NOT_JSON = Symbol("not a JSON tree");

/** keyText's walk: appends object-hash's text of `value` to `out`, or throws NOT_JSON. */
function writeKeyText(value: unknown, seen: Set<object>, out: string[]): void {
  if (value === null) return void out.push("Null");
  switch (typeof value) {
    case "undefined":
      return void out.push("Undefined");
    case "boolean":
      return void out.push(value ? "bool:true" : "bool:false");
    case "number":
      return void out.push(
        Object.is(value, -0) ? NEGATIVE_ZERO_TEXT : `number:${value.toString()}`,
      );
    case "string":
      return void out.push(`string:${value.length}:`, value);
    case "object":
      break;
    default:
      throw NOT_JSON;
  }
  // object-hash writes an object reached a second time as a repeat; its own class by its tag.
  if (seen.has(value)) throw NOT_JSON;
  seen.add(value);
  const tag = Object.prototype.toString.call(value);
  if (tag === "[object Array]" && Array.isArray(value)) {
    out.push(`array:${value.length}:`);
    for (let i = 0; i < value.length; i++) {
      // A hole is skipped by object-hash's forEach: not a JSON list.
      if (!Object.hasOwn(value, i)) throw NOT_JSON;
      writeKeyText(value[i], seen, out);
    }
    return;
  }
  if (tag !== "[object Object]") throw NOT_JSON;
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object).sort();
  out.push(`object:${keys.length}:`);
  for (const key of keys) {
    out.push(`string:${key.length}:`, key, ":");
    writeKeyText(object[key], seen, out);
    out.push(",");
  }
}

/**
 * The text objectHash(value, SERIALIZE) gives, written in one walk for a tree
 * of JSON values (what the key's inputs are); anything else (another kind of
 * object, one object reached twice, a list with holes) is left to object-hash,
 * whose walk (per value: a dispatch by type name, a regular expression, a
 * lookup among every object seen) took about twice as long (docs/adr/0009).
 */
export function keyText(value: unknown): string {
  const out: string[] = [];
  try {
    writeKeyText(value, new Set(), out);
  } catch (err) {
    if (err !== NOT_JSON) throw err;
    return objectHash(value as object, SERIALIZE);
  }
  return out.join("");
}

/** The key of a generation: what generateConfig reads besides the fixed catalog. */
export function generationKey(input: GenerateInput): string {
  const inputs = {
    spec: input.spec,
    distribution: input.distribution,
    env: input.userEnvNames,
    port: input.port ?? null,
    server: input.server ?? null,
    // A custom image's base config: its text is read, not only its name.
    base: input.base ?? null,
  };
  return createHash("sha256")
    .update(utf8Exact(keyText(inputs)), "utf8")
    .digest("base64");
}

/**
 * What the hook reads of a Secret (resolve.ts): its name, resourceVersion and
 * keys, never a value, which is left out of the key so that none is written
 * into its text.
 */
function secretKeyTree(secret: KubeObject): unknown {
  const keysOf = (field: string) => {
    const section = secret[field];
    return isObject(section) ? Object.keys(section) : null;
  };
  const { name, resourceVersion } = secret.metadata;
  return [name, resourceVersion ?? null, ...KEYED_DATA_FIELDS.map(keysOf)];
}

/**
 * The inputs of a spec's plan as a tree of JSON values: all of them (planSpec
 * reads nothing else), the related objects' maps as their values (in the
 * order observe.ts made them, which their names fix), each Secret as what is
 * read of it.
 */
function planKeyTree(inputs: SpecInputs): unknown {
  const { related, ...rest } = inputs;
  const secrets = [...related.secrets.values()].map(secretKeyTree);
  return { ...rest, secrets, configMaps: [...related.configMaps.values()] };
}

/**
 * The largest inputs a plan is kept for: keying costs time in their size,
 * which a request's related objects can make 100,000s of values its plan never
 * reads, and JSON.stringify recurses. A real plan's inputs are a spec within
 * its bounds (api/bounds.ts: 32 deep, 1,024 entries an object, 50,000 values),
 * a claim and a few related objects of a few keys each.
 */
const PLAN_KEY_BOUNDS = { maxDepth: 64, maxEntries: 1024, maxNodes: 60_000 };

/**
 * Whether JSON.stringify writes `tree` as only it: within PLAN_KEY_BOUNDS, of
 * plain objects and arrays only (it writes a Map as `{}`), without a -0 (it
 * writes `0`, where the config's YAML says `-0`) and without a `__proto__` key.
 * One walk, without recursion, stopped at the first value that fails.
 */
function keyable(tree: unknown): boolean {
  const { maxDepth, maxEntries, maxNodes } = PLAN_KEY_BOUNDS;
  const stack: { value: unknown; depth: number }[] = [{ value: tree, depth: 0 }];
  for (let nodes = 0, top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { value, depth } = top;
    if (++nodes > maxNodes) return false;
    if (typeof value === "number" && Object.is(value, -0)) return false;
    if (typeof value !== "object" || value === null) continue;
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== Array.prototype) return false;
    const keys = Object.keys(value);
    if (depth >= maxDepth || keys.length > maxEntries) return false;
    for (const key of keys) {
      if (key === "__proto__") return false;
      stack.push({ value: Reflect.get(value, key), depth: depth + 1 });
    }
  }
  return true;
}

/**
 * The key of a spec's plan: sha256 of its inputs' JSON text, or undefined when
 * they are not kept (not keyable). Unlike a generation's key it reads the
 * order of keys: the same spec written in another order is another entry
 * (Metacontroller sends one parent in one order), never another's answer. The
 * text escapes a lone surrogate, so its UTF-8 is exact.
 */
export function specPlanKey(inputs: SpecInputs): string | undefined {
  const tree = planKeyTree(inputs);
  if (!keyable(tree)) return undefined;
  return createHash("sha256").update(JSON.stringify(tree), "utf8").digest("base64");
}

/**
 * `text` when UTF-8 holds it exactly; otherwise (a lone surrogate, which only a
 * JSON escape makes: UTF-8 would write U+FFFD for each, so "\ud800", "\udc00"
 * and "\ufffd" would share a key) its JSON text, behind a NUL that object-hash's
 * text never starts with (docs/adr/0009).
 */
function utf8Exact(text: string): string {
  return text.isWellFormed() ? text : `\0${JSON.stringify(text)}`;
}

/**
 * What a kept plan holds, in bytes, from what freezing it counted: its
 * strings at two bytes a character and its children's JSON texts
 * (server/handle.ts) at one, 64 bytes a container (the canonical forms,
 * children/canonical.ts, repeat its children's) and 32 a member. On Node.js 24
 * a typical plan held 80 KiB (counted: 85), a large one (20 providers, 200
 * models) 187 KiB (counted: 253).
 */
function planBytes(frozen: Frozen): number {
  return 1024 + 3 * frozen.chars + 64 * frozen.containers + 32 * frozen.members;
}

/** How many keys met and not kept memoizePlans remembers (about 100 bytes each). */
const SEEN_KEYS = 1024;

/**
 * planSpec memoized in `cache`'s "plan" tier. A plan is shared by every request
 * with the same inputs, so it is frozen before it is kept: a rung that tried to
 * change it would throw rather than change another request's answer.
 *
 * A plan is kept when its key is met again soon enough that, kept, it would
 * have been there: within as many lookups as the tier holds plans (its budget
 * over the mean size of the plans it holds). A key met once (a new spec) and
 * a key met again only after the tier has turned over (a fleet far larger than
 * the tier, each parent's resync a cycle apart) are planned and not kept:
 * keeping them would cost the freezing, and evict a plan or a generation met
 * again sooner, for no hit (docs/adr/0017-worker-pool.md).
 */
export function memoizePlans(
  fn: (inputs: SpecInputs) => SpecPlan,
  cache: ByteCache,
): (inputs: SpecInputs) => SpecPlan {
  // A quarter of the budget at most: a generation saves more time for its bytes (ADR 9).
  const budget = cache.maxBytes / 4;
  const plans = cache.tier<SpecPlan>("plan", budget);
  // Keys met and not kept, each with the lookup it was last met at, oldest first.
  const seen = new Map<string, number>();
  let lookups = 0;
  return (inputs) => {
    const key = specPlanKey(inputs);
    // Not keyable (too large, a -0, a __proto__ key): planned afresh, never kept.
    if (key === undefined) return fn(inputs);
    lookups += 1;
    const hit = plans.get(key);
    if (hit !== undefined) return hit;
    const last = seen.get(key);
    seen.delete(key);
    // How many plans the tier holds, at the mean size of those it holds (none: no limit).
    const held = plans.held();
    const reach = held.entries === 0 ? Infinity : (budget * held.entries) / held.bytes;
    if (last === undefined || lookups - last > reach) {
      seen.set(key, lookups);
      for (const oldest of seen.keys()) {
        if (seen.size <= SEEN_KEYS) break;
        seen.delete(oldest);
      }
      return fn(inputs);
    }
    const value = fn(inputs);
    plans.set(key, value, planBytes(freezeAndCount(value)));
    return value;
  };
}

export function memoize<R>(fn: (input: GenerateInput) => R, options: MemoOptions<R>): Memoized<R> {
  const cache = "cache" in options ? options.cache : byteCache(options.maxBytes);
  const generations = cache.tier<R>("generation");
  const memo = (input: GenerateInput): R => {
    const key = generationKey(input);
    const hit = generations.get(key);
    if (hit !== undefined) return hit;
    const value = fn(input);
    generations.set(key, value, options.sizeOf(value));
    return value;
  };
  memo.stats = () => cache.stats();
  return memo;
}
