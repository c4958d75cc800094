// What each release's config can say, read from its catalog entry once; and
// what a hostile catalog entry (missing or malformed schemas) gives.
import { expect } from "chai";
import type { ReleaseData } from "../../../src/config/catalog.js";
import { dialectOf } from "../../../src/config/dialect.js";
import { catalog, dialect, releaseData } from "./fixtures.js";

describe("dialectOf", () => {
  const rows: {
    release: string;
    ogx: boolean;
    strictTls: boolean;
    registersToolGroups: boolean;
    /** sql_postgres declares connection_string */
    connectionString: boolean;
  }[] = [
    // OGX 1.2+ refuses plain HTTP unless server.insecure; tool groups come from providers.
    {
      release: "1.5.0",
      ogx: true,
      strictTls: true,
      registersToolGroups: false,
      connectionString: true,
    },
    {
      release: "1.4.1",
      ogx: true,
      strictTls: true,
      registersToolGroups: false,
      connectionString: true,
    },
    // 0.7 deprecated registered tool groups; 0.6 still registers them.
    {
      release: "0.7.3",
      ogx: false,
      strictTls: false,
      registersToolGroups: false,
      connectionString: false,
    },
    {
      release: "0.6.1",
      ogx: false,
      strictTls: false,
      registersToolGroups: true,
      connectionString: false,
    },
  ];
  for (const row of rows)
    it(row.release, () => {
      const d = dialect(row.release);
      expect(d.release).to.equal(row.release);
      expect([d.ogx, d.strictTls, d.registersToolGroups]).to.deep.equal([
        row.ogx,
        row.strictTls,
        row.registersToolGroups,
      ]);
      expect(d.backendFields("sql_postgres")?.includes("connection_string")).to.equal(
        row.connectionString,
      );
      // No release's kv_redis takes a password (docs/guide/storage.md).
      expect(d.backendFields("kv_redis")).to.not.include("password");
    });

  it("covers every supported release", () =>
    expect(rows.map((r) => r.release)).to.have.members(catalog.releases));

  const d = dialect("0.7.3");
  const dependencies: [string, string | undefined][] = [
    ["inference", "inference"], // an API serves itself
    ["models", "inference"], // a routing table: its router
    ["tool_groups", "tool_runtime"],
    ["conversations", undefined], // internal, always on
    ["agents", undefined], // renamed in 0.7
    ["", undefined],
    ["constructor", undefined],
  ];
  for (const [dependency, want] of dependencies)
    it(`providingApi(${JSON.stringify(dependency)}) on 0.7.3`, () =>
      expect(d.providingApi(dependency)).to.equal(want));

  it("provider types by own name only", () => {
    expect(d.providerType("inference", "remote::vllm")?.urlFields).to.deep.equal(["base_url"]);
    expect(d.providerType("inference", "constructor")).to.equal(undefined);
    expect(d.providerType("toString", "remote::vllm")).to.equal(undefined);
    expect(d.providerTypes("nope")).to.deep.equal({});
  });

  it("is computed once per release and frozen", () => {
    expect(dialectOf(releaseData("1.5.0"))).to.equal(dialect("1.5.0"));
    expect(Object.isFrozen(d)).to.equal(true);
    expect(Object.isFrozen(d.providableApis)).to.equal(true);
    expect(Object.isFrozen(releaseData("0.7.3").apis.providable)).to.equal(false);
  });

  const hostile: [string, Partial<ReleaseData>][] = [
    ["empty schemas", { stackConfigSchema: {}, serverConfigSchema: {} }],
    ["$defs a list", { stackConfigSchema: { $defs: [] } }],
    ["properties a string", { serverConfigSchema: { properties: "insecure" } }],
    [
      "a backend type that is not a string, and RegisteredResources without properties",
      {
        stackConfigSchema: {
          $defs: { A: { properties: { type: { const: 3 } } }, RegisteredResources: {} },
        },
      },
    ],
  ];
  for (const [what, patch] of hostile)
    it(`hostile: ${what}`, () => {
      const empty = { stackConfigSchema: {}, serverConfigSchema: undefined };
      const h = dialectOf({ ...releaseData("1.5.0"), ...empty, ...patch });
      expect([h.strictTls, h.registersToolGroups]).to.deep.equal([false, false]);
      expect(h.backendFields("kv_sqlite")).to.equal(undefined);
    });
});
