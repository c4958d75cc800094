// kubectl get llsd: the phase, what runs, whether it is Ready and why not; with
// -o wide also the image and the in-cluster URL. Each column reads a field the
// status schema has (the API server would print an empty cell for a typo).
import { expect } from "chai";
import { customResourceDefinition } from "../../../src/api/crd.js";

type Schema = Record<string, unknown>;
interface Column {
  name: string;
  jsonPath: string;
  priority?: number;
}

const crd = customResourceDefinition() as unknown as {
  spec: {
    versions: {
      name: string;
      additionalPrinterColumns: Column[];
      schema: { openAPIV3Schema: Schema };
    }[];
  };
};
const version = crd.spec.versions.find((v) => v.name === "v1alpha2")!;

/** The schema node a printer column's JSONPath reads (a filter `[?(...)]` enters the list's items). */
function nodeAt(path: string): Schema | undefined {
  let node: Schema | undefined = version.schema.openAPIV3Schema;
  for (const part of path.replace(/^\./, "").split(".")) {
    const [key, filter] = part.split("[?");
    node = ((node?.["properties"] ?? {}) as Record<string, Schema>)[key ?? ""];
    if (filter !== undefined) node = node?.["items"] as Schema | undefined;
  }
  return node;
}

describe("printer columns (kubectl get llsd)", () => {
  it("NAME PHASE DISTRIBUTION RELEASE READY REASON AGE, and IMAGE URL with -o wide", () => {
    const columns = version.additionalPrinterColumns;
    expect(columns.filter((c) => (c.priority ?? 0) === 0).map((c) => c.name)).to.deep.equal([
      "Phase",
      "Distribution",
      "Release",
      "Ready",
      "Reason",
      "Age",
    ]);
    expect(columns.filter((c) => c.priority === 1).map((c) => c.name)).to.deep.equal([
      "Image",
      "URL",
    ]);
  });

  for (const column of version.additionalPrinterColumns)
    it(`${column.name} reads a field of the schema (${column.jsonPath})`, () => {
      if (column.jsonPath.startsWith(".metadata.")) return;
      const node = nodeAt(column.jsonPath.replace(/\[\?\(@\.type=="Ready"\)\]/, "[?"));
      expect(node, column.jsonPath).to.not.equal(undefined);
    });
});
