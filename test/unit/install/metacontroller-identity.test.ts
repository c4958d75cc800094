// The install assumes Metacontroller runs in namespace `metacontroller` under
// ServiceAccount `metacontroller`. docs/troubleshooting.md ("The hook is
// never called") tells a cluster that runs it elsewhere which places to
// change: every file that names that namespace or ServiceAccount must be
// among them, so a new one cannot be added without the page saying so.
import { expect } from "chai";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { docSection } from "../../install/tools.js";

const root = join(import.meta.dirname, "..", "..", "..");

function yamlFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(name) && name !== "install.yaml" ? [path] : [];
  });
}

/** A line that names Metacontroller's namespace (a selector, a subject, a Secret) or ServiceAccount. */
const NAMES_IT = /^\s*(-\s+)?(namespace|name|kubernetes\.io\/metadata\.name): metacontroller\s*$/;

describe("Metacontroller's namespace and ServiceAccount in the install", () => {
  const files = ["manifests", "metacontroller", "examples"].flatMap(yamlFiles).filter((f) =>
    readFileSync(join(root, f), "utf8")
      .split("\n")
      .some((l) => NAMES_IT.test(l)),
  );

  it("are named in the files the troubleshooting page lists", () => {
    expect(files.sort()).to.deep.equal([
      "examples/https/compositecontroller-https.yaml",
      "examples/https/kustomization.yaml",
      "manifests/hook/networkpolicy.yaml",
      "metacontroller/rbac.yaml",
    ]);
  });

  it("docs/troubleshooting.md names each of those files (or its overlay)", () => {
    const section = docSection("docs/troubleshooting.md", "## The hook is never called");
    for (const f of files)
      expect(
        section.includes(`\`${f}\``) || section.includes(`\`${dirname(f)}\``),
        `${f} is not named in "The hook is never called"`,
      ).to.equal(true);
  });
});
