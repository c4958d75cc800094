// Every LlamaStackDistribution example of the README and docs/ is rendered by
// the hook's own pure function (as `llsd-hook render` does, its references
// assumed to exist) on the release it names, else the default: a plain example
// must render without a problem, and one marked `fails with <Reason>` must fail
// with that reason (and print exactly the `error:` lines shown after it, when
// they are). No example pins a release whose images are retired unless
// it is marked as being about that.
import { expect } from "chai";
import { parse, parseAllDocuments } from "yaml";
import { render } from "../../src/cli/render.js";
import { docExamples } from "../docs/examples.js";
import { syncContext } from "../support/harness.js";

const NOW = new Date("2026-11-01T12:00:00Z");
const RETIRED = new Set(["0.7.3", "0.6.1"]);

interface Condition {
  type: string;
  status: string;
  reason: string;
}

describe("the LlamaStackDistribution examples of the README and docs/", () => {
  const examples = docExamples();

  it("are found (the README's quick start and the examples/ gallery at least)", () => {
    const files = examples.map((e) => e.file);
    expect(files).to.include("README.md");
    for (const f of ["minimal", "several-providers", "postgres", "tls-and-auth", "custom-image"])
      expect(files).to.include(`examples/${f}.yaml`);
  });

  for (const example of examples)
    describe(example.where, () => {
      const out = () => render(example.text, example.where, syncContext(), NOW);

      it("pins no release with retired images unless it is about that", () => {
        const resource = parseAllDocuments(example.text)
          .map(
            (d) => d.toJS() as { kind?: string; spec?: { distribution?: { release?: unknown } } },
          )
          .find((d) => d.kind === "LlamaStackDistribution");
        const spec = resource?.spec;
        const release = String(spec?.distribution?.release ?? "");
        expect(RETIRED.has(release), `release ${release}`).to.equal(example.retiredRelease);
      });

      if (example.failsWith === undefined)
        it("renders without a problem", () => {
          const rendered = out();
          expect(rendered.problems, rendered.problems.join("\n")).to.deep.equal([]);
          expect(rendered.failed).to.equal(false);
          expect(rendered.children).to.include("kind: Deployment");
        });
      else {
        const reason = example.failsWith;
        it(`fails with ${reason}`, () => {
          const rendered = out();
          expect(rendered.failed).to.equal(true);
          const conditions = (parse(rendered.status) as { status: { conditions: Condition[] } })
            .status.conditions;
          const reasons = conditions.filter((c) => c.status !== "True").map((c) => c.reason);
          expect(reasons, rendered.problems.join("\n")).to.include(reason);
          if (example.errors !== undefined)
            expect(rendered.problems.map((p) => `error: ${p}`)).to.deep.equal(example.errors);
        });
      }
    });
});
