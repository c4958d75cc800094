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
import type { ReleaseData } from "./catalog.js";
import { dialectOf } from "./dialect.js";
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

/**
 * The document as OGX reads it before validating: its parse step moves a
 * prompts store given as a KV reference to a SQL one (configure.py
 * _migrate_prompts_kv_to_sql, OGX 1.0+: namespace becomes table_name, kv_X
 * becomes sql_X), and ServerStoresConfig's before-validator does the same for
 * connectors (OGX 1.4.1+: only backend and table_name kept). Llama Stack 0.7.3
 * and before take KV references there. For the check only: the base's text
 * is what the server gets, and it migrates it itself.
 */
function asOgxParses(doc: JsonObject, ogx: boolean): JsonObject {
  const storage = own(doc, "storage");
  const stores = isObject(storage) ? own(storage, "stores") : undefined;
  if (!ogx || !isObject(stores)) return doc;
  const migrated: JsonObject = { ...stores };
  const prompts = own(stores, "prompts");
  if (legacyKvRef(prompts)) {
    const { namespace, ...rest } = prompts;
    const backend = typeof rest["backend"] === "string" ? rest["backend"] : "";
    migrated["prompts"] = {
      ...rest,
      table_name: namespace ?? null,
      ...(backend.startsWith("kv_") ? { backend: `sql_${backend.slice(3)}` } : {}),
    };
  }
  const connectors = own(stores, "connectors");
  if (legacyKvRef(connectors)) {
    const backend =
      typeof connectors["backend"] === "string" ? connectors["backend"] : "sql_default";
    migrated["connectors"] = {
      backend: backend.split("kv_").join("sql_"),
      table_name: connectors["namespace"] ?? null,
    };
  }
  return { ...doc, storage: { ...(storage as JsonObject), stores: migrated } };
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
  const schema = schemaProblems(asOgxParses(parsed.doc, dialectOf(release).ogx), base, release);
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
