// Disabling (docs/guide/disabling.md): whole APIs (spec.disabled) and base
// providers by id (spec.disabledProviders) leave the config together with
// everything that points at them — registered resources, vector store and
// safety defaults. Removing an API another enabled API needs is an error
// naming both.
import { LLAMA_APIS, specKeyOf } from "../api/llama-apis.js";
import { msg } from "../messages.js";
import { problem, warning, type Problem, type Warning } from "../problems.js";
import { Reason } from "../reasons.js";
import { compareStrings } from "../lib/json.js";
import {
  MODEL_DEFAULTS,
  providerLists,
  RESOURCE_KINDS,
  RESOURCE_OF,
  type Api,
  type ModelDefault,
  type ModelRef,
  type Provider,
  type RegisteredResources,
  type Resource,
  type ResourceKind,
  type StackConfig,
  type VectorStores,
} from "./model.js";
import { effectiveId } from "./providers.js";

export interface RemovalInput {
  /** APIs from spec.disabled, with their index. */
  disabledApis: { api: Api; index: number }[];
  /** spec.disabledProviders, with their index. */
  disabledProviders: { id: string; index: number }[];
  distribution: string;
}

/** What was removed, and by which spec field: spec.disabled[i] or spec.disabledProviders[j]. */
interface Removal {
  /** Provider ids removed, by API. */
  providers: { api: Api; id: string; by: string }[];
  /** APIs left without providers → the spec field that removed them (the last one). */
  apis: Map<string, string>;
}

type ProviderMap = Partial<Record<Api, readonly Provider[]>>;

// removeApis and removeProviders work on the stage's own copy of the provider
// lists (`providers`) and record what went in `out`; withoutDisabled is pure.

/** Takes the APIs spec.disabled names out of `providers`; a warning for each the base lacks. */
function removeApis(
  config: StackConfig,
  providers: ProviderMap,
  input: RemovalInput,
  out: { removal: Removal; warnings: Warning[] },
): void {
  for (const { api, index } of input.disabledApis) {
    const by = `spec.disabled[${index}]`;
    const list = providers[api];
    if (list === undefined && !config.apis.includes(api)) {
      out.warnings.push(
        warning(
          Reason.NothingToDisable,
          by,
          msg.notInBaseApi(specKeyOf(api), input.distribution, config.dialect.release),
        ),
      );
      continue;
    }
    for (const entry of list ?? [])
      out.removal.providers.push({ api, id: String(effectiveId(entry.provider_id)), by });
    delete providers[api];
    out.removal.apis.set(api, by);
  }
}

/** Every provider id of the config, in every API: what spec.disabledProviders may name. */
function providerIds(config: StackConfig): string[] {
  return LLAMA_APIS.flatMap((api) =>
    (config.providers[api] ?? []).flatMap((entry) => effectiveId(entry.provider_id) ?? []),
  );
}

/** Takes the base providers spec.disabledProviders names out of `providers`, in every API. */
function removeProviders(
  config: StackConfig,
  providers: ProviderMap,
  input: RemovalInput,
  out: { removal: Removal; warnings: Warning[] },
): void {
  for (const { id, index } of input.disabledProviders) {
    const by = `spec.disabledProviders[${index}]`;
    let found = false;
    for (const api of LLAMA_APIS) {
      const list = providers[api];
      if (list === undefined) continue;
      const keep = list.filter((entry) => effectiveId(entry.provider_id) !== id);
      if (keep.length === list.length) continue;
      found = true;
      out.removal.providers.push({ api, id, by });
      if (keep.length > 0) providers[api] = keep;
      else {
        delete providers[api];
        out.removal.apis.set(api, by);
      }
    }
    if (!found)
      out.warnings.push(
        warning(
          Reason.NothingToDisable,
          by,
          msg.notInBaseProvider(
            id,
            input.distribution,
            config.dialect.release,
            providerIds(config),
          ),
        ),
      );
  }
}

/**
 * Applies spec.disabled and spec.disabledProviders: the config without those
 * APIs and providers and whatever points at them, warnings for what the base
 * does not have, and a problem for each API still needed by an enabled one.
 */
export function withoutDisabled(
  config: StackConfig,
  input: RemovalInput,
): { config: StackConfig; problems: Problem[]; warnings: Warning[] } {
  const out: { removal: Removal; warnings: Warning[] } = {
    removal: { providers: [], apis: new Map() },
    warnings: [],
  };
  const providers: ProviderMap = { ...config.providers };
  removeApis(config, providers, input, out);
  removeProviders(config, providers, input, out);
  const { removal } = out;
  const next = dropReferences(
    {
      ...config,
      apis: config.apis.filter((a) => !removal.apis.has(a)),
      providers,
    },
    removal,
  );
  return { config: next, problems: checkDependencies(next, removal.apis), warnings: out.warnings };
}

function isRemoved(removal: Removal, api: Api, providerId: string | null | undefined): boolean {
  const id = effectiveId(providerId);
  return id !== undefined && removal.providers.some((r) => r.api === api && r.id === id);
}

/** registered_resources without the entries of removed providers; the shield ids that went. */
function dropResources(
  rr: RegisteredResources,
  removal: Removal,
): { resources: RegisteredResources; shields: Set<string> } {
  const shields = new Set<string>();
  const lists: Partial<Record<ResourceKind, readonly Resource[]>> = {};
  for (const kind of RESOURCE_KINDS) {
    const list = rr[kind];
    if (list === undefined) continue;
    lists[kind] = list.filter((entry) => {
      const gone = isRemoved(removal, RESOURCE_OF[kind].api, entry.provider_id);
      if (gone && kind === "shields" && entry.id !== undefined) shields.add(entry.id);
      return !gone;
    });
  }
  return { resources: { ...rr, ...lists }, shields };
}

/** vector_stores without defaults that name a removed provider. */
function dropVectorStoreDefaults(vs: VectorStores, removal: Removal): VectorStores {
  const models: Partial<Record<ModelDefault, ModelRef>> = {};
  for (const key of MODEL_DEFAULTS) {
    const ref = vs.models[key];
    if (ref !== undefined && !isRemoved(removal, "inference", ref.provider_id)) models[key] = ref;
  }
  const keepDefault = !isRemoved(removal, "vector_io", vs.default_provider_id);
  return { ...vs, default_provider_id: keepDefault ? vs.default_provider_id : undefined, models };
}

/** The config without what points at removed APIs and providers. */
function dropReferences(config: StackConfig, removal: Removal): StackConfig {
  const dropped =
    config.registered_resources === undefined
      ? undefined
      : dropResources(config.registered_resources, removal);
  const shields = dropped?.shields ?? new Set<string>();
  let { vector_stores, safety } = config;
  if (removal.apis.has("vector_io")) vector_stores = undefined;
  else if (vector_stores) vector_stores = dropVectorStoreDefaults(vector_stores, removal);
  if (removal.apis.has("safety")) safety = undefined;
  else if (
    safety &&
    typeof safety.default_shield_id === "string" &&
    shields.has(safety.default_shield_id)
  )
    safety = { ...safety, default_shield_id: undefined };
  return { ...config, registered_resources: dropped?.resources, vector_stores, safety };
}

/** Problems for every enabled provider that needs an API that was removed. */
function checkDependencies(
  config: StackConfig,
  removedApis: ReadonlyMap<string, string>,
): Problem[] {
  const problems: Problem[] = [];
  const reported = new Set<string>();
  const lists = providerLists(config).sort(([a], [b]) => compareStrings(a, b));
  for (const [api, list] of lists) {
    for (const entry of list) {
      const info = config.dialect.providerType(api, entry.provider_type);
      for (const dep of info?.apiDependencies ?? []) {
        const needed = config.dialect.providingApi(dep);
        const by = needed === undefined ? undefined : removedApis.get(needed);
        if (needed === undefined || by === undefined || reported.has(`${needed}<-${api}`)) continue;
        reported.add(`${needed}<-${api}`);
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
              String(entry.provider_id),
            ),
          ),
        );
      }
    }
  }
  return problems;
}
