// Registering the spec's models, shields and tool groups, release by release.
import { expect } from "chai";
import { msg } from "../../../src/messages.js";
import { specBindings } from "../../../src/config/bindings.js";
import { declareProviders, withProviders } from "../../../src/config/providers.js";
import { enabledProviderIds, withResources } from "../../../src/config/resources.js";
import { toStackConfig } from "../../../src/config/model.js";
import { base, dialect, spec } from "./fixtures.js";

function setup(raw: Record<string, unknown>, release = "0.7.3", env: string[] = []) {
  const s = spec(raw, release);
  const declared = declareProviders(specBindings(s).providers, dialect(release)).declared;
  const config = withProviders(base(release), declared);
  const ctx = { declared, containerEnv: new Set(env), distribution: "starter" };
  return { out: withResources(config, s.resources, ctx), config };
}

const vllm = { inference: [{ provider: "vllm", endpoint: "http://v:8000/v1" }] };

describe("withResources", () => {
  it("a model goes to the first declared inference provider; a model the base has is replaced", () => {
    const { out } = setup({
      providers: vllm,
      resources: { models: [{ name: "m" }, { name: "m", providerModelId: "p" }] },
    });
    expect(out.problems).to.deep.equal([]);
    const models = out.config.registered_resources?.models ?? [];
    expect(models.filter((m) => m.id === "m")).to.deep.equal([
      { id: "m", provider_id: "vllm", rest: { model_type: "llm", provider_model_id: "p" } },
    ]);
  });

  it("a provider enabled only by an env var counts when the container sets it", () => {
    const models = { models: [{ name: "m", provider: "ollama" }] };
    const without = setup({ resources: models }).out;
    expect(without.problems.map((p) => p.detail)).to.deep.equal([
      msg.modelProviderConditional("ollama", "OLLAMA_URL"),
    ]);
    expect(setup({ resources: models }, "0.7.3", ["OLLAMA_URL"]).out.problems).to.deep.equal([]);
  });

  it("an embedding model needs its dimension", () => {
    const { out } = setup({
      providers: vllm,
      resources: { models: [{ name: "e", modelType: "embedding" }] },
    });
    expect(out.problems.map((p) => [p.reason, p.path])).to.deep.equal([
      ["InvalidSpec", "spec.resources.models[0].metadata"],
    ]);
  });

  it("shields: registered with the first safety provider; the first is the default", () => {
    const { out } = setup({
      providers: { safety: [{ provider: "llama-guard" }] },
      resources: { shields: ["a", "llama-guard"] },
    });
    expect(out.config.safety?.default_shield_id).to.equal("a");
    expect(
      out.config.registered_resources?.shields?.map((s) => [s.id, s.provider_id]),
    ).to.deep.equal([
      ["llama-guard", "llama-guard"],
      ["code-scanner", "${env.CODE_SCANNER_MODEL:+code-scanner}"],
      ["a", "llama-guard"],
    ]);
  });

  it("shields on OGX 1.x: the safety API was removed", () => {
    const { out } = setup({ providers: vllm, resources: { shields: ["a"] } }, "1.5.0");
    expect(out.problems.map((p) => p.reason)).to.deep.equal(["RemovedApi"]);
  });

  it("tools: 0.7 registers none; 0.6 keeps a group the base has on an enabled provider", () => {
    expect(
      setup({ resources: { tools: ["websearch"] } }).out.problems.map((p) => p.reason),
    ).to.deep.equal(["UnsupportedResource"]);
    const { out, config } = setup({ resources: { tools: ["websearch"] } }, "0.6.1");
    expect(out.problems).to.deep.equal([]);
    expect(out.config.registered_resources?.tool_groups).to.deep.equal(
      config.registered_resources?.tool_groups,
    );
  });

  it("no resources: the same config", () => {
    const { out, config } = setup({});
    expect(out.config).to.equal(config);
  });
});

describe("enabledProviderIds", () => {
  const config = toStackConfig(
    {
      providers: {
        inference: [
          { provider_id: "a", provider_type: "x" },
          { provider_id: "${env.B:+b}", provider_type: "x" },
          { provider_id: "${env.C:+}", provider_type: "x" },
          { provider_id: "", provider_type: "x" },
          { provider_id: "__disabled__", provider_type: "x" },
          { provider_id: null, provider_type: "x" },
        ],
      },
    },
    dialect("0.7.3"),
  );
  const rows: [string[], string[]][] = [
    [[], ["a"]],
    [["B"], ["a", "b"]],
    [
      ["B", "C"],
      ["a", "b"],
    ], // ${env.C:+} enables an empty id: none
  ];
  for (const [env, want] of rows)
    it(`env ${JSON.stringify(env)}`, () =>
      expect(enabledProviderIds(config, "inference", new Set(env))).to.deep.equal(want));
  it("an API without providers", () =>
    expect(enabledProviderIds(config, "files", new Set())).to.deep.equal([]));
});
