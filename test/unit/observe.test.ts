// Table tests of the observe rung: what is read from a request, and what is not.
import { expect } from "chai";
import { SyncRequest, type KubeObject } from "../../src/api/hook.js";
import { objectsOf, observe, relatedOf } from "../../src/observe.js";

const obj = (kind: string, name: string, namespace?: string): KubeObject => ({
  apiVersion: kind === "Deployment" ? "apps/v1" : "v1",
  kind,
  metadata: namespace === undefined ? { name } : { name, namespace },
});

describe("observe", () => {
  it("objectsOf: every object, v1 or v2 keys, ordered by kind and name", () => {
    const map = {
      "Service.v1": { "ns/b": obj("Service", "b") },
      "ConfigMap.v1": { z: obj("ConfigMap", "z"), a: obj("ConfigMap", "a") },
    };
    expect(objectsOf(map).map((o) => `${o.kind}/${o.metadata.name}`)).to.deep.equal([
      "ConfigMap/a",
      "ConfigMap/z",
      "Service/b",
    ]);
  });

  it("relatedOf: only Secrets and ConfigMaps of the parent's namespace", () => {
    const map = {
      "Secret.v1": {
        "ns/a": obj("Secret", "a", "ns"),
        "other/b": obj("Secret", "b", "other"),
        c: obj("Secret", "c"),
      },
      "Service.v1": { d: obj("Service", "d") },
      "ConfigMap.v1": { e: obj("ConfigMap", "e", "ns") },
    };
    const rel = relatedOf(map, "ns");
    expect([...rel.secrets.keys()]).to.deep.equal(["a", "c"]);
    expect([...rel.configMaps.keys()]).to.deep.equal(["e"]);
  });

  const request = (status: unknown, children: KubeObject[]) =>
    SyncRequest.parse({
      parent: {
        apiVersion: "llamastack.io/v1alpha2",
        kind: "LlamaStackDistribution",
        metadata: { name: "x", namespace: "ns", generation: 4 },
        spec: { distribution: { name: "starter" } },
        status,
      },
      children: { any: Object.fromEntries(children.map((c) => [c.metadata.name, c])) },
    });

  it("reads the parent once: name, namespace, generation, spec and our Deployment", () => {
    const o = observe(
      request({ phase: "Ready" }, [obj("Deployment", "x"), obj("Deployment", "y")]),
    );
    expect([o.name, o.namespace, o.generation]).to.deep.equal(["x", "ns", 4]);
    expect(o.spec).to.deep.equal({ distribution: { name: "starter" } });
    expect(o.status).to.deep.equal({ phase: "Ready" });
    expect(o.deployment?.metadata.name).to.equal("x");
    expect(o.children).to.have.length(2);
  });

  const hostile: [string, unknown][] = [
    ["a string", "Ready"],
    ["a wrong phase", { phase: "Exploded" }],
    ["conditions that are not a list", { conditions: { type: "Ready" } }],
  ];
  for (const [what, status] of hostile)
    it(`a status that does not parse (${what}) is read as empty`, () =>
      expect(observe(request(status, [])).status).to.deep.equal({}));
});
