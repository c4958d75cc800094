// The suite's own Node.js check (test/node-version.ts, loaded first by both
// mocha configs): the engines range it reads, and this run, whose Node.js it
// let through. The versions it refuses: test/unit/edge/node-engines.test.ts.
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { engineProblem } from "../../src/edge/node-engines.js";
import { checkNodeVersion, enginesRange } from "../node-version.js";

describe("the Node.js the suite runs on (test/node-version.ts)", () => {
  it("reads package.json's engines.node", () => {
    expect(enginesRange()).to.equal(">=24");
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
