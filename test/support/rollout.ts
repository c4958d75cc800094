// A Deployment's rollout as its controller reports it: the check that
// `kubectl rollout status` makes, for the tiers that wait on one (the
// kubelet stood in for by test/k8s/pods.ts, the real one in test/node/).
import type { KubeObject } from "../../src/api/hook.js";

/** A Deployment read back from the API server: its wanted replicas and its controller's report. */
export type ObservedDeployment = KubeObject & {
  spec: { replicas?: number };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    availableReplicas?: number;
  };
};

/**
 * The replicas of `d` once its controller has seen its current generation and
 * reports every replica updated and available, and no other; undefined before.
 */
export function rolledOutReplicas(d: ObservedDeployment | undefined): number | undefined {
  const s = d?.status;
  const want = d?.spec.replicas ?? 1;
  return s !== undefined &&
    (s.observedGeneration ?? 0) >= (d?.metadata.generation ?? 1) &&
    s.updatedReplicas === want &&
    s.replicas === want &&
    s.availableReplicas === want
    ? want
    : undefined;
}
