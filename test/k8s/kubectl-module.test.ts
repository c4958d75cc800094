// kubectl is built from its own module (kubectl/go.mod, written from go.mod by
// kubectl/update-go-mod.sh); it must stay the control plane's release, with
// the same version of every module the two share, or the install tests would
// run another kubectl than the one they claim, and the cold build would
// compile the shared packages twice.
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const dir = import.meta.dirname;

/** module → version, from the require and replace directives of a go.mod. */
function versions(file: string): { requires: Map<string, string>; replaces: Map<string, string> } {
  const requires = new Map<string, string>();
  const replaces = new Map<string, string>();
  for (const line of readFileSync(join(dir, file), "utf8").split("\n")) {
    const replace = /^\s*(?:replace\s+)?(\S+) => (\S+) (v\S+)\s*$/.exec(line);
    if (replace !== null) {
      replaces.set(replace[1]!, `${replace[2]} ${replace[3]}`);
      continue;
    }
    const require = /^\s*(?:require\s+)?([a-z0-9][^\s]*\.[^\s]+) (v\S+)(?:\s*\/\/.*)?$/.exec(line);
    if (require !== null) requires.set(require[1]!, require[2]!);
  }
  return { requires, replaces };
}

describe("kubectl's module", () => {
  const control = versions("go.mod");
  const kubectl = versions(join("kubectl", "go.mod"));

  it("is the control plane's Kubernetes release", () => {
    const release = readFileSync(join(dir, "KUBERNETES_VERSION"), "utf8").trim();
    expect(kubectl.requires.get("k8s.io/kubernetes")).to.equal(release);
    expect(control.requires.get("k8s.io/kubernetes")).to.equal(release);
  });

  it("shares every module version and staging replace with the control plane's go.mod (regenerate: test/k8s/kubectl/update-go-mod.sh)", () => {
    const differ = [...kubectl.requires].filter(
      ([m, v]) => control.requires.has(m) && control.requires.get(m) !== v,
    );
    expect(differ).to.deep.equal([]);
    expect(Object.fromEntries(kubectl.replaces)).to.deep.equal(
      Object.fromEntries(control.replaces),
    );
    expect(kubectl.requires.size).to.be.greaterThan(50);
  });
});
