// The PodDisruptionBudget `<name>-pdb` of workload.podDisruptionBudget
// (docs/guide/workload.md), left out when it would allow no disruption at all.
import type { PodDisruptionBudget } from "kubernetes-types/policy/v1.js";
import { childMetadata, type Child, type Owner } from "./child.js";
import { childNames, selectorFor } from "./labels.js";

/** Exactly one of the two is set (the schema says so); a count or a percentage such as "50%". */
export interface Budget {
  minAvailable?: number | string | undefined;
  maxUnavailable?: number | string | undefined;
}

export function buildPdb(input: Owner & Budget): Child<PodDisruptionBudget> {
  const { minAvailable, maxUnavailable } = input;
  return {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: childMetadata(input, childNames.pdb(input.llsd)),
    spec: {
      selector: { matchLabels: selectorFor(input.llsd) },
      ...(minAvailable === undefined ? {} : { minAvailable }),
      ...(maxUnavailable === undefined ? {} : { maxUnavailable }),
    },
  };
}

/**
 * Disruptions a budget allows with `replicas` pods. A percentage rounds up and
 * is scaled as Kubernetes does (intstr: ceil(percent × replicas / 100), the
 * product first, so 7% of 100 is 7, not 8 from 0.07 × 100 in floating point).
 */
export function allowedDisruptions(replicas: number, budget: Budget): number {
  const resolve = (v: number | string) =>
    typeof v === "number" ? v : Math.ceil((Number.parseInt(v, 10) * replicas) / 100);
  if (budget.minAvailable !== undefined) return replicas - resolve(budget.minAvailable);
  if (budget.maxUnavailable !== undefined)
    return Math.min(replicas, resolve(budget.maxUnavailable));
  return 0;
}
