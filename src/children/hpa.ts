// The HorizontalPodAutoscaler `<name>-hpa` of workload.autoscaling
// (docs/guide/workload.md): it owns the Deployment's replica count.
import type { HorizontalPodAutoscaler, MetricSpec } from "kubernetes-types/autoscaling/v2.js";
import { childMetadata, type Child, type Owner } from "./child.js";
import { childNames } from "./labels.js";

export interface HpaInput extends Owner {
  minReplicas: number;
  maxReplicas: number;
  /** Target average CPU utilization, in percent. */
  cpu?: number | undefined;
  /** Target average memory utilization, in percent. */
  memory?: number | undefined;
}

function utilization(name: "cpu" | "memory", percent: number | undefined): MetricSpec[] {
  if (percent === undefined) return [];
  return [
    {
      type: "Resource",
      resource: { name, target: { type: "Utilization", averageUtilization: percent } },
    },
  ];
}

export function buildHpa(input: HpaInput): Child<HorizontalPodAutoscaler> {
  const metrics = [...utilization("cpu", input.cpu), ...utilization("memory", input.memory)];
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: childMetadata(input, childNames.hpa(input.llsd)),
    spec: {
      scaleTargetRef: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        name: childNames.deployment(input.llsd),
      },
      minReplicas: input.minReplicas,
      maxReplicas: input.maxReplicas,
      ...(metrics.length > 0 ? { metrics } : {}),
    },
  };
}
