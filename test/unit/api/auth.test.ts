// spec.auth in the schema: what is accepted, the defaults, and hostile values.
// The rules' messages (exactly one kind, verifyTLS, overrideConfig) are pinned
// by test/data/rules.yaml; here the field-level checks.
import { expect } from "chai";
import { parse } from "yaml";
import { LlamaStackDistribution, LlamaStackDistributionSpec } from "../../../src/api/schema.js";
import { codeBlocks, docSection } from "../../support/tools.js";

const problems = (auth: unknown): string[] => {
  const result = LlamaStackDistributionSpec.safeParse({ distribution: { name: "starter" }, auth });
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

const oauth2 = (fields: Record<string, unknown>) => ({
  oauth2: {
    issuer: "https://login.example.com",
    audience: "llama",
    jwksURI: "https://login.example.com/keys",
    ...fields,
  },
});

describe("spec.auth", () => {
  it("defaults a caBundle's key to ca.crt", () => {
    const spec = LlamaStackDistributionSpec.parse({
      distribution: { name: "starter" },
      auth: { kubernetes: { caBundle: { configMapName: "hub-ca" } } },
    });
    expect(spec.auth?.kubernetes?.caBundle).to.deep.equal({
      configMapName: "hub-ca",
      key: "ca.crt",
    });
  });

  const rows: [why: string, auth: unknown, problem: string | undefined][] = [
    ["kubernetes with every default", { kubernetes: {} }, undefined],
    [
      "another API server with a port and its CA",
      {
        kubernetes: { apiServerURL: "https://api.hub:6443", caBundle: { configMapName: "hub-ca" } },
      },
      undefined,
    ],
    [
      "an http API server (the token would travel in clear)",
      { kubernetes: { apiServerURL: "http://api.hub:6443" } },
      "auth.kubernetes.apiServerURL: must be an https URL",
    ],
    ["oauth2 with issuer, audience and JWKS", oauth2({}), undefined],
    [
      "oauth2 with a query in the JWKS URI",
      oauth2({ jwksURI: "https://login.example.com/keys?v=2" }),
      undefined,
    ],
    ["oauth2 without an audience", oauth2({ audience: undefined }), "auth.oauth2.audience: "],
    ["oauth2 with an empty audience", oauth2({ audience: "" }), "auth.oauth2.audience: "],
    [
      "an http issuer",
      oauth2({ issuer: "http://login.example.com" }),
      "auth.oauth2.issuer: must be an https URL",
    ],
    [
      "hostile: whitespace in the JWKS URI",
      oauth2({ jwksURI: "https://login.example.com/ keys" }),
      "auth.oauth2.jwksURI: must be an https URL",
    ],
    [
      "hostile: a javascript: URI",
      oauth2({ jwksURI: "javascript:alert(1)" }),
      "auth.oauth2.jwksURI: must be an https URL",
    ],
    [
      "hostile: a URL of 3000 characters",
      oauth2({ jwksURI: `https://x/${"a".repeat(3000)}` }),
      "auth.oauth2.jwksURI: ",
    ],
    [
      "a ConfigMap name in capitals",
      oauth2({ caBundle: { configMapName: "Identity-CA" } }),
      "auth.oauth2.caBundle.configMapName: must be a valid ConfigMap name",
    ],
    [
      "a ConfigMap key with a slash",
      oauth2({ caBundle: { configMapName: "ca", key: "a/b" } }),
      "auth.oauth2.caBundle.key: must be a valid ConfigMap key",
    ],
    [
      "a field of the upstream config instead of ours",
      { kubernetes: { verify_tls: false } },
      "auth.kubernetes: ",
    ],
    [
      "verifyTLS as a string",
      { kubernetes: { verifyTLS: "false" } },
      "auth.kubernetes.verifyTLS: ",
    ],
    ["an unknown kind", { github: {} }, "auth: "],
    ["hostile: null", null, "auth: "],
    ["hostile: a list", [{ kubernetes: {} }], "auth: "],
  ];
  for (const [why, auth, problem] of rows)
    it(`${why}: ${problem ?? "accepted"}`, () => {
      const found = problems(auth);
      if (problem === undefined) expect(found).to.deep.equal([]);
      else
        expect(
          found.some((p) => p.startsWith(problem)),
          found.join("\n"),
        ).to.equal(true);
    });
});

describe("the API authentication examples (docs/guide/auth.md)", () => {
  const blocks = codeBlocks(docSection("docs/guide/auth.md", "# API authentication"), "yaml");

  it("the resource with kubernetes auth is valid", () => {
    const parsed = LlamaStackDistribution.safeParse(parse(blocks[0] ?? ""));
    if (!parsed.success) expect.fail(parsed.error.message);
    expect(parsed.data.spec.auth).to.deep.equal({ kubernetes: {} });
  });

  it("the oauth2 snippet is a valid spec.auth", () => {
    const snippet = parse(blocks[1] ?? "") as { auth?: unknown };
    expect(problems(snippet.auth)).to.deep.equal([]);
    expect(Object.keys((snippet.auth as { oauth2: object }).oauth2).sort()).to.deep.equal([
      "audience",
      "caBundle",
      "issuer",
      "jwksURI",
    ]);
  });
});
