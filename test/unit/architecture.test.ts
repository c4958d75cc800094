// The floors of docs/architecture.md hold: every import in src/ goes down or
// stays level, no files import each other in a circle, and every file has a
// floor. The list is read from that file, so it is written once.
import { expect } from "chai";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkLayers, floorOf, importGraph, readFloors } from "./import-graph.js";

const root = join(import.meta.dirname, "..", "..");

describe("architecture: the floors of docs/architecture.md", () => {
  const floors = readFloors(readFileSync(join(root, "docs", "architecture.md"), "utf8"));
  const graph = importGraph(join(root, "src"));

  it("reads the floor list, lib/ at the bottom and the edge on top", () => {
    expect(floors.length).to.be.at.least(10);
    expect(floors[0]).to.deep.equal(["lib/"]);
    expect(floors.at(-1)).to.deep.equal(["server/", "cli/"]);
    // The parse found the imports (a broken one would pass vacuously).
    const imports = [...graph.values()].reduce((n, targets) => n + targets.length, 0);
    expect(imports).to.be.above(300);
  });

  it("src/: no import climbs a floor, no cycle, every file on a floor", () => {
    expect(checkLayers(floors, graph)).to.deep.equal({ climbing: [], cycles: [], unplaced: [] });
  });
});

describe("architecture: the checker", () => {
  const floors = readFloors(
    [
      "# A fixture",
      "## Floors",
      "1. `lib/` — helpers",
      "2. `api/`, `problems.ts` — the schema",
      "3. `sync.ts` — the top",
      "## Next",
      "4. `not-a-floor.ts` — after the section",
    ].join("\n"),
  );

  it("reads the numbered lines of the Floors section, bottom first", () => {
    expect(floors).to.deep.equal([["lib/"], ["api/", "problems.ts"], ["sync.ts"]]);
    expect(floorOf(floors, "api/deep/file.ts")).to.equal(1);
    expect(floorOf(floors, "problems.ts")).to.equal(1);
    expect(floorOf(floors, "problems-too.ts")).to.equal(undefined);
  });

  it("reports a climbing import, a cycle and a file on no floor", () => {
    const graph = new Map([
      ["lib/json.ts", ["api/schema.ts"]], // climbs from lib/ to api/
      ["api/schema.ts", ["api/status.ts"]],
      ["api/status.ts", ["api/schema.ts"]], // a cycle, on one floor
      ["problems.ts", ["lib/json.ts"]],
      ["sync.ts", ["api/schema.ts", "problems.ts", "sync.ts"]], // a file importing itself
      ["stray.ts", []], // on no floor
    ]);
    expect(checkLayers(floors, graph)).to.deep.equal({
      climbing: ["lib/json.ts -> api/schema.ts"],
      cycles: [["api/schema.ts", "api/status.ts"], ["sync.ts"]],
      unplaced: ["stray.ts"],
    });
  });

  it("parses static, type-only, dynamic and re-exported imports, and only relative .ts files", () => {
    const dir = mkdtempSync(join(tmpdir(), "import-graph-"));
    try {
      mkdirSync(join(dir, "lib"));
      const files: Record<string, string> = {
        "lib/json.ts": 'import { z } from "zod";\nexport const j = 1;\n',
        "lib/more.ts": 'export * from "./json.js";\n',
        "api.ts": [
          'import type { j } from "./lib/json.js";',
          'import data from "./data.json" with { type: "json" };',
          'const m = await import("./lib/more.js");',
          'export { k } from "./top.js";',
        ].join("\n"),
        "top.ts": 'import "./api.js";\nexport const k = 2;\n',
      };
      for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
      expect(Object.fromEntries(importGraph(dir))).to.deep.equal({
        "api.ts": ["lib/json.ts", "lib/more.ts", "top.ts"],
        "lib/json.ts": [],
        "lib/more.ts": ["lib/json.ts"],
        "top.ts": ["api.ts"],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
