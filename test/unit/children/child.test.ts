// A builder's Child<T> is a KubeObject without a cast; its metadata is the
// same for every child.
import { expect } from "chai";
import type { KubeObject } from "../../../src/api/hook.js";
import { childMetadata } from "../../../src/children/child.js";
import { buildConfigMap } from "../../../src/children/configmap.js";
import { buildHpa } from "../../../src/children/hpa.js";
import { buildIngress } from "../../../src/children/ingress.js";
import { buildNetworkPolicy } from "../../../src/children/network-policy.js";
import { buildPdb } from "../../../src/children/pdb.js";
import { buildPvc } from "../../../src/children/pvc.js";
import { buildServiceAccount } from "../../../src/children/service-account.js";
import { buildService } from "../../../src/children/service.js";
import { buildServiceMonitor } from "../../../src/children/service-monitor.js";
import { CHILD_TYPES, OPTIONAL_CHILD_TYPES } from "../../../src/children/types.js";

const owner = { llsd: "llama", namespace: "default" };
const LABELS = {
  "app.kubernetes.io/name": "llama-stack",
  "app.kubernetes.io/instance": "llama",
  "app.kubernetes.io/part-of": "llama-stack",
  "app.kubernetes.io/managed-by": "llsd-hook",
};

describe("childMetadata", () => {
  it("name, the owner's namespace and the common labels", () =>
    expect(childMetadata(owner, "x")).to.deep.equal({
      name: "x",
      namespace: "default",
      labels: LABELS,
    }));
  it("annotations only when given", () => {
    expect(childMetadata(owner, "x", { a: "b" }).annotations).to.deep.equal({ a: "b" });
    expect("annotations" in childMetadata(owner, "x")).to.equal(false);
  });
  it("a fresh labels object each time: a caller's edit never leaks", () =>
    expect(childMetadata(owner, "x").labels).to.not.equal(childMetadata(owner, "x").labels));
});

describe("Child<T>", () => {
  // Typed as KubeObject[] with no cast: this file compiling is half the test.
  const children: KubeObject[] = [
    buildConfigMap({ ...owner, configYaml: "", configHash: "0123456789" }),
    buildService({ ...owner, port: 8321 }),
    buildServiceAccount(owner),
    buildIngress({ ...owner, backendTls: false }),
    buildNetworkPolicy({ ...owner, port: 8321, namespaces: [], labels: [] }),
    buildPvc({ ...owner, size: "1Gi", accessMode: "ReadWriteOnce" }),
    buildHpa({ ...owner, minReplicas: 1, maxReplicas: 2 }),
    buildPdb({ ...owner, maxUnavailable: 1 }),
  ];
  for (const child of children)
    it(`${child.kind}: a declared child type, with the common labels`, () => {
      expect(
        CHILD_TYPES.some((t) => t.kind === child.kind && t.apiVersion === child.apiVersion),
      ).to.equal(true);
      expect(child.metadata.namespace).to.equal("default");
      expect(child.metadata.labels).to.deep.equal(LABELS);
    });
});

describe("optional child types", () => {
  const optional: KubeObject[] = [buildServiceMonitor(owner)];
  for (const child of optional)
    it(`${child.kind}: an optional child type, not a base one, with the common labels`, () => {
      expect(
        OPTIONAL_CHILD_TYPES.some(
          (t) => t.kind === child.kind && t.apiVersion === child.apiVersion,
        ),
      ).to.equal(true);
      expect(CHILD_TYPES.some((t) => t.kind === child.kind)).to.equal(false);
      expect(child.metadata.labels).to.deep.equal(LABELS);
    });
});
