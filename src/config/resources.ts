// Registered resources (SPEC §4.7): models, shields and (up to 0.6) tool
// groups from the spec, added to the base config's registered_resources in the
// release's shape. A resource the base already has is replaced, never duplicated.
import { REMOVED_APIS } from "../api/llama-apis.js";
import type { Resources } from "../api/schema.js";
import { msg } from "../messages.js";
import { problem, Reason, type Problem } from "../problems.js";
import type { ReleaseData } from "./catalog.js";
import { conditionalId } from "./envsubst.js";
import { isObject, type Json, type JsonObject } from "./json.js";
import type { DeclaredProvider } from "./providers.js";

export interface ResourceContext {
  declared: readonly DeclaredProvider[];
  /** Env var names the container will have (decides whether `${env.X:+id}` providers are enabled). */
  containerEnv: ReadonlySet<string>;
  distribution: string;
}

/** Provider ids of an API that are enabled in the final config. */
export function enabledProviderIds(
  config: JsonObject,
  api: string,
  containerEnv: ReadonlySet<string>,
): string[] {
  const providers = isObject(config["providers"]) ? config["providers"] : {};
  const list = providers[api];
  if (!Array.isArray(list)) return [];
  return list.flatMap((entry) => {
    if (!isObject(entry) || typeof entry["provider_id"] !== "string") return [];
    const cond = conditionalId(entry["provider_id"]);
    if (cond === undefined)
      return entry["provider_id"] === "" || entry["provider_id"] === "__disabled__"
        ? []
        : [entry["provider_id"]];
    return containerEnv.has(cond.envVar) && cond.id !== "" ? [cond.id] : [];
  });
}

function conditionalEnvFor(config: JsonObject, api: string, id: string): string | undefined {
  const providers = isObject(config["providers"]) ? config["providers"] : {};
  const list = providers[api];
  if (!Array.isArray(list)) return undefined;
  for (const entry of list) {
    if (!isObject(entry) || typeof entry["provider_id"] !== "string") continue;
    const cond = conditionalId(entry["provider_id"]);
    if (cond?.id === id) return cond.envVar;
  }
  return undefined;
}

function registeredList(config: JsonObject, kind: string): Json[] {
  const rr = (
    isObject(config["registered_resources"])
      ? config["registered_resources"]
      : (config["registered_resources"] = {})
  ) as JsonObject;
  const list = rr[kind];
  if (Array.isArray(list)) return list;
  const fresh: Json[] = [];
  rr[kind] = fresh;
  return fresh;
}

/** Adds `entry` to a registered_resources list, replacing an entry with the same key. */
function upsert(list: Json[], entry: JsonObject, sameAs: (e: JsonObject) => boolean): void {
  const at = list.findIndex((e) => isObject(e) && sameAs(e));
  if (at >= 0) list[at] = entry;
  else list.push(entry);
}

function registersToolGroups(release: ReleaseData): boolean {
  const defs = (release.stackConfigSchema["$defs"] ?? {}) as Record<
    string,
    { properties?: Record<string, { deprecated?: boolean }> }
  >;
  const prop = defs["RegisteredResources"]?.properties?.["tool_groups"];
  return prop !== undefined && prop.deprecated !== true;
}

export function applyResources(
  config: JsonObject,
  resources: Resources | undefined,
  release: ReleaseData,
  ctx: ResourceContext,
): Problem[] {
  if (resources === undefined) return [];
  const problems: Problem[] = [];
  const firstDeclared = (api: string) => ctx.declared.find((d) => d.api === api)?.id;

  const inference = enabledProviderIds(config, "inference", ctx.containerEnv);
  (resources.models ?? []).forEach((model, i) => {
    const at = `spec.resources.models[${i}]`;
    const providerId = model.provider ?? firstDeclared("inference");
    if (providerId === undefined) {
      problems.push(problem(Reason.UnknownProvider, `${at}.provider`, msg.modelNeedsProvider()));
      return;
    }
    if (!inference.includes(providerId)) {
      const envVar = conditionalEnvFor(config, "inference", providerId);
      problems.push(
        problem(
          Reason.UnknownProvider,
          `${at}.provider`,
          envVar === undefined
            ? msg.modelProviderMissing(providerId, inference)
            : msg.modelProviderConditional(providerId, envVar),
        ),
      );
      return;
    }
    const modelType = model.modelType ?? "llm";
    const metadata = (model.metadata ?? {}) as JsonObject;
    if (modelType === "embedding" && typeof metadata["embedding_dimension"] !== "number") {
      problems.push(problem(Reason.InvalidSpec, `${at}.metadata`, msg.embeddingNeedsDimension()));
      return;
    }
    const entry: JsonObject = {
      model_id: model.name,
      provider_id: providerId,
      model_type: modelType,
      ...(model.providerModelId === undefined ? {} : { provider_model_id: model.providerModelId }),
      ...(model.metadata === undefined ? {} : { metadata: structuredClone(metadata) }),
    };
    upsert(
      registeredList(config, "models"),
      entry,
      (e) => e["model_id"] === model.name && e["provider_id"] === providerId,
    );
  });

  if (resources.shields !== undefined && !release.apis.providable.includes("safety")) {
    problems.push(
      problem(
        Reason.RemovedApi,
        "spec.resources.shields",
        msg.removedApi("safety", release.release, REMOVED_APIS.safety),
      ),
    );
  } else if (resources.shields !== undefined) {
    const safetyId = firstDeclared("safety");
    if (safetyId === undefined) {
      problems.push(
        problem(Reason.UnknownProvider, "spec.resources.shields", msg.shieldsNeedSafetyProvider()),
      );
    } else {
      const list = registeredList(config, "shields");
      for (const shield of resources.shields) {
        upsert(
          list,
          { shield_id: shield, provider_id: safetyId, provider_shield_id: shield },
          (e) => e["shield_id"] === shield,
        );
      }
      // The base default shield may be one that is not registered (conditional);
      // Llama Stack refuses to start when the default is not among the registered shields.
      const safety = (
        isObject(config["safety"]) ? config["safety"] : (config["safety"] = {})
      ) as JsonObject;
      safety["default_shield_id"] = resources.shields[0] ?? null;
    }
  }

  if (resources.tools !== undefined) {
    if (!registersToolGroups(release)) {
      problems.push(
        problem(
          Reason.UnsupportedResource,
          "spec.resources.tools",
          msg.toolsNotRegistered(release.release),
        ),
      );
    } else {
      const enabled = enabledProviderIds(config, "tool_runtime", ctx.containerEnv);
      const list = registeredList(config, "tool_groups");
      resources.tools.forEach((tool, i) => {
        const toolgroupId = tool.includes("::") ? tool : `builtin::${tool}`;
        const existing = list.find((e) => isObject(e) && e["toolgroup_id"] === toolgroupId);
        if (
          isObject(existing) &&
          typeof existing["provider_id"] === "string" &&
          enabled.includes(existing["provider_id"])
        )
          return;
        const providerId = firstDeclared("tool_runtime");
        if (providerId === undefined) {
          problems.push(
            problem(
              Reason.UnknownProvider,
              `spec.resources.tools[${i}]`,
              msg.toolNeedsProvider(toolgroupId, ctx.distribution, release.release),
            ),
          );
          return;
        }
        upsert(
          list,
          { toolgroup_id: toolgroupId, provider_id: providerId },
          (e) => e["toolgroup_id"] === toolgroupId,
        );
      });
    }
  }
  return problems;
}

/** Counts the registered resources of a config, for status. */
export function countResources(config: JsonObject): number {
  const rr = config["registered_resources"];
  if (!isObject(rr)) return 0;
  return Object.values(rr).reduce<number>(
    (n, list) => n + (Array.isArray(list) ? list.length : 0),
    0,
  );
}
