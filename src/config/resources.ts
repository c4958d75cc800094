// Registered resources (docs/guide/resources.md): models, shields and (up to 0.6)
// tool groups from the spec, added to the base config's registered_resources
// in the release's shape. A resource the base already has is replaced, never
// duplicated.
import type { Resources } from "../api/resources.js";
import { msg } from "../messages.js";
import { problem, type Problem } from "../problems.js";
import { Reason } from "../reasons.js";
import { removedByOgx } from "../release.js";
import { conditionalId } from "./envsubst.js";
import type { JsonObject } from "../lib/json.js";
import type { Api, RegisteredResources, Resource, ResourceKind, StackConfig } from "./model.js";
import type { DeclaredProvider } from "./providers.js";

type Model = NonNullable<Resources["models"]>[number];

export interface ResourceContext {
  declared: readonly DeclaredProvider[];
  /** Env var names the container will have (decides whether `${env.X:+id}` providers are enabled). */
  containerEnv: ReadonlySet<string>;
  distribution: string;
}

/** Provider ids of an API that are enabled in the final config. */
export function enabledProviderIds(
  config: StackConfig,
  api: Api,
  containerEnv: ReadonlySet<string>,
): string[] {
  return (config.providers[api] ?? []).flatMap(({ provider_id: id }) => {
    if (id === null) return [];
    const cond = conditionalId(id);
    if (cond === undefined) return id === "" || id === "__disabled__" ? [] : [id];
    return containerEnv.has(cond.envVar) && cond.id !== "" ? [cond.id] : [];
  });
}

/** The env var that enables a conditional provider `${env.X:+id}`, if `id` is one. */
function conditionalEnvFor(config: StackConfig, api: Api, id: string): string | undefined {
  for (const { provider_id } of config.providers[api] ?? []) {
    const cond = provider_id === null ? undefined : conditionalId(provider_id);
    if (cond?.id === id) return cond.envVar;
  }
  return undefined;
}

/** Puts `entry` in place of the first entry `sameAs` matches, else appends it. */
function upsert(list: Resource[], entry: Resource, sameAs: (e: Resource) => boolean): void {
  const at = list.findIndex(sameAs);
  if (at >= 0) list[at] = entry;
  else list.push(entry);
}

/** The config's registered_resources with one kind's list replaced. */
function withList(config: StackConfig, kind: ResourceKind, list: readonly Resource[]): StackConfig {
  const rr: RegisteredResources = config.registered_resources ?? { rest: {} };
  return { ...config, registered_resources: { ...rr, [kind]: list } };
}

function modelEntry(model: Model, providerId: string, metadata: JsonObject | undefined): Resource {
  const rest: JsonObject = { model_type: model.modelType ?? "llm" };
  if (model.providerModelId !== undefined) rest["provider_model_id"] = model.providerModelId;
  if (metadata !== undefined) rest["metadata"] = structuredClone(metadata);
  return { id: model.name, provider_id: providerId, rest };
}

/** The inference provider a model goes to, or the problem with it. */
function modelProvider(
  config: StackConfig,
  model: Model,
  enabled: readonly string[],
  ctx: ResourceContext,
): string | { detail: string } {
  const providerId = model.provider ?? firstDeclared(ctx, "inference");
  if (providerId === undefined) return { detail: msg.modelNeedsProvider() };
  if (enabled.includes(providerId)) return providerId;
  const envVar = conditionalEnvFor(config, "inference", providerId);
  return {
    detail:
      envVar === undefined
        ? msg.modelProviderMissing(providerId, enabled)
        : msg.modelProviderConditional(providerId, envVar),
  };
}

function addModels(
  config: StackConfig,
  models: readonly Model[],
  ctx: ResourceContext,
): { config: StackConfig; problems: Problem[] } {
  const problems: Problem[] = [];
  const enabled = enabledProviderIds(config, "inference", ctx.containerEnv);
  const list = [...(config.registered_resources?.models ?? [])];
  let added = false;
  models.forEach((model, i) => {
    const at = `spec.resources.models[${i}]`;
    const providerId = modelProvider(config, model, enabled, ctx);
    if (typeof providerId !== "string") {
      problems.push(problem(Reason.UnknownProvider, `${at}.provider`, providerId.detail));
      return;
    }
    // zod has checked metadata is JSON.
    const metadata = model.metadata as JsonObject | undefined;
    if (model.modelType === "embedding" && typeof metadata?.["embedding_dimension"] !== "number") {
      problems.push(problem(Reason.InvalidSpec, `${at}.metadata`, msg.embeddingNeedsDimension()));
      return;
    }
    const entry = modelEntry(model, providerId, metadata);
    upsert(list, entry, (e) => e.id === model.name && e.provider_id === providerId);
    added = true;
  });
  return { config: added ? withList(config, "models", list) : config, problems };
}

function firstDeclared(ctx: ResourceContext, api: Api): string | undefined {
  return ctx.declared.find((d) => d.api === api)?.id;
}

/** Shields go to the first declared safety provider; the first is the default shield. */
function addShields(
  config: StackConfig,
  shields: readonly string[],
  ctx: ResourceContext,
): { config: StackConfig; problems: Problem[] } {
  const { dialect } = config;
  const removedIn = removedByOgx("safety");
  if (!dialect.providableApis.includes("safety") && removedIn !== undefined) {
    const detail = msg.removedApi("safety", dialect.release, removedIn);
    return { config, problems: [problem(Reason.RemovedApi, "spec.resources.shields", detail)] };
  }
  const safetyId = firstDeclared(ctx, "safety");
  if (safetyId === undefined) {
    const detail = msg.shieldsNeedSafetyProvider();
    return {
      config,
      problems: [problem(Reason.UnknownProvider, "spec.resources.shields", detail)],
    };
  }
  const list = [...(config.registered_resources?.shields ?? [])];
  for (const shield of shields) {
    const entry = { id: shield, provider_id: safetyId, rest: { provider_shield_id: shield } };
    upsert(list, entry, (e) => e.id === shield);
  }
  // The base default shield may be one that is not registered (conditional);
  // Llama Stack refuses to start when the default is not among the registered shields.
  const safety = { rest: config.safety?.rest ?? {}, default_shield_id: shields[0] ?? null };
  return { config: { ...withList(config, "shields", list), safety }, problems: [] };
}

/** Tool groups (0.6): a group the base registers on an enabled provider stays; others go to the first declared toolRuntime provider. */
function addTools(
  config: StackConfig,
  tools: readonly string[],
  ctx: ResourceContext,
): { config: StackConfig; problems: Problem[] } {
  const { dialect } = config;
  if (!dialect.registersToolGroups) {
    const detail = msg.toolsNotRegistered(dialect.release);
    return {
      config,
      problems: [problem(Reason.UnsupportedResource, "spec.resources.tools", detail)],
    };
  }
  const problems: Problem[] = [];
  const enabled = enabledProviderIds(config, "tool_runtime", ctx.containerEnv);
  const list = [...(config.registered_resources?.tool_groups ?? [])];
  tools.forEach((tool, i) => {
    const toolgroupId = tool.includes("::") ? tool : `builtin::${tool}`;
    const existing = list.find((e) => e.id === toolgroupId);
    if (typeof existing?.provider_id === "string" && enabled.includes(existing.provider_id)) return;
    const providerId = firstDeclared(ctx, "tool_runtime");
    if (providerId === undefined) {
      const detail = msg.toolNeedsProvider(toolgroupId, ctx.distribution, dialect.release);
      problems.push(problem(Reason.UnknownProvider, `spec.resources.tools[${i}]`, detail));
      return;
    }
    const entry = { id: toolgroupId, provider_id: providerId, rest: {} };
    upsert(list, entry, (e) => e.id === toolgroupId);
  });
  return { config: withList(config, "tool_groups", list), problems };
}

/** The config with the spec's resources registered. */
export function withResources(
  config: StackConfig,
  resources: Resources | undefined,
  ctx: ResourceContext,
): { config: StackConfig; problems: Problem[] } {
  const problems: Problem[] = [];
  const step = (out: { config: StackConfig; problems: Problem[] }) => {
    problems.push(...out.problems);
    return out.config;
  };
  let next = config;
  if (resources?.models !== undefined) next = step(addModels(next, resources.models, ctx));
  if (resources?.shields !== undefined) next = step(addShields(next, resources.shields, ctx));
  if (resources?.tools !== undefined) next = step(addTools(next, resources.tools, ctx));
  return { config: next, problems };
}
