// A custom image's own config.yaml (spec.distribution.baseConfig, docs/guide/distribution-and-releases.md
// "Custom images"), checked the way a shipped base is before anything is
// generated on it: it parses as YAML (1.1, as the server's PyYAML reads it),
// it is a mapping whose typed sections the model can read (model.ts), it fits
// the release's config schema, and its providers are types of the release
// (or external ones, with a module).
// Keys the schema does not declare are kept, as in the shipped bases: the
// server ignores them. Pure: the ConfigMap's text comes in with the request.
import { msg } from "../messages.js";
import { problem, type Problem, type Result } from "../problems.js";
import { Reason } from "../reasons.js";
import type { ParseMigration } from "../release.js";
import type { ReleaseData } from "./catalog.js";
import { dialectOf, type Dialect } from "./dialect.js";
import { formatPath, isObject, own, type JsonObject } from "../lib/json.js";
import { readYamlOnce } from "./bounded-yaml.js";
import { validateAgainstSchema } from "../lib/jsonschema.js";
import { LLAMA_STACK_VALUES } from "./envsubst.js";
import { providerLists, toStackConfig, type StackConfig } from "./model.js";

/** spec.distribution.baseConfig with the text of its key. */
export interface CustomBase {
  configMapName: string;
  key: string;
  text: string;
}

const PATH = "spec.distribution.baseConfig";
/** Schema errors reported at most, each a problem of its own. */
const MAX_SCHEMA_PROBLEMS = 8;

function failed(problems: Problem[]): Result<StackConfig> {
  return { ok: false, problems, warnings: [] };
}

/** The text as a JSON document, or why it is not one. */
function parseBase(base: CustomBase): { doc: JsonObject } | { problem: Problem } {
  // As the server's PyYAML reads it, within the bounds every user's YAML gets.
  const read = readYamlOnce(base.text, { version: "1.1", json: true });
  if (!read.ok) {
    const detail =
      read.kind === "syntax"
        ? msg.baseConfigNotYaml(base.configMapName, base.key, read.detail)
        : msg.relatedYaml("ConfigMap", base.configMapName, base.key, read.detail);
    return { problem: problem(Reason.InvalidBaseConfig, PATH, detail) };
  }
  if (isObject(read.value)) return { doc: read.value };
  const detail = msg.baseConfigNotMapping(base.configMapName, base.key);
  return { problem: problem(Reason.InvalidBaseConfig, PATH, detail) };
}

/** A store reference in the legacy KV shape: a namespace, no table_name. */
function legacyKvRef(ref: unknown): ref is JsonObject {
  return (
    isObject(ref) && own(ref, "namespace") !== undefined && own(ref, "table_name") === undefined
  );
}

/** The prompts store given as a KV reference becomes a SQL one: namespace is table_name, kv_X is sql_X. */
function promptsKvToSql(stores: JsonObject): JsonObject {
  const prompts = own(stores, "prompts");
  if (!legacyKvRef(prompts)) return stores;
  const { namespace, ...rest } = prompts;
  const backend = typeof rest["backend"] === "string" ? rest["backend"] : "";
  const table = { ...rest, table_name: namespace ?? null };
  const sql = backend.startsWith("kv_") ? { backend: `sql_${backend.slice(3)}` } : {};
  return { ...stores, prompts: { ...table, ...sql } };
}

/** The connectors store given as a KV reference becomes a SQL one: only backend and table_name kept. */
function connectorsKvToSql(stores: JsonObject): JsonObject {
  const connectors = own(stores, "connectors");
  if (!legacyKvRef(connectors)) return stores;
  const backend = typeof connectors["backend"] === "string" ? connectors["backend"] : "sql_default";
  const table_name = connectors["namespace"] ?? null;
  return { ...stores, connectors: { backend: backend.split("kv_").join("sql_"), table_name } };
}

const MIGRATIONS: Readonly<Record<ParseMigration, (stores: JsonObject) => JsonObject>> = {
  "prompts-kv-to-sql": promptsKvToSql,
  "connectors-kv-to-sql": connectorsKvToSql,
};

/**
 * The document as the release reads it before validating: OGX's parse step
 * moves a prompts store given as a KV reference to a SQL one, and
 * ServerStoresConfig's before-validator does the same for connectors (the
 * release's parseMigrations, release.ts). Llama Stack 0.7.3 and before take
 * KV references there. For the check only: the base's text is what the
 * server gets, and it migrates it itself.
 */
function asParsed(doc: JsonObject, migrations: Dialect["parseMigrations"]): JsonObject {
  const storage = own(doc, "storage");
  const stores = isObject(storage) ? own(storage, "stores") : undefined;
  if (!isObject(storage) || !isObject(stores) || migrations.length === 0) return doc;
  const migrated = migrations.reduce((s, m) => MIGRATIONS[m](s), stores);
  return { ...doc, storage: { ...storage, stores: migrated } };
}

/** Errors of the release's config schema; undeclared keys are left to the server, which ignores them. */
function schemaProblems(doc: JsonObject, base: CustomBase, release: ReleaseData): Problem[] {
  return validateAgainstSchema(release.stackConfigSchema, doc, LLAMA_STACK_VALUES)
    .filter((e) => e.kind !== "unknown")
    .slice(0, MAX_SCHEMA_PROBLEMS)
    .map((e) =>
      problem(
        Reason.InvalidBaseConfig,
        PATH,
        msg.baseConfigSchema(
          base.configMapName,
          base.key,
          release.release,
          formatPath(e.path) || "the document",
          e.message,
        ),
      ),
    );
}

/** Every provider names an API and a provider type of the release. */
function providerProblems(config: StackConfig, base: CustomBase, release: ReleaseData): Problem[] {
  const { configMapName: cm, key } = base;
  return providerLists(config).flatMap(([api, list]) => {
    const types = own(release.providers, api);
    if (types === undefined)
      return [
        problem(Reason.InvalidBaseConfig, PATH, msg.baseConfigApi(cm, key, api, release.release)),
      ];
    // An entry with a module is an external provider: the release loads its type from it.
    return list.flatMap((p, i) =>
      own(types, p.provider_type) === undefined && typeof p.rest["module"] !== "string"
        ? [
            problem(
              Reason.InvalidBaseConfig,
              PATH,
              msg.baseConfigProviderType(
                cm,
                key,
                `providers.${api}[${i}].provider_type`,
                p.provider_type,
                release.release,
              ),
            ),
          ]
        : [],
    );
  });
}

/** The custom base as a StackConfig of the release, or every problem found in it. */
export function customBaseOf(base: CustomBase, release: ReleaseData): Result<StackConfig> {
  const parsed = parseBase(base);
  if ("problem" in parsed) return failed([parsed.problem]);
  const migrations = dialectOf(release).parseMigrations;
  const schema = schemaProblems(asParsed(parsed.doc, migrations), base, release);
  if (schema.length > 0) return failed(schema);
  let config: StackConfig;
  try {
    config = toStackConfig(parsed.doc, dialectOf(release));
  } catch (cause) {
    const why = cause instanceof Error ? cause.message : String(cause);
    const detail = msg.baseConfigShape(base.configMapName, base.key, why);
    return failed([problem(Reason.InvalidBaseConfig, PATH, detail)]);
  }
  const providers = providerProblems(config, base, release);
  return providers.length > 0 ? failed(providers) : { ok: true, value: config, warnings: [] };
}
