// The ServiceMonitor component (manifests/components/servicemonitor), rendered
// by the pinned kubectl's kustomize through examples/servicemonitor exactly as
// docs/guide/monitoring.md installs it: the base install plus one child type on the
// CompositeController and its verbs on Metacontroller's ClusterRole, nothing
// else changed.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { parseAllDocuments } from "yaml";
import { OPTIONAL_CHILD_TYPES } from "../../src/children/types.js";
import { kubectl, root } from "../support/tools.js";

type Obj = Record<string, unknown> & { kind: string; metadata: { name: string } };

function kustomize(dir: string): Map<string, Obj> {
  const text = execFileSync(kubectl(), ["kustomize", dir], { cwd: root, encoding: "utf8" });
  const objects = parseAllDocuments(text).map((d) => d.toJS() as Obj);
  return new Map(objects.map((o) => [`${o.kind}/${o.metadata.name}`, o]));
}

describe("the ServiceMonitor component, rendered by kustomize", function () {
  this.timeout(60_000);

  it("adds the ServiceMonitor child type and Metacontroller's verbs on it to the base install, and nothing else", () => {
    const base = kustomize("manifests");
    const withComponent = kustomize("examples/servicemonitor");
    expect([...withComponent.keys()].sort()).to.deep.equal([...base.keys()].sort());
    const cc = "CompositeController/llsd-hook";
    const role = "ClusterRole/metacontroller-llsd-hook";
    for (const [id, obj] of withComponent)
      if (id !== cc && id !== role) expect(obj, id).to.deep.equal(base.get(id));

    const children = (o: Obj | undefined) =>
      (o?.["spec"] as { childResources: unknown[] }).childResources;
    expect(children(withComponent.get(cc))).to.deep.equal([
      ...children(base.get(cc)),
      ...OPTIONAL_CHILD_TYPES.map((t) => ({
        apiVersion: t.apiVersion,
        resource: t.resource,
        updateStrategy: { method: "InPlace" },
      })),
    ]);
    const rules = (o: Obj | undefined) => o?.["rules"] as unknown[];
    expect(rules(withComponent.get(role))).to.deep.equal([
      ...rules(base.get(role)),
      ...OPTIONAL_CHILD_TYPES.map((t) => ({
        apiGroups: [t.apiVersion.split("/")[0]],
        resources: [t.resource],
        verbs: ["get", "list", "watch", "create", "update", "patch", "delete"],
      })),
    ]);
  });
});
