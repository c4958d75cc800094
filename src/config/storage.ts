// Storage (docs/guide/storage.md): spec.storage.kv / .sql replace the base config's
// backends of that kind (kv_* / sql_*), keeping the backend names so every
// store reference stays valid. Fields are checked against the release's own
// backend schema: a field the release lacks is an error, never dropped.
import type { Storage as StorageSpec } from "../api/storage.js";
import type { SpecBindings, StorageField } from "./bindings.js";
import { msg } from "../messages.js";
import { problem, type Problem } from "../problems.js";
import { Reason } from "../reasons.js";
import type { Dialect } from "./dialect.js";
import { envRef } from "./envsubst.js";
import type { JsonObject } from "../lib/json.js";
import type { Backend, StackConfig } from "./model.js";
import type { SecretBinding } from "./secrets.js";

type Kind = "kv" | "sql";

function sqlitePath(distribution: string, file: string): string {
  return `\${env.SQLITE_STORE_DIR:=~/.llama/distributions/${distribution}}/${file}`;
}

interface Built {
  backend: Backend;
  secrets: SecretBinding[];
  problems: Problem[];
}

/** The backend spec.storage.<kind> describes (its fields from specBindings), with the secrets it reads. */
export function buildBackend(
  kind: Kind,
  spec: { type: string; fields: readonly StorageField[] },
  dialect: Dialect,
  distribution: string,
): Built {
  const type = `${kind}_${spec.type}`;
  const secrets: SecretBinding[] = [];
  const problems: Problem[] = [];
  const fields: JsonObject = {};
  if (spec.type === "sqlite") {
    fields["db_path"] = sqlitePath(distribution, kind === "kv" ? "kvstore.db" : "sql_store.db");
    return { backend: { type, rest: fields }, secrets, problems };
  }
  const declared = dialect.backendFields(type) ?? [];
  for (const { field, specField, value } of spec.fields) {
    if (!declared.includes(field)) {
      const at = `spec.storage.${kind}.${specField}`;
      const text = msg.unsupportedStorageField(field, type, dialect.release);
      problems.push(problem(Reason.UnsupportedStorageField, at, text));
    } else if (typeof value !== "object") fields[field] = value;
    else {
      secrets.push(value);
      fields[field] = envRef(value.name);
    }
  }
  return { backend: { type, rest: fields }, secrets, problems };
}

/**
 * `backends` with every backend of `kind` replaced by `backend` (kv_default or
 * sql_default when it has none). An unchanged sqlite backend keeps the
 * distribution's own path.
 */
function replaceBackends(
  backends: Readonly<Record<string, Backend>>,
  kind: Kind,
  backend: Backend,
): Record<string, Backend> {
  const names = Object.keys(backends).filter((n) => backends[n]?.type.startsWith(`${kind}_`));
  const out = { ...backends };
  for (const name of names.length > 0 ? names : [`${kind}_default`]) {
    if (backend.type === `${kind}_sqlite` && backends[name]?.type === backend.type) continue;
    out[name] = backend;
  }
  return out;
}

/** The config with the storage backends of each kind the spec sets; the secrets they read. */
export function withStorage(
  config: StackConfig,
  storage: StorageSpec | undefined,
  bound: SpecBindings["storage"],
  distribution: string,
): { config: StackConfig; secrets: SecretBinding[]; problems: Problem[] } {
  const secrets: SecretBinding[] = [];
  const problems: Problem[] = [];
  let next = config;
  for (const kind of ["kv", "sql"] as const) {
    const spec = storage?.[kind];
    if (spec === undefined) continue;
    const fields = { type: spec.type, fields: bound[kind] ?? [] };
    const built = buildBackend(kind, fields, config.dialect, distribution);
    secrets.push(...built.secrets);
    problems.push(...built.problems);
    const section = next.storage ?? { backends: undefined, rest: {} };
    const backends = replaceBackends(section.backends ?? {}, kind, built.backend);
    next = { ...next, storage: { ...section, backends } };
  }
  return { config: next, secrets, problems };
}
