// The control plane works: CRUD, watch, server-side apply (and its conflicts),
// a CRD with a status subresource, garbage collection by the controller
// manager, and the Deployment controller creating a ReplicaSet.
import { expect } from "chai";
import type { KubeObject } from "../../src/api/hook.js";
import { rssMiB } from "./cluster.js";
import { waitFor } from "./kube.js";
import { cluster } from "./setup.js";

const NS = "llsd-smoke";

describe("Kubernetes control plane (smoke)", function () {
  this.timeout(120_000);

  before(async () => {
    const cp = cluster();
    process.stderr.write(
      `[k8s] startup ms ${JSON.stringify(cp.timings)}; RSS MiB ${JSON.stringify(Object.fromEntries(Object.entries(cp.pids).map(([n, pid]) => [n, rssMiB(pid)])))}\n`,
    );
    await cp.kube.mustCreate("v1", "namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: NS },
    });
  });

  it("creates, reads, updates and deletes a ConfigMap", async () => {
    const kube = cluster().kube;
    const cm = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "crud", namespace: NS },
      data: { a: "1" },
    };
    await kube.mustCreate("v1", "configmaps", cm);
    const got = (await kube.get("v1", "configmaps", NS, "crud")) as KubeObject & {
      data: Record<string, string>;
    };
    expect(got.data).to.deep.equal({ a: "1" });
    await kube.replace("v1", "configmaps", { ...got, data: { a: "2" } });
    expect(
      (
        (await kube.get("v1", "configmaps", NS, "crud")) as unknown as {
          data: Record<string, string>;
        }
      ).data.a,
    ).to.equal("2");
    await kube.remove("v1", "configmaps", NS, "crud");
    expect(await kube.get("v1", "configmaps", NS, "crud")).to.equal(undefined);
  });

  it("a watch sees an update", async () => {
    const kube = cluster().kube;
    const created = await kube.mustCreate("v1", "configmaps", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "watched", namespace: NS },
      data: { v: "0" },
    });
    const seen = kube.watch(
      "v1",
      "configmaps",
      NS,
      {
        resourceVersion: created.metadata.resourceVersion ?? "0",
        fieldSelector: "metadata.name=watched",
        timeoutMs: 20_000,
      },
      (e) =>
        e.type === "MODIFIED" && (e.object as unknown as { data: { v: string } }).data.v === "1",
    );
    await kube.replace("v1", "configmaps", { ...created, data: { v: "1" } });
    const event = await seen;
    expect(event.type).to.equal("MODIFIED");
  });

  it("server-side apply creates, updates, and reports a conflict with another manager", async () => {
    const kube = cluster().kube;
    const obj = (v: string) =>
      ({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "applied", namespace: NS },
        data: { k: v },
      }) as KubeObject;
    expect(
      (await kube.apply("v1", "configmaps", obj("1"), { fieldManager: "one" })).status,
    ).to.equal(201);
    expect(
      (await kube.apply("v1", "configmaps", obj("2"), { fieldManager: "one" })).status,
    ).to.equal(200);
    const conflict = await kube.apply("v1", "configmaps", obj("3"), { fieldManager: "two" });
    expect(conflict.status).to.equal(409);
    expect((conflict.body as unknown as { message: string }).message).to.include("conflict");
    expect(
      (await kube.apply("v1", "configmaps", obj("3"), { fieldManager: "two", force: true })).status,
    ).to.equal(200);
  });

  it("accepts a CRD with a status subresource and an object of it", async () => {
    const kube = cluster().kube;
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "widgets.smoke.example.com" },
      spec: {
        group: "smoke.example.com",
        scope: "Namespaced",
        names: { plural: "widgets", singular: "widget", kind: "Widget" },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: {
                  spec: { type: "object", properties: { size: { type: "integer" } } },
                  status: { type: "object", properties: { ok: { type: "boolean" } } },
                },
              },
            },
          },
        ],
      },
    };
    await kube.mustCreate("apiextensions.k8s.io/v1", "customresourcedefinitions", crd);
    const widget = await waitFor("the Widget CRD to serve", async () => {
      const res = await kube.create("smoke.example.com/v1", "widgets", {
        apiVersion: "smoke.example.com/v1",
        kind: "Widget",
        metadata: { name: "w", namespace: NS },
        spec: { size: 3 },
      });
      return res.status === 201 ? res.body : undefined;
    });
    const withStatus = await kube.replaceStatus("smoke.example.com/v1", "widgets", {
      ...widget,
      status: { ok: true },
    });
    expect((withStatus as unknown as { status: { ok: boolean } }).status.ok).to.equal(true);
  });

  it("the garbage collector deletes a child whose owner is gone", async () => {
    const kube = cluster().kube;
    const owner = await kube.mustCreate("v1", "configmaps", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "owner", namespace: NS },
    });
    await kube.mustCreate("v1", "configmaps", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: "owned",
        namespace: NS,
        ownerReferences: [
          { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata.uid },
        ],
      },
    });
    await kube.remove("v1", "configmaps", NS, "owner");
    await waitFor(
      "the owned ConfigMap to be collected",
      async () =>
        (await kube.get("v1", "configmaps", NS, "owned")) === undefined ? true : undefined,
      60_000,
    );
  });

  it("the Deployment controller creates a ReplicaSet", async () => {
    const kube = cluster().kube;
    const labels = { app: "smoke" };
    await kube.mustCreate("apps/v1", "deployments", {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "smoke", namespace: NS },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: { containers: [{ name: "c", image: "registry.example.com/none:1" }] },
        },
      },
    });
    const rs = await waitFor("a ReplicaSet", async () => {
      const list = await kube.list("apps/v1", "replicasets", NS, "app=smoke");
      return list.length > 0 ? list : undefined;
    });
    expect(rs[0]?.metadata.name).to.match(/^smoke-/);
  });
});
