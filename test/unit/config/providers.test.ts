// Declaring and overlaying providers: the default id, the overlay by id on a
// shared (frozen) base, and the final config each declared provider gets.
import { expect } from "chai";
import { defaultProviderId, specBindings } from "../../../src/config/bindings.js";
import { declareProviders, finalConfigOf, withProviders } from "../../../src/config/providers.js";
import { withoutDisabled } from "../../../src/config/disable.js";
import { base, dialect, doc, spec } from "./fixtures.js";

describe("defaultProviderId", () => {
  const rows: [string, { id?: string; provider: string }, string][] = [
    ["the provider's name", { provider: "vllm" }, "vllm"],
    ["a remote type's name", { provider: "remote::vllm" }, "vllm"],
    [
      "an inline type's name",
      { provider: "inline::sentence-transformers" },
      "sentence-transformers",
    ],
    ["the id when set", { id: "primary", provider: "remote::vllm" }, "primary"],
    ["hostile: a bare prefix", { provider: "remote::" }, ""],
    ["hostile: a prefix that is not one", { provider: "other::x" }, "other::x"],
  ];
  for (const [what, entry, want] of rows)
    it(what, () => expect(defaultProviderId(entry)).to.equal(want));
});

describe("withProviders", () => {
  const b = base("0.7.3");
  const before = JSON.stringify(doc(b));
  const declare = (providers: Record<string, unknown>) =>
    declareProviders(specBindings(spec({ providers })).providers, dialect("0.7.3"));

  it("a declared id replaces the base entry in place; the conditional id becomes plain", () => {
    const d = declare({ inference: [{ provider: "vllm", endpoint: "http://v:8000/v1" }] });
    expect(d.problems).to.deep.equal([]);
    const list = withProviders(b, d.declared).providers.inference ?? [];
    const at = b.providers.inference?.findIndex((p) => p.provider_id === "${env.VLLM_URL:+vllm}");
    expect(list).to.have.length(b.providers.inference?.length ?? 0);
    expect(list[at ?? -1]).to.deep.include({ provider_id: "vllm", provider_type: "remote::vllm" });
    // Same type: the spec's fields are merged into the base config (docs/adr/0001).
    expect(list[at ?? -1]?.config).to.deep.include({
      base_url: "http://v:8000/v1",
      max_tokens: "${env.VLLM_MAX_TOKENS:=4096}",
    });
  });

  it("a new id is appended; another type under a base id starts from an empty config", () => {
    const d = declare({
      inference: [
        { id: "faraway", provider: "ollama", endpoint: "http://o:1/v1" },
        { id: "fireworks", provider: "vllm", endpoint: "http://v:1/v1" },
      ],
    });
    const list = withProviders(b, d.declared).providers.inference ?? [];
    expect(list.at(-1)).to.deep.equal({
      provider_id: "faraway",
      provider_type: "remote::ollama",
      config: { base_url: "http://o:1/v1" },
      rest: {},
    });
    expect(list.find((p) => p.provider_id === "fireworks")?.config).to.deep.equal({
      base_url: "http://v:1/v1",
    });
  });

  it("an API the base lacks joins apis, sorted; the base is unchanged and still shared", () => {
    const ogx = base("1.5.0");
    const d = declareProviders(
      specBindings(spec({ providers: { messages: [{ provider: "builtin" }] } }, "1.5.0")).providers,
      dialect("1.5.0"),
    );
    const next = withProviders(ogx, d.declared);
    expect([...next.apis].sort()).to.deep.equal(next.apis);
    expect(next.apis).to.include("messages");
    expect(next.providers.files).to.equal(ogx.providers.files);
    expect(JSON.stringify(doc(b))).to.equal(before);
  });

  it("nothing declared: the same providers", () => {
    const next = withProviders(b, []);
    expect(next.providers.inference).to.equal(b.providers.inference);
    expect(next.apis).to.deep.equal([...b.apis].sort());
  });
});

describe("finalConfigOf", () => {
  it("the entry's config, or {} when the entry was removed", () => {
    const b = base("0.7.3");
    const d = declareProviders(
      specBindings(spec({ providers: { vectorIo: [{ provider: "faiss", settings: { x: 1 } }] } }))
        .providers,
      dialect("0.7.3"),
    ).declared;
    const [faiss] = d;
    if (faiss === undefined) throw new Error("faiss not declared");
    const overlaid = withProviders(b, d);
    expect(finalConfigOf(overlaid, faiss)).to.include({ x: 1 });
    const removal = withoutDisabled(overlaid, {
      disabledApis: [],
      disabledProviders: [{ id: "faiss", index: 0 }],
      distribution: "starter",
    });
    expect(finalConfigOf(removal.config, faiss)).to.deep.equal({});
  });
});

describe("external providers (module)", () => {
  const declare = (entry: Record<string, unknown>, release = "1.5.0") =>
    declareProviders(
      specBindings(spec({ providers: { inference: [entry] } }, release)).providers,
      dialect(release),
    );
  const shown = (problems: { path: string; detail: string }[]) =>
    problems.map((p) => `${p.path}: ${p.detail}`);
  const external = { provider: "remote::acme-echo", module: "acme_echo" };

  const rows: { name: string; entry: Record<string, unknown>; problems: string[] }[] = [
    // settings and secretRefs go as written: the config class is in the image
    {
      name: "settings and a secretRef by field name",
      entry: {
        ...external,
        settings: { base_url: "http://e", prefix: "x" },
        secretRefs: { api_key: { secretKeyRef: { name: "s", key: "k" } } },
      },
      problems: [],
    },
    // a literal secret is refused by its name, as there is no schema to say so
    {
      name: "a literal api_key in settings",
      entry: { ...external, settings: { api_key: "sk-123" } },
      problems: [
        "spec.providers.inference[0].settings.api_key: api_key is a secret field and cannot take a literal value in settings; move it to secretRefs with a secretKeyRef",
      ],
    },
    // endpoint and apiKey need a schema to find their field
    {
      name: "endpoint",
      entry: { ...external, endpoint: "http://e" },
      problems: [
        "spec.providers.inference[0].endpoint: remote::acme-echo is an external provider, whose config class llsd-hook cannot see, so endpoint has no field to go to; set the field by name under settings (secretRefs for a secret)",
      ],
    },
    // a built-in type with a module is the module's (the release loads it from there)
    {
      name: "a built-in type from a module",
      entry: { provider: "remote::vllm", module: "my_vllm" },
      problems: [],
    },
  ];
  for (const row of rows)
    it(row.name, () => {
      expect(shown(declare(row.entry).problems)).to.deep.equal(row.problems);
    });

  it("is written with its module, beside the base's providers", () => {
    const d = declare({ ...external, settings: { base_url: "http://e" } }, "0.7.3");
    const out = withProviders(base("0.7.3"), d.declared);
    const entry = doc(out)["providers"] as Record<string, { provider_type: string }[]>;
    expect(entry["inference"]?.find((p) => p.provider_type === "remote::acme-echo")).to.deep.equal({
      provider_id: "acme-echo",
      provider_type: "remote::acme-echo",
      module: "acme_echo",
      config: { base_url: "http://e" },
    });
  });
});
