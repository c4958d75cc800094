// Table tests for the PodDisruptionBudget: the disruptions a budget allows
// (which decides whether it is created at all) and the object built.
import { expect } from "chai";
import { allowedDisruptions, buildPdb, type Budget } from "../../../src/children/pdb.js";

const owner = { llsd: "llama", namespace: "default" };

describe("allowedDisruptions", () => {
  const rows: [replicas: number, budget: Budget, allowed: number, why: string][] = [
    [1, { minAvailable: 1 }, 0, "one replica that must stay: blocks every drain"],
    [3, { minAvailable: 1 }, 2, "a count"],
    [3, { minAvailable: "50%" }, 1, "a percentage rounds up (1.5 → 2 must stay)"],
    [3, { minAvailable: "100%" }, 0, "every pod must stay"],
    [4, { minAvailable: 0 }, 4, "nothing must stay"],
    [3, { maxUnavailable: 1 }, 1, "a count"],
    [3, { maxUnavailable: "34%" }, 2, "a percentage rounds up (1.02 → 2)"],
    [2, { maxUnavailable: 5 }, 2, "never more than the replicas"],
    [2, { maxUnavailable: "0%" }, 0, "no pod may go"],
    [0, { maxUnavailable: 1 }, 0, "no replicas at all"],
    [3, {}, 0, "neither field: nothing is allowed"],
    [
      3,
      { minAvailable: 1, maxUnavailable: 0 },
      2,
      "both set (the schema refuses it): minAvailable wins",
    ],
    [
      3,
      { minAvailable: 5 },
      -2,
      "hostile: more than the replicas gives a negative count, still < 1",
    ],
    [100, { maxUnavailable: "7%" }, 7, "percent × replicas first: 0.07 × 100 would round up to 8"],
    [100, { minAvailable: "7%" }, 93, "the same for minAvailable"],
    [1_000_000, { maxUnavailable: "1%" }, 10_000, "huge"],
  ];
  for (const [replicas, budget, allowed, why] of rows)
    it(`${replicas} replicas, ${JSON.stringify(budget)} → ${allowed} (${why})`, () =>
      expect(allowedDisruptions(replicas, budget)).to.equal(allowed));

  it("hostile: a percentage that is no number allows NaN disruptions, which is not ≥ 1", () => {
    const allowed = allowedDisruptions(3, { minAvailable: "x%" });
    expect(Number.isNaN(allowed)).to.equal(true);
    expect(allowed >= 1).to.equal(false);
  });
});

describe("buildPdb", () => {
  const rows: [budget: Budget, spec: Record<string, unknown>][] = [
    [{ minAvailable: 1 }, { minAvailable: 1 }],
    [{ maxUnavailable: "50%" }, { maxUnavailable: "50%" }],
    [{}, {}], // neither: only the selector
    [{ minAvailable: undefined, maxUnavailable: 0 }, { maxUnavailable: 0 }], // undefined is left out
  ];
  for (const [budget, fields] of rows)
    it(JSON.stringify(budget), () =>
      expect(buildPdb({ ...owner, ...budget })).to.deep.equal({
        apiVersion: "policy/v1",
        kind: "PodDisruptionBudget",
        metadata: {
          name: "llama-pdb",
          namespace: "default",
          labels: {
            "app.kubernetes.io/name": "llama-stack",
            "app.kubernetes.io/instance": "llama",
            "app.kubernetes.io/part-of": "llama-stack",
            "app.kubernetes.io/managed-by": "llsd-hook",
          },
        },
        spec: {
          selector: {
            matchLabels: {
              "app.kubernetes.io/name": "llama-stack",
              "app.kubernetes.io/instance": "llama",
            },
          },
          ...fields,
        },
      }),
    );
});
