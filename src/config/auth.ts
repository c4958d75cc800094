// The config's server.auth (docs/guide/auth.md): spec.auth as the
// provider config the release's AuthenticationConfig reads. Every release
// supported today has both provider types with the same fields; the dialect
// says which types a release has, so a release without one is refused here
// rather than at the server's start.
//
// tls_cafile is written as the literal path the Deployment mounts the CA at
// (src/children/deployment.ts). It is a plain pydantic Path in every release,
// not a FilePath: nothing reads it until the first token is checked (httpx's
// verify for kubernetes, the JWKS client's SSL context for oauth2_token), so
// the config validates and the server starts wherever the file is missing; the
// real-process test (test/llama-stack/auth.test.ts) points it at a stand-in.
import { DEFAULT_API_SERVER_URL, KUBE_ROOT_CA, type Auth } from "../api/auth.js";
import type { CaBundle } from "../api/ca-bundle.js";
import { msg } from "../messages.js";
import { problem, type Problem } from "../problems.js";
import { Reason } from "../reasons.js";
import type { JsonObject } from "../lib/json.js";
import type { Dialect } from "./dialect.js";
import { AUTH_CA_FILE } from "../container.js";

/** The release's provider type of each spec.auth kind. */
const PROVIDER_TYPE = { kubernetes: "kubernetes", oauth2: "oauth2_token" } as const;

/** The ConfigMap key the Deployment mounts as the auth CA, if any. */
export function authCaOf(auth: Auth | undefined): CaBundle | undefined {
  if (auth?.kubernetes !== undefined) return auth.kubernetes.caBundle ?? KUBE_ROOT_CA;
  return auth?.oauth2?.caBundle;
}

/** server.auth for spec.auth. */
export function authSection(auth: Auth): JsonObject {
  const ca = authCaOf(auth) === undefined ? {} : { tls_cafile: AUTH_CA_FILE };
  if (auth.kubernetes !== undefined) {
    return {
      provider_config: {
        type: PROVIDER_TYPE.kubernetes,
        api_server_url: auth.kubernetes.apiServerURL ?? DEFAULT_API_SERVER_URL,
        verify_tls: true,
        ...ca,
      },
    };
  }
  const oauth2 = auth.oauth2;
  // The schema's rule: exactly one of the two.
  if (oauth2 === undefined) throw new Error("spec.auth without kubernetes or oauth2");
  return {
    provider_config: {
      type: PROVIDER_TYPE.oauth2,
      issuer: oauth2.issuer,
      audience: oauth2.audience,
      jwks: { uri: oauth2.jwksURI },
      verify_tls: true,
      ...ca,
    },
  };
}

/** A problem when the release has no provider of the kind spec.auth asks for. */
export function checkAuth(auth: Auth | undefined, dialect: Dialect): Problem[] {
  if (auth === undefined) return [];
  const kind = auth.kubernetes !== undefined ? "kubernetes" : "oauth2";
  const type = PROVIDER_TYPE[kind];
  if (dialect.authProviderTypes.includes(type)) return [];
  const detail = msg.authProviderUnavailable(type, dialect.release, dialect.authProviderTypes);
  return [problem(Reason.UnsupportedAuthProvider, `spec.auth.${kind}`, detail)];
}
