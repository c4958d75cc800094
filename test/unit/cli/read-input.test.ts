// llsd-hook render's reading of its file, in a process of its own: never more
// than the YAML bound, never a device or a FIFO (which grew to 12 GB, or
// waited forever, when read whole), and YAML past a bound refused before
// yaml builds a tree.
import { expect } from "chai";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const main = join(import.meta.dirname, "..", "..", "..", "src", "cli", "main.ts");
const HEAD =
  "apiVersion: llamastack.io/v1alpha2\nkind: LlamaStackDistribution\nmetadata: {name: x}\n";

/** Exit code and stderr of `llsd-hook render <file>`. */
function renderFile(file: string, input?: string) {
  const out = spawnSync(process.execPath, ["--import", "tsx", main, "render", file], {
    input,
    encoding: "utf8",
    timeout: 20_000,
  });
  return { code: out.status, stderr: out.stderr };
}

describe("llsd-hook render reads its file within bounds", function () {
  this.timeout(60_000);
  let dir = "";
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "llsd-render-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses a device before reading it", () => {
    const out = renderFile("/dev/zero");
    expect([out.code, out.stderr]).to.deep.equal([
      2,
      "llsd-hook: /dev/zero: not a regular file; give a YAML file, or - for stdin\n",
    ]);
  });

  it("refuses a FIFO without waiting for a writer", () => {
    const fifo = join(dir, "fifo");
    execFileSync("mkfifo", [fifo]);
    const out = renderFile(fifo);
    expect([out.code, out.stderr]).to.deep.equal([
      2,
      `llsd-hook: ${fifo}: not a regular file; give a YAML file, or - for stdin\n`,
    ]);
  });

  it("reads no more than the bound of a large file, or of stdin", () => {
    const big = join(dir, "big.yaml");
    writeFileSync(big, `${HEAD}spec: {}\n# ${"x".repeat(13_000_000)}\n`);
    const file = renderFile(big);
    expect([file.code, file.stderr]).to.deep.equal([
      2,
      `llsd-hook: ${big}: the file is more than the 262144 bytes llsd-hook reads; shorten it\n`,
    ]);
    const stdin = renderFile("-", `${HEAD}# ${"x".repeat(300_000)}\n`);
    expect([stdin.code, stdin.stderr]).to.deep.equal([
      2,
      "llsd-hook: -: the file is more than the 262144 bytes llsd-hook reads; shorten it\n",
    ]);
  });

  it("refuses YAML past a bound with the bound, before a tree is built", () => {
    const nodes = join(dir, "nodes.yaml");
    writeFileSync(nodes, `${HEAD}spec:\n  x: [${"a,".repeat(60_000)}]\n`);
    const out = renderFile(nodes);
    expect([out.code, out.stderr]).to.deep.equal([
      2,
      `llsd-hook: ${nodes}: the file holds more than 20000 YAML nodes (scalars, aliases and collections); shorten it\n`,
    ]);
  });
});
