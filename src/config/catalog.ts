// What llsd-hook knows about Llama Stack: per release, the providers and their
// config schemas, the APIs, and each distribution's own config.yaml — all
// extracted from the published packages into configs/ — plus the hand-kept
// distribution images. Loaded once at the edge (src/edge/load-catalog.ts) and
// passed into the pure core.
import type { JsonObject } from "../lib/json.js";
import type { JsonSchema } from "../lib/jsonschema.js";

export interface ProviderTypeInfo {
  configSchema: JsonSchema;
  /** Fields typed SecretStr. */
  secretFields: string[];
  /** SecretStr fields, or string fields named like a credential (api_key, password, ...). */
  credentialFields: string[];
  /** Fields typed as a URL, or string fields named url/uri/*_url. */
  urlFields: string[];
  apiDependencies: string[];
  optionalApiDependencies: string[];
  deprecationWarning: string | null;
  deprecationError: string | null;
  pipPackages: string[];
  /**
   * OGX: YAML key → the pydantic field it sets and every key the release accepts
   * for it (vLLM: api_token → auth_credential). The schema's keys are the ones read.
   */
  fieldAliases?: Record<
    string,
    { field: string; alias: string | string[]; acceptsFieldName: boolean }
  >;
}

export interface ReleaseData {
  release: string;
  apis: {
    all: string[];
    providable: string[];
    routingTables: string[];
    /** router API → its routing table (inference → models). */
    routingTableOf: Record<string, string>;
  };
  /** api → provider type → info */
  providers: Record<string, Record<string, ProviderTypeInfo>>;
  stackConfigSchema: JsonSchema;
  /** The server section's schema (extracted for OGX releases; older ones: from stackConfigSchema). */
  serverConfigSchema?: JsonSchema | undefined;
  /** distribution name → its parsed config.yaml */
  baseConfigs: Record<string, JsonObject>;
}

/** The image of one distribution release (configs/distributions.json, after IMAGE_OVERRIDES_FILE). */
export interface ImagePin {
  /** undefined: the release ships the config but no public image, and no override maps one. */
  image: string | undefined;
  /** Why the image can no longer be pulled from where it was published (no override maps it). */
  retired?: string | undefined;
}

export interface Catalog {
  /** Supported releases, newest first. */
  releases: string[];
  byRelease: Record<string, ReleaseData>;
  /** distribution name → release → image */
  images: Record<string, Record<string, ImagePin>>;
}
