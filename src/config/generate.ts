// The config generator: a spec and the catalog in, the complete config.yaml
// (canonical bytes and hash) and the secret env vars out — or every problem
// found, each with its field path and fix. Pure: no I/O, no clock.
import { apiOfSpecKey } from "../api/llama-apis.js";
import type { Spec } from "../api/schema.js";
import { msg } from "../messages.js";
import { problem, Reason, type Problem, type Result } from "../problems.js";
import type { Catalog, ReleaseData } from "./catalog.js";
import { sha256Hex, toCanonicalYaml } from "./canonical.js";
import { applyRemovals } from "./disable.js";
import type { ResolvedDistribution } from "./distribution.js";
import { clone, isObject, type JsonObject } from "./json.js";
import {
  declareProviders,
  overlayProviders,
  validateProviderConfig,
  effectiveId,
} from "./providers.js";
import { applyResources, countResources } from "./resources.js";
import { RUNTIME_ENV_NAMES } from "./runtime.js";
import { findCollisions, type SecretBinding } from "./secrets.js";
import { checkStartupEnv } from "./startup.js";
import { hasStrictTls } from "./server.js";
import { checkConfigSize } from "../children/budget.js";
import { applyStorage } from "./storage.js";

export interface GenerateInput {
  spec: Spec;
  distribution: ResolvedDistribution & { name: string; release: string };
  catalog: Catalog;
  /** Names of env vars the user sets on the container (spec.workload.overrides.env). */
  userEnvNames: readonly string[];
  /** spec.networking.port, when set: written to server.port. */
  port?: number | undefined;
  /** Extra settings for the server section (TLS), merged into server. */
  server?: JsonObject | undefined;
}

export interface GeneratedConfig {
  configYaml: string;
  /** sha256 of configYaml, hex. */
  configHash: string;
  /** Secret-backed env vars, sorted by name. */
  secretEnv: SecretBinding[];
  providerCount: number;
  resourceCount: number;
}

function countProviders(config: JsonObject): number {
  const providers = config["providers"];
  if (!isObject(providers)) return 0;
  return Object.values(providers).reduce<number>(
    (n, l) => n + (Array.isArray(l) ? l.length : 0),
    0,
  );
}

function conflictingProviders(spec: Spec): Problem[] {
  const declaredIds = new Set(
    Object.values(spec.providers ?? {}).flatMap((list) =>
      (list ?? []).map((p) => p.id ?? p.provider.replace(/^(remote|inline)::/, "")),
    ),
  );
  return (spec.disabledProviders ?? []).flatMap((id, i) =>
    declaredIds.has(id)
      ? [
          problem(
            Reason.ConflictingProvider,
            `spec.disabledProviders[${i}]`,
            msg.providerDeclaredAndDisabled(id),
          ),
        ]
      : [],
  );
}

export function generateConfig(input: GenerateInput): Result<GeneratedConfig> {
  const { spec, catalog } = input;
  const { name: distribution, release: releaseName } = input.distribution;
  const release = catalog.byRelease[releaseName] as ReleaseData;
  const base = release.baseConfigs[distribution];
  if (base === undefined) {
    const p = problem(
      Reason.UnknownDistribution,
      "spec.distribution.name",
      msg.unknownDistribution(distribution, Object.keys(release.baseConfigs).sort()),
    );
    return { ok: false, problems: [p], warnings: [] };
  }
  const config = clone(base);
  const problems: Problem[] = [...conflictingProviders(spec)];
  const warnings: Problem[] = [];

  // Providers: resolve, overlay on the base by id, keep `apis` in step.
  const declared = declareProviders(spec.providers, release);
  problems.push(...declared.problems);
  warnings.push(...declared.warnings);
  const baseProviders = (isObject(config["providers"]) ? config["providers"] : {}) as Record<
    string,
    JsonObject[]
  >;
  config["providers"] = overlayProviders(baseProviders, declared.declared);
  const apis = new Set(
    Array.isArray(config["apis"]) ? config["apis"].filter((a) => typeof a === "string") : [],
  );
  for (const d of declared.declared) apis.add(d.api);
  config["apis"] = [...apis].sort();

  // Disabled APIs and providers, with everything that points at them.
  const removal = applyRemovals(
    config,
    {
      disabledApis: (spec.disabled ?? []).map((key, index) => ({ api: apiOfSpecKey(key), index })),
      disabledProviders: (spec.disabledProviders ?? []).map((id, index) => ({ id, index })),
      distribution,
    },
    release,
  );
  problems.push(...removal.problems);
  warnings.push(...removal.warnings);

  // Each declared provider's final config against its schema.
  const finalProviders = config["providers"] as Record<string, JsonObject[]>;
  for (const d of declared.declared) {
    const entry = (finalProviders[d.api] ?? []).find((e) => effectiveId(e["provider_id"]) === d.id);
    const finalConfig = entry !== undefined && isObject(entry["config"]) ? entry["config"] : {};
    problems.push(...validateProviderConfig(d, finalConfig));
  }

  const storage = applyStorage(config, spec.storage, release, distribution);
  problems.push(...storage.problems);

  const secretEnv = [...declared.declared.flatMap((d) => d.secrets), ...storage.secrets];
  problems.push(...findCollisions(secretEnv));
  const containerEnv = new Set([
    ...RUNTIME_ENV_NAMES,
    ...secretEnv.map((s) => s.name),
    ...input.userEnvNames,
  ]);

  if (declared.problems.length === 0) {
    problems.push(
      ...applyResources(config, spec.resources, release, {
        declared: declared.declared,
        containerEnv,
        distribution,
      }),
    );
  }

  if (input.port !== undefined || input.server !== undefined) {
    const server = (
      isObject(config["server"]) ? config["server"] : (config["server"] = {})
    ) as JsonObject;
    if (input.port !== undefined) server["port"] = input.port;
    Object.assign(server, clone(input.server ?? {}));
  }
  // OGX 1.2+ refuses to start without TLS unless told otherwise (README "Releases").
  if (hasStrictTls(release) && input.server?.["tls_certfile"] === undefined) {
    const server = (
      isObject(config["server"]) ? config["server"] : (config["server"] = {})
    ) as JsonObject;
    server["insecure"] = true;
  }

  problems.push(...checkStartupEnv(config, containerEnv, () => "spec.workload.overrides.env"));

  if (problems.length > 0) return { ok: false, problems, warnings };
  const configYaml = toCanonicalYaml(config);
  const tooLarge = checkConfigSize(configYaml, config);
  if (tooLarge !== undefined) return { ok: false, problems: [tooLarge], warnings };
  const unique = new Map(secretEnv.map((s) => [s.name, s]));
  return {
    ok: true,
    warnings,
    value: {
      configYaml,
      configHash: sha256Hex(configYaml),
      secretEnv: [...unique.values()].sort((a, b) => a.name.localeCompare(b.name)),
      providerCount: countProviders(config),
      resourceCount: countResources(config),
    },
  };
}
