// The Node.js gate of the entries (src/edge/node-engines.ts): the versions it
// lets through and refuses for a range, with a fake version; the one line an
// older Node.js gets; the entry running its program only on an allowed
// Node.js; and the entries and the gate having no static import, which is what
// lets an older Node.js reach the check at all. The same entries on the
// machine's own older Node.js: test/install/older-node.test.ts.
import { expect } from "chai";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import {
  engineProblem,
  startOnSupportedNode,
  unsupportedNode,
} from "../../../src/edge/node-engines.js";

const root = join(import.meta.dirname, "..", "..", "..");

describe("the Node.js gate of the entries (src/edge/node-engines.ts)", () => {
  const rows: [range: string, version: string, ok: boolean][] = [
    [">=24", "24.21.0", true],
    [">=24", "26.1.0", true],
    [">=24", "20.20.2", false],
    [">=24", "22.22.0", false],
    [">=20.19", "20.18.3", false],
    [">=20.19", "20.19.0", true],
    [">=24.21.1", "24.21.0", false],
  ];
  for (const [range, version, ok] of rows)
    it(`${ok ? "accepts" : "refuses"} ${version} for ${range}`, () => {
      const problem = engineProblem(range, version);
      if (ok) expect(problem).to.equal(undefined);
      else expect(problem).to.equal(`Node.js ${version} is older than engines.node "${range}"`);
    });

  it("refuses a range it does not read rather than guess", () => {
    expect(engineProblem("^24 || ^26", "24.21.0")).to.match(/is not a ">=X\[\.Y\[\.Z\]\]" range/);
  });

  it("gives an older Node.js one line: the version found, the one needed, the PATH to set", () => {
    expect(unsupportedNode(">=24", "20.20.2", "/usr/bin/node")).to.equal(
      'llsd-hook: Node.js 20.20.2 is older than engines.node ">=24" (/usr/bin/node); run it on Node.js 24 or newer, from a checkout: export PATH="$(scripts/use-node.sh):$PATH"',
    );
    expect(unsupportedNode(">=24", "24.21.0", "/usr/bin/node")).to.equal(undefined);
  });

  describe("an entry", () => {
    let dir: string;
    let written: string;
    const write = process.stderr.write.bind(process.stderr);
    before(() => (dir = mkdtempSync(join(tmpdir(), "llsd-engines-"))));
    after(() => rmSync(dir, { recursive: true, force: true }));
    beforeEach(() => {
      written = "";
      process.stderr.write = (chunk: string | Uint8Array) => ((written += String(chunk)), true);
    });
    afterEach(() => {
      process.stderr.write = write;
      process.exitCode = undefined;
    });

    /** A package.json whose engines.node is `range`. */
    const packageJson = (range: string) => {
      const file = join(dir, `package-${range.replace(/\W/g, "")}.json`);
      writeFileSync(file, JSON.stringify({ engines: { node: range } }));
      return pathToFileURL(file);
    };

    it("starts its program on a Node.js that engines allows", async () => {
      let started = false;
      await startOnSupportedNode(packageJson(">=1"), 2, async () => (started = true));
      expect(started).to.equal(true);
      expect(written).to.equal("");
      expect(process.exitCode).to.equal(undefined);
    });

    it("without a package.json, or one naming no engines.node, starts its program unchecked", async () => {
      const none = join(dir, "engines-none.json");
      writeFileSync(none, JSON.stringify({ name: "x" }));
      for (const file of [pathToFileURL(join(dir, "absent.json")), pathToFileURL(none)]) {
        let started = false;
        await startOnSupportedNode(file, 2, async () => (started = true));
        expect([started, written, process.exitCode], file.pathname).to.deep.equal([
          true,
          "",
          undefined,
        ]);
      }
    });

    it("on one engines refuses, prints the line and sets the exit code, never starting", async () => {
      let started = false;
      await startOnSupportedNode(packageJson(">=999"), 2, async () => (started = true));
      expect(started).to.equal(false);
      expect(written).to.equal(
        `${unsupportedNode(">=999", process.versions.node, process.execPath)}\n`,
      );
      expect(process.exitCode).to.equal(2);
    });
  });

  for (const file of ["src/edge/node-engines.ts", "src/server/start.ts", "src/cli/start.ts"])
    it(`${file} has no static import (an older Node.js would fail linking it)`, () => {
      const source = ts.createSourceFile(
        file,
        readFileSync(join(root, file), "utf8"),
        ts.ScriptTarget.Latest,
      );
      const linked = source.statements.filter(
        (s) =>
          ts.isImportDeclaration(s) ||
          ts.isImportEqualsDeclaration(s) ||
          (ts.isExportDeclaration(s) && s.moduleSpecifier !== undefined),
      );
      expect(linked.map((s) => s.getText(source))).to.deep.equal([]);
    });
});
