// Storage backends from spec.storage: the fields each release's backend takes,
// the secrets they read, and which base backends they replace.
import { expect } from "chai";
import { buildBackend, SECRET_NAME_KEYS, withStorage } from "../../../src/config/storage.js";
import { toStackConfig } from "../../../src/config/model.js";
import { base, dialect, doc } from "./fixtures.js";

const password = { secretKeyRef: { name: "pg", key: "password" } };

describe("buildBackend", () => {
  it("sqlite: a file in the data directory, no secrets", () => {
    const built = buildBackend("kv", { type: "sqlite" }, dialect("0.7.3"), "starter");
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
    const built = buildBackend(
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
    const built = buildBackend(
      "kv",
      { type: "postgres", secretName: "conn" },
      dialect("0.7.3"),
      "x",
    );
    expect(built.secrets.map((s) => [s.name, s.key])).to.deep.equal(
      Object.entries(SECRET_NAME_KEYS).map(([field, key]) => [
        `LLSD_STORAGE_KV_${field.toUpperCase()}`,
        key,
      ]),
    );
  });

  it("a field the release's backend lacks is an error, never dropped silently", () => {
    const built = buildBackend("kv", { type: "redis", host: "r", password }, dialect("0.7.3"), "x");
    expect(built.problems.map((p) => [p.reason, p.path])).to.deep.equal([
      ["UnsupportedStorageField", "spec.storage.kv.password"],
    ]);
    expect(built.secrets).to.deep.equal([]);
  });

  it("hostile: a backend type the release does not know takes no field", () => {
    const d = { ...dialect("0.7.3"), backendFields: () => undefined };
    const built = buildBackend("sql", { type: "postgres", host: "h" }, d, "x");
    expect(built.problems).to.have.length(1);
    expect(built.backend.rest).to.deep.equal({});
  });
});

describe("withStorage", () => {
  it("replaces every backend of the kind, keeping the names", () => {
    const b = base("1.5.0", "postgres-demo");
    const out = withStorage(b, { kv: { type: "redis", host: "r" } }, "postgres-demo");
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
    const out = withStorage(b, { kv: { type: "sqlite" }, sql: { type: "sqlite" } }, "starter");
    expect(doc(out.config)["storage"]).to.deep.equal(doc(b)["storage"]);
  });

  it("no spec.storage: the same config", () => {
    const b = base("0.7.3");
    expect(withStorage(b, undefined, "starter").config).to.equal(b);
  });

  it("hostile: a base without storage gets a section with <kind>_default", () => {
    const empty = toStackConfig({}, dialect("0.7.3"));
    const out = withStorage(empty, { sql: { type: "sqlite" } }, "x");
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
