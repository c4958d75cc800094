// Table tests of the config engine's small functions, hostile rows included.
import { expect } from "chai";
import { barePlaceholders, conditionalId, placeholdersIn } from "../../../src/config/envsubst.js";
import { effectiveId, resolveProviderType } from "../../../src/config/providers.js";
import { findCollisions, providerEnvName, storageEnvName } from "../../../src/config/secrets.js";
import { toCanonicalYaml } from "../../../src/config/canonical.js";
import { loadCatalog, parseImageOverrides } from "../../../src/edge/load-catalog.js";

const catalog = loadCatalog();
const release = catalog.byRelease["0.7.3"]!;

describe("envsubst", () => {
  const rows: [string, string, unknown][] = [
    ["a bare placeholder", "${env.X}", [{ name: "X", operator: "", argument: "" }]],
    [
      "a default",
      "${env.URL:=http://h:1/v1}",
      [{ name: "URL", operator: "=", argument: "http://h:1/v1" }],
    ],
    ["an empty default", "${env.K:=}", [{ name: "K", operator: "=", argument: "" }]],
    ["a conditional", "${env.V:+vllm}", [{ name: "V", operator: "+", argument: "vllm" }]],
    [
      "inside a string",
      "http://${env.H:=x}:${env.P}/v1",
      [
        { name: "H", operator: "=", argument: "x" },
        { name: "P", operator: "", argument: "" },
      ],
    ],
    ["lower-case names are not placeholders", "${env.lower}", []],
    ["${NAME} is not a placeholder", "${HOME}", []],
    ["the :- form is not a placeholder", "${env.X:-d}", []],
    ["plain text", "hello", []],
  ];
  for (const [what, text, want] of rows)
    it(`placeholdersIn: ${what}`, () => expect(placeholdersIn(text)).to.deep.equal(want));

  it("conditionalId", () => {
    expect(conditionalId("${env.VLLM_URL:+vllm}")).to.deep.equal({
      id: "vllm",
      envVar: "VLLM_URL",
    });
    expect(conditionalId("vllm")).to.equal(undefined);
    expect(conditionalId("${env.X:=vllm}")).to.equal(undefined);
    expect(effectiveId("${env.VLLM_URL:+vllm}")).to.equal("vllm");
    expect(effectiveId(null)).to.equal(undefined);
    expect(effectiveId(3)).to.equal(undefined);
  });

  it("barePlaceholders finds every bare use with its path", () => {
    const doc = { a: ["${env.A}", { b: "x ${env.B:=1} ${env.C}" }], d: null, e: 5 };
    expect(barePlaceholders(doc)).to.deep.equal([
      { name: "A", path: ["a", 0] },
      { name: "C", path: ["a", 1, "b"] },
    ]);
  });
});

describe("provider types", () => {
  const inference = release.providers["inference"]!;
  const rows: [string, string | undefined][] = [
    ["vllm", "remote::vllm"],
    ["remote::vllm", "remote::vllm"],
    ["sentence-transformers", "inline::sentence-transformers"],
    ["inline::vllm", undefined],
    ["tgi", undefined],
    ["", undefined],
  ];
  for (const [provider, want] of rows)
    it(`${JSON.stringify(provider)} → ${String(want)}`, () =>
      expect(resolveProviderType(provider, inference)).to.equal(want));
  it("llama-guard is inline (docs/guide/providers.md)", () =>
    expect(resolveProviderType("llama-guard", release.providers["safety"]!)).to.equal(
      "inline::llama-guard",
    ));
});

describe("secret env var names (docs/guide/secrets.md)", () => {
  const rows: [string, string | undefined, string, string][] = [
    ["inference", undefined, "API_KEY", "LLSD_INFERENCE_API_KEY"],
    ["vector_io", undefined, "password", "LLSD_VECTOR_IO_PASSWORD"],
    ["inference", "vllm-primary", "API_KEY", "LLSD_INFERENCE_VLLM_PRIMARY_API_KEY"],
    ["inference", "a.b_c", "api_token", "LLSD_INFERENCE_A_B_C_API_TOKEN"],
  ];
  for (const [api, id, field, want] of rows)
    it(want, () => expect(providerEnvName(api, id, field)).to.equal(want));
  it("storage", () =>
    expect(storageEnvName("sql", "password")).to.equal("LLSD_STORAGE_SQL_PASSWORD"));
  it("two references on one name are a collision", () => {
    const problems = findCollisions([
      {
        name: "LLSD_INFERENCE_A_B_API_KEY",
        secretName: "s",
        key: "k",
        specPath: "spec.providers.inference[0].apiKey.secretKeyRef",
      },
      {
        name: "LLSD_INFERENCE_A_B_API_KEY",
        secretName: "s",
        key: "k",
        specPath: "spec.providers.inference[1].apiKey.secretKeyRef",
      },
    ]);
    expect(problems).to.have.length(1);
    expect(problems[0]?.reason).to.equal("EnvVarCollision");
  });
});

describe("canonical YAML", () => {
  it("orders the top level, sorts the rest, keeps list order, quotes YAML 1.1 booleans", () => {
    const yaml = toCanonicalYaml({
      server: { port: 1 },
      version: 2,
      apis: ["b", "a"],
      x: { b: "yes", a: "on" },
    });
    expect(yaml).to.equal(
      'version: 2\napis:\n  - b\n  - a\nserver:\n  port: 1\nx:\n  a: "on"\n  b: "yes"\n',
    );
  });
});

describe("image overrides file", () => {
  it("maps names and name:release to images", () => {
    expect(parseImageOverrides("starter: m/s:1\nstarter:0.6.1: m/s:0\n", "f")).to.deep.equal({
      starter: "m/s:1",
      "starter:0.6.1": "m/s:0",
    });
    expect(parseImageOverrides("", "f")).to.deep.equal({});
  });
  it("rejects what is not a mapping of strings", () => {
    expect(() => parseImageOverrides("- a", "f")).to.throw("f: must be a YAML mapping");
    expect(() => parseImageOverrides("starter: 3", "f")).to.throw(
      "f: starter must map to an image reference",
    );
  });
  it("checks every value as an image reference, as a container runtime parses it", () => {
    const rows: [value: string, ok: boolean][] = [
      ["quay.io/acme/starter:1.5.0", true],
      ["registry.local:5000/ogx/distribution-starter:1.5.0-fips", true],
      [`ghcr.io/acme/starter@sha256:${"a".repeat(64)}`, true],
      [`starter:1@sha256:${"0".repeat(64)}`, true],
      ["[::1]:5000/acme/starter", true],
      // hostile rows: each would reach a Deployment the API server or the node refuses
      ["quay.io/Acme/starter:1", false], // upper case in the path
      ["quay.io/acme/starter:1 --privileged", false],
      ["quay.io/acme/starter:1\nx: y", false],
      ["quay.io/acme/starter:", false],
      ["-starter", false],
      [`starter@sha256:${"a".repeat(10)}`, false],
      [`${"a".repeat(256)}:1`, false],
    ];
    for (const [value, ok] of rows) {
      const parse = () => parseImageOverrides(`starter: ${JSON.stringify(value)}\n`, "f");
      if (ok) expect(parse(), value).to.deep.equal({ starter: value });
      else
        expect(parse, value).to.throw(/^f: starter maps to ".*", which is not an image reference/);
    }
    expect(() => parseImageOverrides('starter: "quay.io/Acme/s:1"\n', "f")).to.throw(
      'f: starter maps to "quay.io/Acme/s:1", which is not an image reference ([registry/]path[:tag][@sha256:…], the path lower-case); fix it',
    );
  });
  it("applies to the catalog", () => {
    const c = loadCatalog({
      imageOverrides: { starter: "mirror/starter:x", "starter:0.6.1": "mirror/starter:old" },
    });
    expect(c.images["starter"]).to.deep.equal({
      "1.5.0": { image: "mirror/starter:x" },
      "1.4.1": { image: "mirror/starter:x" },
      "0.7.3": { image: "mirror/starter:x" },
      "0.6.1": { image: "mirror/starter:old" },
    });
  });
});
