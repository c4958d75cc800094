// The worker pool the tests and the bench share: one per configuration for
// the whole run, made on first use, so that apps made alike share its workers
// and they start once. These pools are never closed: their workers keep no
// process alive. A test that closes its pool, or needs another catalog,
// makes its own with createPool.
import { CACHE_BYTES, generationCacheBytes } from "../../src/server/app.js";
import type { Catalog } from "../../src/config/catalog.js";
import { loadCatalog } from "../../src/edge/load-catalog.js";
import { createPool, type Pool } from "../../src/server/pool/index.js";
import { DEFAULT_POOL_LIMITS, type PoolLimits } from "../../src/server/pool/limits.js";

export interface TestPoolOptions {
  /** Default: DEFAULT_POOL_LIMITS. */
  limits?: PoolLimits;
  /** Metacontroller's server-side apply field manager (default "metacontroller"). */
  fieldManager?: string;
}

const pools = new Map<string, Pool>();
let catalog: Catalog | undefined;

/** The shared pool of these options, on the default catalog (loadCatalog()). */
export function testPool(options: TestPoolOptions = {}): Pool {
  const limits = options.limits ?? DEFAULT_POOL_LIMITS;
  const { fieldManager } = options;
  const key = JSON.stringify([limits, fieldManager ?? null]);
  let pool = pools.get(key);
  if (pool === undefined) {
    catalog ??= loadCatalog();
    pool = createPool({
      catalog,
      limits,
      cacheBytes: generationCacheBytes(CACHE_BYTES),
      ...(fieldManager === undefined ? {} : { fieldManager }),
    });
    pools.set(key, pool);
  }
  return pool;
}
