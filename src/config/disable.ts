// Disabling (SPEC §4.5): whole APIs (spec.disabled) and base providers by id
// (spec.disabledProviders) leave the config together with everything that
// points at them — registered resources, vector store and safety defaults.
// Removing an API another enabled API needs is an error naming both.
import { specKeyOf } from "../api/llama-apis.js";
import { msg } from "../messages.js";
import { problem, Reason, type Problem } from "../problems.js";
import type { ReleaseData } from "./catalog.js";
import { isObject, type JsonObject } from "./json.js";
import { effectiveId } from "./providers.js";

/** Which API's providers each registered_resources list points at. */
export const RESOURCE_API: Record<string, string> = {
  models: "inference",
  shields: "safety",
  vector_stores: "vector_io",
  vector_dbs: "vector_io",
  datasets: "datasetio",
  scoring_fns: "scoring",
  benchmarks: "eval",
  tool_groups: "tool_runtime",
};

export interface RemovalInput {
  /** snake_case APIs from spec.disabled, with their index. */
  disabledApis: { api: string; index: number }[];
  /** spec.disabledProviders, with their index. */
  disabledProviders: { id: string; index: number }[];
  distribution: string;
}

interface Removed {
  api: string;
  id: string;
  /** What removed it: spec.disabled[i] or spec.disabledProviders[j]. */
  by: string;
}

/** Applies spec.disabled and spec.disabledProviders to a config (a private copy it may change). */
export function applyRemovals(
  config: JsonObject,
  input: RemovalInput,
  release: ReleaseData,
): { problems: Problem[]; warnings: Problem[] } {
  const warnings: Problem[] = [];
  const problems: Problem[] = [];
  const providers = (isObject(config["providers"]) ? config["providers"] : {}) as Record<
    string,
    JsonObject[]
  >;
  const removed: Removed[] = [];
  const removedApis = new Map<string, string>();

  for (const { api, index } of input.disabledApis) {
    const by = `spec.disabled[${index}]`;
    const list = providers[api];
    const inApis = Array.isArray(config["apis"]) && config["apis"].includes(api);
    if (list === undefined && !inApis) {
      warnings.push(
        problem(
          Reason.NothingToDisable,
          by,
          msg.notInBaseApi(specKeyOf(api), input.distribution, release.release),
        ),
      );
      continue;
    }
    for (const entry of list ?? [])
      removed.push({ api, id: String(effectiveId(entry["provider_id"])), by });
    delete providers[api];
    removedApis.set(api, by);
  }

  for (const { id, index } of input.disabledProviders) {
    const by = `spec.disabledProviders[${index}]`;
    let found = false;
    for (const [api, list] of Object.entries(providers)) {
      const keep = list.filter((entry) => effectiveId(entry["provider_id"]) !== id);
      if (keep.length === list.length) continue;
      found = true;
      removed.push({ api, id, by });
      if (keep.length > 0) providers[api] = keep;
      else {
        delete providers[api];
        removedApis.set(api, by);
      }
    }
    if (!found)
      warnings.push(
        problem(
          Reason.NothingToDisable,
          by,
          msg.notInBaseProvider(id, input.distribution, release.release),
        ),
      );
  }

  if (Array.isArray(config["apis"])) {
    config["apis"] = config["apis"].filter((a) => typeof a !== "string" || !removedApis.has(a));
  }
  dropReferences(config, removed, removedApis);
  problems.push(...checkDependencies(config, removedApis, release));
  return { problems, warnings };
}

function isRemoved(removed: readonly Removed[], api: string, providerId: unknown): boolean {
  const id = effectiveId(typeof providerId === "string" ? providerId : undefined);
  return id !== undefined && removed.some((r) => r.api === api && r.id === id);
}

function dropReferences(
  config: JsonObject,
  removed: readonly Removed[],
  removedApis: Map<string, string>,
): void {
  const resources = config["registered_resources"];
  const removedShields = new Set<string>();
  if (isObject(resources)) {
    for (const [kind, list] of Object.entries(resources)) {
      const api = RESOURCE_API[kind];
      if (api === undefined || !Array.isArray(list)) continue;
      resources[kind] = list.filter((entry) => {
        const gone = isObject(entry) && isRemoved(removed, api, entry["provider_id"]);
        if (gone && kind === "shields" && typeof entry["shield_id"] === "string")
          removedShields.add(entry["shield_id"]);
        return !gone;
      });
    }
  }
  const vectorStores = config["vector_stores"];
  if (removedApis.has("vector_io")) {
    delete config["vector_stores"];
  } else if (isObject(vectorStores)) {
    if (isRemoved(removed, "vector_io", vectorStores["default_provider_id"]))
      delete vectorStores["default_provider_id"];
    for (const key of [
      "default_embedding_model",
      "default_reranker_model",
      "rewrite_query_params",
    ]) {
      const ref = vectorStores[key];
      if (isObject(ref) && isRemoved(removed, "inference", ref["provider_id"]))
        delete vectorStores[key];
    }
  }
  const safety = config["safety"];
  if (removedApis.has("safety")) {
    delete config["safety"];
  } else if (
    isObject(safety) &&
    typeof safety["default_shield_id"] === "string" &&
    removedShields.has(safety["default_shield_id"])
  ) {
    delete safety["default_shield_id"];
  }
}

/** Maps a dependency (possibly a routing table such as models) to the API that provides it. */
function providingApi(dependency: string, release: ReleaseData): string | undefined {
  if (release.apis.providable.includes(dependency)) return dependency;
  const router = Object.entries(release.apis.routingTableOf).find(
    ([, table]) => table === dependency,
  );
  return router?.[0];
}

function checkDependencies(
  config: JsonObject,
  removedApis: Map<string, string>,
  release: ReleaseData,
): Problem[] {
  const providers = (isObject(config["providers"]) ? config["providers"] : {}) as Record<
    string,
    JsonObject[]
  >;
  const problems: Problem[] = [];
  const reported = new Set<string>();
  for (const [api, list] of Object.entries(providers).sort(([a], [b]) => a.localeCompare(b))) {
    for (const entry of list) {
      const type = entry["provider_type"];
      const info = typeof type === "string" ? release.providers[api]?.[type] : undefined;
      for (const dep of info?.apiDependencies ?? []) {
        const needed = providingApi(dep, release);
        if (needed === undefined) continue;
        const by = removedApis.get(needed);
        if (by === undefined) continue;
        const key = `${needed}<-${api}`;
        if (reported.has(key)) continue;
        reported.add(key);
        const fix = by.startsWith("spec.disabled[")
          ? `also disable ${specKeyOf(api)}, or keep ${specKeyOf(needed)}`
          : `keep a ${specKeyOf(needed)} provider, or also disable ${specKeyOf(api)}`;
        problems.push(
          problem(
            Reason.DisabledDependency,
            by,
            msg.disabledDependency(
              specKeyOf(needed),
              fix,
              specKeyOf(api),
              String(entry["provider_id"]),
            ),
          ),
        );
      }
    }
  }
  return problems;
}
