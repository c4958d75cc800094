// llsd-hook render: strict YAML (line and column), field-and-fix lines for
// problems, and the same children the hook returns.
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { render, RenderError } from "../../../src/cli/render.js";
import { toV1alpha2 } from "../../../src/convert/convert.js";
import { generateConfig } from "../../../src/config/generate.js";
import { loadCatalog } from "../../../src/edge/load-catalog.js";
import { syncContext } from "../../support/harness.js";

const NOW = new Date("2026-11-01T12:00:00Z");
const HEAD = "apiVersion: llamastack.io/v1alpha2\nkind: LlamaStackDistribution\n";

const refused: { name: string; text: string; error: string }[] = [
  {
    name: "a duplicate key (the last value would win silently)",
    text: `${HEAD}metadata: {name: llama}\nspec:\n  distribution: {name: starter}\n  distribution: {name: nvidia}\n`,
    error: "cr.yaml:6:3: Map keys must be unique",
  },
  {
    name: "tab indentation",
    text: `${HEAD}metadata:\n\tname: llama\n`,
    error: "cr.yaml:4:1: Tabs are not allowed as indentation",
  },
  {
    name: "an unclosed bracket",
    text: `${HEAD}metadata: {name: llama\n`,
    error:
      "cr.yaml:4:1: Flow map in block collection must be sufficiently indented and end with a }",
  },
  {
    name: "no LlamaStackDistribution in the file",
    text: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
    error:
      "cr.yaml: no document of kind LlamaStackDistribution (apiVersion llamastack.io/v1alpha2); the file has 1 document(s)",
  },
  {
    // the second used to be ignored without a word
    name: "two LlamaStackDistributions in one file",
    text: `${HEAD}metadata: {name: a}\nspec: {distribution: {name: starter}}\n---\n${HEAD}metadata: {name: b}\nspec: {distribution: {name: starter}}\n`,
    error:
      "cr.yaml: 2 documents of kind LlamaStackDistribution (a, b); render takes one: put each in a file of its own",
  },
  {
    name: "a llamastack.io/v1alpha1 object that does not convert",
    text: "apiVersion: llamastack.io/v1alpha1\nkind: LlamaStackDistribution\nmetadata: {name: llama}\nspec:\n  replicas: two\n  server: {distribution: {name: starter}}\n",
    error:
      "cr.yaml: spec.replicas: must be an integer, not a string; correct it through llamastack.io/v1alpha1 (kubectl edit) so that the object converts",
  },
  {
    name: "metadata that is not an object's metadata",
    text: `${HEAD}metadata: {name: 5}\nspec: {distribution: {name: starter}}\n`,
    error:
      'cr.yaml: metadata.name: expected a string, but YAML read 5 as a number; quote it: name: "5"',
  },
  // A Secret's value written unquoted is read as a tag or an alias: never said back (issue 34).
  {
    name: "an unresolved tag (a Secret's value written unquoted)",
    text: `${HEAD}metadata: {name: llama}\nspec: {distribution: {name: starter}}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: creds}\nstringData:\n  token: !sk-live-4f9a2c\n`,
    error:
      "cr.yaml:10:10: a tag (a word after !) that is none of YAML's own, so the value it marks would be lost; quote the value if it is text that starts with !",
  },
  {
    name: "an unresolved alias (not too many aliases)",
    text: `${HEAD}metadata: {name: llama}\nspec: {distribution: {name: starter}}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: creds}\nstringData:\n  token: *sk-live-4f9a2c\n`,
    error:
      "cr.yaml: the file has an alias at line 10 whose anchor is not set before it (an anchor &name must come before its alias *name); set the anchor first, or quote the value if it is text that starts with *",
  },
  {
    name: "an unknown escape in a double-quoted string",
    text: `${HEAD}metadata: {name: llama}\nspec: {distribution: {name: starter}}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: creds}\nstringData:\n  token: "pa\\qss"\n`,
    error:
      "cr.yaml:10:13: an escape sequence YAML does not know, in a double-quoted string; write \\\\ for a backslash, or use single quotes",
  },
  {
    name: "too many aliases, still said so",
    text: `${HEAD}metadata: {name: llama}\nspec: {distribution: {name: starter}}\n---\n${[
      "a: &a [x, x, x, x, x, x, x, x, x, x]",
      "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]",
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]",
      "d: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]",
    ].join("\n")}\n`,
    error:
      "cr.yaml: the file expands its aliases more than 100 times; write the values out, or use fewer aliases",
  },
];

describe("llsd-hook render", () => {
  for (const row of refused) {
    it(`refuses ${row.name}`, () => {
      expect(() => render(row.text, "cr.yaml", syncContext(), NOW))
        .to.throw(RenderError)
        .with.property("message", row.error);
      expect(row.error).to.not.include("4f9a2c");
    });
  }

  it("renders a valid resource and reports the Deployment it creates (Initializing)", () => {
    const out = render(
      `${HEAD}metadata: {name: llama}\nspec: {distribution: {name: starter}}\n`,
      "cr.yaml",
      syncContext(),
      NOW,
    );
    expect(out.failed).to.equal(false);
    expect(out.children).to.include("kind: Deployment");
    expect(out.status).to.include("phase: Initializing");
  });

  it("converts a llamastack.io/v1alpha1 object as the conversion webhook does, and says so", () => {
    const v1alpha1 = {
      apiVersion: "llamastack.io/v1alpha1",
      kind: "LlamaStackDistribution",
      metadata: { name: "llama" },
      spec: { replicas: 1, server: { distribution: { name: "starter" } } },
    };
    const converted = toV1alpha2(v1alpha1);
    if (!converted.ok) throw new Error("the sample does not convert");
    const out = render(JSON.stringify(v1alpha1), "cr.yaml", syncContext(), NOW);
    expect(out.notes[0]).to.equal(
      "note: converted from llamastack.io/v1alpha1 to llamastack.io/v1alpha2 as the conversion webhook does (docs/conversion.md)",
    );
    expect(out.failed).to.equal(false);
    const direct = render(JSON.stringify(converted.value), "cr.yaml", syncContext(), NOW);
    expect(out.children).to.equal(direct.children);
    expect(out.status).to.equal(direct.status);
  });

  it("reports warnings as reason-and-field lines, and does not fail on them alone", () => {
    const out = render(
      `${HEAD}metadata: {name: llama}\nspec:\n  distribution: {name: starter}\n  workload: {podDisruptionBudget: {minAvailable: 1}}\n  networking:\n    expose: {hostname: llama.example.com}\n    allowedFrom: {namespaces: [apps]}\n`,
      "cr.yaml",
      syncContext(),
      NOW,
    );
    expect(out.failed).to.equal(false);
    expect(out.problems).to.deep.equal([]);
    expect(out.warnings.map((w) => w.slice(0, w.indexOf(": ", w.indexOf(": ") + 2)))).to.deep.equal(
      [
        "PdbSkipped: spec.workload.podDisruptionBudget",
        "IngressMayBeBlocked: spec.networking.allowedFrom",
      ],
    );
    expect(out.warnings[1]).to.include(
      "add its namespace to spec.networking.allowedFrom.namespaces",
    );
    const everyNamespace = render(
      `${HEAD}metadata: {name: llama}\nspec:\n  distribution: {name: starter}\n  networking:\n    expose: {hostname: llama.example.com}\n    allowedFrom: {namespaces: [apps, "*"]}\n`,
      "cr.yaml",
      syncContext(),
      NOW,
    );
    expect(everyNamespace.warnings).to.deep.equal([]);
  });

  it("prints warnings beside problems, each from its own condition", () => {
    const out = render(
      `${HEAD}metadata: {name: llama}\nspec:\n  distribution: {name: starter, release: "0.7.3"}\n  providers: {vectorIo: [{provider: "inline::sqlite_vec"}]}\n`,
      "cr.yaml",
      syncContext(),
      NOW,
    );
    expect(out.failed).to.equal(true);
    expect(out.warnings.map((w) => w.split(": ")[0])).to.deep.equal([
      "RetiredImage",
      "DeprecatedProviderType",
    ]);
    expect(out.problems).to.deep.equal([
      "spec.providers.vectorIo[0]: config field db_path of inline::sqlite_vec is required; set it under settings (or secretRefs for a secret)",
      "spec.providers.vectorIo[0]: config field persistence of inline::sqlite_vec is required; set it under settings (or secretRefs for a secret)",
    ]);
  });

  it("reports a spec problem as the status's field-and-fix line, and fails", () => {
    const out = render(
      `${HEAD}metadata: {name: llama}\nspec:\n  distribution: {name: starter}\n  providers: {inference: [{provider: vllm}, {provider: ollama}]}\n`,
      "cr.yaml",
      syncContext(),
      NOW,
    );
    expect(out.failed).to.equal(true);
    expect(out.children).to.equal("");
    expect(out.problems).to.deep.equal([
      "spec.providers.inference: every entry needs an id when the list has more than one provider; add an id to each",
    ]);
  });
});

describe("llsd-hook render with the Secrets and ConfigMaps of the file", () => {
  const acme = readFileSync("test/golden/bases/acme-1.5.0.yaml", "utf8");
  const custom = `${HEAD}metadata: {name: acme}\nspec:\n  distribution:\n    image: registry.example.com/acme/ogx-acme:1.5.0-1\n    release: "1.5.0"\n    baseConfig: {configMapName: acme-base}\n`;
  const baseConfigMap = `---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: acme-base}\ndata:\n  config.yaml: |\n${acme
    .split("\n")
    .map((l) => `    ${l}`)
    .join("\n")}\n`;
  const override = (config: string) =>
    `${HEAD}metadata: {name: llama}\nspec:\n  distribution: {name: starter}\n  overrideConfig: {configMapName: mine}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: mine}\ndata:\n  config.yaml: |\n${config}`;
  const statusText = (text: string) => render(text, "cr.yaml", syncContext(), NOW).status;

  it("a custom image's base config from a ConfigMap in the file: generated on it", () => {
    const out = render(custom + baseConfigMap, "cr.yaml", syncContext(), NOW);
    expect(out.failed, out.problems.join("\n")).to.equal(false);
    expect(out.notes).to.deep.equal(["note: using from the file: ConfigMap/acme-base"]);
    expect(out.children).to.include("kind: ConfigMap");
  });

  it("a base config that is not in the file: says what to add (it was InvalidBaseConfig on an assumed, empty one)", () => {
    expect(() => render(custom, "cr.yaml", syncContext(), NOW))
      .to.throw(RenderError)
      .with.property(
        "message",
        "cr.yaml: spec.distribution.baseConfig: the config is generated on the config.yaml of ConfigMap acme-base, which is not in the file; add that ConfigMap to the file (a document of kind ConfigMap in namespace default)",
      );
  });

  it("an overrideConfig from the file is judged by its text; an assumed one is not judged", () => {
    expect(statusText(override("    server: {insecure: true}\n"))).not.to.include(
      "OverrideNeedsTls",
    );
    expect(statusText(override("    server: {port: 8321}\n"))).to.include(
      "refuses to start without TLS",
    );
    const assumed = `${HEAD}metadata: {name: llama}\nspec:\n  distribution: {name: starter}\n  overrideConfig: {configMapName: mine}\n`;
    expect(statusText(assumed)).not.to.include("refuses to start without TLS");
  });

  it("a Secret in the file (stringData too) is used, and its missing key reported", () => {
    const spec = `${HEAD}metadata: {name: llama}\nspec:\n  distribution: {name: starter}\n  providers:\n    inference:\n      - provider: vllm\n        endpoint: http://vllm:8000/v1\n        apiKey: {secretKeyRef: {name: vllm, key: token}}\n`;
    const secret = (key: string) =>
      `---\napiVersion: v1\nkind: Secret\nmetadata: {name: vllm}\nstringData: {${key}: s3cret-value}\n`;
    const ok = render(spec + secret("token"), "cr.yaml", syncContext(), NOW);
    expect(ok.notes).to.deep.equal(["note: using from the file: Secret/vllm"]);
    expect(ok.failed).to.equal(false);
    expect(ok.children + ok.status).not.to.include("s3cret-value");
    const missing = render(spec + secret("other"), "cr.yaml", syncContext(), NOW);
    expect(missing.failed).to.equal(true);
    expect(missing.status).to.include("SecretKeyNotFound");
  });
});

describe("llsd-hook render with the catalog it loads", () => {
  // The CLI reads one release and distribution (lazy); the answer is the hook's, from every one.
  const lazy = { catalog: loadCatalog({ lazy: true }), generate: generateConfig };
  const files = [
    readFileSync("examples/minimal.yaml", "utf8"),
    `${HEAD}metadata: {name: llama}\nspec: {distribution: {name: postgres-demo, release: "0.7.3"}}\n`,
    `${HEAD}metadata: {name: llama}\nspec: {distribution: {name: nobody}}\n`,
    `${HEAD}metadata: {name: llama}\nspec: {distribution: {name: starter, release: "9.9.9"}}\n`,
  ];
  for (const [i, text] of files.entries()) {
    it(`gives what the eagerly loaded catalog gives (file ${i + 1})`, () => {
      expect(render(text, "cr.yaml", lazy, NOW)).to.deep.equal(
        render(text, "cr.yaml", syncContext(), NOW),
      );
    });
  }
});
