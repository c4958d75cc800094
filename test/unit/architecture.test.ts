// The floors of docs/architecture.md hold: every import in src/ goes down or
// stays level, no files import each other in a circle, and every file has a
// floor. And its thread seam: no file the server's main thread loads reaches
// the core. The lists are read from that file, so they are written once.
import { expect } from "chai";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  checkLayers,
  checkSeam,
  floorOf,
  importGraph,
  readFloors,
  readSeam,
} from "./import-graph.js";

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

describe("architecture: the thread seam of docs/architecture.md", () => {
  const seam = readSeam(readFileSync(join(root, "docs", "architecture.md"), "utf8"));
  const runtime = importGraph(join(root, "src"), { runtime: true });

  it("reads the lists: the main thread's files, the workers', the core and the import at start", () => {
    expect(seam.main).to.include.members(["server/main.ts", "server/app.ts", "server/pool/"]);
    expect(seam.workers).to.include.members(["server/worker.ts", "server/handle.ts"]);
    expect(seam.core).to.deep.equal(["sync.ts", "admit.ts", "resolve.ts", "children/", "config/"]);
    expect(seam.atStart).to.deep.equal(["server/main.ts -> edge/load-catalog.ts"]);
  });

  it("src/server/: no main-thread file reaches the core, and every file is on one list", () => {
    expect(checkSeam(seam, runtime)).to.deep.equal({ reaching: [], unlisted: [] });
    // The workers do reach it (a graph without its imports would pass vacuously).
    const workers = checkSeam({ ...seam, main: ["server/worker.ts"] }, runtime).reaching;
    expect(workers.some((path) => path.endsWith(" -> sync.ts"))).to.equal(true);
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

  it("the seam: a main-thread file reaching the core, by its path; a server file on no list, or on both", () => {
    const seam = {
      main: ["server/app.ts", "server/pool/"],
      workers: ["server/worker.ts", "server/pool/both.ts"],
      core: ["sync.ts", "config/"],
      atStart: ["server/app.ts -> edge/catalog.ts"],
    };
    const graph = new Map([
      ["server/app.ts", ["server/helper.ts", "edge/catalog.ts", "lib/json.ts"]],
      ["server/helper.ts", ["lib/json.ts", "server/pool/index.ts"]],
      ["server/pool/index.ts", ["sync.ts"]], // the violation, two imports down from app.ts
      ["server/pool/both.ts", []], // named by both lists
      ["server/worker.ts", ["config/generate.ts"]], // a worker may
      ["edge/catalog.ts", ["config/yaml.ts"]], // at start only: not followed
      ["lib/json.ts", []],
      ["sync.ts", ["config/generate.ts"]],
      ["config/generate.ts", []],
      ["config/yaml.ts", []],
    ]);
    expect(checkSeam(seam, graph)).to.deep.equal({
      reaching: [
        "server/app.ts -> server/helper.ts -> server/pool/index.ts -> sync.ts",
        "server/pool/index.ts -> sync.ts",
      ],
      unlisted: ["server/helper.ts", "server/pool/both.ts"],
    });
  });

  it("reads the seam's lists from the section, the import at start as a pair", () => {
    const seam = readSeam(
      [
        "# A fixture",
        "## The thread seam",
        "- main thread: `server/app.ts`, `server/pool/` — and what they import",
        "- workers: `server/worker.ts`",
        "- the core: `sync.ts`",
        "- at start: `server/app.ts` → `edge/catalog.ts` — once",
        "## Next",
        "- main thread: `not/this.ts`",
      ].join("\n"),
    );
    expect(seam).to.deep.equal({
      main: ["server/app.ts", "server/pool/"],
      workers: ["server/worker.ts"],
      core: ["sync.ts"],
      atStart: ["server/app.ts -> edge/catalog.ts"],
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
      // Only imports that load code: `import type` and `export type … from` load nothing.
      writeFileSync(
        join(dir, "types.ts"),
        [
          'import type { j } from "./lib/json.js";',
          'export type { k } from "./top.js";',
          'import { type m } from "./lib/more.js";',
        ].join("\n"),
      );
      expect(Object.fromEntries(importGraph(dir, { runtime: true }))).to.deep.equal({
        "api.ts": ["lib/more.ts", "top.ts"],
        "lib/json.ts": [],
        "lib/more.ts": ["lib/json.ts"],
        "top.ts": ["api.ts"],
        "types.ts": ["lib/more.ts"],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
