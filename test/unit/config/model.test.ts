// The typed config model: parse (toStackConfig), write back (toDocument), the
// shared parsed bases, and the counts — with hostile documents.
import { expect } from "chai";
import { isDeepStrictEqual } from "node:util";
import type { ReleaseData } from "../../../src/config/catalog.js";
import type { JsonObject } from "../../../src/lib/json.js";
import {
  baseConfigOf,
  countProviders,
  countResources,
  isApi,
  toDocument,
  toStackConfig,
} from "../../../src/config/model.js";
import { catalog, deeplyFrozen, dialect, releaseData } from "./fixtures.js";

const d = dialect("0.7.3");

/** Deep-frozen copy: parsing must not write to what it reads. */
function frozen<T>(value: T): T {
  const copy = structuredClone(value);
  const freeze = (v: unknown): void => {
    if (typeof v !== "object" || v === null) return;
    Object.freeze(v);
    Object.values(v).forEach(freeze);
  };
  freeze(copy);
  return copy;
}

describe("toStackConfig → toDocument", () => {
  for (const release of catalog.releases) {
    it(`every ${release} base config comes back as it was`, () => {
      const data = releaseData(release);
      for (const name of Object.keys(data.baseConfigs)) {
        const config = baseConfigOf(data, name);
        expect(config, name).to.not.equal(undefined);
        expect(isDeepStrictEqual(toDocument(config!), data.baseConfigs[name]), name).to.equal(true);
      }
    });
  }

  const rows: [string, JsonObject, JsonObject][] = [
    ["{}: apis and providers are always written", {}, { apis: [], providers: {} }],
    [
      "keys the model does not type are kept as they are",
      { version: 2, telemetry: { enabled: true }, connectors: [] },
      { version: 2, telemetry: { enabled: true }, connectors: [], apis: [], providers: {} },
    ],
    [
      "null vector_stores and safety stay null",
      { vector_stores: null, safety: null },
      { vector_stores: null, safety: null, apis: [], providers: {} },
    ],
    [
      "a null provider_id (a disabled provider) and a module are kept",
      { providers: { inference: [{ provider_id: null, provider_type: "x", module: "m" }] } },
      {
        apis: [],
        providers: { inference: [{ provider_id: null, provider_type: "x", module: "m" }] },
      },
    ],
    [
      "resources without provider_id or id, and kinds llsd-hook does not know",
      {
        registered_resources: {
          datasets: [{ purpose: "eval" }],
          shields: [{ shield_id: "s", provider_id: null }],
          connectors: [{ connector_id: "c" }],
        },
      },
      {
        apis: [],
        providers: {},
        registered_resources: {
          datasets: [{ purpose: "eval" }],
          shields: [{ shield_id: "s", provider_id: null }],
          connectors: [{ connector_id: "c" }],
        },
      },
    ],
    [
      "storage without backends, and a null rewrite_query_params",
      {
        storage: { stores: { metadata: { backend: "kv_default" } } },
        vector_stores: { rewrite_query_params: null, default_provider_id: null },
      },
      {
        apis: [],
        providers: {},
        storage: { stores: { metadata: { backend: "kv_default" } } },
        vector_stores: { rewrite_query_params: null, default_provider_id: null },
      },
    ],
  ];
  for (const [what, input, want] of rows)
    it(what, () => expect(toDocument(toStackConfig(frozen(input), d))).to.deep.equal(want));

  const hostile: [string, JsonObject, string][] = [
    ["providers is a list", { providers: [] }, "providers must be a mapping"],
    [
      "an API no release has",
      { providers: { telemetry: [] } },
      "providers.telemetry must be keyed by a Llama Stack API",
    ],
    [
      "an API list that is a mapping",
      { providers: { inference: {} } },
      "providers.inference must be a list",
    ],
    [
      "an entry that is a string",
      { providers: { inference: ["vllm"] } },
      "providers.inference[0] must be a mapping",
    ],
    [
      "a numeric provider_id",
      { providers: { inference: [{ provider_id: 1, provider_type: "x" }] } },
      "providers.inference[0].provider_id must be a string",
    ],
    [
      "no provider_type",
      { providers: { inference: [{ provider_id: "a" }] } },
      "providers.inference[0].provider_type must be a string",
    ],
    [
      "a config that is a list",
      { providers: { files: [{ provider_id: "a", provider_type: "x", config: [] }] } },
      "providers.files[0].config must be a mapping",
    ],
    ["apis holding a number", { apis: ["inference", 3] }, "apis[1] must be a string"],
    ["apis a string", { apis: "inference" }, "apis must be a list"],
    ["server null", { server: null }, "server must be a mapping"],
    ["storage a string", { storage: "sqlite" }, "storage must be a mapping"],
    [
      "a backend without type",
      { storage: { backends: { kv_default: { db_path: "x" } } } },
      "storage.backends.kv_default.type must be a string",
    ],
    [
      "a resource list that is a mapping",
      { registered_resources: { models: {} } },
      "registered_resources.models must be a list",
    ],
    [
      "a numeric model_id",
      { registered_resources: { models: [{ model_id: 7 }] } },
      "registered_resources.models[0].model_id must be a string",
    ],
    [
      "a default shield that is a list",
      { safety: { default_shield_id: [] } },
      "safety.default_shield_id must be a string",
    ],
  ];
  for (const [what, input, message] of hostile)
    it(`hostile: ${what}`, () =>
      expect(() => toStackConfig(frozen(input), d)).to.throw(TypeError, message));

  it("hostile: a __proto__ key pollutes nothing", () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "version": 2}') as JsonObject;
    const config = toStackConfig(input, d);
    expect(({} as Record<string, unknown>)["polluted"]).to.equal(undefined);
    expect(Object.getPrototypeOf(config.rest)).to.equal(Object.prototype);
    expect(Object.keys(toDocument(config))).to.include.members(["__proto__", "version"]);
  });
});

describe("baseConfigOf", () => {
  const data = releaseData("1.5.0");
  it("parses a base once, frozen, and shares it", () => {
    const a = baseConfigOf(data, "starter");
    expect(a).to.equal(baseConfigOf(data, "starter"));
    expect(deeplyFrozen(a)).to.equal(true);
    expect(Object.isFrozen(data.baseConfigs["starter"])).to.equal(false);
  });
  it("undefined for a distribution the release does not ship, inherited names included", () => {
    for (const name of ["starter-gpu", "constructor", "__proto__", ""])
      expect(baseConfigOf(data, name), name).to.equal(undefined);
  });
  it("a base it cannot read names the file and the field", () => {
    const broken: ReleaseData = { ...data, baseConfigs: { bad: { providers: { x: [] } } } };
    expect(() => baseConfigOf(broken, "bad"))
      .to.throw("configs/1.5.0/distributions/bad/config.yaml: not a config llsd-hook can read")
      .with.property("cause")
      .that.has.property("message", "providers.x must be keyed by a Llama Stack API");
  });
});

describe("counts", () => {
  const rows: [string, JsonObject, number, number][] = [
    ["nothing", {}, 0, 0],
    [
      "providers of two APIs",
      {
        providers: {
          inference: [
            { provider_id: "a", provider_type: "x" },
            { provider_id: "b", provider_type: "x" },
          ],
          files: [{ provider_id: "f", provider_type: "y" }],
        },
      },
      3,
      0,
    ],
    [
      "resources of known and unknown kinds; a non-list unknown kind is not counted",
      {
        registered_resources: {
          models: [{ model_id: "m" }],
          shields: [],
          connectors: [{}, {}],
          other: { a: 1 },
        },
      },
      0,
      3,
    ],
  ];
  for (const [what, input, providers, resources] of rows)
    it(what, () => {
      const config = toStackConfig(input, d);
      expect([countProviders(config), countResources(config)]).to.deep.equal([
        providers,
        resources,
      ]);
    });
});

describe("isApi", () => {
  const rows: [string, boolean][] = [
    ["inference", true],
    ["vector_io", true],
    ["vectorIo", false],
    ["models", false],
    ["", false],
    ["constructor", false],
  ];
  for (const [name, want] of rows)
    it(JSON.stringify(name), () => expect(isApi(name)).to.equal(want));
});
