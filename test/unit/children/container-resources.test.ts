// Table tests for the server container's resources: the user's requests and
// limits merged with the default requests.
import { expect } from "chai";
import type { ResourceRequirements } from "kubernetes-types/core/v1.js";
import { containerResources, defaultRequests } from "../../../src/children/container-resources.js";

describe("defaultRequests", () => {
  const rows: [workers: number, expected: { cpu: string; memory: string }][] = [
    [1, { cpu: "250m", memory: "512Mi" }],
    [2, { cpu: "500m", memory: "768Mi" }],
    [4, { cpu: "1000m", memory: "1280Mi" }],
    [64, { cpu: "16000m", memory: "16640Mi" }],
  ];
  for (const [workers, expected] of rows)
    it(`${workers} worker(s)`, () => expect(defaultRequests(workers)).to.deep.equal(expected));
});

describe("containerResources", () => {
  const rows: [
    why: string,
    user: ResourceRequirements | undefined,
    workers: number,
    out: unknown,
  ][] = [
    ["nothing set: both defaults", undefined, 1, { requests: { cpu: "250m", memory: "512Mi" } }],
    ["an empty resources: both defaults", {}, 1, { requests: { cpu: "250m", memory: "512Mi" } }],
    ["CPU scales with workers", undefined, 4, { requests: { cpu: "1", memory: "1280Mi" } }],
    [
      "a user request wins; the other resource is defaulted",
      { requests: { cpu: "2" } },
      1,
      { requests: { cpu: "2", memory: "512Mi" } },
    ],
    [
      "a limit without a request: no default (Kubernetes takes the limit)",
      { limits: { memory: "256Mi" } },
      1,
      { requests: { cpu: "250m" }, limits: { memory: "256Mi" } },
    ],
    [
      "both set by the user: kept, in stored form",
      { requests: { cpu: "1000m", memory: "1024Mi" }, limits: { cpu: "2000m", memory: "2Gi" } },
      1,
      { requests: { cpu: "1", memory: "1Gi" }, limits: { cpu: "2", memory: "2Gi" } },
    ],
    [
      "other resources and claims are kept",
      {
        requests: { "nvidia.com/gpu": "1" },
        limits: { "nvidia.com/gpu": "1" },
        claims: [{ name: "gpu" }],
      },
      1,
      {
        requests: { "nvidia.com/gpu": "1", cpu: "250m", memory: "512Mi" },
        limits: { "nvidia.com/gpu": "1" },
        claims: [{ name: "gpu" }],
      },
    ],
  ];
  for (const [why, user, workers, out] of rows)
    it(why, () => expect(containerResources(user, workers)).to.deep.equal(out));

  it("does not change its input", () => {
    const user = Object.freeze({ requests: Object.freeze({ cpu: "500m" }) });
    containerResources(user, 2);
    expect(user).to.deep.equal({ requests: { cpu: "500m" } });
  });
});
