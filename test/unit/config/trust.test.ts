// spec.trust.caBundle in the config: which providers get network.tls, what
// stays, and the warnings — table rows per release.
import { expect } from "chai";
import { msg } from "../../../src/messages.js";
import { specBindings } from "../../../src/config/bindings.js";
import { declareProviders, withProviders } from "../../../src/config/providers.js";
import { withTrust } from "../../../src/config/trust.js";
import { providerLists } from "../../../src/config/model.js";
import { base, dialect, spec } from "./fixtures.js";

const TRUST = { caBundle: { configMapName: "corporate-ca" } };
const BUNDLE_TLS = { verify: "${env.LLSD_TRUST_CA_BUNDLE}", min_version: "TLSv1.2" };

function run(raw: Record<string, unknown>, release: string, env: string[] = []) {
  const s = spec(raw, release);
  const declared = declareProviders(specBindings(s).providers, dialect(release)).declared;
  const config = withProviders(base(release), declared);
  return withTrust(config, { trust: s.trust, declared, containerEnv: new Set(env) });
}

/** network of the provider `id` of `api` in the result. */
function networkOf(out: ReturnType<typeof run>, api: string, id: string): unknown {
  const list = providerLists(out.config).find(([a]) => a === api)?.[1] ?? [];
  const p = list.find((e) => e.provider_id === id || e.provider_id?.endsWith(`:+${id}}`));
  return p?.config?.["network"];
}

describe("withTrust", () => {
  it("without spec.trust the config is the same object, with no warnings", () => {
    const s = spec({}, "1.5.0");
    const config = base("1.5.0");
    const out = withTrust(config, { trust: s.trust, declared: [], containerEnv: new Set() });
    expect(out.config).to.equal(config);
    expect(out.warnings).to.deep.equal([]);
  });

  const rows: [why: string, release: string, api: string, id: string, network: unknown][] = [
    // A declared vLLM: the base's VLLM_TLS_VERIFY tls is replaced.
    ["declared vllm, 0.6.1", "0.6.1", "inference", "vllm", { tls: BUNDLE_TLS }],
    ["declared vllm, 0.7.3", "0.7.3", "inference", "vllm", { tls: BUNDLE_TLS }],
    ["declared vllm, 1.4.1", "1.4.1", "inference", "vllm", { tls: BUNDLE_TLS }],
    ["declared vllm, 1.5.0", "1.5.0", "inference", "vllm", { tls: BUNDLE_TLS }],
    // A base provider with network settings gets it too (enabled or not).
    ["base openai", "1.5.0", "inference", "openai", { tls: BUNDLE_TLS }],
    ["base bedrock, 0.7.3", "0.7.3", "inference", "bedrock", { tls: BUNDLE_TLS }],
    // No network settings: untouched.
    ["inline provider", "1.5.0", "inference", "sentence-transformers", undefined],
    ["tool runtime", "1.5.0", "tool_runtime", "brave-search", undefined],
  ];
  for (const [why, release, api, id, network] of rows) {
    it(why, () => {
      const out = run(
        {
          providers: { inference: [{ provider: "vllm", endpoint: "https://v/v1" }] },
          trust: TRUST,
        },
        release,
      );
      expect(networkOf(out, api, id)).to.deep.equal(network);
    });
  }

  it("other network settings stay, and tls is added beside them", () => {
    const out = run(
      {
        providers: {
          inference: [
            { provider: "vllm", endpoint: "https://v/v1", settings: { network: { timeout: 30 } } },
          ],
        },
        trust: TRUST,
      },
      "1.5.0",
    );
    expect(networkOf(out, "inference", "vllm")).to.deep.equal({ timeout: 30, tls: BUNDLE_TLS });
  });

  it("a declared network.tls is the user's: kept as is, with a warning at its field", () => {
    const out = run(
      {
        providers: {
          inference: [
            {
              provider: "vllm",
              endpoint: "https://v/v1",
              settings: { network: { tls: { verify: false } } },
            },
          ],
        },
        trust: TRUST,
      },
      "0.7.3",
    );
    expect(networkOf(out, "inference", "vllm")).to.deep.equal({ tls: { verify: false } });
    expect(out.warnings[0]).to.deep.equal({
      reason: "CaBundleNotApplied",
      path: "spec.providers.inference[0].settings.network.tls",
      detail: msg.caBundleOwnTls("vllm"),
    });
  });

  it("enabled remote providers without network settings are named; conditional ones only when enabled", () => {
    const names = (env: string[]) =>
      run({ trust: TRUST }, "1.5.0", env).warnings.map((w) => [w.path, w.detail]);
    const always = [
      "exa-search (remote::exa-search)",
      "brave-search (remote::brave-search)",
      "tavily-search (remote::tavily-search)",
      "nimble-search (remote::nimble-search)",
      "serply-search (remote::serply-search)",
      "model-context-protocol (remote::model-context-protocol)",
    ];
    expect(names([])).to.deep.equal([["spec.trust.caBundle", msg.caBundleUnreachable(always)]]);
    expect(names(["CHROMADB_URL"])).to.deep.equal([
      ["spec.trust.caBundle", msg.caBundleUnreachable([...always, "chromadb (remote::chromadb)"])],
    ]);
  });
});
