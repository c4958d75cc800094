// Table tests for the projection of a live child onto its field manager's
// Apply entry (server-side apply's record of what was applied).
import { expect } from "chai";
import { LAST_APPLIED_ANNOTATION, type KubeObject } from "../../../src/api/hook.js";
import fc from "fast-check";
import {
  applyManagers,
  MAX_MANAGED_FIELDS,
  projectApplied,
  projectAppliedBounded,
} from "../../../src/children/managed-fields.js";
import { keepChild } from "../../../src/children/keep.js";
import { readCounter } from "../reads.js";

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

/**
 * The projection as FieldsV1 defines it, item by item and member by member
 * (quadratic): what the indexed projection must equal.
 */
function reference(live: unknown, set: unknown): unknown {
  const isObj = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  const parse = (t: string): unknown => {
    try {
      return JSON.parse(t);
    } catch {
      return undefined;
    }
  };
  const same = (a: unknown, b: unknown) =>
    a === b || (isObj(a) || Array.isArray(a) ? JSON.stringify(a) === JSON.stringify(b) : false);
  const selects = (m: string, item: unknown, i: number) => {
    if (m.startsWith("i:")) return m.slice(2) === String(i);
    if (m.startsWith("v:")) return same(parse(m.slice(2)), item);
    const key = m.startsWith("k:") ? parse(m.slice(2)) : undefined;
    return (
      isObj(key) &&
      isObj(item) &&
      Object.entries(key).every(([k, v]) => Object.hasOwn(item, k) && same(item[k], v))
    );
  };
  if (!isObj(set)) return undefined;
  const members = Object.keys(set).filter((k) => k !== ".");
  if (members.length === 0) return live;
  if (Array.isArray(live))
    return live.flatMap((item, i) => {
      const m = members.find((x) => selects(x, item, i));
      const v = m === undefined ? undefined : reference(item, set[m]);
      return v === undefined ? [] : [v];
    });
  if (!isObj(live)) return undefined;
  const out: Record<string, unknown> = {};
  for (const m of members) {
    const name = m.slice(2);
    if (!m.startsWith("f:") || !Object.hasOwn(live, name)) continue;
    const v = reference(live[name], set[m]);
    if (v !== undefined) out[name] = v;
  }
  return out;
}

/** A ConfigMap whose data.items list and Apply entry are given. */
function listChild(items: unknown[], set: Record<string, unknown>): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "c",
      namespace: "default",
      managedFields: [apply({ "f:data": { "f:items": set } })],
    },
    data: { items },
  };
}

describe("projectApplied on lists: indexed once, equal to the definition", () => {
  // Small values so that keys, values and indexes meet often.
  const scalar = fc.oneof(fc.constantFrom(0, 1, "0", "1", "a", true, null));
  const item = fc.oneof(
    scalar,
    fc.dictionary(fc.constantFrom("name", "port", "protocol"), scalar, { maxKeys: 3 }),
    fc.array(scalar, { maxLength: 2 }),
  );
  const member = fc.oneof(
    fc.integer({ min: -1, max: 6 }).map((i) => `i:${i}`),
    fc.constantFrom("i:01", "i:x", "k:{", "v:[", "k:[1]", "k:{}", "x:1"),
    item.map((v) => `v:${JSON.stringify(v)}`),
    fc
      .dictionary(fc.constantFrom("name", "port", "protocol"), scalar, { maxKeys: 2 })
      .map((k) => `k:${JSON.stringify(k)}`),
  );
  const set = fc.dictionary(member, fc.constantFrom({}, { ".": {} }, { "f:name": {} }), {
    maxKeys: 6,
  });

  it("gives what the item-by-item definition gives (fixed seed)", () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 8 }), set, (items, fields) => {
        const got = projectApplied(listChild(items, fields), "metacontroller");
        const want = reference({ items }, { "f:items": fields }) as { items: unknown[] };
        expect((got as { data?: unknown } | undefined)?.data).to.deep.equal(want);
      }),
      { seed: 23, numRuns: 2000 },
    );
  });

  it("projects 9,000 items claimed by 9,000 members reading each item a few times, not once per member", () => {
    const plain = Array.from({ length: 9000 }, (_, i) => ({ name: `v${i}`, value: "x" }));
    const fields = Object.fromEntries(plain.map((it) => [`k:{"name":"${it.name}"}`, {}]));
    const counter = readCounter();
    const got = projectApplied(listChild(plain.map(counter.wrap), fields), "metacontroller");
    const work = counter.reads();
    expect(got?.["data"]).to.deep.equal({ items: plain });
    // Indexed once by its key fields: the definition reads the list once per member (81 million).
    expect(work).to.be.within(plain.length, 3 * plain.length);
  });
});

describe("a forged Apply entry past the bound", () => {
  /** A Deployment with 12,000 env entries, and an Apply entry that claims each (issue 23: 39 s). */
  function forged(): KubeObject {
    const env = Array.from({ length: 12_000 }, (_, i) => ({ name: `E${i}`, value: "x" }));
    const envFields = Object.fromEntries(env.map((e) => [`k:{"name":"${e.name}"}`, { ".": {} }]));
    return {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: {
        name: "llama",
        namespace: "default",
        managedFields: [
          {
            manager: "metacontroller",
            operation: "Apply",
            apiVersion: "apps/v1",
            fieldsV1: {
              "f:spec": {
                "f:template": {
                  "f:spec": {
                    "f:containers": { 'k:{"name":"llama-stack"}': { "f:env": envFields } },
                  },
                },
              },
            },
          },
        ],
      },
      spec: { template: { spec: { containers: [{ name: "llama-stack", env }] } } },
    };
  }

  it("is not projected: unreadable, with the bound, reading each item a few times", () => {
    const child = forged();
    const container = (child["spec"] as { template: { spec: { containers: { env: object[] }[] } } })
      .template.spec.containers[0]!;
    const counter = readCounter();
    container.env = container.env.map(counter.wrap);
    const kept = keepChild(child, { name: "llama", namespace: "default" });
    // A few reads of each env item, never one per member (144 million).
    expect(counter.reads(), "reads of the env items").to.be.at.most(10 * container.env.length);
    expect(kept).to.deep.equal({
      ok: false,
      kind: "unreadable",
      why: `has a managedFields Apply entry of field manager metacontroller with more than ${MAX_MANAGED_FIELDS} fields, or too many list items to match, more than anything llsd-hook applies`,
    });
  });

  it("is bounded by the work it would take too, not only by its member count", () => {
    // 4,000 members, each a different set of key fields: one index of the 9,000 items each.
    const counter = readCounter();
    const items = Array.from({ length: 9000 }, (_, i) => counter.wrap({ name: `v${i}` }));
    const fields = Object.fromEntries(
      Array.from({ length: 4000 }, (_, i) => [`k:{"f${i}":1}`, {}]),
    );
    const got = projectAppliedBounded(listChild(items, fields), "metacontroller");
    expect(got).to.have.property("tooLarge");
    // Stopped at a projection's work bound (a million items indexed), not after 36 million.
    expect(counter.reads()).to.be.within(900_000, 1_000_000);
  });
});
