// The handover of a running v1alpha1 resource from the retired
// llama-stack-k8s-operator (docs/conversion.md "Handover"), on a real control
// plane, with v1alpha1 served through the hook's conversion webhook
// (conversion-hook.ts) and the hook driven the way Metacontroller drives it
// (metacontroller.ts, its claim/release/adopt rules included), once with
// each apply strategy. The children are made the way the retired operator
// made them (its controllers/manifests/base and resource_helper.go, v0.x at
// the end of its life): the names llsd-hook uses, owned by the same object,
// selected by `app: llama-stack`, the container started by the operator's
// own script for a user config. The steps are the documented ones:
//   (dynamic apply only) a sync before the handover: Metacontroller releases
//      every child and cannot create its own under the taken names; nothing
//      is deleted, the pods keep running;
//   1. scripts/adopt-v1alpha1.sh, run with the suite's kubectl: pods and
//      ReplicaSet labelled, selectors set, the Deployment orphaned, the rest
//      labelled with the controller-uid;
//   2. the next sync claims every child as it is (UIDs kept, the claim
//      untouched) and creates the Deployment, which adopts the running
//      ReplicaSet and rolls it to the hook's template; a further sync changes
//      nothing.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { KubeObject } from "../../src/api/hook.js";
import { kubectl, root } from "../support/tools.js";
import { serveV1alpha1, RESOURCE, V1, V2, type ConversionHook } from "./conversion-hook.js";
import { waitFor } from "./kube.js";
import { Metacontroller, type ApplyStrategy, type SyncRound } from "./metacontroller.js";
import { serveHook } from "./serve-hook.js";
import { markPodsReady, waitRolledOut } from "./pods.js";
import { cluster } from "./setup.js";

const NAME = "llama";
const FIELD_MANAGER = "metacontroller";
const RETIRED_SELECTOR = { app: "llama-stack", "app.kubernetes.io/instance": NAME };
const OUR_SELECTOR = {
  "app.kubernetes.io/name": "llama-stack",
  "app.kubernetes.io/instance": NAME,
};
const RETIRED_LABELS = {
  "app.kubernetes.io/managed-by": "llama-stack-operator",
  "app.kubernetes.io/part-of": "llama-stack",
  "llamastack.io/watch": "true",
};

const V1_SPEC = {
  replicas: 1,
  server: {
    distribution: { name: "starter" },
    containerSpec: { env: [{ name: "INFERENCE_MODEL", value: "llama3.2:1b" }] },
    userConfig: { configMapName: "run-config" },
    storage: { size: "20Gi", mountPath: "/.llama" },
  },
  network: { allowedFrom: { namespaces: ["clients"] } },
};

type Obj = KubeObject & { spec?: Record<string, unknown> };

/** The children the retired operator made for `parent` (v1alpha1), as it made them. */
function retiredChildren(parent: KubeObject): Obj[] {
  const metadata = (name: string) => ({
    name,
    namespace: parent.metadata.namespace,
    labels: RETIRED_LABELS,
    ownerReferences: [
      {
        apiVersion: V1,
        kind: "LlamaStackDistribution",
        name: NAME,
        uid: parent.metadata.uid ?? "",
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
  });
  const container = {
    name: "llama-stack",
    image: "docker.io/llamastack/distribution-starter:latest",
    ports: [{ containerPort: 8321 }],
    startupProbe: {
      httpGet: { path: "/v1/health", port: 8321 },
      initialDelaySeconds: 15,
      timeoutSeconds: 30,
      failureThreshold: 3,
      successThreshold: 1,
    },
    env: [
      { name: "HF_HOME", value: "/.llama" },
      { name: "LLS_WORKERS", value: "1" },
      { name: "LLS_PORT", value: "8321" },
      { name: "LLAMA_STACK_CONFIG", value: "/etc/llama-stack/config.yaml" },
      { name: "INFERENCE_MODEL", value: "llama3.2:1b" },
    ],
    // The operator's startup script for a user config (shortened: its text is not ours).
    command: ["/bin/sh", "-c", "exec uvicorn llama_stack.core.server.server:create_app --factory"],
    resources: {
      requests: { cpu: "1", memory: "1Gi" },
      limits: { cpu: "1", memory: "1Gi" },
    },
    volumeMounts: [
      { name: "lls-storage", mountPath: "/.llama" },
      { name: "user-config", mountPath: "/etc/llama-stack/", readOnly: true },
    ],
  };
  return [
    {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: metadata(`${NAME}-pvc`),
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "20Gi" } } },
    },
    { apiVersion: "v1", kind: "ServiceAccount", metadata: metadata(`${NAME}-sa`) },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: metadata(`${NAME}-service`),
      spec: {
        type: "ClusterIP",
        selector: RETIRED_SELECTOR,
        ports: [{ name: "http", protocol: "TCP", port: 8321, targetPort: 8321 }],
      },
    },
    {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: metadata(`${NAME}-network-policy`),
      spec: {
        podSelector: { matchLabels: RETIRED_SELECTOR },
        policyTypes: ["Ingress"],
        ingress: [
          {
            from: [
              {
                namespaceSelector: {
                  matchLabels: { "kubernetes.io/metadata.name": "clients" },
                },
              },
            ],
            ports: [{ protocol: "TCP", port: 8321 }],
          },
        ],
      },
    },
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: metadata(NAME),
      spec: {
        replicas: 1,
        selector: { matchLabels: RETIRED_SELECTOR },
        template: {
          metadata: { labels: RETIRED_SELECTOR },
          spec: {
            serviceAccountName: `${NAME}-sa`,
            securityContext: { fsGroup: 1001 },
            containers: [container],
            volumes: [
              { name: "lls-storage", persistentVolumeClaim: { claimName: `${NAME}-pvc` } },
              { name: "user-config", configMap: { name: "run-config" } },
            ],
          },
        },
      },
    },
  ];
}

const RESOURCES: Record<string, [string, string]> = {
  PersistentVolumeClaim: ["v1", "persistentvolumeclaims"],
  ServiceAccount: ["v1", "serviceaccounts"],
  Service: ["v1", "services"],
  NetworkPolicy: ["networking.k8s.io/v1", "networkpolicies"],
  Deployment: ["apps/v1", "deployments"],
};

const RUNS = (["dynamic-apply", "server-side-apply"] as ApplyStrategy[]).flatMap((strategy) =>
  [false, true].map((syncFirst) => ({ strategy, syncFirst })),
);

for (const { strategy, syncFirst } of RUNS) {
  const NS = `llsd-handover-${strategy === "dynamic-apply" ? "dynamic" : "ssa"}${syncFirst ? "-late" : ""}`;

  const order = syncFirst ? "after a sync" : "before the first sync";
  describe(`handover of a running v1alpha1 resource from the retired operator, ${order} (${strategy})`, function () {
    this.timeout(180_000);
    const kube = () => cluster().kube;
    let conversion: ConversionHook | undefined;
    let server: Server | undefined;
    let mc: Metacontroller;
    let work = "";
    /** kind → UID of the retired operator's children. */
    const uids: Record<string, string> = {};
    let oldPods: string[] = [];
    let clusterIP = "";

    const get = async (kind: string, name: string): Promise<Obj> => {
      const [apiVersion, resource] = RESOURCES[kind] ?? ["", ""];
      const o = await kube().get(apiVersion, resource, NS, name);
      if (o === undefined) throw new Error(`no ${kind} ${NS}/${name}`);
      return o;
    };
    const podNames = async (selector: string) =>
      (await kube().list("v1", "pods", NS, selector)).map((p) => p.metadata.name).sort();

    before(async () => {
      await kube().mustCreate("v1", "namespaces", {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: NS },
      });
      conversion = await serveV1alpha1(NS);
      const hook = await serveHook(FIELD_MANAGER);
      server = hook.server;
      mc = new Metacontroller(kube(), hook.url, {
        applyStrategy: strategy,
        fieldManager: FIELD_MANAGER,
      });
      work = mkdtempSync(join(tmpdir(), "llsd-handover-"));
      mkdirSync(join(work, "bin"));
      symlinkSync(kubectl(), join(work, "bin", "kubectl"));
    });

    after(async () => {
      await kube().remove(V2, RESOURCE, NS, NAME);
      await conversion?.stop();
      await new Promise((resolve) => server?.close(resolve));
      rmSync(work, { recursive: true, force: true });
    });

    it("a v1alpha1 resource runs with the children the retired operator made", async () => {
      const config = readFileSync(
        join(root, "configs", "0.7.3", "distributions", "starter", "config.yaml"),
        "utf8",
      );
      await kube().mustCreate("v1", "configmaps", {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "run-config", namespace: NS },
        data: { "config.yaml": config },
      });
      const parent = await kube().mustCreate(V1, RESOURCE, {
        apiVersion: V1,
        kind: "LlamaStackDistribution",
        metadata: { name: NAME, namespace: NS },
        spec: V1_SPEC,
      });
      for (const child of retiredChildren(parent)) {
        const [apiVersion, resource] = RESOURCES[child.kind] ?? ["", ""];
        const made = await kube().mustCreate(apiVersion, resource, child);
        uids[child.kind] = made.metadata.uid ?? "";
      }
      await waitRolledOut(kube(), NS, NAME, "app=llama-stack");
      oldPods = await podNames("app=llama-stack");
      expect(oldPods).to.have.length(1);
      clusterIP = String((await get("Service", `${NAME}-service`)).spec?.["clusterIP"]);
      // Read at v1alpha2 (converted by the hook): the release it names is the one v1alpha1 ran.
      const v2 = (await kube().get(V2, RESOURCE, NS, NAME)) as Obj;
      expect(v2.spec?.["distribution"]).to.deep.include({ name: "starter", release: "0.7.3" });
      expect(v2.spec?.["overrideConfig"]).to.deep.equal({ configMapName: "run-config" });
    });

    const childNames = (kinds: string[]) =>
      kinds.map((kind) =>
        kind === "Deployment" ? `${kind}/${NAME}` : `${kind}/${NAME}-${suffix(kind)}`,
      );
    const kept = () => Object.keys(uids).filter((k) => k !== "Deployment");

    if (syncFirst)
      it("a sync before the handover releases every child and cannot take the Deployment; nothing is deleted", async () => {
        const round = (await mc.sync(NS, NAME)) as SyncRound;
        expect(round.httpStatus).to.equal(200);
        expect(round.released).to.include.members(childNames(Object.keys(uids)));
        expect(round.created).to.not.include(`Deployment/${NAME}`);
        expect(round.deleted).to.deep.equal([]);
        if (strategy === "dynamic-apply") {
          // Metacontroller swallows AlreadyExists: every create fails silently.
          for (const [kind, uid] of Object.entries(uids)) {
            const child = await get(kind, nameOf(kind));
            expect(child.metadata.uid, kind).to.equal(uid);
            expect(controllerOf(child), kind).to.equal(undefined);
          }
        } else {
          // An apply creates or updates: it takes the released children over where
          // it can, but the Deployment's selector is immutable.
          expect(round.errors.join("\n")).to.match(
            new RegExp(`apply Deployment/${NAME}: HTTP 422: .*field is immutable`),
          );
          // The Service's selector (an atomic map) is now llsd-hook's alone, which
          // none of the running pods matches: the Service is down until the handover.
          const svc = await get("Service", `${NAME}-service`);
          expect(svc.spec?.["selector"]).to.deep.equal(OUR_SELECTOR);
          expect(await podNames(selectorText(OUR_SELECTOR))).to.deep.equal([]);
        }
        expect(await podNames("app=llama-stack")).to.deep.equal(oldPods);
      });

    it("scripts/adopt-v1alpha1.sh labels the pods, sets the selectors, orphans the Deployment and labels the rest", async () => {
      const out = runScript();
      expect(out).to.include(`${NS}/${NAME}: handed over`);
      const parent = await kube().get(V2, RESOURCE, NS, NAME);
      for (const kind of kept()) {
        const child = await get(kind, nameOf(kind));
        expect(child.metadata.labels?.["controller-uid"], kind).to.equal(parent?.metadata.uid);
      }
      expect(await kube().get("apps/v1", "deployments", NS, NAME)).to.equal(undefined);
      expect((await get("Service", `${NAME}-service`)).spec?.["selector"]).to.deep.equal(
        OUR_SELECTOR,
      );
      // The pods keep running, orphaned with their ReplicaSet, and match llsd-hook's selectors.
      expect(await podNames("app.kubernetes.io/name=llama-stack,app=llama-stack")).to.deep.equal(
        oldPods,
      );
      const rs = await kube().list(
        "apps/v1",
        "replicasets",
        NS,
        "app.kubernetes.io/name=llama-stack",
      );
      expect(rs).to.have.length(1);
      expect(controllerOf(rs[0] as Obj)).to.equal(undefined);
      // Run again, it changes nothing: the Deployment is gone, the rest is labelled already.
      expect(runScript()).to.include(`${NS}/${NAME}: handed over`);
    });

    it("the next sync claims every child as it is and creates the Deployment, which adopts the running ReplicaSet", async () => {
      const round = (await mc.sync(NS, NAME)) as SyncRound;
      expect(round.errors).to.deep.equal([]);
      expect(round.released).to.deep.equal([]);
      expect(round.deleted).to.deep.equal([]);
      expect(round.created).to.include(`Deployment/${NAME}`);
      const parent = await kube().get(V2, RESOURCE, NS, NAME);
      for (const kind of kept()) {
        const child = await get(kind, nameOf(kind));
        expect(child.metadata.uid, kind).to.equal(uids[kind]);
        expect(controllerOf(child), kind).to.equal(parent?.metadata.uid);
      }
      const d = (await get("Deployment", NAME)) as unknown as Deployment;
      expect(d.spec?.selector).to.deep.equal({ matchLabels: OUR_SELECTOR });
      const c = d.spec?.template.spec?.containers.find((x) => x.name === "llama-stack");
      expect(c?.command, "the retired operator's command").to.equal(undefined);
      expect(c?.env?.map((e) => e.name)).to.not.include.members(["LLS_WORKERS", "LLS_PORT"]);
      expect(d.spec?.template.spec?.volumes?.map((v) => v.name)).to.not.include("user-config");
      expect(d.spec?.strategy?.type).to.equal("Recreate");
      const claim = d.spec?.template.spec?.volumes?.find((v) => v.persistentVolumeClaim);
      expect(claim?.persistentVolumeClaim?.claimName).to.equal(`${NAME}-pvc`);
      const pvc = await get("PersistentVolumeClaim", `${NAME}-pvc`);
      expect(pvc.spec?.["resources"]).to.deep.equal({ requests: { storage: "20Gi" } });
      const svc = await get("Service", `${NAME}-service`);
      expect(svc.spec?.["selector"]).to.deep.equal(OUR_SELECTOR);
      expect(svc.spec?.["clusterIP"]).to.equal(clusterIP);
      await waitFor(
        "the Deployment to adopt the retired ReplicaSet",
        async () => {
          const rs = await kube().list("apps/v1", "replicasets", NS, "app=llama-stack");
          return rs.length === 1 && controllerOf(rs[0] as Obj) === d.metadata?.uid
            ? true
            : undefined;
        },
        60_000,
      );
    });

    it("the roll replaces the retired operator's pods with the hook's, and the resource is Ready", async () => {
      await waitRolledOut(kube(), NS, NAME, `app.kubernetes.io/instance=${NAME}`);
      await waitFor(
        "the old pods to go",
        async () => {
          const now = await podNames(`app.kubernetes.io/instance=${NAME}`);
          return now.length === 1 && !oldPods.includes(now[0] ?? "") ? true : undefined;
        },
        60_000,
      );
      await markPodsReady(kube(), NS, `app.kubernetes.io/instance=${NAME}`);
      const round = (await mc.sync(NS, NAME)) as SyncRound;
      expect(round.errors).to.deep.equal([]);
      expect((round.storedStatus as { phase?: string }).phase).to.equal("Ready");
    });

    it("a further sync changes nothing", async () => {
      const round = (await mc.sync(NS, NAME)) as SyncRound;
      expect(round.errors).to.deep.equal([]);
      expect(round.created).to.deep.equal([]);
      expect(round.updated).to.deep.equal([]);
      expect(round.deleted).to.deep.equal([]);
    });

    if (!syncFirst && strategy === "dynamic-apply")
      it("the script refuses a child another object controls, and changes nothing", async () => {
        const parent = await kube().get(V2, RESOURCE, NS, NAME);
        await kube().mustCreate(V2, RESOURCE, {
          apiVersion: V2,
          kind: "LlamaStackDistribution",
          metadata: { name: "other", namespace: NS },
          spec: { distribution: { name: "starter", release: "0.7.3" } },
        });
        // `other-service`, but controlled by `llama`.
        const foreign = await kube().mustCreate("v1", "services", {
          apiVersion: "v1",
          kind: "Service",
          metadata: {
            name: "other-service",
            namespace: NS,
            ownerReferences: [
              {
                apiVersion: V2,
                kind: "LlamaStackDistribution",
                name: NAME,
                uid: parent?.metadata.uid ?? "",
                controller: true,
              },
            ],
          },
          spec: { selector: RETIRED_SELECTOR, ports: [{ port: 8321 }] },
        });
        let failure = "";
        try {
          runScript("other");
        } catch (err) {
          failure = String((err as { stderr?: string }).stderr);
        }
        expect(failure).to.include(`${NS}/service/other-service is controlled by another object`);
        const after = await get("Service", "other-service");
        expect(after.metadata.resourceVersion).to.equal(foreign.metadata.resourceVersion);
        await kube().remove(V2, RESOURCE, NS, "other");
      });

    function runScript(name = NAME): string {
      return execFileSync("sh", [join(root, "scripts", "adopt-v1alpha1.sh"), NS, name], {
        env: {
          PATH: `${join(work, "bin")}:/usr/bin:/bin`,
          HOME: work,
          KUBECONFIG: cluster().kubeconfig,
        },
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      });
    }
  });
}

function selectorText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
}

function nameOf(kind: string): string {
  return kind === "Deployment" ? NAME : `${NAME}-${suffix(kind)}`;
}

/** The UID of an object's controller, if it has one. */
function controllerOf(o: Obj): string | undefined {
  const refs = (o.metadata as { ownerReferences?: { uid: string; controller?: boolean }[] })
    .ownerReferences;
  return refs?.find((r) => r.controller === true)?.uid;
}

function suffix(kind: string): string {
  const suffixes: Record<string, string> = {
    PersistentVolumeClaim: "pvc",
    ServiceAccount: "sa",
    Service: "service",
    NetworkPolicy: "network-policy",
  };
  return suffixes[kind] ?? "";
}
