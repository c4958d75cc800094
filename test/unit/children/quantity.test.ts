// canonicalQuantity against the rows the Kubernetes suite also checks on a real API server.
import { expect } from "chai";
import { canonicalQuantity } from "../../../src/children/quantity.js";
import { QUANTITY_ROWS } from "./quantity-rows.js";

describe("canonicalQuantity", () => {
  for (const [given, stored] of QUANTITY_ROWS)
    it(`${given} → ${stored}`, () => expect(canonicalQuantity(given)).to.equal(stored));
  it("what is not a quantity is left for the API server to report", () => {
    expect(canonicalQuantity("lots")).to.equal("lots");
    expect(canonicalQuantity("1.2.3Gi")).to.equal("1.2.3Gi");
  });
});
