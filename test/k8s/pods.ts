// The kubelet's part, played by the tests: there is no kubelet in the suite,
// so pods the ReplicaSet controller creates are marked Running and Ready by
// hand, and a rollout is waited for the way `kubectl rollout status` does.
import type { KubeObject } from "../../src/api/hook.js";
import { rolledOutReplicas, type ObservedDeployment } from "../support/rollout.js";
import { waitFor, type Kube } from "./kube.js";

/** Every pod matching `selector` not yet ready (nor being deleted) becomes Running and Ready. */
export async function markPodsReady(
  kube: Kube,
  namespace: string,
  selector: string,
): Promise<number> {
  const pods = await kube.list("v1", "pods", namespace, selector);
  let marked = 0;
  for (const pod of pods) {
    const p = pod as KubeObject & {
      status?: { phase?: string };
      metadata: { deletionTimestamp?: string };
    };
    if (p.status?.phase === "Running" || p.metadata.deletionTimestamp !== undefined) continue;
    const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    await kube.replaceStatus("v1", "pods", {
      ...p,
      status: {
        ...(p.status ?? {}),
        phase: "Running",
        startTime: now,
        conditions: ["PodScheduled", "Initialized", "ContainersReady", "Ready"].map((type) => ({
          type,
          status: "True",
          lastTransitionTime: now,
        })),
      },
    });
    marked++;
  }
  return marked;
}

/**
 * Waits until the Deployment controller reports the Deployment `name`'s
 * current template rolled out and available, marking its pods (those
 * matching `selector`) ready meanwhile.
 */
export async function waitRolledOut(
  kube: Kube,
  namespace: string,
  name: string,
  selector: string,
): Promise<void> {
  await waitFor(
    `the Deployment ${namespace}/${name} to roll out`,
    async () => {
      await markPodsReady(kube, namespace, selector);
      const d = (await kube.get("apps/v1", "deployments", namespace, name)) as
        ObservedDeployment | undefined;
      return rolledOutReplicas(d) === undefined ? undefined : true;
    },
    90_000,
    500,
  );
}
