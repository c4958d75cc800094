// Table tests for the keep policy and the shape bounds.
import { expect } from "chai";
import { LAST_APPLIED_ANNOTATION, type KubeObject } from "../../../src/api/hook.js";
import { measure, SPEC_BOUNDS } from "../../../src/api/bounds.js";
import { isOwnedName, keepChild } from "../../../src/children/keep.js";
import { projectApplied } from "../../../src/children/managed-fields.js";

const parent = { name: "llama", namespace: "default" };
const NO_RECORD =
  "has neither a managedFields Apply entry of field manager metacontroller (Apply entries found: none) nor a metacontroller.k8s.io/last-applied-configuration annotation";

describe("isOwnedName", () => {
  const rows: [kind: string, name: string, owned: boolean][] = [
    ["Deployment", "llama", true],
    ["Deployment", "llama-2", false],
    ["ConfigMap", "llama-config-0123456789", true],
    ["ConfigMap", "llama-config-012345678", false], // nine hex digits
    ["ConfigMap", "llama-config-0123456789a", false], // eleven
    ["ConfigMap", "llama-config-ABCDEF0123", false], // upper-case is not our hash
    ["ConfigMap", "llama", false],
    ["Service", "llama-service", true],
    ["ServiceAccount", "llama-sa", true],
    ["PersistentVolumeClaim", "llama-pvc", true],
    ["Ingress", "llama-ingress", true],
    ["NetworkPolicy", "llama-network-policy", true],
    ["HorizontalPodAutoscaler", "llama-hpa", true],
    ["PodDisruptionBudget", "llama-pdb", true],
    ["ServiceMonitor", "llama-service-monitor", true], // an optional child type
    ["ServiceMonitor", "llama", false],
    ["ClusterRoleBinding", "llama", false], // not a child kind at all
    ["Secret", "llama-sa", false],
    ["constructor", "llama", false],
  ];
  for (const [kind, name, owned] of rows)
    it(`${kind} ${name} → ${owned}`, () =>
      expect(isOwnedName(kind, name, "llama")).to.equal(owned));
});

function child(
  kind: string,
  apiVersion: string,
  name: string,
  extra: Record<string, unknown> = {},
  annotation?: string | null,
): KubeObject {
  const applied = { apiVersion, kind, metadata: { name, namespace: "default" }, ...extra };
  const text = annotation === undefined ? JSON.stringify(applied) : annotation;
  return {
    ...applied,
    metadata: {
      name,
      namespace: "default",
      labels: { "controller-uid": "uid-parent" },
      ...(text === null ? {} : { annotations: { [LAST_APPLIED_ANNOTATION]: text } }),
    },
  };
}

describe("keepChild", () => {
  const rows: { name: string; observed: KubeObject; kept: unknown }[] = [
    {
      name: "a Service with its own annotation: the annotation, without controller-uid",
      observed: child("Service", "v1", "llama-service", { spec: { type: "ClusterIP" } }),
      kept: {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "llama-service", namespace: "default" },
        spec: { type: "ClusterIP" },
      },
    },
    {
      name: "a ServiceMonitor (an optional child type) with its own annotation",
      observed: child("ServiceMonitor", "monitoring.coreos.com/v1", "llama-service-monitor", {
        spec: { endpoints: [{ port: "metrics" }] },
      }),
      kept: {
        apiVersion: "monitoring.coreos.com/v1",
        kind: "ServiceMonitor",
        metadata: { name: "llama-service-monitor", namespace: "default" },
        spec: { endpoints: [{ port: "metrics" }] },
      },
    },
    {
      name: "a ServiceMonitor of another apiVersion is foreign",
      observed: child("ServiceMonitor", "monitoring.coreos.com/v1alpha1", "llama-service-monitor"),
      kept: "is not a child type llsd-hook manages (ServiceMonitor of another apiVersion, or another kind)",
    },
    {
      name: "a Deployment without annotation: cannot be kept",
      observed: child("Deployment", "apps/v1", "llama", {}, null),
      kept: NO_RECORD,
    },
    {
      name: "an annotation that is not JSON",
      observed: child("Service", "v1", "llama-service", {}, "{not json"),
      kept: "has a metacontroller.k8s.io/last-applied-configuration annotation that is not JSON",
    },
    {
      name: "an annotation that is JSON null",
      observed: child("Service", "v1", "llama-service", {}, "null"),
      kept: "has a metacontroller.k8s.io/last-applied-configuration annotation that is not a Kubernetes object",
    },
    {
      name: "an annotation naming another namespace",
      observed: child(
        "Service",
        "v1",
        "llama-service",
        {},
        JSON.stringify({
          apiVersion: "v1",
          kind: "Service",
          metadata: { name: "llama-service", namespace: "kube-system" },
        }),
      ),
      kept: "has a metacontroller.k8s.io/last-applied-configuration annotation describing another object (not this kind, namespace and name)",
    },
    {
      name: "an annotation naming another kind",
      observed: child(
        "Service",
        "v1",
        "llama-service",
        {},
        JSON.stringify({
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name: "llama-service", namespace: "default" },
        }),
      ),
      kept: "has a metacontroller.k8s.io/last-applied-configuration annotation describing another object (not this kind, namespace and name)",
    },
    {
      name: "an annotation with a __proto__ key",
      observed: child(
        "Service",
        "v1",
        "llama-service",
        {},
        '{"apiVersion":"v1","kind":"Service","metadata":{"name":"llama-service","namespace":"default"},"__proto__":{"x":1}}',
      ),
      kept: "has a metacontroller.k8s.io/last-applied-configuration annotation with a __proto__ key, which llsd-hook never writes",
    },
    {
      name: "an annotation nested deeper than anything the hook writes",
      observed: child(
        "Service",
        "v1",
        "llama-service",
        {},
        `{"apiVersion":"v1","kind":"Service","metadata":{"name":"llama-service","namespace":"default"},"spec":${"[".repeat(60)}${"]".repeat(60)}}`,
      ),
      kept: "has a metacontroller.k8s.io/last-applied-configuration annotation nested deeper than anything llsd-hook writes",
    },
    {
      name: "a child in another namespace",
      observed: {
        ...child("Service", "v1", "llama-service"),
        metadata: { name: "llama-service", namespace: "other" },
      },
      kept: "is not in the LlamaStackDistribution's namespace default",
    },
    {
      name: "a child of another apiVersion",
      observed: child("Ingress", "extensions/v1beta1", "llama-ingress"),
      kept: "is not a child type llsd-hook manages (Ingress of another apiVersion, or another kind)",
    },
    {
      name: "a claim without annotation: rebuilt from the live claim",
      observed: child(
        "PersistentVolumeClaim",
        "v1",
        "llama-pvc",
        {
          spec: {
            accessModes: ["ReadWriteOnce"],
            resources: { requests: { storage: "20Gi" } },
            volumeName: "pv-1",
          },
          status: { phase: "Bound" },
        },
        null,
      ),
      kept: {
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: {
          name: "llama-pvc",
          namespace: "default",
          labels: {
            "app.kubernetes.io/name": "llama-stack",
            "app.kubernetes.io/instance": "llama",
            "app.kubernetes.io/part-of": "llama-stack",
            "app.kubernetes.io/managed-by": "llsd-hook",
          },
        },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "20Gi" } } },
      },
    },
    {
      name: "a claim whose live spec is malformed and that has no annotation: cannot be kept",
      observed: child(
        "PersistentVolumeClaim",
        "v1",
        "llama-pvc",
        { spec: { accessModes: "ReadWriteOnce" } },
        null,
      ),
      kept: NO_RECORD,
    },
    {
      name: "an immutable ConfigMap with a forged annotation: rebuilt from its live data",
      observed: child(
        "ConfigMap",
        "v1",
        "llama-config-0123456789",
        { data: { "config.yaml": "version: 2\n" }, immutable: true },
        JSON.stringify({
          apiVersion: "apps/v1",
          kind: "Deployment",
          metadata: { name: "x", namespace: "kube-system" },
        }),
      ),
      kept: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: {
          name: "llama-config-0123456789",
          namespace: "default",
          labels: {
            "app.kubernetes.io/name": "llama-stack",
            "app.kubernetes.io/instance": "llama",
            "app.kubernetes.io/part-of": "llama-stack",
            "app.kubernetes.io/managed-by": "llsd-hook",
          },
        },
        data: { "config.yaml": "version: 2\n" },
        immutable: true,
      },
    },
    {
      name: "a mutable ConfigMap without annotation: its data may have changed, cannot be kept",
      observed: child(
        "ConfigMap",
        "v1",
        "llama-config-0123456789",
        { data: { "config.yaml": "x" } },
        null,
      ),
      kept: NO_RECORD,
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const kept = keepChild(row.observed, parent);
      if (typeof row.kept === "string") {
        expect(kept.ok).to.equal(false);
        if (!kept.ok) expect(kept.why).to.equal(row.kept);
      } else {
        expect(kept.ok).to.equal(true);
        if (kept.ok) expect(kept.object).to.deep.equal(row.kept);
      }
    });
  }
});

describe("measure (spec bounds)", () => {
  const deep = (n: number): unknown => {
    let v: unknown = 1;
    for (let i = 0; i < n; i++) v = { a: v };
    return v;
  };
  const rows: {
    name: string;
    value: unknown;
    problem?: { kind: string; path: (string | number)[] };
  }[] = [
    { name: "null", value: null },
    { name: "an empty object", value: {} },
    { name: "32 levels", value: deep(32) },
    { name: "33 levels", value: deep(33), problem: { kind: "depth", path: Array(32).fill("a") } },
    {
      name: "1024 keys",
      value: Object.fromEntries(Array.from({ length: 1024 }, (_, i) => [`k${i}`, i])),
    },
    {
      name: "1025 list items",
      value: { l: Array(1025).fill(0) },
      problem: { kind: "width", path: ["l"] },
    },
    {
      name: "a __proto__ key, deep",
      value: JSON.parse('{"a":[{"__proto__":1}]}'),
      problem: { kind: "key", path: ["a", 0, "__proto__"] },
    },
    { name: "constructor is an ordinary key", value: { constructor: { toString: 1 } } },
    {
      name: "more than 50,000 values",
      value: Array.from({ length: 60 }, () => Array(1000).fill(0)),
      problem: { kind: "nodes", path: [] },
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const shape = measure(row.value, SPEC_BOUNDS);
      if (row.problem === undefined) expect(shape.problem).to.equal(undefined);
      else {
        expect(shape.problem?.kind).to.equal(row.problem.kind);
        expect(shape.problem?.path).to.deep.equal(row.problem.path);
      }
    });
  }
});

describe("projectApplied and keepChild under server-side apply", () => {
  // A Service as the API server stores it after Metacontroller's apply (manager
  // "metacontroller"), then a kubectl edit (an Update entry) and a status write.
  const live = {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: "llama-service",
      namespace: "default",
      uid: "u1",
      resourceVersion: "7",
      labels: {
        "app.kubernetes.io/name": "llama-stack",
        "controller-uid": "uid-parent",
        team: "ml",
      },
      ownerReferences: [
        {
          apiVersion: "llamastack.io/v1alpha2",
          kind: "LlamaStackDistribution",
          name: "llama",
          uid: "uid-parent",
          controller: true,
        },
      ],
      managedFields: [
        {
          manager: "metacontroller",
          operation: "Apply",
          apiVersion: "v1",
          fieldsType: "FieldsV1",
          fieldsV1: {
            "f:metadata": {
              "f:labels": { "f:app.kubernetes.io/name": {}, "f:controller-uid": {} },
              "f:ownerReferences": { 'k:{"uid":"uid-parent"}': {} },
            },
            "f:spec": {
              "f:ports": {
                'k:{"port":8321,"protocol":"TCP"}': {
                  ".": {},
                  "f:name": {},
                  "f:port": {},
                  "f:protocol": {},
                  "f:targetPort": {},
                },
              },
              "f:selector": {},
              "f:type": {},
            },
          },
        },
        {
          manager: "kubectl-edit",
          operation: "Update",
          apiVersion: "v1",
          fieldsType: "FieldsV1",
          fieldsV1: { "f:metadata": { "f:labels": { "f:team": {} } } },
        },
        {
          manager: "metacontroller",
          operation: "Apply",
          subresource: "status",
          apiVersion: "v1",
          fieldsType: "FieldsV1",
          fieldsV1: { "f:status": {} },
        },
      ],
    },
    spec: {
      clusterIP: "10.0.0.1",
      ports: [
        { name: "metrics", port: 9464, protocol: "TCP", targetPort: 9464 },
        { name: "http", port: 8321, protocol: "TCP", targetPort: "http" },
      ],
      selector: { "app.kubernetes.io/name": "llama-stack" },
      sessionAffinity: "None",
      type: "ClusterIP",
    },
    status: { loadBalancer: {} },
  } as unknown as KubeObject;
  const applied = {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: "llama-service",
      namespace: "default",
      labels: { "app.kubernetes.io/name": "llama-stack" },
    },
    spec: {
      ports: [{ name: "http", port: 8321, protocol: "TCP", targetPort: "http" }],
      selector: { "app.kubernetes.io/name": "llama-stack" },
      type: "ClusterIP",
    },
  };

  it("the live object on the manager's Apply set: no defaults, no other manager's fields, no owner or controller-uid", () => {
    expect(projectApplied(live, "metacontroller")).to.deep.equal(applied);
  });

  it("another manager's Apply set, or none: undefined", () => {
    expect(projectApplied(live, "kubectl-edit")).to.equal(undefined); // an Update entry is never a source
    expect(projectApplied(live, "llsd")).to.equal(undefined);
  });

  it("after a switch back to dynamic apply, the annotation (current) wins over the Apply entry (stale)", () => {
    const current = { ...applied, spec: { ...applied.spec, type: "NodePort" } };
    const switchedBack = {
      ...live,
      metadata: {
        ...live.metadata,
        annotations: { [LAST_APPLIED_ANNOTATION]: JSON.stringify(current) },
      },
    } as KubeObject;
    const kept = keepChild(switchedBack, parent);
    expect(kept.ok && kept.object).to.deep.equal(current);
  });

  it("an annotation describing another object (a forgery) gives way to the Apply entry", () => {
    const forged = {
      ...live,
      metadata: {
        ...live.metadata,
        annotations: {
          [LAST_APPLIED_ANNOTATION]: JSON.stringify({
            apiVersion: "v1",
            kind: "Secret",
            metadata: { name: "x", namespace: "kube-system" },
          }),
        },
      },
    } as KubeObject;
    const kept = keepChild(forged, parent);
    expect(kept.ok && kept.object).to.deep.equal(applied);
  });

  it("a field manager configured elsewhere: the message lists the Apply managers found", () => {
    const kept = keepChild(live, { ...parent, fieldManager: "mc-ssa" });
    expect(kept.ok).to.equal(false);
    if (!kept.ok) {
      expect(kept.kind).to.equal("unrecorded");
      expect(kept.why).to.equal(
        "has neither a managedFields Apply entry of field manager mc-ssa (Apply entries found: metacontroller) nor a metacontroller.k8s.io/last-applied-configuration annotation",
      );
    }
  });

  it("a rewritten Apply set cannot change identity: name, namespace and kind come from the live object", () => {
    const rewritten = {
      ...live,
      metadata: {
        ...live.metadata,
        managedFields: [
          {
            manager: "metacontroller",
            operation: "Apply",
            apiVersion: "v1",
            fieldsV1: { "f:kind": {}, "f:metadata": { "f:name": {}, "f:namespace": {} } },
          },
        ],
      },
    } as KubeObject;
    expect(projectApplied(rewritten, "metacontroller")).to.deep.equal({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "llama-service", namespace: "default" },
    });
  });

  it("set members by value and by index", () => {
    const obj = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: "x",
        finalizers: ["a", "b"],
        managedFields: [
          {
            manager: "m",
            operation: "Apply",
            fieldsV1: {
              "f:metadata": { "f:finalizers": { 'v:"b"': {} } },
              "f:data": { "f:k": {} },
            },
          },
        ],
      },
      data: { k: "v", other: "w" },
    } as unknown as KubeObject;
    expect(projectApplied(obj, "m")).to.deep.equal({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "x", finalizers: ["b"] },
      data: { k: "v" },
    });
  });
});
