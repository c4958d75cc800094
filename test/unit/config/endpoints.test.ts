// A remote provider's URL that would be empty at startup (config/endpoints.ts):
// when a placeholder leaves a text empty, one row per case, and the base
// providers it concerns on every supported release, as docs/guide/providers.md
// lists them.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { emptyWithout } from "../../../src/config/endpoints.js";
import { baseConfigOf, providerLists } from "../../../src/config/model.js";
import { effectiveId } from "../../../src/config/providers.js";
import { RUNTIME_ENV_NAMES } from "../../../src/container.js";
import { loadCatalog } from "../../../src/edge/load-catalog.js";

const ENV = new Set(["SET", "ALSO_SET"]);

const rows: { text: string; expected: string[] | undefined; why: string }[] = [
  { text: "${env.VLLM_URL:=}", expected: ["VLLM_URL"], why: "an empty default, nothing set" },
  { text: "${env.SET:=}", expected: undefined, why: "set: its value decides, at startup" },
  { text: "${env.X:=http://localhost:11434/v1}", expected: undefined, why: "a default URL" },
  { text: "${env.X:+http://x}", expected: ["X"], why: "a value only when X is set" },
  { text: "${env.SET:+http://x}", expected: undefined, why: "set: the value" },
  {
    text: "${env.SET:+}",
    expected: undefined,
    why: "set, and empty by its own text: no variable to name, left as written",
  },
  { text: "${env.X}", expected: undefined, why: "bare: the startup check's (EnvVarUnset)" },
  { text: "${env.SET}", expected: undefined, why: "bare and set: decided at startup" },
  { text: "${env.A:=}${env.B:=}", expected: ["A", "B"], why: "two empty defaults" },
  { text: "${env.A:=}${env.A:=}", expected: ["A"], why: "one variable, named once" },
  { text: " ${env.A:=} ", expected: ["A"], why: "blanks around it are still nothing" },
  { text: "http://${env.A:=}:8000", expected: undefined, why: "text of its own around it" },
  { text: "${env.SET:=}${env.A:=}", expected: undefined, why: "a set variable may fill it" },
  { text: "", expected: undefined, why: "no placeholder: the schema checks literals" },
  { text: "   ", expected: undefined, why: "blank literal: the schema's too" },
  { text: "${env.lower:=}", expected: undefined, why: "not a placeholder (names are A-Z0-9_)" },
  { text: "${env.X:=", expected: undefined, why: "unclosed: literal text" },
  { text: "${env.X:=}".repeat(1000), expected: ["X"], why: "long" },
];

describe("emptyWithout: what leaves a URL empty at startup", () => {
  for (const row of rows)
    it(`${JSON.stringify(row.text.slice(0, 40))}: ${row.why}`, () => {
      expect(emptyWithout(row.text, ENV)).to.deep.equal(row.expected);
    });
});

interface Affected {
  distribution: string;
  id: string;
  type: string;
  field: string;
  variable: string;
  releases: string;
}

/** The base providers whose URL is empty unless its variable is set, from configs/. */
function affectedBaseProviders(): Affected[] {
  const catalog = loadCatalog();
  const env = new Set(RUNTIME_ENV_NAMES);
  const found = new Map<string, Omit<Affected, "releases"> & { releases: string[] }>();
  for (const release of catalog.releases) {
    const data = catalog.byRelease[release];
    if (data === undefined) continue;
    for (const distribution of Object.keys(data.baseConfigs)) {
      const base = baseConfigOf(data, distribution);
      for (const [api, list] of base === undefined ? [] : providerLists(base))
        for (const entry of list) {
          const info = data.providers[api]?.[entry.provider_type];
          if (info === undefined || !entry.provider_type.startsWith("remote::")) continue;
          for (const field of info.urlFields) {
            const value = entry.config?.[field];
            const unset = typeof value === "string" ? emptyWithout(value, env) : undefined;
            if (unset === undefined) continue;
            const row = {
              distribution,
              id: String(effectiveId(entry.provider_id)),
              type: entry.provider_type,
              field,
              variable: unset.join(", "),
            };
            const key = JSON.stringify(row);
            const seen = found.get(key) ?? { ...row, releases: [] };
            seen.releases.push(release);
            found.set(key, seen);
          }
        }
    }
  }
  return [...found.values()].map((r) => ({ ...r, releases: r.releases.join(", ") }));
}

/** The table under "A remote provider needs a URL" in docs/guide/providers.md. */
function documented(): Affected[] {
  const text = readFileSync(join(import.meta.dirname, "../../../docs/guide/providers.md"), "utf8");
  const section = text.slice(text.indexOf("## A remote provider needs a URL"));
  return section
    .split("\n")
    .filter((l) => /^\| [a-z]/.test(l) && !l.startsWith("| distribution"))
    .map((l) => {
      const [distribution, id, type, field, variable, releases] = l
        .split("|")
        .slice(1, -1)
        .map((c) => c.trim());
      return {
        distribution: distribution ?? "",
        id: id ?? "",
        type: type ?? "",
        field: field ?? "",
        variable: variable ?? "",
        releases: releases ?? "",
      };
    });
}

describe("base providers whose URL is empty unless set", () => {
  it("are the ones docs/guide/providers.md lists, on every supported release", () => {
    const key = (a: Affected) => JSON.stringify(a);
    const computed = affectedBaseProviders().map(key).sort();
    expect(computed.length).to.be.greaterThan(0);
    expect(documented().map(key).sort()).to.deep.equal(computed);
  });
});
