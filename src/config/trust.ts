// spec.trust.caBundle in the config (docs/guide/trust.md): every
// provider whose config has `network` gets
//
//   network.tls: { verify: ${env.LLSD_TRUST_CA_BUNDLE}, min_version: TLSv1.2 }
//
// Read from the packages (providers/utils/inference/http_client.py,
// _build_ssl_context, the same in 0.6.1, 0.7.3, 1.4.1 and 1.5.0): with `verify`
// a path and nothing else, the path goes to httpx, whose
// ssl.create_default_context(cafile=path) loads that file INSTEAD of the
// system store (Python loads the default certificates only when cafile, capath
// and cadata are all None). With any "advanced option" (min_version, ciphers,
// client_cert) it builds ssl.create_default_context() — the system store — and
// then load_verify_locations(path), which ADDS the bundle. min_version TLSv1.2
// is Python's own minimum, so it changes nothing else.
// test/llama-stack/trust.test.ts shows both on the real servers.
import type { Trust } from "../api/trust.js";
import { msg } from "../messages.js";
import { warning, type Warning } from "../problems.js";
import { Reason } from "../reasons.js";
import { isObject, type JsonObject } from "../lib/json.js";
import { conditionalId, envRef } from "./envsubst.js";
import type { Api, Provider, StackConfig } from "./model.js";
import { providerLists } from "./model.js";
import type { DeclaredProvider } from "./providers.js";
import { TRUST } from "../container.js";

/** The minimum TLS version that makes the bundle add to the system store; Python's default. */
const MIN_VERSION = "TLSv1.2";

export interface TrustInput {
  trust: Trust | undefined;
  /** The providers the spec declares: a declared network.tls is the user's. */
  declared: readonly DeclaredProvider[];
  /** Env var names the container has (a conditional provider is enabled by one). */
  containerEnv: ReadonlySet<string>;
}

interface Trusted {
  config: StackConfig;
  warnings: Warning[];
}

/** Whether a provider entry runs: not disabled, and a conditional one's variable is set. */
function isEnabled(p: Provider, containerEnv: ReadonlySet<string>): boolean {
  if (p.provider_id === null || p.provider_id === "" || p.provider_id === "__disabled__")
    return false;
  const cond = conditionalId(p.provider_id);
  return cond === undefined || (cond.id !== "" && containerEnv.has(cond.envVar));
}

function idOf(p: Provider): string {
  return p.provider_id === null ? "" : (conditionalId(p.provider_id)?.id ?? p.provider_id);
}

/** The provider's config with the bundle in network.tls; its other network and tls keys stay. */
function withBundle(config: JsonObject | undefined): JsonObject {
  const network = isObject(config?.["network"]) ? config["network"] : {};
  const tls = isObject(network["tls"]) ? network["tls"] : {};
  const minVersion = typeof tls["min_version"] === "string" ? tls["min_version"] : MIN_VERSION;
  return {
    ...config,
    network: { ...network, tls: { ...tls, verify: envRef(TRUST.env), min_version: minVersion } },
  };
}

/** The declared provider that set network.tls itself, if `p` is one. */
function userTls(
  api: Api,
  p: Provider,
  declared: readonly DeclaredProvider[],
): DeclaredProvider | undefined {
  return declared.find((d) => {
    if (d.api !== api || d.id !== p.provider_id) return false;
    const network = d.config["network"];
    return isObject(network) && network["tls"] !== undefined && network["tls"] !== null;
  });
}

/**
 * The config with the CA bundle in every provider that can take it. Warnings
 * name the declared providers whose own network.tls was left as is (the user's
 * wins), and the enabled remote providers that have no network settings and so
 * cannot take a bundle from their config.
 */
export function withTrust(config: StackConfig, input: TrustInput): Trusted {
  if (input.trust === undefined) return { config, warnings: [] };
  const warnings: Warning[] = [];
  const unreachable: string[] = [];
  const providers: Partial<Record<Api, Provider[]>> = {};
  for (const [api, list] of providerLists(config)) {
    providers[api] = list.map((p) => {
      if (!config.dialect.hasNetworkSettings(api, p.provider_type)) {
        if (p.provider_type.startsWith("remote::") && isEnabled(p, input.containerEnv))
          unreachable.push(`${idOf(p)} (${p.provider_type})`);
        return p;
      }
      const own = userTls(api, p, input.declared);
      if (own === undefined) return { ...p, config: withBundle(p.config) };
      const path = `${own.specPath}.settings.network.tls`;
      warnings.push(warning(Reason.CaBundleNotApplied, path, msg.caBundleOwnTls(own.id)));
      return p;
    });
  }
  if (unreachable.length > 0)
    warnings.push(
      warning(
        Reason.CaBundleNotApplied,
        "spec.trust.caBundle",
        msg.caBundleUnreachable(unreachable),
      ),
    );
  return { config: { ...config, providers }, warnings };
}

/**
 * spec.trust.caBundle with an overrideConfig: the hook mounts the bundle and
 * sets LLSD_TRUST_CA_BUNDLE, but only the user's config can use it. A
 * config.yaml that never refers to the variable is warned about, with the
 * setting to add. An empty text (render assumes referenced objects exist,
 * empty) says nothing either way.
 */
export function checkOverrideTrust(
  trust: Trust | undefined,
  configMapName: string,
  configText: string | undefined,
): Warning | undefined {
  if (trust === undefined || configText === undefined || configText.trim() === "") return undefined;
  if (configText.includes(`\${env.${TRUST.env}`)) return undefined;
  return warning(
    Reason.CaBundleNotApplied,
    "spec.trust.caBundle",
    msg.caBundleOverrideUnused(configMapName),
  );
}
