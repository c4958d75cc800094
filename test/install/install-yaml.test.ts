// manifests/install.yaml, for `kubectl apply -f`, is exactly what
// `kubectl apply -k manifests` installs: the pinned kubectl's kustomize output
// in the repository's YAML format. test/k8s/install.test.ts applies the
// kustomization itself; this keeps the single file in step with it.
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { INSTALL_YAML, renderInstallYaml } from "./install-yaml.js";
import { kubectl, root } from "../support/tools.js";

describe("manifests/install.yaml", function () {
  this.timeout(60_000);

  it("is kubectl kustomize manifests, so kubectl apply -f installs what -k does", async () => {
    const want = await renderInstallYaml(kubectl());
    const got = readFileSync(join(root, INSTALL_YAML), "utf8");
    if (got !== want)
      expect.fail(
        `${INSTALL_YAML} is out of step with manifests/ (or metacontroller/): run npm run install-yaml and commit it`,
      );
  });

  it("holds every object of the kustomization once, the CRD and the CompositeController included", () => {
    const ids = parseAllDocuments(readFileSync(join(root, INSTALL_YAML), "utf8")).map((d) => {
      const o = d.toJS() as { kind: string; metadata: { name: string; namespace?: string } };
      return `${o.kind} ${o.metadata.namespace ?? ""}/${o.metadata.name}`;
    });
    expect(new Set(ids).size).to.equal(ids.length);
    expect(ids).to.include.members([
      "CustomResourceDefinition /llamastackdistributions.llamastack.io",
      "CompositeController /llsd-hook",
      "Deployment llsd-hook/llsd-hook",
      "ClusterRole /metacontroller-llsd-hook",
    ]);
  });
});
