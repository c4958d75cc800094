// The committed CRD is what the zod schema generates, and it is what a
// platform engineer expects of one: every field described, bounded, the status
// schema covering what the hook writes.
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import {
  CONVERSION_PATCH_FILE,
  CRD_FILE,
  renderConversionPatchYaml,
  renderCrdYaml,
} from "../../../src/api/crd-file.js";
import { ALL_RULES } from "../../../src/api/rules.js";

const root = join(import.meta.dirname, "..", "..", "..");
type Schema = Record<string, unknown>;

/** Visits every field (object property); list items and map values are entered but are not fields. */
function walk(
  node: Schema,
  path: string,
  visit: (n: Schema, p: string, isField: boolean) => void,
  isField = true,
): void {
  visit(node, path, isField);
  for (const [k, v] of Object.entries((node["properties"] ?? {}) as Record<string, Schema>)) {
    walk(v, `${path}.${k}`, visit);
  }
  if (typeof node["items"] === "object") walk(node["items"] as Schema, `${path}[]`, visit, false);
  if (typeof node["additionalProperties"] === "object") {
    walk(node["additionalProperties"] as Schema, `${path}{}`, visit, false);
  }
}

describe("CustomResourceDefinition", () => {
  const text = readFileSync(join(root, CRD_FILE), "utf8");
  const crd = parse(text) as { spec: { versions: { schema: { openAPIV3Schema: Schema } }[] } };
  const schema = crd.spec.versions[0]!.schema.openAPIV3Schema;

  it("the committed file is what npm run crd generates", () => {
    expect(text === renderCrdYaml(), `${CRD_FILE} is stale; run npm run crd`).to.equal(true);
  });

  it("the committed v1alpha1 component patch is what npm run crd generates", () => {
    const patch = readFileSync(join(root, CONVERSION_PATCH_FILE), "utf8");
    const stale = `${CONVERSION_PATCH_FILE} is stale; run npm run crd`;
    expect(patch === renderConversionPatchYaml(), stale).to.equal(true);
  });

  it("the base CRD serves v1alpha2 only, with no conversion (v1alpha1 is the component's)", () => {
    const spec = (crd as unknown as { spec: Record<string, unknown> }).spec;
    expect(crd.spec.versions.map((v) => (v as unknown as { name: string }).name)).to.deep.equal([
      "v1alpha2",
    ]);
    expect(spec["conversion"]).to.equal(undefined);
  });

  it("every spec and status field has a description", () => {
    const missing: string[] = [];
    for (const part of ["spec", "status"]) {
      walk((schema["properties"] as Record<string, Schema>)[part]!, part, (n, p, isField) => {
        if (isField && (typeof n["description"] !== "string" || n["description"] === ""))
          missing.push(p);
      });
    }
    expect(missing).to.deep.equal([]);
  });

  it("carries every rule's CEL expression and message", () => {
    const cel = new Set<string>();
    walk(schema, "", (n) => {
      for (const v of (n["x-kubernetes-validations"] ?? []) as { rule: string; message: string }[])
        cel.add(`${v.rule}\n${v.message}`);
    });
    for (const rule of ALL_RULES.values())
      expect(cel.has(`${rule.cel}\n${rule.message}`), rule.id).to.equal(true);
  });

  it("defaults port 8321 and replicas 1", () => {
    const spec = (schema["properties"] as Record<string, Schema>)["spec"]!;
    const props = spec["properties"] as Record<string, Schema>;
    const networking = props["networking"]!["properties"] as Record<string, Schema>;
    const workload = props["workload"]!["properties"] as Record<string, Schema>;
    expect(networking["port"]).to.include({ default: 8321, minimum: 1024, maximum: 65535 });
    expect(workload["replicas"]).to.include({ default: 1 });
  });
});
