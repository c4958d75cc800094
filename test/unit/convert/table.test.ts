// The field table stays true: it covers every field of the v1alpha1 schema
// (the retired operator's api/v1alpha1 field set), names only fields that
// exist on both sides, and docs/conversion.md shows exactly it.
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { LlamaStackDistributionSpec } from "../../../src/api/schema.js";
import { Status } from "../../../src/api/status.js";
import { FIELD_RULES, V1ALPHA2_ONLY } from "../../../src/convert/table.js";
import { V1alpha1Spec, V1alpha1Status } from "../../../src/api/v1alpha1.js";

const root = join(import.meta.dirname, "..", "..", "..");
const doc = readFileSync(join(root, "docs", "conversion.md"), "utf8");

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (current instanceof z.ZodOptional || current instanceof z.ZodDefault)
    current = current.unwrap() as z.ZodType;
  return current;
}

/** Every field path of a zod object schema, objects included. */
function fieldsOf(schema: z.ZodType, path: string, out: string[] = []): string[] {
  const inner = unwrap(schema);
  out.push(path);
  if (inner instanceof z.ZodObject)
    for (const [key, child] of Object.entries(inner.shape)) fieldsOf(child, `${path}.${key}`, out);
  return out;
}

const v1alpha1Fields = [...fieldsOf(V1alpha1Spec, "spec"), ...fieldsOf(V1alpha1Status, "status")];
const v1alpha2Fields = [
  ...fieldsOf(LlamaStackDistributionSpec, "spec"),
  ...fieldsOf(Status, "status"),
];
const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}.`);

/** The rows of the markdown table under `heading`, as cells. */
function tableRows(heading: string): string[][] {
  const start = doc.indexOf(`## ${heading}\n`);
  const end = doc.indexOf("\n## ", start + 1);
  return doc
    .slice(start, end === -1 ? undefined : end)
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) =>
      line
        .slice(1, -1)
        .split(" | ")
        .map((cell) => cell.trim()),
    );
}

describe("the field table (src/convert/table.ts)", () => {
  it("covers every field of the v1alpha1 schema", () => {
    const leaves = v1alpha1Fields.filter((f) => !v1alpha1Fields.some((g) => g.startsWith(`${f}.`)));
    for (const field of leaves)
      expect(
        FIELD_RULES.some((r) => under(field, r.v1alpha1)),
        `${field} has no row`,
      ).to.equal(true);
  });

  it("names v1alpha1 fields that exist, and v1alpha2 homes that exist", () => {
    for (const rule of FIELD_RULES) {
      expect(v1alpha1Fields, rule.v1alpha1).to.include(rule.v1alpha1);
      if (rule.v1alpha2 !== null) expect(v1alpha2Fields, rule.v1alpha2).to.include(rule.v1alpha2);
      if (rule.planned !== undefined)
        expect(v1alpha2Fields, `${rule.planned} is planned, not there yet`).not.to.include(
          rule.planned,
        );
    }
    for (const field of V1ALPHA2_ONLY) expect(v1alpha2Fields, field).to.include(field);
  });

  it("the v1alpha2 fields without a home are exactly those no row maps to", () => {
    // A row that moves only an object's presence does not map what the object holds.
    const homes = FIELD_RULES.flatMap((r) =>
      r.v1alpha2 === null || r.presenceOnly === true ? [] : [r.v1alpha2],
    );
    const leaves = v1alpha2Fields.filter((f) => !v1alpha2Fields.some((g) => g.startsWith(`${f}.`)));
    for (const field of leaves) {
      const mapped = homes.some((h) => under(field, h));
      const kept = V1ALPHA2_ONLY.some((k) => under(field, k));
      expect(mapped !== kept, `${field}: mapped ${mapped}, kept ${kept}`).to.equal(true);
    }
  });

  it("docs/conversion.md shows the field table as it is", () => {
    const rows = tableRows("Field table");
    expect(rows.map((r) => r[0])).to.deep.equal(FIELD_RULES.map((r) => `\`${r.v1alpha1}\``));
    for (const [row, rule] of rows.map((r, i) => [r, FIELD_RULES[i]!] as const)) {
      const home =
        rule.v1alpha2 !== null
          ? `\`${rule.v1alpha2}\``
          : rule.planned !== undefined
            ? `annotation (home planned: \`${rule.planned}\`)`
            : "annotation";
      expect(row[1], rule.v1alpha1).to.equal(home);
      expect(row[3], rule.v1alpha1).to.equal(`\`${rule.v1alpha1}\``);
    }
  });

  it("docs/conversion.md lists the v1alpha2 fields without a v1alpha1 home", () => {
    expect(tableRows("v1alpha2 fields without a v1alpha1 home").map((r) => r[0])).to.deep.equal(
      V1ALPHA2_ONLY.map((f) => `\`${f}\``),
    );
  });
});
