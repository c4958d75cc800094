// spec.auth: who may call the server's API (docs/guide/auth.md). It
// becomes the config's server.auth.provider_config (src/config/auth.ts). The
// provider classes were read from each release's package
// (<module>/core/datatypes.py, core/server/auth_providers.py); their fields are
// the same in llama-stack 0.6.1 and 0.7.3 and OGX 1.4.1 and 1.5.0, except the
// default audience (llama-stack vs ogx), which is why audience is required.
//  - kubernetes (KubernetesAuthProviderConfig): the caller's bearer token is
//    sent to the API server in a SelfSubjectReview (the pod needs no token of
//    its own); the CA is the namespace's kube-root-ca.crt unless caBundle.
//  - oauth2 (OAuth2TokenAuthConfig, type oauth2_token, with jwks): JWTs of an
//    OIDC issuer, checked against its JWKS for issuer, audience and expiry.
// TLS toward the API server or issuer is always verified: verifyTLS takes only
// true (see the rule's message); without the field, a `verifyTLS: false`
// copied from the upstream docs would be pruned by the API server without a
// word, and the user would learn only from failing logins.
import { z } from "zod";
import { caBundle } from "./ca-bundle.js";
import { rule, withRules } from "./rules.js";

/** An https URL: no other scheme, no whitespace, no fragment. */
const HTTPS_URL = /^https:\/\/[^\s/?#]+([/?][^\s#]*)?$/;
const MAX_URL = 2048;

export const DEFAULT_API_SERVER_URL = "https://kubernetes.default.svc";
/** The ConfigMap the kube-root-ca.crt publisher keeps in every namespace. */
export const KUBE_ROOT_CA = { configMapName: "kube-root-ca.crt", key: "ca.crt" } as const;

const httpsUrl = (example: string) =>
  z
    .string()
    .min(1)
    .max(MAX_URL)
    .regex(HTTPS_URL, `must be an https URL such as ${example}; plain http is refused`);

const CaBundle = caBundle(KUBE_ROOT_CA.key).describe(
  "CA certificate(s) to verify the server's certificate with, from a ConfigMap key; mounted read-only in the pod.",
);

const verifyTLS = z
  .boolean()
  .optional()
  .describe(
    "Only true is accepted: llsd-hook always verifies the certificate, since every caller's token is sent there. Name the CA in caBundle instead.",
  );

function verifyTlsRule(at: string, ca: string) {
  return rule<{ verifyTLS?: boolean | undefined }>({
    id: `auth-${at}-verify-tls`,
    cel: "!has(self.verifyTLS) || self.verifyTLS",
    message: `spec.auth.${at}.verifyTLS: false is refused, because callers' tokens would go to a server whose certificate is not checked; remove verifyTLS and name the CA that signed ${ca}'s certificate in caBundle`,
    fieldPath: ".verifyTLS",
    check: (p) => p.verifyTLS !== false,
  });
}

const KubernetesAuth = withRules(
  z
    .strictObject({
      apiServerURL: httpsUrl(DEFAULT_API_SERVER_URL)
        .optional()
        .describe(
          `The Kubernetes API server that reviews each token (SelfSubjectReview); default ${DEFAULT_API_SERVER_URL}, this cluster's.`,
        ),
      caBundle: CaBundle.optional().describe(
        `CA of the API server; default the namespace's ConfigMap ${KUBE_ROOT_CA.configMapName} (key ${KUBE_ROOT_CA.key}), which every namespace has.`,
      ),
      verifyTLS,
    })
    .describe(
      "Kubernetes ServiceAccount (or any API server) tokens: each call's bearer token is checked with a SelfSubjectReview, which every authenticated user may make. The pod needs no token of its own.",
    ),
  [verifyTlsRule("kubernetes", "the API server")],
);

const OAuth2Auth = withRules(
  z
    .strictObject({
      issuer: httpsUrl("https://login.example.com/realms/llama").describe(
        "The OIDC issuer: must equal the tokens' iss claim.",
      ),
      audience: z
        .string()
        .min(1)
        .max(253)
        .describe(
          "The audience the tokens must carry (aud claim). Required: the releases' defaults differ (llama-stack, ogx).",
        ),
      jwksURI: httpsUrl(
        "https://login.example.com/realms/llama/protocol/openid-connect/certs",
      ).describe(
        "Where the issuer publishes its signing keys (JWKS, the jwks_uri of its discovery document).",
      ),
      caBundle: CaBundle.optional().describe(
        "CA of the JWKS server, when the image's trust store does not know it.",
      ),
      verifyTLS,
    })
    .describe(
      "JWTs of an OAuth2 / OIDC issuer, verified against its published keys (JWKS) for signature, issuer, audience and expiry.",
    ),
  [verifyTlsRule("oauth2", "the JWKS server")],
);

type AuthFields = { kubernetes?: unknown; oauth2?: unknown };

export const Auth = withRules(
  z
    .strictObject({
      kubernetes: KubernetesAuth.optional(),
      oauth2: OAuth2Auth.optional(),
    })
    .describe(
      "Require a bearer token on every API call (GET /v1/health and /v1/version stay open, for probes). Exactly one of kubernetes or oauth2.",
    ),
  [
    rule<AuthFields>({
      id: "auth-exactly-one",
      cel: "has(self.kubernetes) != has(self.oauth2)",
      message:
        "spec.auth: set exactly one of kubernetes (ServiceAccount tokens, reviewed by the API server) or oauth2 (JWTs of an OIDC issuer, checked against its JWKS)",
      check: (a) => (a.kubernetes !== undefined) !== (a.oauth2 !== undefined),
    }),
  ],
);
export type Auth = z.infer<typeof Auth>;
