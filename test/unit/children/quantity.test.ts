// canonicalQuantity against the rows the Kubernetes suite also checks on a real API server.
import { expect } from "chai";
import { canonicalQuantities, canonicalQuantity } from "../../../src/children/quantity.js";
import { QUANTITY_ROWS } from "./quantity-rows.js";

describe("canonicalQuantity", () => {
  for (const [given, stored] of QUANTITY_ROWS)
    it(`${given} → ${stored}`, () => expect(canonicalQuantity(given)).to.equal(stored));
  it("what is not a quantity is left for the API server to report", () => {
    expect(canonicalQuantity("lots")).to.equal("lots");
    expect(canonicalQuantity("1.2.3Gi")).to.equal("1.2.3Gi");
  });
});

describe("canonicalQuantities", () => {
  const rows: [why: string, list: Record<string, string>, stored: unknown][] = [
    ["an empty list", {}, {}],
    ["every value, keys kept", { cpu: "1000m", memory: "1024Mi" }, { cpu: "1", memory: "1Gi" }],
    [
      "hostile: keys like Object properties",
      JSON.parse('{"__proto__": "2000m"}') as Record<string, string>,
      JSON.parse('{"__proto__": "2"}'),
    ],
  ];
  for (const [why, list, stored] of rows)
    it(why, () => expect(canonicalQuantities(list)).to.deep.equal(stored));

  it("does not change its input", () => {
    const list = Object.freeze({ cpu: "500m" });
    canonicalQuantities(list);
    expect(list).to.deep.equal({ cpu: "500m" });
  });
});
