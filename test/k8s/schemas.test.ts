// The embedded core/v1 schemas (src/api/k8s-schemas.json) are what
// scripts/k8s-schemas.ts extracts from the pinned Kubernetes release's OpenAPI
// document, which the control-plane build already brought into the Go module
// cache. A hand edit, or a version bump without re-extraction, fails here.
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { renderSchemas, SCHEMAS_FILE } from "../../scripts/k8s-schemas.js";

describe("embedded core/v1 schemas", function () {
  this.timeout(60_000);

  it("the committed file is what npm run k8s-schemas:update extracts, byte for byte", () => {
    const { text, types } = renderSchemas();
    expect(types).to.be.greaterThan(0);
    expect(readFileSync(SCHEMAS_FILE, "utf8") === text, "run npm run k8s-schemas:update").to.equal(
      true,
    );
  });

  it("carries no OpenAPI defaults into the CRD", () => {
    expect(readFileSync(SCHEMAS_FILE, "utf8")).not.to.include('"default"');
  });
});
