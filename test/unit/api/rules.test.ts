// Every validation rule has accepted and rejected examples, and the hook's
// zod validation gives exactly the rule's message on each rejected one.
import { expect } from "chai";
import { LlamaStackDistribution } from "../../../src/api/schema.js";
import { ALL_RULES } from "../../../src/api/rules.js";
import { loadRuleExamples } from "../../rules-examples.js";

const examples = loadRuleExamples();

describe("validation rules (zod side of the CEL rules)", () => {
  it("every rule has at least one accepted and one rejected example", () => {
    for (const id of ALL_RULES.keys()) {
      expect(
        examples.some((e) => e.rule === id && e.expect === "accept"),
        `${id} accept`,
      ).to.equal(true);
      expect(
        examples.some((e) => e.rule === id && e.expect === "reject"),
        `${id} reject`,
      ).to.equal(true);
    }
    for (const e of examples)
      expect(ALL_RULES.has(e.rule), `${e.label}: unknown rule`).to.equal(true);
  });

  for (const ex of examples) {
    it(ex.label, () => {
      const result = LlamaStackDistribution.safeParse(ex.object);
      const messages = result.success ? [] : result.error.issues.map((i) => i.message);
      if (ex.expect === "accept") {
        expect(messages, JSON.stringify(ex.object.spec)).to.deep.equal([]);
      } else {
        expect(messages, JSON.stringify(ex.object.spec)).to.include(
          ALL_RULES.get(ex.rule)?.message,
        );
      }
    });
  }
});
