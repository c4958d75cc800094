// spec.storage: the key-value and SQL store backends the server keeps its
// state in.
import { z } from "zod";
import { LIMITS, objectName, SecretRef } from "./fields.js";
import { rule, withRules } from "./rules.js";

// Connection fields are literals: a structural CRD cannot type "a literal or a
// {secretKeyRef}" union for CEL (docs/adr/0003). Secret-held connection data
// comes through password (a secretKeyRef) or secretName.
const Host = z.string().min(1).max(LIMITS.shortString);
const Port = z.number().int().min(1).max(65535);
const Word = z.string().min(1).max(LIMITS.shortString);

type StorageFields = { type: string; [k: string]: unknown };
const has = (s: StorageFields, ...keys: string[]) => keys.some((k) => s[k] !== undefined);
const CONNECTION = ["host", "port", "database", "user", "password", "secretName"];

function storageRules(kind: "kv" | "sql") {
  const at = `spec.storage.${kind}`;
  const celNone = (keys: string[]) => keys.map((k) => `!has(self.${k})`).join(" && ");
  const rules = [
    rule<StorageFields>({
      id: `storage-${kind}-sqlite-no-connection`,
      cel: `self.type != 'sqlite' || (${celNone(CONNECTION)})`,
      message: `${at}: type sqlite takes no connection fields (host, port, database, user, password, secretName); remove them or change the type`,
      check: (s) => s.type !== "sqlite" || !has(s, ...CONNECTION),
    }),
    rule<StorageFields>({
      id: `storage-${kind}-postgres-connection`,
      cel: "self.type != 'postgres' || has(self.secretName) || (has(self.host) && has(self.user) && has(self.password))",
      message: `${at}: postgres needs host, user and password (a secretKeyRef), or secretName for a Secret with keys host, port, dbname, user and password`,
      check: (s) =>
        s.type !== "postgres" ||
        has(s, "secretName") ||
        (has(s, "host") && has(s, "user") && has(s, "password")),
    }),
    rule<StorageFields>({
      id: `storage-${kind}-secret-name-exclusive`,
      cel: `!has(self.secretName) || (${celNone(["host", "port", "database", "user", "password"])})`,
      message: `${at}.secretName: reads host, port, dbname, user and password from the Secret; remove the separate connection fields`,
      fieldPath: ".secretName",
      check: (s) =>
        !has(s, "secretName") || !has(s, "host", "port", "database", "user", "password"),
    }),
  ];
  if (kind === "kv") {
    rules.push(
      rule<StorageFields>({
        id: "storage-kv-redis-fields",
        cel: `self.type != 'redis' || (has(self.host) && ${celNone(["database", "user", "secretName"])})`,
        message:
          "spec.storage.kv: type redis takes host (required), port and password; remove database, user and secretName",
        check: (s) =>
          s.type !== "redis" || (has(s, "host") && !has(s, "database", "user", "secretName")),
      }),
    );
  }
  return rules;
}

export const KvStorage = withRules(
  z
    .strictObject({
      type: z
        .enum(["sqlite", "redis", "postgres"])
        .describe("sqlite (a file in the pod's data volume), redis or postgres."),
      host: Host.optional().describe("redis/postgres host name."),
      port: Port.optional().describe("redis/postgres port."),
      database: Word.optional().describe("postgres database name."),
      user: Word.optional().describe("postgres user name."),
      password: SecretRef.optional().describe(
        "postgres (or redis, where the release supports it) password, from a Secret.",
      ),
      secretName: objectName("Secret")
        .optional()
        .describe(
          "postgres: a Secret with the conventional keys host, port, dbname, user and password, instead of the separate fields.",
        ),
    })
    .describe(
      "Key-value store backend. Replaces the distribution's kv backend; store references stay as they are.",
    ),
  storageRules("kv"),
);

export const SqlStorage = withRules(
  z
    .strictObject({
      type: z
        .enum(["sqlite", "postgres"])
        .describe("sqlite (a file in the pod's data volume) or postgres."),
      host: Host.optional().describe("postgres host name."),
      port: Port.optional().describe("postgres port."),
      database: Word.optional().describe("postgres database name."),
      user: Word.optional().describe("postgres user name."),
      password: SecretRef.optional().describe("postgres password, from a Secret."),
      secretName: objectName("Secret")
        .optional()
        .describe(
          "A Secret with the conventional keys host, port, dbname, user and password, instead of the separate fields.",
        ),
    })
    .describe(
      "SQL store backend. Replaces the distribution's sql backend; store references stay as they are.",
    ),
  storageRules("sql"),
);

export const Storage = z
  .strictObject({
    kv: KvStorage.optional(),
    sql: SqlStorage.optional(),
  })
  .describe("Where the server keeps its state. Omitted parts keep the distribution's backends.");
export type Storage = z.infer<typeof Storage>;
export type KvStorage = z.infer<typeof KvStorage>;
export type SqlStorage = z.infer<typeof SqlStorage>;
