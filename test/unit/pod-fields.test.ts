// The pod fields spec.workload passes through (api/workload.ts podFieldsOf):
// every one a spec sets reaches the Deployment's pod spec as written, through
// sync, and none it leaves out appears there. A field added to the group
// needs a row here before this file compiles.
import { expect } from "chai";
import fc from "fast-check";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { PodFields } from "../../src/api/workload.js";
import { request, syncOk } from "../support/request.js";

type PodField = keyof PodFields;

/** Where in spec.workload a field is written, and values the hook accepts for it. */
const FIELDS: {
  [K in PodField]-?: {
    in: "workload" | "overrides";
    value: fc.Arbitrary<NonNullable<PodFields[K]>>;
  };
} = {
  imagePullSecrets: {
    in: "overrides",
    value: fc
      .uniqueArray(fc.constantFrom("pull-a", "pull-b", "registry.example.com"), {
        minLength: 1,
        maxLength: 3,
      })
      .map((names) => names.map((name) => ({ name }))),
  },
  nodeSelector: {
    in: "overrides",
    value: fc.dictionary(
      fc.constantFrom("disktype", "kubernetes.io/arch", "topology.kubernetes.io/zone"),
      fc.constantFrom("ssd", "amd64", "zone-a", ""),
      { minKeys: 1 },
    ),
  },
  tolerations: {
    in: "overrides",
    value: fc.array(
      fc.oneof(
        fc.record({
          key: fc.constantFrom("gpu", "dedicated"),
          operator: fc.constant("Equal"),
          value: fc.constantFrom("true", "inference"),
          effect: fc.constantFrom("NoSchedule", "NoExecute", "PreferNoSchedule"),
        }),
        fc.record(
          { key: fc.constantFrom("gpu", "dedicated"), operator: fc.constant("Exists") },
          { requiredKeys: ["operator"] },
        ),
      ),
      { minLength: 1, maxLength: 3 },
    ),
  },
  affinity: {
    in: "overrides",
    value: fc.oneof(
      fc.record({
        nodeAffinity: fc.record({
          requiredDuringSchedulingIgnoredDuringExecution: fc.record({
            nodeSelectorTerms: fc.array(
              fc.record({
                matchExpressions: fc.array(
                  fc.oneof(
                    fc.record({
                      key: fc.constantFrom("kubernetes.io/arch", "gpu.example.com/model"),
                      operator: fc.constantFrom("In", "NotIn"),
                      values: fc.uniqueArray(fc.constantFrom("amd64", "arm64", "a100"), {
                        minLength: 1,
                      }),
                    }),
                    fc.record({
                      key: fc.constantFrom("kubernetes.io/arch", "gpu.example.com/model"),
                      operator: fc.constantFrom("Exists", "DoesNotExist"),
                    }),
                  ),
                  { minLength: 1, maxLength: 2 },
                ),
              }),
              { minLength: 1, maxLength: 2 },
            ),
          }),
        }),
      }),
      fc.record({
        podAntiAffinity: fc.record({
          preferredDuringSchedulingIgnoredDuringExecution: fc.array(
            fc.record({
              weight: fc.integer({ min: 1, max: 100 }),
              podAffinityTerm: fc.record({
                topologyKey: fc.constantFrom(
                  "kubernetes.io/hostname",
                  "topology.kubernetes.io/zone",
                ),
                labelSelector: fc.record({
                  matchLabels: fc.constant({ "app.kubernetes.io/instance": "llama" }),
                }),
              }),
            }),
            { minLength: 1, maxLength: 2 },
          ),
        }),
      }),
    ),
  },
  terminationGracePeriodSeconds: { in: "workload", value: fc.integer({ min: 1, max: 3600 }) },
};

const NAMES = Object.keys(FIELDS) as PodField[];

/** Some of the fields, each with a value. */
const someFields = fc.record(
  Object.fromEntries(NAMES.map((name) => [name, FIELDS[name].value])) as {
    [K in PodField]: fc.Arbitrary<unknown>;
  },
  { requiredKeys: [] },
);

function specWith(fields: Partial<Record<PodField, unknown>>): Record<string, unknown> {
  const workload: Record<string, unknown> = {};
  const overrides: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields))
    (FIELDS[name as PodField].in === "workload" ? workload : overrides)[name] = value;
  if (Object.keys(overrides).length > 0) workload["overrides"] = overrides;
  return { distribution: { name: "starter", release: "0.7.3" }, workload };
}

function podSpecOf(spec: Record<string, unknown>): Record<string, unknown> {
  const response = syncOk(request(spec));
  const deployment = response.children.find((c) => c.kind === "Deployment") as
    Deployment | undefined;
  const ready = response.status["conditions"];
  expect(deployment, JSON.stringify(ready)).to.not.equal(undefined);
  return { ...deployment?.spec?.template.spec };
}

describe("the workload's pod fields reach the Deployment as written", () => {
  it("has a row per field of the group (api/workload.ts)", () =>
    expect(NAMES).to.have.members([
      "imagePullSecrets",
      "nodeSelector",
      "tolerations",
      "affinity",
      "terminationGracePeriodSeconds",
    ]));

  it("every field a spec sets is in the pod spec, unchanged; no other is (seeded)", () =>
    fc.assert(
      fc.property(someFields, (fields) => {
        const pod = podSpecOf(specWith(fields));
        for (const name of NAMES)
          if (fields[name] === undefined) expect(pod, name).to.not.have.property(name);
          else expect(pod[name], name).to.deep.equal(fields[name]);
      }),
      { seed: 20261201, numRuns: 60 },
    ));
});
