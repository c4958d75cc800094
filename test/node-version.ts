// Loaded first by every mocha config (test/mocharc.*.json): the suite runs only
// on a Node.js that package.json's engines allows, and every `node` a test
// spawns through PATH (npx, bin/llsd-hook, the snapshot build) is the same
// release as the one running mocha. Otherwise nothing runs, and the message says
// how to get the project's Node.js (scripts/use-node.sh, as .ci/run does).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { engineProblem } from "../src/edge/node-engines.js";

const root = join(import.meta.dirname, "..");

/** package.json's engines.node. */
export function enginesRange(): string {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    engines?: { node?: string };
  };
  const range = pkg.engines?.node;
  if (range === undefined) throw new Error("package.json has no engines.node");
  return range;
}

/** Throws unless this process and the `node` on PATH are one Node.js release that engines allows. */
export function checkNodeVersion(): void {
  const fix =
    'run the suite on the project\'s Node.js: export PATH="$(scripts/use-node.sh):$PATH" (as .ci/run does)';
  const problem = engineProblem(enginesRange(), process.versions.node);
  if (problem !== undefined)
    throw new Error(`llsd-hook's tests: ${problem} (${process.execPath}); ${fix}`);
  const onPath = execFileSync("node", ["--version"], { encoding: "utf8" }).trim();
  if (onPath !== process.version)
    throw new Error(
      `llsd-hook's tests run on ${process.version} (${process.execPath}) but the node on PATH is ${onPath}, which the tests' child processes would run: ${fix}`,
    );
}

checkNodeVersion();
