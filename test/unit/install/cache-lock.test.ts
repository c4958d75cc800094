// Two builds of one cache key wait for each other (scripts/cache-lock.sh, the
// real file the builders source and the callers of the self-hashing builders
// run): a stub builder in a temp cache shaped like test/k8s/build.sh (reuse a
// complete entry, else lock, look again, build into ENTRY.tmp, rename it into
// place) is held mid-build by a file the test creates, so the order is the
// test's, not the clock's. `mkdir ENTRY.tmp` fails when another build is
// writing it: the collision a cold CI run once hit, which the last row shows
// the stub would report without the lock.
import { expect } from "chai";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dirname, "..", "..", "..");
const LOCK_SH = join(root, "scripts", "cache-lock.sh");

/** `$1` names the build in the journal; LOCKING=self|none: whether the stub takes the lock. */
const STUB = `#!/usr/bin/env bash
set -euo pipefail
source "$LOCK_SH"
OUT="$CACHE/stub/v1-key"
if [ -f "$OUT/.complete" ]; then echo "reused"; exit 0; fi
[ "$LOCKING" = self ] && cache_lock "$OUT"
if [ -f "$OUT/.complete" ]; then echo "reused"; exit 0; fi
mkdir -p "$CACHE/stub"
mkdir "$OUT.tmp"
echo "$1 start" >> "$CACHE/journal"
while [ ! -e "$CACHE/go" ]; do sleep 0.02; done
echo "$1 end" >> "$CACHE/journal"
touch "$OUT.tmp/.complete"
mv "$OUT.tmp" "$OUT"
echo "built"
`;

interface Build {
  proc: ChildProcess;
  stdout: string;
  stderr: string;
  code: Promise<number | null>;
}

function startBuild(dir: string, name: string, locking: string, wrap: boolean): Build {
  const stub = join(dir, "build.sh");
  const args = wrap ? [LOCK_SH, join(dir, "locks", "stub"), "bash", stub, name] : [stub, name];
  const proc = spawn("bash", args, {
    env: { PATH: process.env["PATH"] ?? "", CACHE: dir, LOCK_SH, LOCKING: locking },
  });
  const build: Build = {
    proc,
    stdout: "",
    stderr: "",
    code: new Promise((resolve) => proc.on("close", (code) => resolve(code))),
  };
  proc.stdout.on("data", (b: Buffer) => (build.stdout += b.toString()));
  proc.stderr.on("data", (b: Buffer) => (build.stderr += b.toString()));
  return build;
}

/** Resolves once `seen()` holds, looking every 20 ms; mocha's timeout comes first on a stall. */
async function until(what: string, seen: () => boolean): Promise<void> {
  for (let looks = 0; !seen(); looks++) {
    if (looks > 5_000) throw new Error(`never saw ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("scripts/cache-lock.sh: two builds of one cache key", function () {
  this.timeout(60_000);
  let dir = "";
  const journal = () =>
    existsSync(join(dir, "journal"))
      ? readFileSync(join(dir, "journal"), "utf8").trim().split("\n")
      : [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "llsd-cache-lock-"));
    writeFileSync(join(dir, "build.sh"), STUB);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const rows: [what: string, locking: string, wrap: boolean, entry: string][] = [
    ["a builder that sources it and calls cache_lock ENTRY", "self", false, "stub/v1-key"],
    ["a builder run by it (cache-lock.sh ENTRY COMMAND)", "none", true, "locks/stub"],
  ];
  for (const [what, locking, wrap, entry] of rows)
    it(`${what}: the second waits, saying so, then reuses the first one's entry`, async () => {
      const first = startBuild(dir, "first", locking, wrap);
      await until("the first build to start", () => journal().includes("first start"));
      const second = startBuild(dir, "second", locking, wrap);
      const waiting = `[cache] another build of ${join(dir, entry)} is under way; waiting for it\n`;
      await until("the second build to wait", () => second.stderr.includes(waiting));
      expect(journal()).to.deep.equal(["first start"]);
      writeFileSync(join(dir, "go"), "");
      expect(await first.code, first.stderr).to.equal(0);
      expect(await second.code, second.stderr).to.equal(0);
      expect(first.stdout).to.equal("built\n");
      expect(second.stdout).to.equal("reused\n");
      expect(second.stderr).to.equal(waiting);
      expect(journal()).to.deep.equal(["first start", "first end"]);
      expect(existsSync(join(dir, "stub", "v1-key", ".complete"))).to.equal(true);
    });

  it("without the lock, the stub's second build fails on the first one's ENTRY.tmp", async () => {
    const first = startBuild(dir, "first", "none", false);
    await until("the first build to start", () => journal().includes("first start"));
    const second = startBuild(dir, "second", "none", false);
    expect(await second.code).to.not.equal(0);
    expect(second.stderr).to.match(/mkdir: cannot create directory .*v1-key\.tmp.*File exists/);
    writeFileSync(join(dir, "go"), "");
    expect(await first.code, first.stderr).to.equal(0);
  });

  it("run without a command, it refuses with its usage and takes no lock", async () => {
    const run = spawn("bash", [LOCK_SH, join(dir, "locks", "stub")]);
    let stderr = "";
    run.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    const code = await new Promise((resolve) => run.on("close", resolve));
    expect(code).to.equal(2);
    expect(stderr).to.equal(`usage: ${LOCK_SH} ENTRY COMMAND [ARGS...]\n`);
    expect(existsSync(join(dir, "locks"))).to.equal(false);
  });
});
