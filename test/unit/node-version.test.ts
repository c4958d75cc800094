// The suite's own Node.js check (test/node-version.ts, loaded first by both
// mocha configs): the engines range it reads, the versions it refuses, and
// this run, whose Node.js it let through.
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { checkNodeVersion, engineProblem, enginesRange } from "../node-version.js";

describe("the Node.js the suite runs on (test/node-version.ts)", () => {
  it("reads package.json's engines.node", () => {
    expect(enginesRange()).to.equal(">=24");
  });

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

  it("lets this run through: its Node.js and the node on PATH are one release engines allows", () => {
    expect(() => checkNodeVersion()).to.not.throw();
    expect(engineProblem(enginesRange(), process.versions.node)).to.equal(undefined);
  });
});

describe("one Node.js release for the image, CI and the types", () => {
  const root = join(import.meta.dirname, "..", "..");
  const read = (file: string) => readFileSync(join(root, file), "utf8");
  const base = /^ARG NODE_IMAGE=docker\.io\/library\/node:(\d+\.\d+\.\d+)-bookworm-slim$/m.exec(
    read("Dockerfile"),
  )?.[1];
  const ci = /^NODE_VERSION=(\d+\.\d+\.\d+)$/m.exec(read("scripts/use-node.sh"))?.[1];

  it("the Dockerfile's base and scripts/use-node.sh (.ci/run) name the same release", () => {
    expect(base, "Dockerfile ARG NODE_IMAGE").to.be.a("string");
    expect(ci, "scripts/use-node.sh NODE_VERSION").to.equal(base);
  });

  it("that release is allowed by engines, and @types/node is of its major", () => {
    expect(engineProblem(enginesRange(), base ?? "0.0.0")).to.equal(undefined);
    const pkg = JSON.parse(read("package.json")) as { devDependencies: Record<string, string> };
    const types = pkg.devDependencies["@types/node"] ?? "";
    expect(types, "@types/node").to.match(new RegExp(`^\\^${(base ?? "").split(".")[0]}\\.`));
  });
});
