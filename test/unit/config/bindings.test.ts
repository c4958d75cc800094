// Table tests for the spec's secret bindings: env var names and spec paths,
// worked out from the spec alone.
import { expect } from "chai";
import { specBindings, type SpecBindings } from "../../../src/config/bindings.js";
import { spec } from "./fixtures.js";

const key = (name: string, k: string) => ({ secretKeyRef: { name, key: k } });

/** Every binding as "ENV <- secret/key @ path", providers then storage. */
function show(b: SpecBindings): string[] {
  const out: string[] = [];
  for (const [, entries] of b.providers)
    for (const p of entries)
      for (const x of [...(p.apiKey ? [p.apiKey] : []), ...p.secretRefs.map(([, s]) => s)])
        out.push(`${x.name} <- ${x.secretName}/${x.key} @ ${x.specPath}`);
  for (const fields of [b.storage.kv, b.storage.sql])
    for (const f of fields ?? [])
      out.push(
        typeof f.value === "object"
          ? `${f.value.name} <- ${f.value.secretName}/${f.value.key} @ ${f.value.specPath}`
          : `${f.field} = ${f.value}`,
      );
  return out;
}

describe("specBindings", () => {
  const rows: [why: string, raw: Record<string, unknown>, want: string[]][] = [
    ["nothing bound", {}, []],
    [
      "one provider for the API: no id in the name",
      { providers: { inference: [{ provider: "vllm", apiKey: key("v", "token") }] } },
      ["LLSD_INFERENCE_API_KEY <- v/token @ spec.providers.inference[0].apiKey.secretKeyRef"],
    ],
    [
      "several providers: the id in the name; secretRefs sorted by field",
      {
        providers: {
          vectorIo: [
            {
              provider: "remote::pgvector",
              id: "pg",
              secretRefs: { user: key("p", "u"), password: key("p", "pw") },
            },
            { provider: "faiss", id: "local" },
          ],
        },
      },
      [
        "LLSD_VECTOR_IO_PG_PASSWORD <- p/pw @ spec.providers.vectorIo[0].secretRefs.password.secretKeyRef",
        "LLSD_VECTOR_IO_PG_USER <- p/u @ spec.providers.vectorIo[0].secretRefs.user.secretKeyRef",
      ],
    ],
    [
      "storage: secretName binds every conventional key",
      {
        storage: {
          kv: { type: "postgres", secretName: "pg" },
          sql: { type: "postgres", secretName: "pg" },
        },
      },
      ["kv", "sql"].flatMap((kind) =>
        [
          ["HOST", "host"],
          ["PORT", "port"],
          ["DB", "dbname"],
          ["USER", "user"],
          ["PASSWORD", "password"],
        ].map(
          ([env, k]) =>
            `LLSD_STORAGE_${kind.toUpperCase()}_${env} <- pg/${k} @ spec.storage.${kind}.secretName.secretKeyRef`,
        ),
      ),
    ],
    [
      "storage: literal fields stay literal, the password is bound; sqlite sets nothing",
      {
        storage: {
          kv: { type: "sqlite" },
          sql: {
            type: "postgres",
            host: "h",
            port: 5432,
            database: "d",
            user: "u",
            password: key("pg", "pw"),
          },
        },
      },
      [
        "host = h",
        "port = 5432",
        "db = d",
        "user = u",
        "LLSD_STORAGE_SQL_PASSWORD <- pg/pw @ spec.storage.sql.password.secretKeyRef",
      ],
    ],
  ];
  for (const [why, raw, want] of rows)
    it(why, () => expect(show(specBindings(spec(raw)))).to.deep.equal(want));
});
