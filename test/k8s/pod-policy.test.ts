// The confused-deputy rule (src/children/pod-policy.ts) against a real
// kube-apiserver, in a namespace labelled to enforce (and warn on) Pod
// Security "restricted":
//   - each shape the hook allows or only warns about: the Deployment the hook
//     generates passes a dry run there, Pod Security warning exactly when the
//     hook does; a pod of its template is admitted when the hook allows it and
//     refused when it warns (so the warning says what enforcement will do);
//   - each shape the hook refuses: no Deployment reaches the API server (the
//     hook answers without one, ValidationSucceeded=False), and a pod carrying
//     it is refused there too;
//   - a shape ALLOWED_POD_FIELDS lets through is the operator's choice: the
//     hook passes it, the namespace's enforcement still refuses its pods;
//   - the real thing: a resource with a warned volume, synced by the stand-in
//     Metacontroller, gets its Deployment, the ReplicaSet's pods are refused
//     by Pod Security, kube-controller-manager reports ReplicaFailure, and the
//     parent's status says so (Available=False, reason ReplicaFailure).
import { expect } from "chai";
import type { Server } from "node:http";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import { pino } from "pino";
import type { KubeObject } from "../../src/api/hook.js";
import { API_VERSION, KIND } from "../../src/api/schema.js";
import { loadCatalog } from "../../src/edge/load-catalog.js";
import { createApp } from "../../src/server/app.js";
import { testPool } from "../support/pool.js";
import {
  BASE,
  syncUnder,
  withModels,
  type PolicyAnswer,
} from "../unit/children/pod-policy-sync.js";
import { restrictedNamespace, waitFor } from "./kube.js";
import { Metacontroller } from "./metacontroller.js";
import { cluster } from "./setup.js";

const NS = "llsd-pod-policy";
const RESOURCE = "llamastackdistributions";

const base = BASE;
const withVolume = (source: Record<string, unknown>) => withModels(source);
const withAnnotation = (key: string, value: string) => ({
  ...base,
  workload: { overrides: { podAnnotations: { [key]: value } } },
});

interface Answer {
  deployment: Deployment | undefined;
  conditions: PolicyAnswer["conditions"];
}

function answer(spec: unknown, allowed?: string[]): Answer {
  const { conditions, children } = syncUnder(spec, allowed);
  const deployment = children.find((c) => c.kind === "Deployment") as Deployment | undefined;
  return { deployment, conditions };
}

const ownerNames = (o: KubeObject) =>
  ((o.metadata as { ownerReferences?: { name: string }[] }).ownerReferences ?? []).map(
    (r) => r.name,
  );

const condition = (a: Answer, type: string) => a.conditions.find((c) => c.type === type);

/** A dry run of the Deployment, then of a pod of its template: what Pod Security says of each. */
async function admitted(deployment: Deployment) {
  const kube = cluster().kube;
  const d = await kube.create(
    "apps/v1",
    "deployments",
    { ...deployment, metadata: { ...deployment.metadata, namespace: NS } },
    { dryRun: "All" },
  );
  const pod = await kube.create(
    "v1",
    "pods",
    {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { ...deployment.spec?.template.metadata, name: "policy-probe", namespace: NS },
      spec: deployment.spec?.template.spec,
    },
    { dryRun: "All" },
  );
  return {
    deployment: d.status,
    // A Warning header quotes its text: 299 - "would violate PodSecurity \"restricted:latest\": …"
    deploymentWarnings: d.warnings
      .filter((w) => w.includes("PodSecurity"))
      .map((w) => w.replaceAll('\\"', '"')),
    pod: pod.status,
    podMessage: (pod.body as { message?: string }).message ?? "",
  };
}

/** The hook's own Deployment for a spec, with `edit` made to its pod template: a pod that would carry a refused field. */
function podCarrying(edit: (d: Deployment) => void): Deployment {
  const d = structuredClone(answer(base).deployment);
  if (d === undefined) throw new Error("the hook built no Deployment");
  edit(d);
  return d;
}

describe("the confused-deputy rule on a real API server (Pod Security restricted enforced)", function () {
  this.timeout(180_000);

  before(async () => {
    const kube = cluster().kube;
    await kube.mustCreate("v1", "namespaces", restrictedNamespace(NS));
    // The ServiceAccount the hook names (its own child), which a pod must find to be admitted.
    await kube.mustCreate("v1", "serviceaccounts", {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: "llama-sa", namespace: NS },
    });
  });

  after(async () => {
    await cluster().kube.remove(API_VERSION, RESOURCE, NS, "nfs-models");
    await cluster().kube.remove("v1", "namespaces", undefined, NS);
  });

  const allowedShapes: [string, unknown][] = [
    ["the hook's own pod", base],
    ["an emptyDir volume", withVolume({ emptyDir: {} })],
    [
      "a persistentVolumeClaim volume",
      withVolume({ persistentVolumeClaim: { claimName: "models" } }),
    ],
    ["a csi volume", withVolume({ csi: { driver: "secrets-store.csi.k8s.io" } })],
    ["an image volume", withVolume({ image: { reference: "quay.io/models/llama:1" } })],
    [
      "a localhost AppArmor profile",
      withAnnotation(
        "container.apparmor.security.beta.kubernetes.io/llama-stack",
        "localhost/k8s-llama",
      ),
    ],
  ];
  for (const [what, spec] of allowedShapes)
    it(`allowed by the hook and by Pod Security: ${what}`, async () => {
      const a = answer(spec);
      expect(condition(a, "ValidationSucceeded")?.status).to.equal("True");
      expect(condition(a, "RestrictedPodField")).to.equal(undefined);
      if (a.deployment === undefined) throw new Error("no Deployment");
      const out = await admitted(a.deployment);
      expect(out, out.podMessage).to.deep.include({
        deployment: 201,
        deploymentWarnings: [],
        pod: 201,
      });
    });

  const warnedShapes: [string, unknown][] = [
    ["an nfs volume", withVolume({ nfs: { server: "nas.example.com", path: "/models" } })],
    [
      "an iscsi volume",
      withVolume({
        iscsi: { targetPortal: "10.0.0.1:3260", iqn: "iqn.2001-04.com.example:models", lun: 0 },
      }),
    ],
    ["a cephfs volume", withVolume({ cephfs: { monitors: ["10.0.0.2:6789"], path: "/models" } })],
  ];
  for (const [what, spec] of warnedShapes)
    it(`warned by the hook (RestrictedPodField) and by Pod Security, whose enforcement refuses the pod: ${what}`, async () => {
      const a = answer(spec);
      expect(condition(a, "ValidationSucceeded")?.status).to.equal("True");
      expect(condition(a, "RestrictedPodField")?.status).to.equal("True");
      if (a.deployment === undefined) throw new Error("no Deployment");
      const out = await admitted(a.deployment);
      expect(out.deployment).to.equal(201);
      expect(out.deploymentWarnings).to.have.length(1);
      expect(out.deploymentWarnings[0]).to.include(
        'violate PodSecurity "restricted:latest": restricted volume types',
      );
      expect(out.pod, out.podMessage).to.equal(403);
    });

  const refusedShapes: [string, unknown, (d: Deployment) => void][] = [
    [
      "a hostPath volume",
      withVolume({ hostPath: { path: "/var/lib/models" } }),
      (d) =>
        d.spec?.template.spec?.volumes?.push({
          name: "models",
          hostPath: { path: "/var/lib/models" },
        }),
    ],
    [
      "an unconfined AppArmor annotation",
      withAnnotation("container.apparmor.security.beta.kubernetes.io/llama-stack", "unconfined"),
      (d) => {
        const meta = (d.spec!.template.metadata ??= {});
        meta.annotations = {
          ...meta.annotations,
          "container.apparmor.security.beta.kubernetes.io/llama-stack": "unconfined",
        };
      },
    ],
  ];
  for (const [what, spec, carry] of refusedShapes)
    it(`refused by the hook before the API server sees it, and by Pod Security: ${what}`, async () => {
      const a = answer(spec);
      expect(condition(a, "ValidationSucceeded")?.status).to.equal("False");
      expect(condition(a, "ValidationSucceeded")?.message).to.include("the confused-deputy rule");
      expect(a.deployment, "no Deployment is returned").to.equal(undefined);
      const out = await admitted(podCarrying(carry));
      expect(out.pod, out.podMessage).to.equal(403);
      expect(out.podMessage).to.include('violates PodSecurity "restricted:latest"');
    });

  it("ALLOWED_POD_FIELDS=hostPath lets the hook pass a hostPath volume; the namespace's enforcement still refuses its pods", async () => {
    const a = answer(withVolume({ hostPath: { path: "/var/lib/models" } }), ["hostPath"]);
    expect(condition(a, "ValidationSucceeded")?.status).to.equal("True");
    expect(condition(a, "RestrictedPodField")).to.equal(undefined);
    if (a.deployment === undefined) throw new Error("no Deployment");
    const out = await admitted(a.deployment);
    expect(out.deployment).to.equal(201);
    expect(out.deploymentWarnings[0]).to.include('restricted volume type "hostPath"');
    expect(out.pod, out.podMessage).to.equal(403);
  });

  it("the real thing: a warned nfs volume, its pods refused by Pod Security, and the status says ReplicaFailure", async () => {
    const kube = cluster().kube;
    const app = createApp({
      pool: testPool(),
      catalog: loadCatalog(),
      logger: pino({ level: "silent" }),
    });
    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    try {
      const addr = server.address();
      if (addr === null || typeof addr === "string") throw new Error("no hook address");
      const mc = new Metacontroller(kube, `http://127.0.0.1:${addr.port}`);
      await kube.mustCreate(API_VERSION, RESOURCE, {
        apiVersion: API_VERSION,
        kind: KIND,
        metadata: { name: "nfs-models", namespace: NS },
        spec: withVolume({ nfs: { server: "nas.example.com", path: "/models" } }),
      });
      await mc.reconcile(NS, "nfs-models");
      const failure = await waitFor(
        "kube-controller-manager to report the Deployment's ReplicaFailure",
        async () => {
          const d = (await kube.get("apps/v1", "deployments", NS, "nfs-models")) as
            Deployment | undefined;
          const c = d?.status?.conditions?.find(
            (x) => x.type === "ReplicaFailure" && x.status === "True",
          );
          // A thrown error is said if the wait times out; polling goes on.
          if (c === undefined) {
            const seen = (d?.status?.conditions ?? []).map((x) => `${x.type}=${x.status}`);
            throw new Error(
              `no ReplicaFailure yet (the Deployment's conditions: ${seen.join(", ")})`,
            );
          }
          if ((c.message ?? "").includes("violates PodSecurity")) return c;
          // The children are written one by one, the Deployment before its
          // ServiceAccount: the ReplicaSet's first pod can be refused for the
          // missing ServiceAccount, and a ReplicaSet keeps its first failure's
          // message for as long as it fails. A fresh ReplicaSet (the Deployment
          // controller makes one) meets the ServiceAccount and only Pod Security.
          for (const rs of await kube.list("apps/v1", "replicasets", NS))
            if (ownerNames(rs).includes("nfs-models"))
              await kube.remove("apps/v1", "replicasets", NS, rs.metadata.name);
          throw new Error(`a ReplicaSet said "${c.message}" (removed for a fresh one)`);
        },
        180_000,
      );
      expect(failure.reason).to.equal("FailedCreate");
      expect(failure.message).to.include('violates PodSecurity "restricted:latest"');
      await mc.reconcile(NS, "nfs-models");
      const parent = (await kube.get(API_VERSION, RESOURCE, NS, "nfs-models")) as KubeObject & {
        status?: {
          conditions?: { type: string; status: string; reason: string; message: string }[];
        };
      };
      const available = parent.status?.conditions?.find((c) => c.type === "Available");
      expect(available).to.deep.include({ status: "False", reason: "ReplicaFailure" });
      expect(available?.message).to.include('the namespace enforces Pod Security "restricted"');
      expect(
        parent.status?.conditions?.find((c) => c.type === "RestrictedPodField")?.status,
      ).to.equal("True");
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
