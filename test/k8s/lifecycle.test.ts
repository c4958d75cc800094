// One LlamaStackDistribution's life on a real control plane, with the hook
// served over HTTP and driven the way Metacontroller drives it
// (test/k8s/metacontroller.ts), once with each of Metacontroller's apply
// strategies (dynamic apply, server-side apply): create, roll out, change a provider (new
// ConfigMap, the previous one kept until the Deployment controller reports the
// rollout done), break it in ways only the hook can see (nothing deleted, the
// status explains), fix it, delete it (the garbage collector removes the
// children). There is no kubelet here, so the test marks the pods the
// ReplicaSet controller creates as running and ready, as a kubelet would.
import { expect } from "chai";
import type { Server } from "node:http";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import { LAST_APPLIED_ANNOTATION, type KubeObject } from "../../src/api/hook.js";
import { API_VERSION, KIND } from "../../src/api/schema.js";
import { CHILD_TYPES } from "../../src/children/types.js";
import { restrictedNamespace, waitFor } from "./kube.js";
import { Metacontroller, type ApplyStrategy, type SyncRound } from "./metacontroller.js";
import { serveHook } from "./serve-hook.js";
import { waitRolledOut as rolledOut } from "./pods.js";
import { cluster } from "./setup.js";

const NAME = "llama";
const FIELD_MANAGER = "metacontroller";
const RESOURCE = "llamastackdistributions";
const SECRET_VALUE = "canary-sk-7f3a9c1e5b";

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}
interface StoredStatus {
  phase?: string;
  conditions?: Condition[];
  configGeneration?: { configMapName: string };
}

function spec(provider: string, endpoint: string): unknown {
  return {
    distribution: { name: "starter" },
    providers: {
      inference: [
        {
          provider,
          endpoint,
          apiKey: { secretKeyRef: { name: "vllm-creds", key: "token" } },
        },
      ],
    },
    resources: { models: [{ name: "llama3.2-8b" }] },
  };
}

function conditionOf(status: unknown, type: string): Condition | undefined {
  return (status as StoredStatus).conditions?.find((c) => c.type === type);
}

function last(rounds: SyncRound[]): SyncRound {
  const r = rounds.at(-1);
  if (r === undefined) throw new Error("no sync round");
  return r;
}

interface ManagedFieldsEntry {
  manager: string;
  operation: string;
  subresource?: string;
}

function applyManagers(obj: KubeObject): string[] {
  const entries = (obj.metadata as { managedFields?: ManagedFieldsEntry[] }).managedFields ?? [];
  return entries
    .filter((e) => e.operation === "Apply" && (e.subresource ?? "") === "")
    .map((e) => e.manager);
}

for (const strategy of ["dynamic-apply", "server-side-apply"] as ApplyStrategy[]) {
  const NS = `llsd-lifecycle-${strategy === "dynamic-apply" ? "dynamic" : "ssa"}`;

  describe(`an LLSD's lifecycle, driven like Metacontroller with --apply-strategy=${strategy}`, function () {
    this.timeout(180_000);
    let server: Server;
    let mc: Metacontroller;
    const kube = () => cluster().kube;

    /** kind/name → resourceVersion of every child in the cluster. */
    async function snapshot(): Promise<Record<string, string>> {
      const parent = await kube().get(API_VERSION, RESOURCE, NS, NAME);
      if (parent === undefined) return {};
      const children = await mc.children(parent);
      return Object.fromEntries(
        children.map((c) => [`${c.kind}/${c.metadata.name}`, c.metadata.resourceVersion ?? ""]),
      );
    }

    async function configMapNames(): Promise<string[]> {
      return Object.keys(await snapshot())
        .filter((k) => k.startsWith("ConfigMap/"))
        .sort();
    }

    async function deployment(): Promise<Deployment> {
      const d = await kube().get("apps/v1", "deployments", NS, NAME);
      if (d === undefined) throw new Error(`no Deployment ${NAME}`);
      return d as unknown as Deployment;
    }

    async function setSpec(next: unknown): Promise<void> {
      const parent = await kube().get(API_VERSION, RESOURCE, NS, NAME);
      if (parent === undefined) throw new Error("no parent");
      await kube().replace(API_VERSION, RESOURCE, { ...parent, spec: next });
    }

    const waitRolledOut = () => rolledOut(kube(), NS, NAME, "app.kubernetes.io/instance=" + NAME);

    before(async () => {
      const hook = await serveHook(FIELD_MANAGER);
      server = hook.server;
      mc = new Metacontroller(kube(), hook.url, {
        applyStrategy: strategy,
        fieldManager: FIELD_MANAGER,
      });
      await kube().mustCreate("v1", "namespaces", restrictedNamespace(NS));
    });

    after(async () => {
      await new Promise((resolve) => server?.close(resolve));
    });

    it("creates nothing while the Secret is missing, then the children once it exists", async () => {
      await kube().mustCreate(API_VERSION, RESOURCE, {
        apiVersion: API_VERSION,
        kind: KIND,
        metadata: { name: NAME, namespace: NS },
        spec: spec("vllm", "http://vllm.example:8000/v1"),
      });
      let round = last(await mc.reconcile(NS, NAME));
      expect(round.httpStatus).to.equal(200);
      expect(await snapshot()).to.deep.equal({});
      expect(conditionOf(round.storedStatus, "SecretsResolved")).to.include({
        status: "False",
        reason: "SecretNotFound",
      });

      await kube().mustCreate("v1", "secrets", {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "vllm-creds", namespace: NS },
        stringData: { token: SECRET_VALUE },
      });
      round = last(await mc.reconcile(NS, NAME));
      const children = await snapshot();
      const configMaps = Object.keys(children).filter((k) => k.startsWith("ConfigMap/"));
      expect(configMaps).to.have.length(1);
      expect(Object.keys(children)).to.include.members([
        `Deployment/${NAME}`,
        `Service/${NAME}-service`,
        `ServiceAccount/${NAME}-sa`,
      ]);
      const status = round.storedStatus as StoredStatus;
      expect(configMaps[0]).to.equal(`ConfigMap/${status.configGeneration?.configMapName}`);
      expect(status.phase).to.equal("Initializing");

      // What Metacontroller keeps: the last-applied annotation (dynamic apply) or
      // an Apply entry of its field manager (server-side apply), and a controller ownerRef.
      const parent = await kube().get(API_VERSION, RESOURCE, NS, NAME);
      for (const t of CHILD_TYPES) {
        for (const c of await kube().list(t.apiVersion, t.resource, NS)) {
          if (c.kind === "ConfigMap" && c.metadata.name === "kube-root-ca.crt") continue;
          if (c.kind === "ServiceAccount" && c.metadata.name === "default") continue;
          const at = `${c.kind}/${c.metadata.name}`;
          const meta = c.metadata as KubeObject["metadata"] & {
            ownerReferences?: { uid: string }[];
          };
          if (strategy === "dynamic-apply") {
            expect(meta.annotations, at).to.have.property(LAST_APPLIED_ANNOTATION);
            expect(applyManagers(c), at).to.deep.equal([]);
          } else {
            expect(meta.annotations ?? {}, at).not.to.have.property(LAST_APPLIED_ANNOTATION);
            expect(applyManagers(c), at).to.deep.equal([FIELD_MANAGER]);
          }
          expect(meta.ownerReferences?.map((r) => r.uid)).to.deep.equal([parent?.metadata.uid]);
        }
      }
      // The key went to the container's env by reference, never into a ConfigMap.
      for (const cm of await kube().list("v1", "configmaps", NS))
        expect(JSON.stringify(cm)).not.to.include(SECRET_VALUE);
    });

    it("reports Ready once the Deployment controller has rolled the pods out", async () => {
      await waitRolledOut();
      const round = last(await mc.reconcile(NS, NAME));
      expect((round.storedStatus as StoredStatus).phase).to.equal("Ready");
      expect(conditionOf(round.storedStatus, "Available")).to.include({ status: "True" });
      expect(conditionOf(round.storedStatus, "Ready")).to.include({ status: "True" });
      // A fixed point: syncing again changes nothing at all.
      const again = await mc.sync(NS, NAME);
      expect(again).to.include({ statusWritten: false });
      expect(again?.created).to.deep.equal([]);
      expect(again?.updated).to.deep.equal([]);
      expect(again?.deleted).to.deep.equal([]);
      // Server-side apply: the cache skips every unchanged child, no PATCH is sent.
      expect(again?.applied).to.deep.equal([]);
    });

    it("a provider change rolls out a new ConfigMap and keeps the old one until the rollout is done", async () => {
      const [before] = await configMapNames();
      const templateBefore = JSON.stringify((await deployment()).spec?.template);
      await setSpec(spec("remote::vllm", "http://vllm-2.example:8000/v1"));
      await mc.reconcile(NS, NAME);
      const during = await configMapNames();
      expect(during).to.have.length(2);
      expect(during).to.include(before);
      const template = (await deployment()).spec?.template;
      expect(JSON.stringify(template)).not.to.equal(templateBefore);
      const mounted = template?.spec?.volumes?.find((v) => v.name === "config")?.configMap?.name;
      expect(mounted).to.not.equal(before?.slice("ConfigMap/".length));
      expect(during).to.include(`ConfigMap/${mounted}`);

      await waitRolledOut();
      const round = last(await mc.reconcile(NS, NAME));
      expect(await configMapNames()).to.deep.equal([`ConfigMap/${mounted}`]);
      expect((round.storedStatus as StoredStatus).phase).to.equal("Ready");
    });

    it("a provider the release lacks deletes and changes nothing; the status says what and where", async () => {
      const kept = await snapshot();
      await setSpec(spec("no-such-provider", "http://vllm-2.example:8000/v1"));
      const rounds = await mc.reconcile(NS, NAME);
      const round = last(rounds);
      expect(round.httpStatus).to.equal(200);
      expect(await snapshot()).to.deep.equal(kept);
      // Server-side apply: the children kept equal what was applied, so the cache skips them all.
      expect(rounds.flatMap((r) => r.applied)).to.deep.equal([]);
      const status = round.storedStatus as StoredStatus;
      expect(status.phase).to.equal("Failed");
      const failed = status.conditions?.find((c) => c.reason === "UnknownProviderType");
      expect(failed?.message).to.match(/^spec\.providers\.inference\[0\]\.provider: /);
      expect(conditionOf(status, "Stalled")).to.include({ status: "True" });
    });

    it("a deleted Secret deletes and changes nothing; the status names it", async () => {
      await setSpec(spec("remote::vllm", "http://vllm-2.example:8000/v1"));
      await kube().remove("v1", "secrets", NS, "vllm-creds");
      const kept = await snapshot();
      const rounds = await mc.reconcile(NS, NAME);
      const round = last(rounds);
      expect(await snapshot()).to.deep.equal(kept);
      expect(rounds.flatMap((r) => r.applied)).to.deep.equal([]);
      const secrets = conditionOf(round.storedStatus, "SecretsResolved");
      expect(secrets).to.include({ status: "False", reason: "SecretNotFound" });
      expect(secrets?.message).to.include("vllm-creds");
      expect(JSON.stringify(round.storedStatus)).not.to.include(SECRET_VALUE);
    });

    it("fixing it brings the distribution back to Ready (a new Secret rolls the pods)", async () => {
      const templateBefore = JSON.stringify((await deployment()).spec?.template);
      await kube().mustCreate("v1", "secrets", {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "vllm-creds", namespace: NS },
        stringData: { token: `${SECRET_VALUE}-rotated` },
      });
      await mc.reconcile(NS, NAME);
      const templateAfter = JSON.stringify((await deployment()).spec?.template);
      expect(templateAfter, "the inputs-hash annotation changed").not.to.equal(templateBefore);
      await waitRolledOut();
      const round = last(await mc.reconcile(NS, NAME));
      expect((round.storedStatus as StoredStatus).phase).to.equal("Ready");
      expect(conditionOf(round.storedStatus, "Stalled")).to.equal(undefined);
    });

    it("adding a ReadWriteOnce volume to the running server switches its rollouts to Recreate", async () => {
      const running = spec("remote::vllm", "http://vllm-2.example:8000/v1") as object;
      await setSpec({ ...running, workload: { storage: { size: "1Gi" } } });
      await mc.reconcile(NS, NAME);
      const d = await deployment();
      // The API server defaulted rollingUpdate while the strategy was RollingUpdate;
      // it must go, or the Deployment is invalid.
      expect(d.spec?.strategy).to.deep.equal({ type: "Recreate" });
      const claim = d.spec?.template.spec?.volumes?.find((v) => v.name === "data");
      expect(claim?.persistentVolumeClaim?.claimName).to.equal(`${NAME}-pvc`);
      await waitRolledOut();
      const round = last(await mc.reconcile(NS, NAME));
      expect((round.storedStatus as StoredStatus).phase).to.equal("Ready");
    });

    it("deleting the parent lets the garbage collector remove every child", async () => {
      const parent = await kube().get(API_VERSION, RESOURCE, NS, NAME);
      expect(Object.keys(await snapshot()).length).to.be.greaterThan(3);
      await kube().remove(API_VERSION, RESOURCE, NS, NAME);
      await waitFor(
        "the children to be collected",
        async () => {
          for (const t of CHILD_TYPES) {
            const left = await kube().list(
              t.apiVersion,
              t.resource,
              NS,
              `controller-uid=${parent?.metadata.uid}`,
            );
            if (left.length > 0) return undefined;
          }
          const pods = await kube().list("v1", "pods", NS, "app.kubernetes.io/instance=" + NAME);
          return pods.length === 0 ? true : undefined;
        },
        120_000,
        500,
      );
    });
  });
}
