// Memoizes config generation at the edge: Metacontroller re-syncs every parent
// periodically with unchanged input, so most calls repeat an earlier one. The
// key is an object-hash of the inputs that matter (the spec, the resolved
// distribution, env names, server settings); the catalog is fixed per process.
// The cache is bounded by the bytes its values hold, not by their count: one
// large config weighs as much as hundreds of small ones.
import hash from "object-hash";
import type { GenerateInput } from "../config/generate.js";

export interface MemoOptions<R> {
  /** Bytes the cached values may hold together. */
  maxBytes: number;
  /** What one value holds, roughly, in bytes. */
  sizeOf: (value: R) => number;
}

export interface Memoized<R> {
  (input: GenerateInput): R;
  /** Entries and bytes held now (for tests and the bench). */
  stats(): { entries: number; bytes: number };
}

export function memoize<R>(fn: (input: GenerateInput) => R, options: MemoOptions<R>): Memoized<R> {
  const cache = new Map<string, { value: R; bytes: number }>();
  let held = 0;
  const memo = (input: GenerateInput): R => {
    const key = hash(
      {
        spec: input.spec,
        distribution: input.distribution,
        env: input.userEnvNames,
        port: input.port ?? null,
        server: input.server ?? null,
      },
      { unorderedObjects: true, unorderedArrays: false, respectType: false },
    );
    const hit = cache.get(key);
    if (hit !== undefined) {
      cache.delete(key);
      cache.set(key, hit);
      return hit.value;
    }
    const value = fn(input);
    const bytes = options.sizeOf(value);
    // A value that would take more than an eighth of the cache is not kept.
    if (bytes * 8 > options.maxBytes) return value;
    cache.set(key, { value, bytes });
    held += bytes;
    for (const [oldest, entry] of cache) {
      if (held <= options.maxBytes) break;
      cache.delete(oldest);
      held -= entry.bytes;
    }
    return value;
  };
  memo.stats = () => ({ entries: cache.size, bytes: held });
  return memo;
}
