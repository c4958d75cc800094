// Providers (docs/guide/providers.md): resolve each spec entry's type against the
// release's registry, map endpoint/apiKey/secretRefs/settings to config fields
// using the provider's exported schema, and overlay the result on the base
// config by provider id (docs/adr/0001-overlay-merge.md).
import { apiOfSpecKey, specKeyOf } from "../api/llama-apis.js";
import { defaultProviderId, type ProviderBindings, type SpecBindings } from "./bindings.js";
import { msg } from "../messages.js";
import { problem, warning, type Problem, type Warning } from "../problems.js";
import { Reason } from "../reasons.js";
import { apiChange, removedByOgx } from "../release.js";
import type { ProviderTypeInfo } from "./catalog.js";
import type { Dialect } from "./dialect.js";
import { conditionalId, envRef, hasPlaceholder, LLAMA_STACK_VALUES } from "./envsubst.js";
import { clone, deepMerge, isObject, own, type Json, type JsonObject } from "../lib/json.js";
import { fieldsOf, validateAgainstSchema } from "../lib/jsonschema.js";
import { isApi, type Api, type Provider, type StackConfig } from "./model.js";
import type { SecretBinding } from "./secrets.js";

/** A provider the spec declares, resolved against the release. */
export interface DeclaredProvider {
  api: Api;
  specKey: string;
  index: number;
  /** spec.providers.<key>[<index>] */
  specPath: string;
  id: string;
  type: string;
  info: ProviderTypeInfo;
  /** An external provider's module (written as the entry's module); its config class is unknown. */
  module: string | undefined;
  /** The config fields the spec sets (endpoint, apiKey, secretRefs, settings). */
  config: JsonObject;
  /** config field → which spec field set it, for error paths. */
  origins: Record<string, string>;
  secrets: SecretBinding[];
}

/**
 * Why an API is missing from a release (release.ts): "added in OGX 1.1.0",
 * "renamed responses in 0.7", "removed in 0.7".
 */
function apiHint(api: string): string | undefined {
  const change = apiChange(api);
  if (change === undefined) return undefined;
  const line = change.from.split(".").slice(0, 2).join(".");
  if (change.change === "added") return `added in ${change.product} ${change.from}`;
  return change.change === "renamed" ? `renamed ${change.to} in ${line}` : `removed in ${line}`;
}

/** `vllm` → remote::vllm if the registry has it, else inline::vllm; a qualified type as is. */
export function resolveProviderType(
  provider: string,
  registry: Readonly<Record<string, ProviderTypeInfo>>,
): string | undefined {
  if (provider.includes("::")) return Object.hasOwn(registry, provider) ? provider : undefined;
  for (const prefix of ["remote::", "inline::"]) {
    if (Object.hasOwn(registry, `${prefix}${provider}`)) return `${prefix}${provider}`;
  }
  return undefined;
}

const API_KEY_NAMES = new Set(["api_key", "api_token", "auth_credential"]);

/**
 * Where apiKey goes: the provider's one secret field (else its one field named
 * like a credential); with several, the one that is the API key by its YAML key,
 * its pydantic field or an alias (gemini: api_key, not access_token). Several
 * candidates are returned as they are, for the error.
 */
export function apiKeyTargets(info: ProviderTypeInfo): string[] {
  const fields = info.secretFields.length > 0 ? info.secretFields : info.credentialFields;
  if (fields.length <= 1) return fields;
  const names = (key: string): string[] => {
    const a = own(info.fieldAliases, key);
    return a === undefined
      ? [key]
      : [key, a.field, ...(Array.isArray(a.alias) ? a.alias : [a.alias])];
  };
  const apiKeys = fields.filter((f) => names(f).some((n) => API_KEY_NAMES.has(n)));
  return apiKeys.length === 1 ? apiKeys : fields;
}

/** The id a base provider entry matches by: `${env.X:+vllm}` counts as vllm. */
export function effectiveId(providerId: Json | undefined): string | undefined {
  if (typeof providerId !== "string") return undefined;
  return conditionalId(providerId)?.id ?? providerId;
}

function isLiteralSecret(value: Json): boolean {
  if (value === null) return false;
  if (typeof value === "string") return !hasPlaceholder(value);
  return true;
}

/** One spec entry being mapped: the config fields it sets, where each came from, its secrets. */
interface Mapping {
  readonly config: JsonObject;
  /** config field → the spec field that set it. */
  readonly origins: Record<string, string>;
  readonly secrets: SecretBinding[];
  readonly problems: Problem[];
  set(field: string, value: Json, origin: string): void;
  /** `field` reads `${env.NAME}`, NAME being the binding's env var, set from its Secret key. */
  setSecret(field: string, binding: SecretBinding, origin: string): void;
}

function newMapping(): Mapping {
  const m: Mapping = {
    config: {},
    origins: {},
    secrets: [],
    problems: [],
    set(field, value, origin) {
      const prior = own(m.origins, field);
      if (prior !== undefined) {
        m.problems.push(
          problem(Reason.FieldMappingFailed, origin, msg.fieldSetTwice(field, prior)),
        );
        return;
      }
      m.config[field] = value;
      m.origins[field] = origin;
    },
    setSecret(field, binding, origin) {
      m.set(field, envRef(binding.name), origin);
      m.secrets.push(binding);
    },
  };
  return m;
}

function mapEndpoint(
  m: Mapping,
  endpoint: string,
  path: string,
  type: string,
  info: ProviderTypeInfo,
) {
  const [field, ...others] = info.urlFields;
  if (field !== undefined && others.length === 0) m.set(field, endpoint, path);
  else if (field === undefined)
    m.problems.push(problem(Reason.FieldMappingFailed, path, msg.noUrlField(type)));
  else
    m.problems.push(
      problem(Reason.FieldMappingFailed, path, msg.manyUrlFields(type, info.urlFields)),
    );
}

function mapApiKey(
  m: Mapping,
  binding: SecretBinding,
  path: string,
  type: string,
  info: ProviderTypeInfo,
) {
  const targets = apiKeyTargets(info);
  const [field, ...others] = targets;
  if (field !== undefined && others.length === 0) m.setSecret(field, binding, path);
  else if (field === undefined)
    m.problems.push(problem(Reason.FieldMappingFailed, path, msg.noCredentialField(type)));
  else
    m.problems.push(
      problem(Reason.FieldMappingFailed, path, msg.manyCredentialFields(type, targets)),
    );
}

function mapEntry(
  bound: ProviderBindings,
  ctx: { api: Api; type: string; info: ProviderTypeInfo; module?: string },
): { provider: DeclaredProvider; problems: Problem[] } {
  const { api, type, info } = ctx;
  const module = ctx.module;
  const { entry, specKey, index, specPath } = bound;
  const id = defaultProviderId(entry);
  const m = newMapping();
  if (entry.endpoint !== undefined)
    mapEndpoint(m, entry.endpoint, `${specPath}.endpoint`, type, info);
  if (bound.apiKey !== undefined) mapApiKey(m, bound.apiKey, `${specPath}.apiKey`, type, info);
  const fields = fieldsOf(info.configSchema);
  for (const [field, binding] of bound.secretRefs) {
    const path = `${specPath}.secretRefs.${field}`;
    if (fields.includes(field) || module !== undefined) m.setSecret(field, binding, path);
    else
      m.problems.push(
        problem(Reason.InvalidProviderConfig, path, msg.unknownConfigField(field, type, fields)),
      );
  }
  for (const field of Object.keys(entry.settings ?? {}).sort()) {
    const value = (own(entry.settings, field) ?? null) as Json;
    const path = `${specPath}.settings.${field}`;
    if (info.credentialFields.includes(field) && isLiteralSecret(value))
      m.problems.push(problem(Reason.SecretInSettings, path, msg.secretInSettings(field)));
    else m.set(field, clone(value), `${specPath}.settings`);
  }
  const { config, origins, secrets, problems } = m;
  return {
    provider: { api, specKey, index, specPath, id, type, info, module, config, origins, secrets },
    problems,
  };
}

function unknownApi(specKey: string, dialect: Dialect): Problem {
  const api = apiOfSpecKey(specKey);
  const removedIn = removedByOgx(api);
  const path = `spec.providers.${specKey}`;
  if (removedIn !== undefined && dialect.ogx)
    return problem(Reason.RemovedApi, path, msg.removedApi(api, dialect.release, removedIn));
  const valid = dialect.providableApis.map(specKeyOf);
  return problem(
    Reason.UnknownApi,
    path,
    msg.unknownApi(specKey, dialect.release, valid, apiHint(api)),
  );
}

interface Declared {
  declared: DeclaredProvider[];
  problems: Problem[];
  warnings: Warning[];
}

/** One spec entry: its type resolved and its fields mapped, or why it cannot be. */
function declareEntry(out: Declared, bound: ProviderBindings, api: Api, dialect: Dialect): void {
  const { entry, specKey } = bound;
  if (entry.module !== undefined) {
    declareExternal(out, bound, api, entry.module);
    return;
  }
  const registry = dialect.providerTypes(api);
  const type = resolveProviderType(entry.provider, registry);
  const path = `${bound.specPath}.provider`;
  const info = type === undefined ? undefined : own(registry, type);
  if (type === undefined || info === undefined) {
    const valid = Object.keys(registry).sort();
    out.problems.push(
      problem(
        Reason.UnknownProviderType,
        path,
        msg.unknownProviderType(entry.provider, specKey, dialect.release, valid),
      ),
    );
    return;
  }
  const deprecated = msg.deprecatedProviderType;
  if (info.deprecationError !== null) {
    const detail = deprecated(type, dialect.release, info.deprecationError);
    out.problems.push(problem(Reason.DeprecatedProviderType, path, detail));
    return;
  }
  if (info.deprecationWarning !== null) {
    const detail = deprecated(type, dialect.release, info.deprecationWarning);
    out.warnings.push(warning(Reason.DeprecatedProviderType, path, detail));
  }
  const mapped = mapEntry(bound, { api, type, info });
  out.declared.push(mapped.provider);
  out.problems.push(...mapped.problems);
}

/** Config fields named like a credential: a literal value in an external provider's settings is refused. */
const CREDENTIAL_NAME = /(^|_)(api_?key|key|token|password|secret|credentials?)$/;

/**
 * An external provider (docs/guide/providers.md): its type is not in the
 * registry and its config class is in the image, not in the catalog, so the
 * fields go under settings and secretRefs as written. endpoint and apiKey have
 * no schema to find their field in.
 */
function declareExternal(out: Declared, bound: ProviderBindings, api: Api, module: string): void {
  const { entry, specPath } = bound;
  const type = entry.provider;
  for (const field of ["endpoint", "apiKey"] as const)
    if (entry[field] !== undefined)
      out.problems.push(
        problem(Reason.FieldMappingFailed, `${specPath}.${field}`, msg.externalField(type, field)),
      );
  const settings = Object.keys(entry.settings ?? {});
  const info: ProviderTypeInfo = {
    configSchema: { type: "object", additionalProperties: true },
    secretFields: [],
    credentialFields: settings.filter((f) => CREDENTIAL_NAME.test(f)),
    urlFields: [],
    apiDependencies: [],
    optionalApiDependencies: [],
    deprecationWarning: null,
    deprecationError: null,
    pipPackages: [],
  };
  const mapped = mapEntry(
    { ...bound, apiKey: undefined, entry: { ...entry, endpoint: undefined } },
    { api, type, info, module },
  );
  out.declared.push(mapped.provider);
  out.problems.push(...mapped.problems);
}

/** Resolves every provider the spec declares; problems for what cannot be resolved. */
export function declareProviders(providers: SpecBindings["providers"], dialect: Dialect): Declared {
  const out: Declared = { declared: [], problems: [], warnings: [] };
  for (const [specKey, entries] of providers) {
    const api = dialect.providableApis.find((a) => specKeyOf(a) === specKey);
    if (api === undefined || !isApi(api)) {
      out.problems.push(unknownApi(specKey, dialect));
      continue;
    }
    for (const bound of entries) declareEntry(out, bound, api, dialect);
  }
  return out;
}

/** The base entry `declared` replaces (undefined: it is new), merged with it if of the same type. */
function overlayEntry(declared: DeclaredProvider, base: Provider | undefined): Provider {
  const sameType = base !== undefined && base.provider_type === declared.type;
  const config = deepMerge(sameType ? (base.config ?? {}) : {}, declared.config);
  return {
    provider_id: declared.id,
    provider_type: declared.type,
    config: isObject(config) && Object.keys(config).length > 0 ? config : undefined,
    rest: {
      ...(sameType ? base.rest : {}),
      ...(declared.module === undefined ? {} : { module: declared.module }),
    },
  };
}

/** A base entry's provider list with the declared providers of its API overlaid. */
function overlayList(base: readonly Provider[], mine: readonly DeclaredProvider[]): Provider[] {
  const used = new Set<DeclaredProvider>();
  const merged = base.map((entry) => {
    const match = mine.find((d) => d.id === effectiveId(entry.provider_id));
    if (match === undefined) return entry;
    used.add(match);
    return overlayEntry(match, entry);
  });
  for (const d of mine) if (!used.has(d)) merged.push(overlayEntry(d, undefined));
  return merged;
}

/**
 * Overlays declared providers on the base providers of each API: a matching id
 * replaces the base entry in place (same type: the spec's fields are merged
 * into the base entry's config; other type: the entry is the spec's alone);
 * new ids are appended in spec order; other base entries are kept. Every API
 * with a declared provider is listed in `apis`.
 */
export function withProviders(
  config: StackConfig,
  declared: readonly DeclaredProvider[],
): StackConfig {
  const providers: Partial<Record<Api, readonly Provider[]>> = { ...config.providers };
  const apis = new Set(config.apis);
  for (const d of declared) apis.add(d.api);
  for (const api of new Set(declared.map((d) => d.api)))
    providers[api] = overlayList(
      config.providers[api] ?? [],
      declared.filter((d) => d.api === api),
    );
  return { ...config, apis: [...apis].sort(), providers };
}

/** The final config of a declared provider's entry ({} if it has none, or was removed). */
export function finalConfigOf(config: StackConfig, declared: DeclaredProvider): JsonObject {
  const entry = config.providers[declared.api]?.find(
    (e) => effectiveId(e.provider_id) === declared.id,
  );
  return entry?.config ?? {};
}

/** Checks a declared provider's final config against its type's schema; errors point at spec fields. */
export function validateProviderConfig(
  declared: DeclaredProvider,
  finalConfig: JsonObject,
): Problem[] {
  const errors = validateAgainstSchema(declared.info.configSchema, finalConfig, LLAMA_STACK_VALUES);
  return errors.map((e) => {
    const [field, ...rest] = e.path.map(String);
    const fieldName = field ?? "";
    const origin = own(declared.origins, fieldName);
    const where =
      origin === undefined
        ? declared.specPath
        : origin.endsWith(".settings")
          ? [origin, fieldName, ...rest].join(".")
          : origin;
    const dotted = e.path.map(String).join(".");
    if (e.kind === "unknown") {
      return problem(
        Reason.InvalidProviderConfig,
        where,
        msg.unknownConfigField(dotted, declared.type, e.known ?? []),
      );
    }
    if (e.kind === "required") {
      return problem(
        Reason.InvalidProviderConfig,
        where,
        msg.missingProviderField(dotted, declared.type),
      );
    }
    return problem(
      Reason.InvalidProviderConfig,
      where,
      msg.invalidProviderField(dotted, declared.type, e.message),
    );
  });
}
