// Providers (SPEC §4.2–4.4): resolve each spec entry's type against the
// release's registry, map endpoint/apiKey/secretRefs/settings to config fields
// using the provider's exported schema, and overlay the result on the base
// config by provider id.
import { REMOVED_APIS, specKeyOf } from "../api/llama-apis.js";
import { isOgx } from "./runtime.js";
import type { ProviderEntry, Providers } from "../api/schema.js";
import { msg } from "../messages.js";
import { problem, Reason, type Problem } from "../problems.js";
import type { ProviderTypeInfo, ReleaseData } from "./catalog.js";
import { conditionalId, envRef, hasPlaceholder } from "./envsubst.js";
import { clone, deepMerge, isObject, own, type Json, type JsonObject } from "./json.js";
import { fieldsOf, validateAgainstSchema } from "../jsonschema.js";
import { providerEnvName, type SecretBinding } from "./secrets.js";

/** A provider the spec declares, resolved against the release. */
export interface DeclaredProvider {
  api: string;
  specKey: string;
  index: number;
  /** spec.providers.<key>[<index>] */
  specPath: string;
  id: string;
  type: string;
  info: ProviderTypeInfo;
  /** The config fields the spec sets (endpoint, apiKey, secretRefs, settings). */
  config: JsonObject;
  /** config field → which spec field set it, for error paths. */
  origins: Record<string, string>;
  secrets: SecretBinding[];
}

export interface ProviderEntryDoc extends JsonObject {
  provider_id: string;
  provider_type: string;
}

/** Why an API is missing from a release: renamed, removed, or added later. */
const API_HINTS: Record<string, string> = {
  agents: "renamed responses in 0.7",
  post_training: "removed in 0.7",
  interactions: "added in OGX 0.8.0",
  messages: "added in OGX 0.8.0",
  skills: "added in OGX 1.1.0",
  container_runtime: "added in OGX 1.2.0",
};

function shortName(type: string): string {
  return type.replace(/^(remote|inline)::/, "");
}

/** `vllm` → remote::vllm if the registry has it, else inline::vllm; a qualified type as is. */
export function resolveProviderType(
  provider: string,
  registry: Record<string, ProviderTypeInfo>,
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

function mapEntry(
  entry: ProviderEntry,
  ctx: {
    api: string;
    specKey: string;
    index: number;
    single: boolean;
    type: string;
    info: ProviderTypeInfo;
  },
): { provider: DeclaredProvider; problems: Problem[] } {
  const { api, specKey, index, type, info } = ctx;
  const specPath = `spec.providers.${specKey}[${index}]`;
  const id = entry.id ?? shortName(type);
  const problems: Problem[] = [];
  const config: JsonObject = {};
  const origins: Record<string, string> = {};
  const secrets: SecretBinding[] = [];
  const fields = fieldsOf(info.configSchema);
  const envName = (field: string) => providerEnvName(api, ctx.single ? undefined : id, field);

  const set = (field: string, value: Json, origin: string) => {
    const prior = own(origins, field);
    if (prior !== undefined) {
      problems.push(problem(Reason.FieldMappingFailed, origin, msg.fieldSetTwice(field, prior)));
      return;
    }
    config[field] = value;
    origins[field] = origin;
  };

  if (entry.endpoint !== undefined) {
    const path = `${specPath}.endpoint`;
    if (info.urlFields.length === 1) set(info.urlFields[0] ?? "", entry.endpoint, path);
    else if (info.urlFields.length === 0)
      problems.push(problem(Reason.FieldMappingFailed, path, msg.noUrlField(type)));
    else
      problems.push(
        problem(Reason.FieldMappingFailed, path, msg.manyUrlFields(type, info.urlFields)),
      );
  }
  if (entry.apiKey !== undefined) {
    const path = `${specPath}.apiKey`;
    const targets = apiKeyTargets(info);
    if (targets.length === 1) {
      const field = targets[0] ?? "";
      const name = envName("API_KEY");
      set(field, envRef(name), path);
      secrets.push({
        name,
        secretName: entry.apiKey.secretKeyRef.name,
        key: entry.apiKey.secretKeyRef.key,
        specPath: `${path}.secretKeyRef`,
      });
    } else if (targets.length === 0)
      problems.push(problem(Reason.FieldMappingFailed, path, msg.noCredentialField(type)));
    else
      problems.push(
        problem(Reason.FieldMappingFailed, path, msg.manyCredentialFields(type, targets)),
      );
  }
  for (const field of Object.keys(entry.secretRefs ?? {}).sort()) {
    const ref = own(entry.secretRefs, field);
    if (ref === undefined) continue;
    const path = `${specPath}.secretRefs.${field}`;
    if (!fields.includes(field)) {
      problems.push(
        problem(Reason.InvalidProviderConfig, path, msg.unknownConfigField(field, type, fields)),
      );
      continue;
    }
    const name = envName(field);
    set(field, envRef(name), path);
    secrets.push({
      name,
      secretName: ref.secretKeyRef.name,
      key: ref.secretKeyRef.key,
      specPath: `${path}.secretKeyRef`,
    });
  }
  for (const field of Object.keys(entry.settings ?? {}).sort()) {
    const value = (own(entry.settings, field) ?? null) as Json;
    const path = `${specPath}.settings.${field}`;
    if (info.credentialFields.includes(field) && isLiteralSecret(value)) {
      problems.push(problem(Reason.SecretInSettings, path, msg.secretInSettings(field)));
      continue;
    }
    set(field, clone(value), `${specPath}.settings`);
  }
  return {
    provider: { api, specKey, index, specPath, id, type, info, config, origins, secrets },
    problems,
  };
}

/** Resolves every provider the spec declares; problems for what cannot be resolved. */
export function declareProviders(
  providers: Providers | undefined,
  release: ReleaseData,
): { declared: DeclaredProvider[]; problems: Problem[]; warnings: Problem[] } {
  const declared: DeclaredProvider[] = [];
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  const validApis = release.apis.providable.map(specKeyOf);
  for (const specKey of Object.keys(providers ?? {}).sort()) {
    const entries = own(providers, specKey);
    if (entries === undefined) continue;
    const api = release.apis.providable.find((a) => specKeyOf(a) === specKey);
    if (api === undefined) {
      const snake = specKey.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
      const removedIn = own(REMOVED_APIS, snake);
      problems.push(
        removedIn !== undefined && isOgx(release.release)
          ? problem(
              Reason.RemovedApi,
              `spec.providers.${specKey}`,
              msg.removedApi(snake, release.release, removedIn),
            )
          : problem(
              Reason.UnknownApi,
              `spec.providers.${specKey}`,
              msg.unknownApi(specKey, release.release, validApis, own(API_HINTS, snake)),
            ),
      );
      continue;
    }
    const registry = own(release.providers, api) ?? {};
    entries.forEach((entry, index) => {
      const type = resolveProviderType(entry.provider, registry);
      const path = `spec.providers.${specKey}[${index}].provider`;
      if (type === undefined) {
        const valid = Object.keys(registry).sort();
        problems.push(
          problem(
            Reason.UnknownProviderType,
            path,
            msg.unknownProviderType(entry.provider, specKey, release.release, valid),
          ),
        );
        return;
      }
      const info = registry[type] as ProviderTypeInfo;
      if (info.deprecationError !== null) {
        problems.push(
          problem(
            Reason.DeprecatedProviderType,
            path,
            msg.deprecatedProviderType(type, release.release, info.deprecationError),
          ),
        );
        return;
      }
      if (info.deprecationWarning !== null) {
        warnings.push(
          problem(
            Reason.DeprecatedProviderType,
            path,
            msg.deprecatedProviderType(type, release.release, info.deprecationWarning),
          ),
        );
      }
      const mapped = mapEntry(entry, {
        api,
        specKey,
        index,
        single: entries.length === 1,
        type,
        info,
      });
      declared.push(mapped.provider);
      problems.push(...mapped.problems);
    });
  }
  return { declared, problems, warnings };
}

function entryFor(declared: DeclaredProvider, base: JsonObject | undefined): ProviderEntryDoc {
  const sameType = base !== undefined && base["provider_type"] === declared.type;
  const baseConfig = sameType && isObject(base["config"]) ? base["config"] : {};
  const config = deepMerge(baseConfig, declared.config) as JsonObject;
  const rest: JsonObject = sameType ? clone(base) : {};
  delete rest["config"];
  return {
    ...rest,
    provider_id: declared.id,
    provider_type: declared.type,
    ...(Object.keys(config).length > 0 ? { config } : {}),
  };
}

/**
 * Overlays declared providers on the base providers of each API: a matching id
 * replaces the base entry in place (same type: the spec's fields are merged
 * into the base entry's config; other type: the entry is the spec's alone);
 * new ids are appended in spec order; other base entries are kept.
 */
export function overlayProviders(
  base: Record<string, Json[]>,
  declared: readonly DeclaredProvider[],
): Record<string, JsonObject[]> {
  const apis = [...new Set([...Object.keys(base), ...declared.map((d) => d.api)])].sort();
  const out: Record<string, JsonObject[]> = {};
  for (const api of apis) {
    const mine = declared.filter((d) => d.api === api);
    const used = new Set<DeclaredProvider>();
    const merged: JsonObject[] = (base[api] ?? []).filter(isObject).map((entry) => {
      const match = mine.find((d) => d.id === effectiveId(entry["provider_id"]));
      if (match === undefined) return clone(entry);
      used.add(match);
      return entryFor(match, entry);
    });
    for (const d of mine) if (!used.has(d)) merged.push(entryFor(d, undefined));
    out[api] = merged;
  }
  return out;
}

/** Checks a declared provider's final config against its type's schema; errors point at spec fields. */
export function validateProviderConfig(
  declared: DeclaredProvider,
  finalConfig: JsonObject,
): Problem[] {
  const errors = validateAgainstSchema(declared.info.configSchema, finalConfig);
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
