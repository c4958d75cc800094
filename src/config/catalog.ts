// What llsd-hook knows about Llama Stack: per release, the providers and their
// config schemas, the APIs, and each distribution's own config.yaml — all
// extracted from the published packages into configs/ — plus the hand-kept
// distribution images. Loaded once at the edge (src/server/catalog.ts) and
// passed into the pure core.
import type { Json, JsonObject } from "./json.js";

export interface JsonSchema {
  [key: string]: unknown;
}

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
  /** distribution name → its parsed config.yaml */
  baseConfigs: Record<string, JsonObject>;
}

export interface Catalog {
  /** Supported releases, newest first. */
  releases: string[];
  byRelease: Record<string, ReleaseData>;
  /** distribution name → release → image (configs/distributions.json, after IMAGE_OVERRIDES_FILE). */
  images: Record<string, Record<string, string>>;
}

export type { Json };
