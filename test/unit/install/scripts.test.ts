// The operator-run scripts refuse arguments that are not what they name
// before anything runs: an adopt-v1alpha1.sh name that would split into
// words, expand as a glob, reach kubectl as a flag or break the JSON patch
// built from it, and a configs-update.sh release that would name another
// directory to remove. Run with a PATH without kubectl, so a name that got
// through would fail on kubectl instead.
import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dirname, "..", "..", "..");

function run(shell: string, script: string, args: string[], path: string) {
  const out = spawnSync(shell, [join(root, "scripts", script), ...args], {
    encoding: "utf8",
    env: { PATH: path, HOME: "/nonexistent" },
  });
  return { code: out.status, stderr: out.stderr };
}

describe("operator scripts refuse arguments that are not what they name", () => {
  let empty = "";
  before(() => {
    empty = mkdtempSync(join(tmpdir(), "llsd-no-kubectl-"));
  });
  after(() => rmSync(empty, { recursive: true, force: true }));

  const NAME =
    "NAME must be a LlamaStackDistribution's name (lower-case letters, digits, - and ., at most 253): nothing changed.\n";
  const rows: [why: string, ns: string, name: string, stderr: string][] = [
    ["two words", "default", "a b", NAME],
    ["a glob", "default", "*", NAME],
    ["a flag", "default", "--all-namespaces", NAME],
    ["JSON", "default", 'x"},"y":{"a', NAME],
    ["upper case", "default", "Llama", NAME],
    ["an empty label", "default", "a..b", NAME],
    ["too long", "default", "a".repeat(254), NAME],
    [
      "a namespace with a dot",
      "a.b",
      "llama",
      "NAMESPACE must be a Kubernetes namespace name (lower-case letters, digits and -, at most 63): nothing changed.\n",
    ],
  ];
  for (const [why, ns, name, stderr] of rows)
    it(`adopt-v1alpha1.sh: ${why}`, () => {
      expect(run("/bin/sh", "adopt-v1alpha1.sh", [ns, name], empty)).to.deep.equal({
        code: 2,
        stderr,
      });
    });

  it("adopt-v1alpha1.sh: a valid name gets as far as kubectl", () => {
    const out = run("/bin/sh", "adopt-v1alpha1.sh", ["team-a", "llama.v2"], empty);
    expect(out.code).to.equal(127);
    expect(out.stderr).to.include("kubectl");
  });

  it("configs-update.sh: a release that is not X.Y.Z, before anything is removed", () => {
    const out = run(
      "/bin/bash",
      "configs-update.sh",
      [join(empty, "out"), "1.5.0/../.."],
      "/usr/bin:/bin",
    );
    expect(out).to.deep.equal({
      code: 2,
      stderr: "[configs] 1.5.0/../..: not a release (X.Y.Z); nothing changed for it\n",
    });
  });
});
