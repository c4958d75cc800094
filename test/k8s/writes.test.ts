// What one parent costs Metacontroller in writes (docs/operations/capacity.md):
// every write is a request through its rate-limited client, so a fleet
// converges at the speed of these counts. Driven by the stand-in
// (test/k8s/metacontroller.ts, dynamic apply) against the real API server and
// Deployment controller; the pods are marked ready as a kubelet would.
import { expect } from "chai";
import type { Server } from "node:http";
import { API_VERSION, KIND } from "../../src/api/schema.js";
import { restrictedNamespace, waitFor } from "./kube.js";
import { Metacontroller, type SyncRound } from "./metacontroller.js";
import { serveHook } from "./serve-hook.js";
import { waitRolledOut } from "./pods.js";
import { cluster } from "./setup.js";

const NS = "llsd-writes";
const NAME = "fleet-member";
const RESOURCE = "llamastackdistributions";

function spec(models: number): unknown {
  return {
    distribution: { name: "starter" },
    providers: {
      inference: [
        {
          provider: "vllm",
          endpoint: "http://vllm.models:8000/v1",
          apiKey: { secretKeyRef: { name: "vllm-creds", key: "token" } },
        },
      ],
    },
    resources: { models: Array.from({ length: models }, (_, i) => ({ name: `model-${i}` })) },
  };
}

/** Every write of the rounds, as "verb Kind" (status: the parent's status). */
function writes(rounds: SyncRound[]): string[] {
  return rounds.flatMap((r) => [
    ...r.created.map((c) => `create ${c.split("/")[0]}`),
    ...r.updated.map((c) => `update ${c.split("/")[0]}`),
    ...r.deleted.map((c) => `delete ${c.split("/")[0]}`),
    ...(r.statusWritten ? ["status"] : []),
  ]);
}

describe("writes per parent, through the stand-in Metacontroller and the real API server", function () {
  this.timeout(180_000);
  let server: Server;
  let mc: Metacontroller;
  const kube = () => cluster().kube;
  const rolledOut = () => waitRolledOut(kube(), NS, NAME, `app.kubernetes.io/instance=${NAME}`);

  before(async () => {
    const hook = await serveHook();
    server = hook.server;
    mc = new Metacontroller(kube(), hook.url);
    await kube().mustCreate("v1", "namespaces", restrictedNamespace(NS));
    await kube().mustCreate("v1", "secrets", {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "vllm-creds", namespace: NS },
      stringData: { token: "t" },
    });
  });

  after(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await kube().remove(API_VERSION, RESOURCE, NS, NAME);
    await kube().remove("v1", "namespaces", undefined, NS);
  });

  it("a new parent: its four children and one status, whenever the Deployment controller posts", async () => {
    await kube().mustCreate(API_VERSION, RESOURCE, {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: { name: NAME, namespace: NS },
      spec: spec(2),
    });
    const rounds = await mc.reconcile(NS, NAME);
    expect(writes(rounds).sort()).to.deep.equal([
      "create ConfigMap",
      "create Deployment",
      "create Service",
      "create ServiceAccount",
      "status",
    ]);
    // The second sync (the children's and the status's events) changed nothing.
    expect(rounds).to.have.length(2);
    // The Deployment controller's first status post is an update event: one
    // more sync, which must write nothing either.
    await waitFor(
      "the Deployment controller's first status",
      async () => {
        const d = (await kube().get("apps/v1", "deployments", NS, NAME)) as
          { status?: { conditions?: unknown[] } } | undefined;
        return (d?.status?.conditions?.length ?? 0) > 0 ? true : undefined;
      },
      60_000,
    );
    expect(writes(await mc.reconcile(NS, NAME))).to.deep.equal([]);
  });

  it("its pods ready: one status write (Ready)", async () => {
    await rolledOut();
    const rounds = await mc.reconcile(NS, NAME);
    expect(writes(rounds)).to.deep.equal(["status"]);
    expect((rounds[0]?.storedStatus as { phase?: string }).phase).to.equal("Ready");
  });

  it("an edit of the config: five writes, two of them once the rollout is done", async () => {
    const parent = await kube().get(API_VERSION, RESOURCE, NS, NAME);
    if (parent === undefined) throw new Error("no parent");
    await kube().replace(API_VERSION, RESOURCE, { ...parent, spec: spec(3) });
    expect(writes(await mc.reconcile(NS, NAME)).sort()).to.deep.equal([
      "create ConfigMap",
      "status",
      "update Deployment",
    ]);
    await rolledOut();
    expect(writes(await mc.reconcile(NS, NAME)).sort()).to.deep.equal([
      "delete ConfigMap",
      "status",
    ]);
  });
});
