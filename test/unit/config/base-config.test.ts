// Table tests of a custom image's base config (spec.distribution.baseConfig):
// the checks a shipped base passes, each failure with its message and fix.
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { customBaseOf } from "../../../src/config/base-config.js";
import { toDocument } from "../../../src/config/model.js";
import { releaseData } from "./fixtures.js";

const acme = (release: string) =>
  readFileSync(
    join(import.meta.dirname, "..", "..", "golden", "bases", `acme-${release}.yaml`),
    "utf8",
  );

const at = "spec.distribution.baseConfig";
const of = (text: string, release = "1.5.0") =>
  customBaseOf({ configMapName: "b", key: "config.yaml", text }, releaseData(release));

describe("customBaseOf", () => {
  const rows: { name: string; text: string; release?: string; problems: string[] }[] = [
    // the image's own config, on the release it was written for
    { name: "an OGX 1.5.0 base", text: acme("1.5.0"), problems: [] },
    { name: "a Llama Stack 0.7.3 base", text: acme("0.7.3"), release: "0.7.3", problems: [] },
    // keys the schema does not declare are kept: the server ignores them
    {
      name: "an undeclared top-level key",
      text: "apis: [files]\nproviders: {}\nimage_notes: built by acme\n",
      problems: [],
    },
    {
      name: "not YAML",
      text: "apis: [files\n",
      problems: [
        `${at}: ConfigMap b's config.yaml is not YAML (Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 1); put the image's own config.yaml there`,
      ],
    },
    {
      name: "empty",
      text: "",
      problems: [
        `${at}: ConfigMap b's config.yaml is not a Llama Stack config (a YAML mapping with apis, providers, ...); put the image's own config.yaml there`,
      ],
    },
    {
      name: "a list, not a mapping",
      text: "- apis\n",
      problems: [
        `${at}: ConfigMap b's config.yaml is not a Llama Stack config (a YAML mapping with apis, providers, ...); put the image's own config.yaml there`,
      ],
    },
    {
      name: "a Kubernetes manifest pasted in: the release's schema wants providers",
      text: "apiVersion: v1\nkind: ConfigMap\n",
      problems: [
        `${at}: ConfigMap b's config.yaml does not fit OGX 1.5.0's config: providers is required; fix the config, or set spec.distribution.release to the release the image runs`,
      ],
    },
    {
      name: "a provider list that is a mapping",
      text: "providers:\n  inference: {provider_id: x}\n",
      problems: [
        `${at}: ConfigMap b's config.yaml does not fit OGX 1.5.0's config: providers.inference must be an array; fix the config, or set spec.distribution.release to the release the image runs`,
      ],
    },
    {
      name: "providers under a key that is no Llama Stack API",
      text: "providers:\n  telemetry_x: []\n",
      problems: [
        `${at}: ConfigMap b's config.yaml is not a Llama Stack config: providers.telemetry_x must be keyed by a Llama Stack API; fix it, or put the image's own config.yaml there`,
      ],
    },
    {
      name: "a 0.7.3 config declared as OGX 1.5.0: safety is gone",
      text: "providers:\n  safety:\n    - {provider_id: lg, provider_type: inline::llama-guard, config: {}}\n",
      problems: [
        `${at}: ConfigMap b's config.yaml has providers for safety, which is not an API of OGX 1.5.0; fix the config, or set spec.distribution.release to the release the image runs`,
      ],
    },
    {
      name: "a provider type the release does not have",
      text: "providers:\n  inference:\n    - {provider_id: x, provider_type: remote::acme-llm, config: {}}\n",
      problems: [
        `${at}: ConfigMap b's config.yaml: providers.inference[0].provider_type is remote::acme-llm, which is not a provider type of OGX 1.5.0; fix the config, or set spec.distribution.release to the release the image runs`,
      ],
    },
    // hostile: past the bounds every user's YAML gets (src/config/bounded-yaml.ts), named with the ConfigMap
    {
      name: "hostile: 500 KB of tiny nodes",
      text: "- a\n".repeat(125_000),
      problems: [
        `${at}: ConfigMap b's config.yaml is 500000 bytes, more than the 262144 llsd-hook reads; shorten it`,
      ],
    },
    {
      name: "hostile: 240 KB of tiny nodes",
      text: "- a\n".repeat(60_000),
      problems: [
        `${at}: ConfigMap b's config.yaml holds more than 20000 YAML nodes (scalars, aliases and collections); shorten it`,
      ],
    },
    {
      name: "hostile: a base 1,000 levels deep",
      text: `apis: ${"[".repeat(1000)}${"]".repeat(1000)}\n`,
      problems: [
        `${at}: ConfigMap b's config.yaml is nested more than 32 levels deep (line 1); flatten it`,
      ],
    },
    {
      name: "hostile: a key twice",
      text: "apis: []\nproviders: {}\napis: [files]\n",
      problems: [
        `${at}: ConfigMap b's config.yaml repeats the key apis in one mapping (line 3); keep one`,
      ],
    },
    // values the server's PyYAML reads as bytes or a date, not as the text they look like
    {
      name: "a !!binary value",
      text: "apis: []\nproviders: {}\nimage_notes: !!binary aGVsbG8=\n",
      problems: [
        `${at}: ConfigMap b's config.yaml holds a YAML binary (!!binary) at image_notes, which the server does not read as the text it looks like; quote it to make it a string`,
      ],
    },
    {
      name: "a timestamp",
      text: "apis: []\nproviders: {}\nimage_notes: {built: 2026-11-25}\n",
      problems: [
        `${at}: ConfigMap b's config.yaml holds a YAML timestamp at image_notes.built, which the server does not read as the text it looks like; quote it to make it a string`,
      ],
    },
  ];
  for (const row of rows)
    it(row.name, () => {
      const out = of(row.text, row.release);
      const problems = out.ok ? [] : out.problems.map((p) => `${p.path}: ${p.detail}`);
      expect(problems).to.deep.equal(row.problems);
    });

  it("keeps the base as written (the stages edit it, never the text)", () => {
    const out = of(acme("1.5.0"));
    expect(out.ok && toDocument(out.value)["distro_name"]).to.equal("acme");
  });
});
