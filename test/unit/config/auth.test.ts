// spec.auth → server.auth (src/config/auth.ts): the provider config of each
// kind, where the CA comes from, and the release check, on every release.
import { expect } from "chai";
import type { Auth } from "../../../src/api/auth.js";
import { authCaOf, authSection, checkAuth } from "../../../src/config/auth.js";
import type { Dialect } from "../../../src/config/dialect.js";
import { msg } from "../../../src/messages.js";
import { dialect, spec } from "./fixtures.js";

const authOf = (auth: unknown): Auth => {
  const parsed = spec({ auth }).auth;
  if (parsed === undefined) throw new Error("no auth");
  return parsed;
};

const OAUTH2 = {
  issuer: "https://login.example.com",
  audience: "llama",
  jwksURI: "https://login.example.com/keys",
};

describe("authSection", () => {
  const rows: [why: string, auth: unknown, section: unknown][] = [
    [
      "kubernetes: this cluster's API server, its CA from kube-root-ca.crt",
      { kubernetes: {} },
      {
        provider_config: {
          type: "kubernetes",
          api_server_url: "https://kubernetes.default.svc",
          verify_tls: true,
          tls_cafile: "/etc/llama-stack/auth-ca/ca.crt",
        },
      },
    ],
    [
      "kubernetes: another API server",
      { kubernetes: { apiServerURL: "https://api.hub:6443", caBundle: { configMapName: "hub" } } },
      {
        provider_config: {
          type: "kubernetes",
          api_server_url: "https://api.hub:6443",
          verify_tls: true,
          tls_cafile: "/etc/llama-stack/auth-ca/ca.crt",
        },
      },
    ],
    [
      "oauth2 without a CA: the image's trust store, no tls_cafile",
      { oauth2: OAUTH2 },
      {
        provider_config: {
          type: "oauth2_token",
          issuer: "https://login.example.com",
          audience: "llama",
          jwks: { uri: "https://login.example.com/keys" },
          verify_tls: true,
        },
      },
    ],
    [
      "oauth2 with a CA",
      { oauth2: { ...OAUTH2, caBundle: { configMapName: "ca", key: "root.pem" } } },
      {
        provider_config: {
          type: "oauth2_token",
          issuer: "https://login.example.com",
          audience: "llama",
          jwks: { uri: "https://login.example.com/keys" },
          verify_tls: true,
          tls_cafile: "/etc/llama-stack/auth-ca/ca.crt",
        },
      },
    ],
  ];
  for (const [why, auth, section] of rows)
    it(why, () => expect(authSection(authOf(auth))).to.deep.equal(section));
});

describe("authCaOf", () => {
  const rows: [why: string, auth: unknown, ca: unknown][] = [
    ["no auth", undefined, undefined],
    [
      "kubernetes: kube-root-ca.crt",
      { kubernetes: {} },
      { configMapName: "kube-root-ca.crt", key: "ca.crt" },
    ],
    [
      "kubernetes: the ConfigMap named",
      { kubernetes: { caBundle: { configMapName: "hub", key: "x.pem" } } },
      { configMapName: "hub", key: "x.pem" },
    ],
    ["oauth2 without a CA", { oauth2: OAUTH2 }, undefined],
    [
      "oauth2 with a CA, default key",
      { oauth2: { ...OAUTH2, caBundle: { configMapName: "ca" } } },
      { configMapName: "ca", key: "ca.crt" },
    ],
  ];
  for (const [why, auth, ca] of rows)
    it(why, () =>
      expect(authCaOf(auth === undefined ? undefined : authOf(auth))).to.deep.equal(ca),
    );
});

describe("checkAuth", () => {
  for (const release of ["0.6.1", "0.7.3", "1.4.1", "1.5.0"]) {
    it(`${release} has both provider types`, () => {
      expect(dialect(release).authProviderTypes).to.include.members(["kubernetes", "oauth2_token"]);
      expect(checkAuth(authOf({ kubernetes: {} }), dialect(release))).to.deep.equal([]);
      expect(checkAuth(authOf({ oauth2: OAUTH2 }), dialect(release))).to.deep.equal([]);
    });
  }

  it("a release without the provider type: UnsupportedAuthProvider naming what it has", () => {
    const without: Dialect = { ...dialect("1.5.0"), authProviderTypes: ["custom"] };
    expect(checkAuth(authOf({ oauth2: OAUTH2 }), without)).to.deep.equal([
      {
        reason: "UnsupportedAuthProvider",
        path: "spec.auth.oauth2",
        detail: msg.authProviderUnavailable("oauth2_token", "1.5.0", ["custom"]),
      },
    ]);
  });

  it("no auth: nothing to check", () =>
    expect(checkAuth(undefined, dialect("0.6.1"))).to.deep.equal([]));
});
