// Table tests of the pydantic JSON-schema subset the configs are validated with.
import { expect } from "chai";
import { validateAgainstSchema } from "../../../src/lib/jsonschema.js";
import { LLAMA_STACK_VALUES } from "../../../src/config/envsubst.js";
import { loadCatalog } from "../../../src/edge/load-catalog.js";

const release = loadCatalog().byRelease["0.7.3"]!;

describe("validateAgainstSchema (pydantic JSON schema subset)", () => {
  const vllm = release.providers["inference"]!["remote::vllm"]!.configSchema;
  const rows: [string, unknown, string[]][] = [
    ["a valid config", { base_url: "http://vllm:8000/v1", max_tokens: 10 }, []],
    [
      "an env placeholder passes any scalar type",
      { max_tokens: "${env.MAX:=4096}", base_url: "${env.U}" },
      [],
    ],
    [
      "a URL without scheme",
      { base_url: "vllm:8000" },
      ["base_url: must be a URL with a host, such as http://vllm:8000/v1"],
    ],
    ["a wrong type", { max_tokens: "many" }, ["max_tokens: must be an integer"]],
    ["an unknown key", { url: "http://x" }, ["url: is not a declared field"]],
    [
      "a nested unknown key",
      { network: { tls: { verify: true, bogus: 1 } } },
      ["network.tls.bogus: is not a declared field"],
    ],
    ["null where null is allowed", { base_url: null }, []],
    [
      "an object where a scalar is expected",
      { max_tokens: { a: 1 } },
      ["max_tokens: must be an integer"],
    ],
    ["a placeholder where an object is expected", { network: "${env.NET}" }, []],
  ];
  for (const [what, value, want] of rows) {
    it(what, () => {
      const errors = validateAgainstSchema(vllm, value as never, LLAMA_STACK_VALUES).map(
        (e) => `${e.path.join(".")}: ${e.message}`,
      );
      expect(errors).to.deep.equal(want);
    });
  }
  it("reports a missing required field", () => {
    const faiss = release.providers["vector_io"]!["inline::faiss"]!.configSchema;
    expect(
      validateAgainstSchema(faiss, {}, LLAMA_STACK_VALUES).map((e) => [e.path.join("."), e.kind]),
    ).to.deep.equal([["persistence", "required"]]);
  });
});
