// What one release's config.yaml can say, read once from its catalog entry and
// the release table (release.ts).
// The releases differ (docs/guide/distribution-and-releases.md): OGX removed APIs, made the server
// refuse plain HTTP unless `server.insecure`, stopped registering tool groups,
// and its backends and provider fields are its own. Every such difference that
// generation depends on is answered here, so no stage looks into a schema.
import type { JsonSchema } from "../lib/jsonschema.js";
import type { ProviderTypeInfo, ReleaseData } from "./catalog.js";
import { isObject, own } from "../lib/json.js";
import { releaseFacts, type ReleaseFacts } from "../release.js";

/** What the release table (release.ts) says of the release, and what its schemas say. */
export interface Dialect extends ReleaseFacts {
  /** The server refuses to start without TLS unless server.insecure is true (OGX 1.2+). */
  readonly strictTls: boolean;
  /** The server.auth provider types the release has (kubernetes, oauth2_token, ...), sorted. */
  readonly authProviderTypes: readonly string[];
  /** registered_resources.tool_groups registers tool groups (deprecated in 0.7, gone later). */
  readonly registersToolGroups: boolean;
  /** The APIs that take providers, in the release's order. */
  readonly providableApis: readonly string[];
  /** The provider types of an API, by type (none for an API the release lacks). */
  providerTypes(api: string): Readonly<Record<string, ProviderTypeInfo>>;
  /** One provider type of an API. */
  providerType(api: string, type: string): ProviderTypeInfo | undefined;
  /**
   * Whether a provider type's config has `network` (its HTTP client's TLS,
   * proxy and timeouts: providers/utils/inference/http_client.py), which is
   * where a CA bundle can reach it.
   */
  hasNetworkSettings(api: string, type: string): boolean;
  /** The API that serves a dependency: the API itself, or a routing table's router (models → inference). */
  providingApi(dependency: string): string | undefined;
  /** The fields a storage backend type declares (kv_postgres: host, port, db, ...); undefined if unknown. */
  backendFields(type: string): readonly string[] | undefined;
}

const dialects = new WeakMap<ReleaseData, Dialect>();

/** The release's dialect; computed once per loaded release. */
export function dialectOf(release: ReleaseData): Dialect {
  let dialect = dialects.get(release);
  if (dialect === undefined) {
    dialect = readDialect(release);
    dialects.set(release, dialect);
  }
  return dialect;
}

function readDialect(release: ReleaseData): Dialect {
  const defs = schemaDefs(release.stackConfigSchema);
  const backends = backendFieldsByType(defs);
  const providable = new Set(release.apis.providable);
  const routers = new Map<string, string>();
  for (const [router, table] of Object.entries(release.apis.routingTableOf))
    if (!routers.has(table)) routers.set(table, router);
  const providerTypes = (api: string) => own(release.providers, api) ?? {};
  const dialect: Dialect = {
    ...releaseFacts(release.release),
    strictTls: declares(release.serverConfigSchema, "insecure"),
    authProviderTypes: Object.freeze(
      authProviderTypes({ ...defs, ...schemaDefs(release.serverConfigSchema ?? {}) }),
    ),
    registersToolGroups: registersToolGroups(defs),
    providableApis: Object.freeze([...release.apis.providable]),
    providerTypes,
    providerType: (api, type) => own(providerTypes(api), type),
    hasNetworkSettings: (api, type) =>
      declares(own(providerTypes(api), type)?.configSchema, "network"),
    providingApi: (dependency) =>
      providable.has(dependency) ? dependency : routers.get(dependency),
    backendFields: (type) => backends.get(type),
  };
  // Frozen: a parsed base config carries its dialect and is frozen whole.
  return Object.freeze(dialect);
}

function schemaDefs(schema: JsonSchema): Record<string, JsonSchema> {
  const defs = schema["$defs"];
  if (!isObject(defs)) return {};
  const out: Record<string, JsonSchema> = {};
  for (const [name, def] of Object.entries(defs)) if (isObject(def)) out[name] = def;
  return out;
}

function propertiesOf(schema: JsonSchema | undefined): Record<string, unknown> {
  const props = schema?.["properties"];
  return isObject(props) ? props : {};
}

/** Whether a schema declares a property. */
function declares(schema: JsonSchema | undefined, property: string): boolean {
  return Object.hasOwn(propertiesOf(schema), property);
}

/** Backend type (the `type` const or default of a $defs entry) → its declared fields; first entry wins. */
function backendFieldsByType(defs: Record<string, JsonSchema>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const def of Object.values(defs)) {
    const props = propertiesOf(def);
    const type = props["type"];
    if (!isObject(type)) continue;
    for (const value of [type["const"], type["default"]])
      if (typeof value === "string" && !out.has(value)) out.set(value, Object.keys(props));
  }
  return out;
}

/**
 * The `type` const of every auth provider config class (…AuthConfig,
 * …AuthProviderConfig): the server schema's on OGX, the stack schema's before.
 */
function authProviderTypes(defs: Record<string, JsonSchema>): string[] {
  const types = new Set<string>();
  for (const [name, def] of Object.entries(defs)) {
    if (!/Auth(Provider)?Config$/.test(name)) continue;
    const type = propertiesOf(def)["type"];
    if (isObject(type) && typeof type["const"] === "string") types.add(type["const"]);
  }
  return [...types].sort();
}

function registersToolGroups(defs: Record<string, JsonSchema>): boolean {
  const prop = propertiesOf(own(defs, "RegisteredResources"))["tool_groups"];
  return isObject(prop) && prop["deprecated"] !== true;
}
