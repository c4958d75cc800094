// A custom base's legacy KV store references, checked as OGX parses them: its
// parse step moves a KV-shaped prompts store to SQL (1.0+), its
// ServerStoresConfig validator does the same for connectors (1.4.1+); Llama
// Stack 0.7.3 takes KV references there as they are. Read from the packages
// (ogx/core/configure.py, ogx/core/storage/datatypes.py).
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { customBaseOf } from "../../../src/config/base-config.js";
import { own } from "../../../src/lib/json.js";
import { syncContext } from "../../support/harness.js";

const base = readFileSync(
  join(import.meta.dirname, "..", "..", "golden", "bases", "acme-1.5.0.yaml"),
  "utf8",
);
const withStore = (store: string, ref: string) =>
  base.replace(new RegExp(`^    ${store}:\\n(      .*\\n)+`, "m"), `    ${store}:\n${ref}`);

function check(text: string, release: string): string[] {
  const data = own(syncContext().catalog.byRelease, release);
  if (data === undefined) throw new Error(`no release ${release}`);
  const result = customBaseOf({ configMapName: "acme-base", key: "config.yaml", text }, data);
  return result.ok ? [] : result.problems.map((p) => p.detail);
}

describe("a custom base's legacy KV store references (OGX migrates them)", () => {
  const rows: { name: string; store: string; ref: string; problems: number }[] = [
    {
      name: "prompts as {namespace, backend: kv_default}",
      store: "prompts",
      ref: "      namespace: prompts\n      backend: kv_default\n",
      problems: 0,
    },
    {
      name: "connectors as {namespace, backend: kv_default}",
      store: "connectors",
      ref: "      namespace: connectors\n      backend: kv_default\n",
      problems: 0,
    },
    {
      name: "prompts with neither namespace nor table_name: still refused",
      store: "prompts",
      ref: "      backend: sql_default\n",
      problems: 1,
    },
  ];
  for (const row of rows)
    it(`1.5.0: ${row.name}`, () => {
      const text = withStore(row.store, row.ref);
      expect(text, "the base was edited").to.not.equal(base);
      expect(check(text, "1.5.0")).to.have.length(row.problems);
    });
});
