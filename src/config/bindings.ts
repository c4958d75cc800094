// Every Secret key a spec binds to an env var (docs/guide/secrets.md), worked out
// once from the spec alone: each binding's env var name and the spec path it
// came from. Generation writes `${env.NAME}` for the ones it maps into the
// config and sets the env var; the references (what must exist before
// anything is applied) are derived from the same list, so the two can never
// disagree on a name or a path.
import { apiOfSpecKey } from "../api/llama-apis.js";
import type { SecretRef } from "../api/fields.js";
import type { ProviderEntry } from "../api/providers.js";
import type { Spec } from "../api/schema.js";
import type { KvStorage, SqlStorage } from "../api/storage.js";
import { own } from "../lib/json.js";
import { providerEnvName, storageEnvName, type SecretBinding } from "./secrets.js";

/** The Secret keys of storage.<kind>.secretName: config field → Secret key. */
export const SECRET_NAME_KEYS: Readonly<Record<string, string>> = {
  host: "host",
  port: "port",
  db: "dbname",
  user: "user",
  password: "password",
};

/** One entry of spec.providers.<specKey>, with where it is and what it binds. */
export interface ProviderBindings {
  specKey: string;
  index: number;
  /** spec.providers.<specKey>[<index>] */
  specPath: string;
  entry: ProviderEntry;
  apiKey: SecretBinding | undefined;
  /** secretRefs by config field, sorted by field. */
  secretRefs: readonly (readonly [field: string, binding: SecretBinding])[];
}

/** A field of a storage backend the spec sets: a literal, or a Secret key. */
export interface StorageField {
  /** The backend's config field (db for database). */
  field: string;
  /** The spec field that sets it (secretName for the fields the Secret holds). */
  specField: string;
  value: string | number | SecretBinding;
}

export interface SpecBindings {
  /** spec.providers: each API key (sorted) with its entries in list order. */
  providers: readonly (readonly [specKey: string, entries: readonly ProviderBindings[]])[];
  storage: { kv: readonly StorageField[] | undefined; sql: readonly StorageField[] | undefined };
}

function bind(name: string, ref: SecretRef, path: string): SecretBinding {
  const { name: secretName, key } = ref.secretKeyRef;
  return { name, secretName, key, specPath: `${path}.secretKeyRef` };
}

/** A spec entry's provider_id: its id, else its provider's name (vllm for remote::vllm). */
export function defaultProviderId(entry: Pick<ProviderEntry, "id" | "provider">): string {
  return entry.id ?? entry.provider.replace(/^(remote|inline)::/, "");
}

function providerBindings(specKey: string, entries: readonly ProviderEntry[]): ProviderBindings[] {
  const api = apiOfSpecKey(specKey);
  const single = entries.length === 1;
  return entries.map((entry, index) => {
    const specPath = `spec.providers.${specKey}[${index}]`;
    const id = single ? undefined : defaultProviderId(entry);
    const envName = (field: string) => providerEnvName(api, id, field);
    const secretRefs = Object.keys(entry.secretRefs ?? {})
      .sort()
      .flatMap((field) => {
        const ref = own(entry.secretRefs, field);
        if (ref === undefined) return [];
        return [[field, bind(envName(field), ref, `${specPath}.secretRefs.${field}`)] as const];
      });
    const apiKey =
      entry.apiKey === undefined
        ? undefined
        : bind(envName("API_KEY"), entry.apiKey, `${specPath}.apiKey`);
    return { specKey, index, specPath, entry, apiKey, secretRefs };
  });
}

/** The backend fields spec.storage.<kind> sets, in a fixed order. */
export function storageFields(kind: "kv" | "sql", spec: KvStorage | SqlStorage): StorageField[] {
  if (spec.type === "sqlite") return [];
  const at = `spec.storage.${kind}`;
  const secretName = spec.secretName;
  if (secretName !== undefined) {
    const ref = (key: string) => ({ secretKeyRef: { name: secretName, key } });
    return Object.entries(SECRET_NAME_KEYS).map(([field, key]) => ({
      field,
      specField: "secretName",
      value: bind(storageEnvName(kind, field), ref(key), `${at}.secretName`),
    }));
  }
  const fields: StorageField[] = [];
  const put = (field: string, specField: string, value: string | number | undefined) => {
    if (value !== undefined) fields.push({ field, specField, value });
  };
  put("host", "host", spec.host);
  put("port", "port", spec.port);
  put("db", "database", spec.database);
  put("user", "user", spec.user);
  if (spec.password !== undefined) {
    const value = bind(storageEnvName(kind, "password"), spec.password, `${at}.password`);
    fields.push({ field: "password", specField: "password", value });
  }
  return fields;
}

/** What a valid spec binds: its provider entries and storage fields, with their Secret keys. */
export function specBindings(spec: Spec): SpecBindings {
  const providers = Object.keys(spec.providers ?? {})
    .sort()
    .map(
      (specKey) =>
        [specKey, providerBindings(specKey, own(spec.providers, specKey) ?? [])] as const,
    );
  const kv = spec.storage?.kv;
  const sql = spec.storage?.sql;
  return {
    providers,
    storage: {
      kv: kv === undefined ? undefined : storageFields("kv", kv),
      sql: sql === undefined ? undefined : storageFields("sql", sql),
    },
  };
}
