// The README stays true to the code: every reason the hook can report is in
// its reasons table, its minimal example is the committed one, and the curl
// example's request is current.
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { LlamaStackDistribution } from "../../src/api/schema.js";
import { ALL_REASONS } from "../../src/reasons.js";
import { exampleRequestJson } from "../golden/example-request.js";

const root = join(import.meta.dirname, "..", "..");
const readme = readFileSync(join(root, "README.md"), "utf8");

describe("README", () => {
  it("lists every reason in the reasons table", () => {
    const table = readme.slice(readme.indexOf("### Reasons"), readme.indexOf("### Argo CD"));
    for (const reason of ALL_REASONS) {
      expect(table, reason).to.include(`| \`${reason}\` |`);
    }
  });

  it("shows the committed minimal example, which is valid and at most 10 lines of spec", () => {
    const minimal = readFileSync(join(root, "examples", "minimal.yaml"), "utf8");
    expect(readme).to.include(minimal.trim());
    expect(LlamaStackDistribution.safeParse(parse(minimal)).success).to.equal(true);
    const specLines = minimal.slice(minimal.indexOf("spec:")).trim().split("\n").length - 1;
    expect(specLines).to.be.at.most(10);
  });

  it("examples/sync-request.json is current (npm run example-request)", () => {
    expect(readFileSync(join(root, "examples", "sync-request.json"), "utf8")).to.equal(
      exampleRequestJson(),
    );
  });
});
