// The suite's verdict does not depend on the run: every fast-check property
// (and sample) in test/ and scripts/ runs from a seed written where it is
// asserted, so a failure replays as it came (fast-check prints the seed and
// the path) and a second run gives the same verdict. A new property without
// one fails here.
import { expect } from "chai";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const root = join(import.meta.dirname, "..", "..");

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? tsFiles(join(dir, e.name))
      : e.name.endsWith(".ts")
        ? [join(dir, e.name)]
        : [],
  );
}

/** `file:line` of each fc.assert, fc.check or fc.sample call, and whether its options name a seed. */
function propertiesIn(file: string): { at: string; seeded: boolean }[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  const calls: { at: string; seeded: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      /^fc\.(assert|check|sample)$/.test(node.expression.getText(source))
    ) {
      const options = node.arguments[1];
      const seeded =
        options !== undefined &&
        ts.isObjectLiteralExpression(options) &&
        options.properties.some(
          (p) => ts.isPropertyAssignment(p) && p.name.getText(source) === "seed",
        );
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      calls.push({ at: `${relative(root, file)}:${line}`, seeded });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return calls;
}

describe("every property is seeded", () => {
  it("each fc.assert, fc.check and fc.sample in test/ and scripts/ passes seed: in its options", () => {
    const calls = [join(root, "test"), join(root, "scripts")]
      .flatMap(tsFiles)
      .flatMap(propertiesIn);
    expect(calls.length, "properties found").to.be.greaterThan(30);
    expect(calls.filter((c) => !c.seeded).map((c) => c.at)).to.deep.equal([]);
  });
});
