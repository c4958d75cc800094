// Disabling APIs and base providers: what leaves with them, what is only a
// warning, and which removals another enabled API forbids.
import { expect } from "chai";
import { withoutDisabled, type RemovalInput } from "../../../src/config/disable.js";
import type { Api } from "../../../src/config/model.js";
import { base, doc } from "./fixtures.js";

function input(apis: Api[], ids: string[] = []): RemovalInput {
  return {
    disabledApis: apis.map((api, index) => ({ api, index })),
    disabledProviders: ids.map((id, index) => ({ id, index })),
    distribution: "starter",
  };
}

describe("withoutDisabled", () => {
  const b = base("0.7.3");
  const before = JSON.stringify(doc(b));

  it("an API leaves providers and apis, with no problem when nothing needs it", () => {
    const out = withoutDisabled(b, input(["batches"]));
    expect(out.problems).to.deep.equal([]);
    expect(out.config.providers.batches).to.equal(undefined);
    expect(out.config.apis).to.not.include("batches");
    expect(JSON.stringify(doc(b))).to.equal(before);
  });

  it("vector_io leaves with vector_stores, and what needs it is a problem naming both", () => {
    const out = withoutDisabled(b, input(["vector_io"]));
    expect(out.config.vector_stores).to.equal(undefined);
    expect(out.problems.map((p) => [p.reason, p.path])).to.deep.include([
      "DisabledDependency",
      "spec.disabled[0]",
    ]);
    expect(out.problems[0]?.detail).to.match(/^vectorIo cannot be removed: /);
  });

  it("a provider leaves every API, with the resources and defaults that name it", () => {
    const out = withoutDisabled(b, input([], ["llama-guard", "sentence-transformers"]));
    const d = doc(out.config);
    expect(out.config.providers.safety?.map((p) => p.provider_id)).to.deep.equal(["code-scanner"]);
    // A conditional resource provider ${env.SAFETY_MODEL:+llama-guard} counts as llama-guard.
    expect(out.config.registered_resources?.shields?.map((s) => s.id)).to.deep.equal([
      "code-scanner",
    ]);
    expect(out.config.safety?.default_shield_id).to.equal(undefined);
    expect(d["vector_stores"]).to.not.have.property("default_embedding_model");
    expect(d["vector_stores"]).to.have.property("default_reranker_model");
  });

  it("removing every provider of an API removes the API and its section", () => {
    const out = withoutDisabled(b, input([], ["llama-guard", "code-scanner"]));
    expect(out.config.providers.safety).to.equal(undefined);
    expect(out.config.apis).to.not.include("safety");
    expect(out.config.safety).to.equal(undefined);
  });

  it("what the base does not have is a warning, and changes nothing", () => {
    const ogx = base("1.5.0");
    const out = withoutDisabled(ogx, input(["safety"], ["nothing-here"]));
    expect(out.problems).to.deep.equal([]);
    expect(out.warnings.map((w) => [w.reason, w.path])).to.deep.equal([
      ["NothingToDisable", "spec.disabled[0]"],
      ["NothingToDisable", "spec.disabledProviders[0]"],
    ]);
    expect(doc(out.config)).to.deep.equal(doc(ogx));
  });

  it("hostile: the same API twice is removed once; the last spec field is named", () => {
    const out = withoutDisabled(b, input(["vector_io", "vector_io"]));
    expect(out.warnings).to.deep.equal([]);
    expect(new Set(out.problems.map((p) => p.path))).to.deep.equal(new Set(["spec.disabled[1]"]));
  });
});
