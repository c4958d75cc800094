// generateConfig as a whole: pure (frozen inputs, a shared base that stays as
// the catalog has it), and what it says for a distribution or release it lacks.
import { specBindings } from "../../../src/config/bindings.js";
import { expect } from "chai";
import { isDeepStrictEqual } from "node:util";
import { generateConfig, type GenerateInput } from "../../../src/config/generate.js";
import { baseConfigOf, toDocument } from "../../../src/config/model.js";
import { catalog, releaseData, spec } from "./fixtures.js";

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    Object.freeze(value);
    Object.values(value).forEach(deepFreeze);
  }
  return value;
}

function input(raw: Record<string, unknown>, release = "0.7.3", name = "starter"): GenerateInput {
  const s = spec(raw, release);
  return {
    spec: s,
    bindings: specBindings(s),
    distribution: { name, release, image: "i" },
    catalog,
    userEnvNames: [],
    port: 8321,
    server: {},
  };
}

describe("generateConfig", () => {
  it("takes frozen inputs and leaves the shared base as the catalog has it", () => {
    const raw = {
      providers: {
        inference: [
          {
            provider: "vllm",
            endpoint: "http://v:8000/v1",
            settings: { max_tokens: 1, network: { tls: { verify: false } } },
          },
        ],
      },
      resources: { models: [{ name: "m" }] },
      storage: { kv: { type: "redis", host: "r" } },
      disabledProviders: ["code-scanner"],
    };
    // Everything but the catalog, which the other tests share.
    const { spec: s, bindings, distribution, userEnvNames, port, server } = input(raw);
    const frozenInput = {
      ...deepFreeze({ spec: s, bindings, distribution, userEnvNames, port, server }),
      catalog,
    };
    const first = generateConfig(frozenInput);
    expect(first.ok, JSON.stringify(first)).to.equal(true);
    expect(generateConfig(frozenInput)).to.deep.equal(first);
    const data = releaseData("0.7.3");
    const base = baseConfigOf(data, "starter");
    expect(isDeepStrictEqual(toDocument(base!), data.baseConfigs["starter"])).to.equal(true);
  });

  it("a distribution the release does not ship is a problem", () => {
    const out = generateConfig(input({}, "1.5.0", "dell"));
    expect(out.ok).to.equal(false);
    if (!out.ok) expect(out.problems.map((p) => p.reason)).to.deep.equal(["UnknownDistribution"]);
  });

  it("hostile: a release the catalog lacks is a fault of the caller, not a spec problem", () => {
    const bad = { ...input({}), distribution: { name: "starter", release: "9.9.9", image: "i" } };
    expect(() => generateConfig(bad)).to.throw("the catalog has no release 9.9.9");
  });
});
