// Table tests for the HorizontalPodAutoscaler of workload.autoscaling.
import { expect } from "chai";
import { buildHpa, type HpaInput } from "../../../src/children/hpa.js";

const owner = { llsd: "llama", namespace: "default" };
const utilization = (name: string, averageUtilization: number) => ({
  type: "Resource",
  resource: { name, target: { type: "Utilization", averageUtilization } },
});

describe("buildHpa", () => {
  const rows: [
    input: Omit<HpaInput, "llsd" | "namespace">,
    metrics: unknown[] | undefined,
    why: string,
  ][] = [
    [{ minReplicas: 1, maxReplicas: 3, cpu: 80 }, [utilization("cpu", 80)], "CPU only"],
    [{ minReplicas: 1, maxReplicas: 3, memory: 70 }, [utilization("memory", 70)], "memory only"],
    [
      { minReplicas: 2, maxReplicas: 5, cpu: 80, memory: 70 },
      [utilization("cpu", 80), utilization("memory", 70)],
      "both: CPU first",
    ],
    [
      { minReplicas: 1, maxReplicas: 3 },
      undefined,
      "neither: no metrics key (the API server's default applies)",
    ],
    [
      { minReplicas: 1, maxReplicas: 3, cpu: undefined },
      undefined,
      "an explicit undefined is left out",
    ],
    [
      { minReplicas: 1, maxReplicas: 1, cpu: 0 },
      [utilization("cpu", 0)],
      "zero is a value, not a missing one",
    ],
  ];
  for (const [input, metrics, why] of rows)
    it(why, () => {
      const hpa = buildHpa({ ...owner, ...input });
      expect(hpa.metadata.name).to.equal("llama-hpa");
      expect(hpa.spec?.scaleTargetRef).to.deep.equal({
        apiVersion: "apps/v1",
        kind: "Deployment",
        name: "llama",
      });
      expect(hpa.spec?.minReplicas).to.equal(input.minReplicas);
      expect(hpa.spec?.maxReplicas).to.equal(input.maxReplicas);
      expect(hpa.spec?.metrics).to.deep.equal(metrics);
      expect(hpa.spec !== undefined && "metrics" in hpa.spec).to.equal(metrics !== undefined);
    });
});
