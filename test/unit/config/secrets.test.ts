// The secret env vars a config reads: one per name, sorted.
import { expect } from "chai";
import { secretEnvOf, type SecretBinding } from "../../../src/config/secrets.js";

const b = (name: string, key = "k"): SecretBinding => ({
  name,
  secretName: "s",
  key,
  specPath: `spec.x.${name}`,
});

describe("secretEnvOf", () => {
  const rows: [string, SecretBinding[], SecretBinding[]][] = [
    ["none", [], []],
    ["sorted by name", [b("LLSD_B"), b("LLSD_A")], [b("LLSD_A"), b("LLSD_B")]],
    [
      "one per name, the last binding of it",
      [b("LLSD_A", "1"), b("LLSD_A", "2")],
      [b("LLSD_A", "2")],
    ],
  ];
  for (const [what, bindings, want] of rows)
    it(what, () => expect(secretEnvOf(bindings)).to.deep.equal(want));
  it("does not change its input", () => {
    const input = Object.freeze([b("LLSD_B"), b("LLSD_A")]);
    secretEnvOf(input);
    expect(input.map((x) => x.name)).to.deep.equal(["LLSD_B", "LLSD_A"]);
  });
});
