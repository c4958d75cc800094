// The Llama Stack config as typed values (docs/guide/how-the-config-is-generated.md). A distribution's config.yaml is parsed once into a StackConfig
// (`toStackConfig`); the stages edit that, and `toDocument` turns the result
// back into the document that is written as canonical YAML.
//
// - Every stage is pure: `with*(config, …)` returns a new StackConfig (or
//   `{ config, problems }`) and never changes its arguments; a parsed base is
//   frozen and shared by every generation that starts from it.
// - What the model reads or edits is typed; every other key is kept, as the
//   base has it, in the `rest` object beside the typed fields, and written back.
// - What the release's config can say travels with it (`dialect`).
import { LLAMA_APIS, type LlamaApi } from "../api/llama-apis.js";
import type { ReleaseData } from "./catalog.js";
import { dialectOf, type Dialect } from "./dialect.js";
import { clone, deepFreeze, isObject, own, type Json, type JsonObject } from "../lib/json.js";

/** A Llama Stack API that takes providers, in any supported release (snake_case). */
export type Api = LlamaApi;

const APIS: ReadonlySet<string> = new Set(LLAMA_APIS);

export function isApi(name: string): name is Api {
  return APIS.has(name);
}

// The types mirror Llama Stack's own (pydantic): `str | None` is `string | null`.

/** One entry of `providers.<api>`. */
export interface Provider {
  /** The id, as written: `${env.X:+id}` is enabled only when X is set; null or "" disables. */
  readonly provider_id: string | null;
  readonly provider_type: string;
  /** undefined: the entry has no `config` key. */
  readonly config: JsonObject | undefined;
  /** module and any other key. */
  readonly rest: JsonObject;
}

type Providers = Readonly<Partial<Record<Api, readonly Provider[]>>>;

export const RESOURCE_KINDS = [
  "models",
  "shields",
  "vector_stores",
  "vector_dbs",
  "datasets",
  "scoring_fns",
  "benchmarks",
  "tool_groups",
] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/** For each kind: the API whose providers its entries name, and the field that identifies an entry. */
export const RESOURCE_OF: Readonly<Record<ResourceKind, { api: Api; idField: string }>> = {
  models: { api: "inference", idField: "model_id" },
  shields: { api: "safety", idField: "shield_id" },
  vector_stores: { api: "vector_io", idField: "vector_store_id" },
  vector_dbs: { api: "vector_io", idField: "vector_db_id" },
  datasets: { api: "datasetio", idField: "dataset_id" },
  scoring_fns: { api: "scoring", idField: "scoring_fn_id" },
  benchmarks: { api: "eval", idField: "benchmark_id" },
  tool_groups: { api: "tool_runtime", idField: "toolgroup_id" },
};

/** One entry of `registered_resources.<kind>`. */
export interface Resource {
  /** The kind's id field (model_id, shield_id, toolgroup_id, ...), when set. */
  readonly id: string | undefined;
  /** Datasets and benchmarks name no provider. */
  readonly provider_id: string | null | undefined;
  readonly rest: JsonObject;
}

export interface RegisteredResources extends Readonly<
  Partial<Record<ResourceKind, readonly Resource[]>>
> {
  /** Kinds llsd-hook does not know (a newer release's), as written. */
  readonly rest: JsonObject;
}

export interface Backend {
  /** kv_sqlite, kv_redis, kv_postgres, sql_sqlite, sql_postgres, ... */
  readonly type: string;
  readonly rest: JsonObject;
}

interface Storage {
  /** Backend name → backend; undefined: the section has no `backends` key. */
  readonly backends: Readonly<Record<string, Backend>> | undefined;
  /** stores and any other key. */
  readonly rest: JsonObject;
}

/** The model defaults in vector_stores that name an inference provider. */
export const MODEL_DEFAULTS = [
  "default_embedding_model",
  "default_reranker_model",
  "rewrite_query_params",
] as const;
export type ModelDefault = (typeof MODEL_DEFAULTS)[number];

export interface VectorStores {
  /** A vector_io provider id. */
  readonly default_provider_id: string | null | undefined;
  /** Each model default that is set, and the inference provider it names. */
  readonly models: Readonly<Partial<Record<ModelDefault, ModelRef>>>;
  readonly rest: JsonObject;
}

export interface ModelRef {
  readonly provider_id: string | null | undefined;
  readonly rest: JsonObject;
}

interface Safety {
  /** Must be a registered shield; null: none. */
  readonly default_shield_id: string | null | undefined;
  readonly rest: JsonObject;
}

export interface StackConfig {
  /** What the release's config can say. */
  readonly dialect: Dialect;
  /** The APIs to serve; written even when the base has none. */
  readonly apis: readonly string[];
  readonly providers: Providers;
  readonly storage: Storage | undefined;
  readonly registered_resources: RegisteredResources | undefined;
  /** The server section: port, TLS files, workers, insecure, ... */
  readonly server: JsonObject | undefined;
  /** null: written as null (Llama Stack's "no defaults"). */
  readonly vector_stores: VectorStores | null | undefined;
  readonly safety: Safety | null | undefined;
  /** version, distro_name, connectors and every other top-level key. */
  readonly rest: JsonObject;
}

// ------------------------------------------------------------------ parse

/** `obj` without `keys` (every other key an own data property, `__proto__` too). */
function restOf(obj: JsonObject, keys: readonly string[]): JsonObject {
  return Object.fromEntries(Object.entries(obj).filter(([key]) => !keys.includes(key)));
}

function fail(path: string, what: string): never {
  throw new TypeError(`${path} must be ${what}`);
}

function objectAt(value: Json | undefined, path: string): JsonObject {
  return isObject(value) ? value : fail(path, "a mapping");
}

function listAt(value: Json | undefined, path: string): Json[] {
  return Array.isArray(value) ? value : fail(path, "a list");
}

function stringAt(value: Json | undefined, path: string): string {
  return typeof value === "string" ? value : fail(path, "a string");
}

/** A field that is a string when set. */
function optionalString(value: Json | undefined, path: string): string | undefined {
  return value === undefined ? undefined : stringAt(value, path);
}

/** An id field typed `str | None`. */
function optionalId(value: Json | undefined, path: string): string | null | undefined {
  return value === null ? null : optionalString(value, path);
}

function parseProvider(value: Json, path: string): Provider {
  const doc = objectAt(value, path);
  const config = doc["config"];
  return {
    provider_id:
      doc["provider_id"] === null ? null : stringAt(doc["provider_id"], `${path}.provider_id`),
    provider_type: stringAt(doc["provider_type"], `${path}.provider_type`),
    config: config === undefined ? undefined : objectAt(config, `${path}.config`),
    rest: restOf(doc, ["provider_id", "provider_type", "config"]),
  };
}

function parseProviders(value: Json | undefined): Providers {
  const out: Partial<Record<Api, Provider[]>> = {};
  for (const [api, list] of Object.entries(objectAt(value ?? {}, "providers"))) {
    const path = `providers.${api}`;
    if (!isApi(api)) fail(path, "keyed by a Llama Stack API");
    out[api] = listAt(list, path).map((entry, i) => parseProvider(entry, `${path}[${i}]`));
  }
  return out;
}

function parseResource(value: Json, path: string, idField: string): Resource {
  const doc = objectAt(value, path);
  return {
    id: optionalString(doc[idField], `${path}.${idField}`),
    provider_id: optionalId(doc["provider_id"], `${path}.provider_id`),
    rest: restOf(doc, [idField, "provider_id"]),
  };
}

function parseResources(value: Json): RegisteredResources {
  const doc = objectAt(value, "registered_resources");
  const out: Partial<Record<ResourceKind, Resource[]>> = {};
  for (const kind of RESOURCE_KINDS) {
    const list = doc[kind];
    if (list === undefined) continue;
    const path = `registered_resources.${kind}`;
    const { idField } = RESOURCE_OF[kind];
    out[kind] = listAt(list, path).map((e, i) => parseResource(e, `${path}[${i}]`, idField));
  }
  return { ...out, rest: restOf(doc, RESOURCE_KINDS) };
}

function parseStorage(value: Json): Storage {
  const doc = objectAt(value, "storage");
  const backends = doc["backends"];
  if (backends === undefined) return { backends: undefined, rest: restOf(doc, ["backends"]) };
  const out: Record<string, Backend> = {};
  for (const [name, backend] of Object.entries(objectAt(backends, "storage.backends"))) {
    const path = `storage.backends.${name}`;
    const b = objectAt(backend, path);
    out[name] = { type: stringAt(b["type"], `${path}.type`), rest: restOf(b, ["type"]) };
  }
  return { backends: out, rest: restOf(doc, ["backends"]) };
}

function parseVectorStores(value: Json): VectorStores | null {
  if (value === null) return null;
  const doc = objectAt(value, "vector_stores");
  const models: Partial<Record<ModelDefault, ModelRef>> = {};
  for (const key of MODEL_DEFAULTS) {
    const ref = doc[key];
    // rewrite_query_params may be null (no query rewriting): kept as written.
    if (!isObject(ref)) continue;
    const path = `vector_stores.${key}.provider_id`;
    models[key] = {
      provider_id: optionalId(ref["provider_id"], path),
      rest: restOf(ref, ["provider_id"]),
    };
  }
  return {
    default_provider_id: optionalId(
      doc["default_provider_id"],
      "vector_stores.default_provider_id",
    ),
    models,
    rest: restOf(doc, ["default_provider_id", ...Object.keys(models)]),
  };
}

function parseSafety(value: Json): Safety | null {
  if (value === null) return null;
  const doc = objectAt(value, "safety");
  return {
    default_shield_id: optionalId(doc["default_shield_id"], "safety.default_shield_id"),
    rest: restOf(doc, ["default_shield_id"]),
  };
}

/** The sections the model types; every other top-level key stays in `rest`. */
const SECTIONS = [
  "apis",
  "providers",
  "storage",
  "registered_resources",
  "server",
  "vector_stores",
  "safety",
];

/**
 * Parses a config document. A section the model types that has the wrong
 * shape is a TypeError naming its path (`providers.inference[0].provider_id
 * must be a string`); other keys are kept as they are.
 */
export function toStackConfig(doc: JsonObject, dialect: Dialect): StackConfig {
  const apis = doc["apis"];
  const at = <T>(key: string, parse: (v: Json) => T): T | undefined => {
    const value = doc[key];
    return value === undefined ? undefined : parse(value);
  };
  return {
    dialect,
    apis: listAt(apis ?? [], "apis").map((a, i) => stringAt(a, `apis[${i}]`)),
    providers: parseProviders(doc["providers"]),
    storage: at("storage", parseStorage),
    registered_resources: at("registered_resources", parseResources),
    server: at("server", (v) => objectAt(v, "server")),
    vector_stores: at("vector_stores", parseVectorStores),
    safety: at("safety", parseSafety),
    rest: restOf(doc, SECTIONS),
  };
}

const baseConfigs = new WeakMap<JsonObject, StackConfig>();

/**
 * A distribution's own config of the release, parsed once and frozen (every
 * generation from it shares it); undefined if the release does not ship it.
 */
export function baseConfigOf(release: ReleaseData, distribution: string): StackConfig | undefined {
  const doc = own(release.baseConfigs, distribution);
  if (doc === undefined) return undefined;
  let config = baseConfigs.get(doc);
  if (config === undefined) {
    try {
      config = deepFreeze(toStackConfig(clone(doc), dialectOf(release)));
    } catch (cause) {
      throw new Error(
        `configs/${release.release}/distributions/${distribution}/config.yaml: not a config llsd-hook can read; regenerate configs/ with "npm run configs:update"`,
        { cause },
      );
    }
    baseConfigs.set(doc, config);
  }
  return config;
}

// ------------------------------------------------------------------ write

function providerDoc(p: Provider): JsonObject {
  const doc: JsonObject = { ...p.rest, provider_id: p.provider_id, provider_type: p.provider_type };
  if (p.config !== undefined) doc["config"] = p.config;
  return doc;
}

function resourceDoc(r: Resource, idField: string): JsonObject {
  const doc: JsonObject = { ...r.rest };
  if (r.id !== undefined) doc[idField] = r.id;
  if (r.provider_id !== undefined) doc["provider_id"] = r.provider_id;
  return doc;
}

function resourcesDoc(rr: RegisteredResources): JsonObject {
  const doc: JsonObject = { ...rr.rest };
  for (const kind of RESOURCE_KINDS) {
    const list = rr[kind];
    if (list !== undefined) doc[kind] = list.map((r) => resourceDoc(r, RESOURCE_OF[kind].idField));
  }
  return doc;
}

function storageDoc(storage: Storage): JsonObject {
  const doc: JsonObject = { ...storage.rest };
  if (storage.backends !== undefined) {
    const backends: JsonObject = {};
    for (const [name, b] of Object.entries(storage.backends))
      backends[name] = { ...b.rest, type: b.type };
    doc["backends"] = backends;
  }
  return doc;
}

function vectorStoresDoc(vs: VectorStores): JsonObject {
  const doc: JsonObject = { ...vs.rest };
  if (vs.default_provider_id !== undefined) doc["default_provider_id"] = vs.default_provider_id;
  for (const key of MODEL_DEFAULTS) {
    const ref = vs.models[key];
    if (ref === undefined) continue;
    doc[key] =
      ref.provider_id === undefined
        ? { ...ref.rest }
        : { ...ref.rest, provider_id: ref.provider_id };
  }
  return doc;
}

function safetyDoc(safety: Safety): JsonObject {
  const doc: JsonObject = { ...safety.rest };
  if (safety.default_shield_id !== undefined) doc["default_shield_id"] = safety.default_shield_id;
  return doc;
}

/** The document a StackConfig stands for; it shares the values it did not change with the base. */
export function toDocument(config: StackConfig): JsonObject {
  const providers: JsonObject = {};
  for (const api of LLAMA_APIS) {
    const list = config.providers[api];
    if (list !== undefined) providers[api] = list.map(providerDoc);
  }
  const doc: JsonObject = { ...config.rest, apis: [...config.apis], providers };
  if (config.storage !== undefined) doc["storage"] = storageDoc(config.storage);
  if (config.registered_resources !== undefined)
    doc["registered_resources"] = resourcesDoc(config.registered_resources);
  if (config.server !== undefined) doc["server"] = config.server;
  if (config.vector_stores !== undefined)
    doc["vector_stores"] = config.vector_stores && vectorStoresDoc(config.vector_stores);
  if (config.safety !== undefined) doc["safety"] = config.safety && safetyDoc(config.safety);
  return doc;
}

// ------------------------------------------------------------------ read

/** Every API with a provider list, and the list, in API name order. */
export function providerLists(config: StackConfig): [Api, readonly Provider[]][] {
  return LLAMA_APIS.flatMap((api) => {
    const list = config.providers[api];
    return list === undefined ? [] : [[api, list]];
  });
}

export function countProviders(config: StackConfig): number {
  return providerLists(config).reduce((n, [, list]) => n + list.length, 0);
}

/** Registered resources of every kind, for status (a newer release's kinds included). */
export function countResources(config: StackConfig): number {
  const rr = config.registered_resources;
  if (rr === undefined) return 0;
  let n = 0;
  for (const kind of RESOURCE_KINDS) n += rr[kind]?.length ?? 0;
  for (const value of Object.values(rr.rest)) if (Array.isArray(value)) n += value.length;
  return n;
}
