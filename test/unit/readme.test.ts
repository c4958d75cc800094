// The README and docs/ stay true to the code and to each other: the README
// fits a screen or two and shows the committed minimal example, every reason
// the hook can report is in the reasons table, every relative link points at a
// file and heading that exist, and the curl example's request is current.
import { expect } from "chai";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { parse } from "yaml";
import { requestOf } from "../../src/cli/render.js";
import { sync } from "../../src/sync.js";
import { configOf, syncContext } from "../support/harness.js";
import { LlamaStackDistribution } from "../../src/api/schema.js";
import { ALL_REASONS } from "../../src/reasons.js";
import { hookRequest } from "../../src/cli/request.js";
import { anchorsOf } from "../docs/anchors.js";
import { docFiles, root } from "../docs/examples.js";
import { docSection } from "../support/tools.js";

const readme = readFileSync(join(root, "README.md"), "utf8");

/** The relative links of a Markdown file, outside code: `[text](target)`. */
function linksOf(file: string): string[] {
  const text = readFileSync(join(root, file), "utf8")
    .replace(/^\s*```[\s\S]*?^\s*```/gm, "")
    .replace(/`[^`\n]*`/g, "");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1] ?? "")
    .filter((t) => !/^[a-z]+:/.test(t));
}

describe("README", () => {
  it("is at most 200 lines", () => {
    expect(readme.trimEnd().split("\n").length).to.be.at.most(200);
  });

  it("shows the committed minimal example, which is valid and at most 10 lines of spec", () => {
    const minimal = readFileSync(join(root, "examples", "minimal.yaml"), "utf8");
    expect(readme).to.include(minimal.trim());
    expect(LlamaStackDistribution.safeParse(parse(minimal)).success).to.equal(true);
    const specLines = minimal.slice(minimal.indexOf("spec:")).trim().split("\n").length - 1;
    expect(specLines).to.be.at.most(10);
  });

  it("says what the starter enables and requests as examples/minimal.yaml generates it", () => {
    const text = readFileSync(join(root, "examples", "minimal.yaml"), "utf8");
    const outcome = sync(
      requestOf(text, "minimal.yaml").request,
      "2026-11-01T12:00:00Z",
      syncContext(),
    );
    if (outcome.kind !== "ok") throw new Error(outcome.message);
    const config = parse(configOf(outcome.response) ?? "") as {
      providers: Record<string, { provider_id: string; provider_type: string }[]>;
      registered_resources: { models: unknown[] };
    };
    const entries = Object.values(config.providers).flat();
    const conditional = entries.filter((p) => p.provider_id.startsWith("${env."));
    const always = entries.filter((p) => !conditional.includes(p)).map((p) => p.provider_type);
    const flat = readme.replace(/\s+/g, " ");
    expect(flat).to.include(
      `has ${entries.length} provider entries in ${Object.keys(config.providers).length} APIs`,
    );
    expect(flat).to.include(`${conditional.length} of them are turned on only when`);
    expect(flat).to.include(`so ${entries.length - conditional.length} are always on`);
    for (const type of ["inline::sentence-transformers", "inline::faiss", "inline::sqlite-vec"])
      expect(always, type).to.include(type);
    expect(flat).to.include(
      `lists ${["zero", "one", "two", "three", "four", "five"][config.registered_resources.models.length]} models`,
    );
    const deployment = outcome.response.children.find(
      (c) => c.kind === "Deployment",
    ) as unknown as {
      spec: { template: { spec: { containers: { resources: unknown }[] } } };
    };
    expect(deployment.spec.template.spec.containers[0]?.resources).to.deep.equal({
      requests: { cpu: "250m", memory: "512Mi" },
    });
    expect(flat).to.include("requests 250m CPU and 512Mi of memory and has no limit");
  });

  it("examples/sync-request.json is what llsd-hook request examples/minimal.yaml prints (npm run example-request)", () => {
    const read = (file: string) => ({ text: readFileSync(join(root, file), "utf8"), source: file });
    expect(readFileSync(join(root, "examples", "sync-request.json"), "utf8")).to.equal(
      hookRequest(read("examples/minimal.yaml"), read("metacontroller/compositecontroller.yaml"))
        .json,
    );
  });
});

describe("docs", () => {
  it("the reasons table (docs/operations/status.md) lists every reason", () => {
    const table = docSection("docs/operations/status.md", "## Reasons");
    for (const reason of ALL_REASONS) {
      expect(table, reason).to.include(`| \`${reason}\` |`);
    }
  });

  it("every page is linked from docs/README.md", () => {
    const map = new Set(linksOf("docs/README.md").map((t) => join("docs", t.split("#")[0] ?? "")));
    for (const file of docFiles().filter((f) => f.startsWith("docs/") && f !== "docs/README.md"))
      if (!file.startsWith(join("docs", "adr"))) expect([...map], file).to.include(file);
  });

  for (const file of docFiles())
    it(`${file}: every relative link points at a file and heading that exist`, () => {
      for (const target of linksOf(file)) {
        const [path = "", anchor] = target.split("#");
        const resolved = path === "" ? file : relative(root, join(root, dirname(file), path));
        expect(existsSync(join(root, resolved)), `${file}: ${target}`).to.equal(true);
        if (anchor !== undefined)
          expect([...anchorsOf(resolved)], `${file}: ${target}`).to.include(anchor);
      }
    });
});
