// configs/ is extracted from the published llama-stack packages by a committed
// script; this test re-runs the extraction and fails when the committed files
// are stale or were edited by hand.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

const root = join(import.meta.dirname, "..", "..");

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}

describe("configs/ (extracted from the llama-stack packages)", function () {
  this.timeout(600_000);
  let out: string;

  before(() => {
    out = mkdtempSync(join(tmpdir(), "llsd-configs-"));
    execFileSync("bash", [join(root, "scripts", "configs-update.sh"), out], { stdio: "inherit" });
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  const releases = (
    JSON.parse(readFileSync(join(root, "configs", "releases.json"), "utf8")) as {
      releases: string[];
    }
  ).releases;

  for (const release of releases) {
    it(`${release}: the committed files are what the extraction script writes, byte for byte`, () => {
      const committedDir = join(root, "configs", release);
      const fresh = listFiles(join(out, release)).map((f) => relative(join(out, release), f));
      const committed = listFiles(committedDir).map((f) => relative(committedDir, f));
      expect(committed.sort()).to.deep.equal(fresh.sort());
      for (const file of fresh) {
        const want = readFileSync(join(out, release, file), "utf8");
        const have = readFileSync(join(committedDir, file), "utf8");
        expect(have === want, `configs/${release}/${file} differs; run npm run configs:update`).to
          .be.true;
      }
    });
  }
});
