// The config generator: a spec and the catalog in, the complete config.yaml
// (canonical bytes and hash) and the secret env vars out — or every problem
// found, each with its field path and fix. Pure: no I/O, no clock.
//
// The distribution's config of the release is parsed once (model.ts); each
// stage below returns a new StackConfig, in the order
// docs/guide/how-the-config-is-generated.md lists them, and the result is written as canonical YAML.
import { apiOfSpecKey } from "../api/llama-apis.js";
import { checkAuth } from "./auth.js";
import type { Spec } from "../api/schema.js";
import { msg } from "../messages.js";
import { problem, type Problem, type Result, type Warning } from "../problems.js";
import { Reason } from "../reasons.js";
import type { Catalog, ReleaseData } from "./catalog.js";
import { sha256Hex, toCanonicalYaml } from "./canonical.js";
import { withoutDisabled, type RemovalInput } from "./disable.js";
import type { ResolvedDistribution } from "./distribution.js";
import { own, type JsonObject } from "../lib/json.js";
import {
  baseConfigOf,
  countProviders,
  countResources,
  isApi,
  toDocument,
  type StackConfig,
} from "./model.js";
import { defaultProviderId, type SpecBindings } from "./bindings.js";
import {
  declareProviders,
  finalConfigOf,
  validateProviderConfig,
  withProviders,
} from "./providers.js";
import { withResources } from "./resources.js";
import { RUNTIME_ENV_NAMES, TRUST } from "../container.js";
import { findCollisions, secretEnvOf, type SecretBinding } from "./secrets.js";
import { checkStartupEnv } from "./startup.js";
import { checkEndpoints } from "./endpoints.js";
import { withServer } from "./server-section.js";
import { checkConfigSize } from "../api/budget.js";
import { customBaseOf, type CustomBase } from "./base-config.js";
import { withStorage } from "./storage.js";
import { withTrust } from "./trust.js";

export interface GenerateInput {
  spec: Spec;
  /** specBindings(spec): derived from the spec, so not part of a memo key. */
  bindings: SpecBindings;
  distribution: ResolvedDistribution & { name: string; release: string };
  catalog: Catalog;
  /** Names of env vars the user sets on the container (spec.workload.overrides.env). */
  userEnvNames: readonly string[];
  /** spec.networking.port, when set: written to server.port. */
  port?: number | undefined;
  /** Extra settings for the server section (TLS), merged into server. */
  server?: JsonObject | undefined;
  /**
   * A custom image's own config (spec.distribution.baseConfig), the base instead of
   * the named distribution's; distribution.name is then its ConfigMap's name.
   */
  base?: CustomBase | undefined;
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

/** A provider id both declared under spec.providers and listed in spec.disabledProviders. */
function conflictingProviders(spec: Spec): Problem[] {
  const declaredIds = new Set(
    Object.values(spec.providers ?? {}).flatMap((list) => (list ?? []).map(defaultProviderId)),
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

function removalInput(spec: Spec, distribution: string): RemovalInput {
  return {
    disabledApis: (spec.disabled ?? []).flatMap((key, index) => {
      const api = apiOfSpecKey(key);
      return isApi(api) ? [{ api, index }] : [];
    }),
    disabledProviders: (spec.disabledProviders ?? []).map((id, index) => ({ id, index })),
    distribution,
  };
}

interface Built {
  config: StackConfig;
  problems: Problem[];
  warnings: Warning[];
  /** Every secret reference, in spec order (duplicates included, for findCollisions). */
  secrets: SecretBinding[];
  /** Env var names the container will have. */
  containerEnv: ReadonlySet<string>;
}

/** The config the spec asks for, with the problems, warnings and secrets found on the way. */
function buildConfig(input: GenerateInput, base: StackConfig): Built {
  const { spec, distribution } = input;
  const problems: Problem[] = [
    ...conflictingProviders(spec),
    ...checkAuth(spec.auth, base.dialect),
  ];
  const warnings: Warning[] = [];
  const declared = declareProviders(input.bindings.providers, base.dialect);
  problems.push(...declared.problems);
  warnings.push(...declared.warnings);

  const removal = withoutDisabled(
    withProviders(base, declared.declared),
    removalInput(spec, distribution.name),
  );
  problems.push(...removal.problems);
  warnings.push(...removal.warnings);
  for (const d of declared.declared)
    problems.push(...validateProviderConfig(d, finalConfigOf(removal.config, d)));

  const storage = withStorage(
    removal.config,
    spec.storage,
    input.bindings.storage,
    distribution.name,
  );
  problems.push(...storage.problems);
  const secrets = [...declared.declared.flatMap((d) => d.secrets), ...storage.secrets];
  problems.push(...findCollisions(secrets));
  const containerEnv = new Set([
    ...RUNTIME_ENV_NAMES,
    ...secrets.map((s) => s.name),
    ...input.userEnvNames,
    ...(spec.trust === undefined ? [] : [TRUST.env]),
  ]);

  problems.push(...checkEndpoints(declared.declared, removal.config, containerEnv));

  let config = storage.config;
  if (declared.problems.length === 0) {
    const ctx = { declared: declared.declared, containerEnv, distribution: distribution.name };
    const resources = withResources(config, spec.resources, ctx);
    problems.push(...resources.problems);
    config = resources.config;
  }
  const trusted = withTrust(config, {
    trust: spec.trust,
    declared: declared.declared,
    containerEnv,
  });
  warnings.push(...trusted.warnings);
  config = withServer(trusted.config, input.port, input.server);
  return { config, problems, warnings, secrets, containerEnv };
}

/** The distribution's own config of the release, parsed once. */
function shippedBase(data: ReleaseData, name: string): Result<StackConfig> {
  const base = baseConfigOf(data, name);
  if (base !== undefined) return { ok: true, value: base, warnings: [] };
  const known = Object.keys(data.baseConfigs).sort();
  const p = problem(
    Reason.UnknownDistribution,
    "spec.distribution.name",
    msg.unknownDistribution(name, known),
  );
  return { ok: false, problems: [p], warnings: [] };
}

export function generateConfig(input: GenerateInput): Result<GeneratedConfig> {
  const { name, release } = input.distribution;
  const data = own(input.catalog.byRelease, release);
  // The distribution was resolved against this catalog: a release it lacks is a fault of ours.
  if (data === undefined) throw new Error(`the catalog has no release ${release}`);
  const parsed =
    input.base === undefined ? shippedBase(data, name) : customBaseOf(input.base, data);
  if (!parsed.ok) return parsed;
  const base = parsed.value;
  const built = buildConfig(input, base);
  const { config, warnings } = built;
  const doc = toDocument(config);
  const problems = [
    ...built.problems,
    ...checkStartupEnv(doc, built.containerEnv, () => "spec.workload.overrides.env"),
  ];
  if (problems.length > 0) return { ok: false, problems, warnings };
  const configYaml = toCanonicalYaml(doc);
  const tooLarge = checkConfigSize(configYaml, doc);
  if (tooLarge !== undefined) return { ok: false, problems: [tooLarge], warnings };
  return {
    ok: true,
    warnings,
    value: {
      configYaml,
      configHash: sha256Hex(configYaml),
      secretEnv: secretEnvOf(built.secrets),
      providerCount: countProviders(config),
      resourceCount: countResources(config),
    },
  };
}
