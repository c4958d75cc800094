// Storage backends from spec.storage: the fields each release's backend takes,
// the secrets they read, and which base backends they replace.
import { expect } from "chai";
import type { KvStorage, Storage } from "../../../src/api/storage.js";
import { SECRET_NAME_KEYS, storageFields } from "../../../src/config/bindings.js";
import type { Dialect } from "../../../src/config/dialect.js";
import { buildBackend, withStorage } from "../../../src/config/storage.js";
import { toStackConfig, type StackConfig } from "../../../src/config/model.js";
import { base, dialect, doc } from "./fixtures.js";

/** buildBackend on the fields specBindings finds in `spec`. */
const build = (kind: "kv" | "sql", spec: KvStorage, d: Dialect, distribution: string) =>
  buildBackend(kind, { type: spec.type, fields: storageFields(kind, spec) }, d, distribution);

/** withStorage with the storage bindings of `storage`. */
const storageOf = (config: StackConfig, storage: Storage | undefined, distribution: string) =>
  withStorage(
    config,
    storage,
    {
      kv: storage?.kv && storageFields("kv", storage.kv),
      sql: storage?.sql && storageFields("sql", storage.sql),
    },
    distribution,
  );

const password = { secretKeyRef: { name: "pg", key: "password" } };

describe("buildBackend", () => {
  it("sqlite: a file in the data directory, no secrets", () => {
    const built = build("kv", { type: "sqlite" }, dialect("0.7.3"), "starter");
    expect(built).to.deep.equal({
      backend: {
        type: "kv_sqlite",
        rest: { db_path: "${env.SQLITE_STORE_DIR:=~/.llama/distributions/starter}/kvstore.db" },
      },
      secrets: [],
      problems: [],
    });
  });

  it("postgres fields, the password from a Secret", () => {
    const built = build(
      "sql",
      { type: "postgres", host: "h", port: 5432, database: "d", user: "u", password },
      dialect("1.5.0"),
      "starter",
    );
    expect(built.backend).to.deep.equal({
      type: "sql_postgres",
      rest: {
        host: "h",
        port: 5432,
        db: "d",
        user: "u",
        password: "${env.LLSD_STORAGE_SQL_PASSWORD}",
      },
    });
    expect(built.secrets).to.deep.equal([
      {
        name: "LLSD_STORAGE_SQL_PASSWORD",
        secretName: "pg",
        key: "password",
        specPath: "spec.storage.sql.password.secretKeyRef",
      },
    ]);
  });

  it("secretName: every conventional key from the Secret", () => {
    const built = build("kv", { type: "postgres", secretName: "conn" }, dialect("0.7.3"), "x");
    expect(built.secrets.map((s) => [s.name, s.key])).to.deep.equal(
      Object.entries(SECRET_NAME_KEYS).map(([field, key]) => [
        `LLSD_STORAGE_KV_${field.toUpperCase()}`,
        key,
      ]),
    );
  });

  it("a field the release's backend lacks is an error, never dropped silently", () => {
    const built = build("kv", { type: "redis", host: "r", password }, dialect("0.7.3"), "x");
    expect(built.problems.map((p) => [p.reason, p.path])).to.deep.equal([
      ["UnsupportedStorageField", "spec.storage.kv.password"],
    ]);
    expect(built.secrets).to.deep.equal([]);
  });

  it("hostile: a backend type the release does not know takes no field", () => {
    const d = { ...dialect("0.7.3"), backendFields: () => undefined };
    const built = build("sql", { type: "postgres", host: "h" }, d, "x");
    expect(built.problems).to.have.length(1);
    expect(built.backend.rest).to.deep.equal({});
  });
});

describe("withStorage", () => {
  it("replaces every backend of the kind, keeping the names", () => {
    const b = base("1.5.0", "postgres-demo");
    const out = storageOf(b, { kv: { type: "redis", host: "r" } }, "postgres-demo");
    expect(out.config.storage?.backends?.["kv_default"]).to.deep.equal({
      type: "kv_redis",
      rest: { host: "r" },
    });
    expect(out.config.storage?.backends?.["sql_default"]).to.equal(
      b.storage?.backends?.["sql_default"],
    );
    expect(out.config.storage?.rest).to.equal(b.storage?.rest);
  });

  it("an unchanged sqlite backend keeps the distribution's own path", () => {
    const b = base("1.5.0");
    const out = storageOf(b, { kv: { type: "sqlite" }, sql: { type: "sqlite" } }, "starter");
    expect(doc(out.config)["storage"]).to.deep.equal(doc(b)["storage"]);
  });

  it("no spec.storage: the same config", () => {
    const b = base("0.7.3");
    expect(storageOf(b, undefined, "starter").config).to.equal(b);
  });

  it("hostile: a base without storage gets a section with <kind>_default", () => {
    const empty = toStackConfig({}, dialect("0.7.3"));
    const out = storageOf(empty, { sql: { type: "sqlite" } }, "x");
    expect(doc(out.config)["storage"]).to.deep.equal({
      backends: {
        sql_default: {
          type: "sql_sqlite",
          db_path: "${env.SQLITE_STORE_DIR:=~/.llama/distributions/x}/sql_store.db",
        },
      },
    });
  });
});
