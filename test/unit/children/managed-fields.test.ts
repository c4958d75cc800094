// Table tests for the projection of a live child onto its field manager's
// Apply entry (server-side apply's record of what was applied).
import { expect } from "chai";
import { LAST_APPLIED_ANNOTATION, type KubeObject } from "../../../src/api/hook.js";
import { applyManagers, projectApplied } from "../../../src/children/managed-fields.js";

function live(managedFields: unknown, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: "llama-service",
      namespace: "default",
      uid: "u1",
      labels: { app: "llama", "controller-uid": "p1", team: "a" },
      annotations: { [LAST_APPLIED_ANNOTATION]: "{}", note: "n" },
      ownerReferences: [{ kind: "LlamaStackDistribution", name: "llama" }],
      managedFields,
    },
    spec: {
      type: "ClusterIP",
      clusterIP: "10.0.0.1",
      ports: [
        { name: "http", port: 8321, protocol: "TCP" },
        { name: "metrics", port: 9090, protocol: "TCP" },
      ],
      ipFamilies: ["IPv4", "IPv6"],
    },
    ...extra,
  };
}
const apply = (fieldsV1: unknown, more: Record<string, unknown> = {}) => ({
  manager: "metacontroller",
  operation: "Apply",
  apiVersion: "v1",
  fieldsV1,
  ...more,
});
const identity = { apiVersion: "v1", kind: "Service" };
const meta = { name: "llama-service", namespace: "default" };

describe("projectApplied", () => {
  const rows: [why: string, managedFields: unknown, projected: unknown][] = [
    ["no managedFields", undefined, undefined],
    ["hostile: managedFields is a string", "Apply", undefined],
    ["hostile: entries that are not objects", [null, 1, "x"], undefined],
    ["another manager's Apply entry", [apply({ "f:spec": {} }, { manager: "kubectl" })], undefined],
    [
      "an Update entry is never a record",
      [apply({ "f:spec": {} }, { operation: "Update" })],
      undefined,
    ],
    [
      "a status subresource entry",
      [apply({ "f:status": {} }, { subresource: "status" })],
      undefined,
    ],
    ["hostile: fieldsV1 is a string", [apply("f:spec")], undefined],
    [
      "f: fields, the identity from the observed child",
      [apply({ "f:spec": { "f:type": {} } })],
      { ...identity, metadata: meta, spec: { type: "ClusterIP" } },
    ],
    [
      "k: a list item by its key fields",
      [
        apply({
          "f:spec": {
            "f:ports": { 'k:{"port":9090,"protocol":"TCP"}': { ".": {}, "f:name": {} } },
          },
        }),
      ],
      { ...identity, metadata: meta, spec: { ports: [{ name: "metrics" }] } },
    ],
    [
      "v: a set item by its value; i: by its index",
      [
        apply({
          "f:spec": { "f:ipFamilies": { 'v:"IPv6"': {} }, "f:ports": { "i:0": { "f:port": {} } } },
        }),
      ],
      { ...identity, metadata: meta, spec: { ipFamilies: ["IPv6"], ports: [{ port: 8321 }] } },
    ],
    [
      "what Metacontroller adds itself is left out: controller-uid, last-applied, ownerReferences",
      [
        apply({
          "f:metadata": {
            "f:labels": { "f:app": {}, "f:controller-uid": {} },
            "f:annotations": { [`f:${LAST_APPLIED_ANNOTATION}`]: {}, "f:note": {} },
            "f:ownerReferences": {},
          },
        }),
      ],
      { ...identity, metadata: { ...meta, labels: { app: "llama" }, annotations: { note: "n" } } },
    ],
    [
      "only labels of its own left out: no labels key at all",
      [apply({ "f:metadata": { "f:labels": { "f:controller-uid": {} } } })],
      { ...identity, metadata: meta },
    ],
    [
      "hostile: a field the live object lacks is not invented",
      [apply({ "f:spec": { "f:externalName": {} }, "f:status": {} })],
      { ...identity, metadata: meta, spec: {} },
    ],
    [
      "hostile: a k: member that is not JSON selects nothing",
      [apply({ "f:spec": { "f:ports": { "k:{port": {} } } })],
      { ...identity, metadata: meta, spec: { ports: [] } },
    ],
    [
      "hostile: fields under apiVersion, kind, name and namespace cannot change them",
      [
        apply({
          "f:apiVersion": {},
          "f:kind": {},
          "f:metadata": { "f:name": {}, "f:namespace": {} },
        }),
      ],
      { ...identity, metadata: meta },
    ],
  ];
  for (const [why, managedFields, projected] of rows)
    it(why, () =>
      expect(projectApplied(live(managedFields), "metacontroller")).to.deep.equal(projected),
    );

  it("prefers the entry of the child's own apiVersion", () => {
    const fields = [
      apply({ "f:spec": { "f:type": {} } }, { apiVersion: "v0" }),
      apply({ "f:spec": { "f:clusterIP": {} } }),
    ];
    expect(projectApplied(live(fields), "metacontroller")).to.deep.equal({
      ...identity,
      metadata: meta,
      spec: { clusterIP: "10.0.0.1" },
    });
  });
});

describe("applyManagers (named in a 409)", () => {
  it("lists only names shaped like a field manager, at most five: managedFields are user-writable", () => {
    const managers = ["kubectl", "x".repeat(65), "has space", "a", "b", "c", "d", "e"];
    const obj = {
      apiVersion: "v1",
      kind: "Service",
      metadata: {
        name: "s",
        managedFields: managers.map((manager) => ({ manager, operation: "Apply", fieldsV1: {} })),
      },
    } as unknown as KubeObject;
    expect(applyManagers(obj)).to.deep.equal(["a", "b", "c", "d", "e"]);
  });
});
