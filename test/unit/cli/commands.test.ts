// The CLI's own answers, as a user meets them: --version prints package.json's
// version, --help (also after render or request) prints the usage, both exit 0; and
// bin/llsd-hook right after `npm ci`, before any build, runs from the sources
// through tsx, or, without them, names the command to run — never a stack trace.
import { expect } from "chai";
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dirname, "..", "..", "..");
const version = (
  JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }
).version;

function cli(args: string[]) {
  return spawnSync("node", ["--import", "tsx", join(root, "src", "cli", "start.ts"), ...args], {
    cwd: root,
    encoding: "utf8",
  });
}

/** A tree with bin/llsd-hook and package.json, and `links` to the repository's own folders; no dist/. */
function unbuiltTree(links: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), "llsd-bin-"));
  mkdirSync(join(dir, "bin"));
  copyFileSync(join(root, "bin", "llsd-hook"), join(dir, "bin", "llsd-hook"));
  copyFileSync(join(root, "package.json"), join(dir, "package.json"));
  for (const l of links) symlinkSync(join(root, l), join(dir, l));
  return dir;
}

function bin(dir: string, args: string[]) {
  return spawnSync("sh", [join(dir, "bin", "llsd-hook"), ...args], { cwd: root, encoding: "utf8" });
}

describe("llsd-hook commands", function () {
  this.timeout(60_000);

  for (const args of [["--version"], ["version"]])
    it(`${args.join(" ")} prints the package version and exits 0`, () => {
      const run = cli(args);
      expect(run.stdout).to.equal(`${version}\n`);
      expect(run.status).to.equal(0);
    });

  for (const args of [
    ["--help"],
    ["-h"],
    ["render", "--help"],
    ["render", "-h"],
    ["request", "-h"],
  ])
    it(`${args.join(" ")} prints the usage on stdout and exits 0`, () => {
      const run = cli(args);
      expect(run.stdout).to.match(
        /^usage: llsd-hook render <cr\.yaml\|->\n {7}llsd-hook request <cr\.yaml\|-> .*\n.*\n {7}llsd-hook --version\n/,
      );
      expect(run.stderr).to.equal("");
      expect(run.status).to.equal(0);
    });

  it("render with warnings only: one `warning: <reason>: <field>: …` line each on stderr, exit 0", () => {
    const dir = mkdtempSync(join(tmpdir(), "llsd-warn-"));
    try {
      const file = join(dir, "cr.yaml");
      writeFileSync(
        file,
        "apiVersion: llamastack.io/v1alpha2\nkind: LlamaStackDistribution\nmetadata: {name: llama}\nspec:\n  distribution: {name: starter}\n  workload: {podDisruptionBudget: {minAvailable: 1}}\n",
      );
      const run = cli(["render", file]);
      expect(run.status, run.stderr).to.equal(0);
      expect(run.stderr.split("\n").filter((l) => /^(warning|error):/.test(l))).to.deep.equal([
        "warning: PdbSkipped: spec.workload.podDisruptionBudget: no PodDisruptionBudget is created: with 1 replica(s) it would allow no disruption and block node drains; raise replicas or relax the budget",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("no command, or an unknown one: the usage on stderr, exit 2", () => {
    for (const args of [[], ["rendr", "x.yaml"], ["render"]]) {
      const run = cli(args);
      expect(run.stderr, args.join(" ")).to.match(/^usage: /);
      expect(run.status, args.join(" ")).to.equal(2);
    }
  });

  it("bin/llsd-hook before any build, in a checkout: renders from src/ through tsx, with a note", () => {
    const dir = unbuiltTree(["src", "configs", "node_modules"]);
    try {
      const run = bin(dir, ["render", join(root, "examples", "minimal.yaml")]);
      expect(run.status, run.stderr).to.equal(0);
      expect(run.stdout).to.include("kind: Deployment");
      expect(run.stderr).to.include("dist/ is not built");
      expect(run.stderr).to.include("npm run build");
      expect(bin(dir, ["--version"]).stdout).to.equal(`${version}\n`);
      // Started by a relative path, as the README does: tsx's loader is given as ./bin/../… (it was
      // a bare specifier, "package bin not found").
      const relative = spawnSync("sh", ["bin/llsd-hook", "--version"], {
        cwd: dir,
        encoding: "utf8",
      });
      expect([relative.status, relative.stdout], relative.stderr).to.deep.equal([
        0,
        `${version}\n`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("bin/llsd-hook with neither dist/ nor the sources: names the command to run, exit 2, no stack trace", () => {
    const dir = unbuiltTree([]);
    try {
      const run = bin(dir, ["render", join(root, "examples", "minimal.yaml")]);
      expect(run.status).to.equal(2);
      expect(run.stdout).to.equal("");
      expect(run.stderr).to.equal(
        `llsd-hook: ${realpathSync(dir)}/dist/cli/start.js is missing: run "npm run build" in ${realpathSync(dir)} first\n`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
