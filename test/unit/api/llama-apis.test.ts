// The API names the schema (and so the CRD) accepts are the union of the
// supported releases' provider APIs, read from the extracted registries.
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { LLAMA_APIS, apiOfSpecKey, specKeyOf } from "../../../src/api/llama-apis.js";

const configs = join(import.meta.dirname, "..", "..", "..", "configs");

describe("Llama Stack API names", () => {
  it("LLAMA_APIS is the union of every supported release's provider APIs", () => {
    const { releases } = JSON.parse(readFileSync(join(configs, "releases.json"), "utf8")) as {
      releases: string[];
    };
    const union = new Set<string>();
    for (const r of releases) {
      const reg = JSON.parse(readFileSync(join(configs, r, "registry.json"), "utf8")) as {
        apis: { providable: string[] };
      };
      for (const api of reg.apis.providable) union.add(api);
    }
    expect([...LLAMA_APIS].sort()).to.deep.equal([...union].sort());
  });

  const rows: [string, string][] = [
    ["inference", "inference"],
    ["vector_io", "vectorIo"],
    ["tool_runtime", "toolRuntime"],
    ["file_processors", "fileProcessors"],
    ["post_training", "postTraining"],
  ];
  for (const [api, key] of rows) {
    it(`${api} ⇄ ${key}`, () => {
      expect(specKeyOf(api)).to.equal(key);
      expect(apiOfSpecKey(key)).to.equal(api);
    });
  }
});
