// Memoizes config generation at the edge: Metacontroller re-syncs every parent
// periodically with unchanged input, so most calls repeat an earlier one. The
// key is an object-hash of the inputs that matter (the spec, the resolved
// distribution, env names, server settings); the catalog is fixed per process.
import hash from "object-hash";
import type { GenerateInput } from "../config/generate.js";

export function memoize<R>(
  fn: (input: GenerateInput) => R,
  capacity: number,
): (input: GenerateInput) => R {
  const cache = new Map<string, R>();
  return (input) => {
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
      return hit;
    }
    const value = fn(input);
    cache.set(key, value);
    if (cache.size > capacity) cache.delete(cache.keys().next().value as string);
    return value;
  };
}
