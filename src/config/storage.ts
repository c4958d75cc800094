// Storage (SPEC §4.6): spec.storage.kv / .sql replace the base config's
// backends of that kind (kv_* / sql_*), keeping the backend names so every
// store reference stays valid. Fields are checked against the release's own
// backend schema: a field the release lacks is an error, never dropped.
import type { KvStorage, SecretRef, SqlStorage, Storage } from "../api/schema.js";
import { msg } from "../messages.js";
import { problem, Reason, type Problem } from "../problems.js";
import type { JsonSchema, ReleaseData } from "./catalog.js";
import { envRef } from "./envsubst.js";
import { isObject, type Json, type JsonObject } from "./json.js";
import { storageEnvName, type SecretBinding } from "./secrets.js";

type Kind = "kv" | "sql";

/** Keys of the Secret named by storage.<kind>.secretName. */
const SECRET_NAME_KEYS: Record<string, string> = {
  host: "host",
  port: "port",
  db: "dbname",
  user: "user",
  password: "password",
};

function backendSchema(release: ReleaseData, backendType: string): JsonSchema | undefined {
  const defs = (release.stackConfigSchema["$defs"] ?? {}) as Record<string, JsonSchema>;
  return Object.values(defs).find((d) => {
    const typeProp = ((d["properties"] ?? {}) as Record<string, JsonSchema>)["type"];
    return (
      typeProp !== undefined &&
      (typeProp["const"] === backendType || typeProp["default"] === backendType)
    );
  });
}

function sqlitePath(distribution: string, file: string): string {
  return `\${env.SQLITE_STORE_DIR:=~/.llama/distributions/${distribution}}/${file}`;
}

interface Built {
  backend: JsonObject;
  secrets: SecretBinding[];
  problems: Problem[];
}

function buildBackend(
  kind: Kind,
  spec: KvStorage | SqlStorage,
  release: ReleaseData,
  distribution: string,
): Built {
  const at = `spec.storage.${kind}`;
  const backendType = `${kind}_${spec.type}`;
  const secrets: SecretBinding[] = [];
  const problems: Problem[] = [];
  const backend: JsonObject = { type: backendType };
  if (spec.type === "sqlite") {
    backend["db_path"] = sqlitePath(distribution, kind === "kv" ? "kvstore.db" : "sql_store.db");
    return { backend, secrets, problems };
  }
  const schema = backendSchema(release, backendType);
  const declared = Object.keys((schema?.["properties"] ?? {}) as Record<string, unknown>);

  const fromSecret = (field: string, ref: SecretRef, specField: string) => {
    const name = storageEnvName(kind, field);
    secrets.push({
      name,
      secretName: ref.secretKeyRef.name,
      key: ref.secretKeyRef.key,
      specPath: `${at}.${specField}.secretKeyRef`,
    });
    return envRef(name);
  };
  const put = (
    field: string,
    specField: string,
    value: string | number | SecretRef | undefined,
  ) => {
    if (value === undefined) return;
    if (!declared.includes(field)) {
      problems.push(
        problem(
          Reason.UnsupportedStorageField,
          `${at}.${specField}`,
          msg.unsupportedStorageField(field, backendType, release.release),
        ),
      );
      return;
    }
    backend[field] = typeof value === "object" ? fromSecret(field, value, specField) : value;
  };

  if (spec.secretName !== undefined) {
    for (const [field, key] of Object.entries(SECRET_NAME_KEYS)) {
      put(field, "secretName", { secretKeyRef: { name: spec.secretName, key } });
    }
  } else {
    put("host", "host", spec.host);
    put("port", "port", spec.port);
    put("db", "database", spec.database);
    put("user", "user", spec.user);
    put("password", "password", spec.password);
  }
  return { backend, secrets, problems };
}

/** Replaces the storage backends of each kind the spec sets; returns the secrets they read. */
export function applyStorage(
  config: JsonObject,
  storage: Storage | undefined,
  release: ReleaseData,
  distribution: string,
): { secrets: SecretBinding[]; problems: Problem[] } {
  const secrets: SecretBinding[] = [];
  const problems: Problem[] = [];
  for (const kind of ["kv", "sql"] as const) {
    const spec = storage?.[kind];
    if (spec === undefined) continue;
    const built = buildBackend(kind, spec, release, distribution);
    secrets.push(...built.secrets);
    problems.push(...built.problems);
    const storageDoc = (
      isObject(config["storage"]) ? config["storage"] : (config["storage"] = {})
    ) as JsonObject;
    const backends = (
      isObject(storageDoc["backends"]) ? storageDoc["backends"] : (storageDoc["backends"] = {})
    ) as Record<string, Json>;
    const names = Object.keys(backends).filter((n) => {
      const b = backends[n];
      return isObject(b) && typeof b["type"] === "string" && b["type"].startsWith(`${kind}_`);
    });
    const targets = names.length > 0 ? names : [`${kind}_default`];
    for (const name of targets) {
      const current = backends[name];
      // An unchanged sqlite backend keeps the distribution's own path.
      if (spec.type === "sqlite" && isObject(current) && current["type"] === `${kind}_sqlite`)
        continue;
      backends[name] = structuredClone(built.backend);
    }
  }
  return { secrets, problems };
}
