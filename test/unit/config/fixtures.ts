// Shared by the config table tests: the catalog, parsed base configs, specs.
import { LlamaStackDistributionSpec, type Spec } from "../../../src/api/schema.js";
import type { ReleaseData } from "../../../src/config/catalog.js";
import { dialectOf, type Dialect } from "../../../src/config/dialect.js";
import type { JsonObject } from "../../../src/lib/json.js";
import { baseConfigOf, toDocument, type StackConfig } from "../../../src/config/model.js";
import { syncContext } from "../../support/harness.js";

export const catalog = syncContext().catalog;

export function releaseData(release: string): ReleaseData {
  const data = catalog.byRelease[release];
  if (data === undefined) throw new Error(`no release ${release} in the catalog`);
  return data;
}

export function dialect(release: string): Dialect {
  return dialectOf(releaseData(release));
}

/** The parsed (frozen, shared) base config of a distribution. */
export function base(release: string, distribution = "starter"): StackConfig {
  const config = baseConfigOf(releaseData(release), distribution);
  if (config === undefined) throw new Error(`no ${distribution} on ${release}`);
  return config;
}

/** A spec as zod parses it (defaults applied); throws on an invalid one. */
export function spec(raw: Record<string, unknown>, release = "0.7.3"): Spec {
  return LlamaStackDistributionSpec.parse({
    distribution: { name: "starter", release },
    ...raw,
  });
}

/** The document of a config, for assertions. */
export function doc(config: StackConfig): JsonObject {
  return toDocument(config);
}

/** Whether `value` and everything in it is frozen. */
export function deeplyFrozen(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(deeplyFrozen);
}
