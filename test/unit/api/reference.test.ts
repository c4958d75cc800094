// The field reference is what npm run crd generates from the zod schema (as
// the CRD is), covers every spec field the CRD has, and names the embedded
// Kubernetes types instead of expanding them.
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { referenceOfCrd, REFERENCE_FILE } from "../../../src/api/reference.js";

const root = join(import.meta.dirname, "..", "..", "..");

describe("the field reference (docs/reference/llamastackdistribution.md)", () => {
  const text = readFileSync(join(root, REFERENCE_FILE), "utf8");

  it("is what npm run crd generates", () => {
    expect(text === referenceOfCrd(), `${REFERENCE_FILE} is stale; run npm run crd`).to.equal(true);
  });

  it("lists the fields a newcomer looks up, with their descriptions", () => {
    for (const field of [
      "spec.distribution.name",
      "spec.distribution.release",
      "spec.providers.inference[].apiKey.secretKeyRef.name",
      "spec.workload.storage.accessMode",
      "spec.auth.oauth2.audience",
      "status.conditions[].reason",
    ])
      expect(text).to.match(
        new RegExp(`^\\| \`${field.replace(/[.[\]]/g, "\\$&")}\` \\| .+ \\| .+ \\|$`, "m"),
      );
  });

  it("names the embedded Kubernetes types instead of expanding them", () => {
    expect(text).to.include("| `spec.workload.overrides.volumes` | list of Kubernetes `Volume`");
    expect(text).not.to.include("spec.workload.overrides.volumes[].");
  });
});
