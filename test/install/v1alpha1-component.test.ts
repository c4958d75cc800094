// The v1alpha1 component (manifests/components/v1alpha1), rendered by the
// pinned kubectl's kustomize through examples/v1alpha1-conversion exactly as
// docs/operations/v1alpha1.md installs it: the HTTPS install plus the v1alpha1 version and the
// Webhook conversion on the CRD and one ingress rule on the hook's
// NetworkPolicy, nothing else changed.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { kubectl, root } from "../support/tools.js";

type Obj = Record<string, unknown> & { kind: string; metadata: { name: string } };

function kustomize(tree: string, dir: string): Map<string, Obj> {
  const text = execFileSync(kubectl(), ["kustomize", dir], { cwd: tree, encoding: "utf8" });
  const objects = parseAllDocuments(text).map((d) => d.toJS() as Obj);
  return new Map(objects.map((o) => [`${o.kind}/${o.metadata.name}`, o]));
}

describe("the v1alpha1 conversion component, rendered by kustomize", function () {
  this.timeout(60_000);
  let tree = "";

  before(() => {
    tree = mkdtempSync(join(tmpdir(), "llsd-v1alpha1-"));
    for (const dir of [
      "manifests",
      "metacontroller",
      "examples/https",
      "examples/v1alpha1-conversion",
    ])
      cpSync(join(root, dir), join(tree, dir), { recursive: true });
    writeFileSync(join(tree, "examples/https/token.txt"), "test-token\n");
  });
  after(() => rmSync(tree, { recursive: true, force: true }));

  it("adds v1alpha1, the Webhook conversion to /convert and the API server's ingress to the HTTPS install, and nothing else", () => {
    const base = kustomize(tree, "examples/https");
    const withComponent = kustomize(tree, "examples/v1alpha1-conversion");
    expect([...withComponent.keys()].sort()).to.deep.equal([...base.keys()].sort());
    const crdId = "CustomResourceDefinition/llamastackdistributions.llamastack.io";
    const npId = "NetworkPolicy/llsd-hook";
    for (const [id, obj] of withComponent)
      if (id !== crdId && id !== npId) expect(obj, id).to.deep.equal(base.get(id));

    const crd = withComponent.get(crdId) as unknown as {
      metadata: { annotations: Record<string, string> };
      spec: {
        versions: { name: string; served: boolean; storage: boolean }[];
        conversion: unknown;
      };
    };
    expect(crd.spec.versions.map((v) => [v.name, v.served, v.storage])).to.deep.equal([
      ["v1alpha2", true, true],
      ["v1alpha1", true, false],
    ]);
    expect(crd.spec.conversion).to.deep.equal({
      strategy: "Webhook",
      webhook: {
        conversionReviewVersions: ["v1"],
        clientConfig: {
          // The API server's port (src/server/classes.ts), not the hook's.
          service: { namespace: "llsd-hook", name: "llsd-hook", port: 9443, path: "/convert" },
        },
      },
    });
    expect(crd.metadata.annotations).to.deep.equal({
      "cert-manager.io/inject-ca-from": "llsd-hook/llsd-hook-tls",
    });
    const ingress = (o: Obj | undefined) => (o?.["spec"] as { ingress: unknown[] }).ingress;
    expect(ingress(withComponent.get(npId))).to.deep.equal([
      ...ingress(base.get(npId)),
      {
        // Private ranges only by default (docs/conversion.md "NetworkPolicy"): never the internet.
        from: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7"].map(
          (cidr) => ({ ipBlock: { cidr } }),
        ),
        // The api-server port alone: the rule opens neither /sync nor /customize.
        ports: [{ port: "api-server", protocol: "TCP" }],
      },
    ]);
  });
});
