// The generic shape errors a newcomer meets first, each as the field, the
// shape expected and the fix, exactly as `llsd-hook render` and the status
// say them (issue 25, points 5 and 9). One row per mistake.
import { expect } from "chai";
import { render, RenderError } from "../../src/cli/render.js";
import { V1alpha1Spec } from "../../src/api/v1alpha1.js";
import { V1ALPHA1_SPEC_FIELDS } from "../../src/shape-messages.js";
import { syncContext } from "../support/harness.js";

const NOW = new Date("2026-11-01T12:00:00Z");
const HEAD =
  "apiVersion: llamastack.io/v1alpha2\nkind: LlamaStackDistribution\nmetadata: {name: llama}\n";
const VLLM =
  "  providers:\n    inference:\n      - provider: vllm\n        endpoint: http://vllm:8000/v1\n";

const rows: { name: string; body: string; errors: string[] }[] = [
  {
    // zod: "Invalid input: expected object, received undefined"
    name: "spec without distribution",
    body: "spec: {}\n",
    errors: [
      "spec.distribution: required (an object); add distribution: { name: starter } (a shipped distribution; kubectl explain llamastackdistribution.spec.distribution lists the fields), or { image, release, baseConfig } for a custom image",
    ],
  },
  {
    // zod: "expected string, received number"
    name: "release: 1.5 unquoted, which YAML reads as a number",
    body: "spec:\n  distribution: {name: starter, release: 1.5}\n",
    errors: [
      'spec.distribution.release: expected a string, but YAML read 1.5 as a number; quote it, with the release in full: release: "1.5.0"',
    ],
  },
  {
    name: "a string field given a boolean",
    body: `spec:\n  distribution: {name: starter}\n${VLLM}  resources:\n    models: [{name: true}]\n`,
    errors: [
      'spec.resources.models[0].name: expected a string, but YAML read true as a boolean; quote it: name: "true"',
    ],
  },
  {
    // was two problems, one telling to remove name and key: the wrong fix
    name: "the secretKeyRef wrapper left out",
    body: `spec:\n  distribution: {name: starter}\n${VLLM}        apiKey: {name: vllm-creds, key: token}\n`,
    errors: [
      "spec.providers.inference[0].apiKey: name and key go inside secretKeyRef; write apiKey: { secretKeyRef: { name: vllm-creds, key: token } }",
    ],
  },
  {
    name: "a v1alpha1 spec under apiVersion v1alpha2",
    body: "spec:\n  replicas: 1\n  server:\n    distribution: {name: starter}\n",
    errors: [
      "spec.distribution: required (an object); add distribution: { name: starter } (a shipped distribution; kubectl explain llamastackdistribution.spec.distribution lists the fields), or { image, release, baseConfig } for a custom image",
      "spec: unknown field(s) replicas, server: replicas, server are fields of llamastack.io/v1alpha1, the retired operator's version; write the spec as v1alpha2 (spec.server.distribution → spec.distribution, spec.replicas → spec.workload.replicas, spec.network → spec.networking; docs/conversion.md maps every field), or apply it with apiVersion llamastack.io/v1alpha1 to a cluster with the v1alpha1 component, which converts it",
    ],
  },
  {
    name: "an unknown field that is no v1alpha1 field keeps the plain fix",
    body: "spec:\n  distribution: {name: starter}\n  replica: 2\n",
    errors: [
      "spec: unknown field(s) replica; remove them (kubectl explain llamastackdistribution.spec lists the fields)",
    ],
  },
  {
    // zod: "Too small: expected array to have >=1 items"
    name: "env: [] (an empty list)",
    body: "spec:\n  distribution: {name: starter}\n  workload: {overrides: {env: []}}\n",
    errors: [
      "spec.workload.overrides.env: an empty list is not allowed; remove env, or give it at least one entry",
    ],
  },
  {
    name: "an unknown distribution: the shipped ones and both custom-image routes",
    body: "spec:\n  distribution: {name: acme}\n",
    errors: [
      "spec.distribution.name: distribution acme is not known to llsd-hook; use one of dell, nvidia, oci, open-benchmark, postgres-demo, starter, starter-gpu, watsonx, or for an image of your own set distribution.image with distribution.baseConfig and distribution.release (the image's config.yaml as the base), or with spec.overrideConfig (the whole config)",
    ],
  },
  {
    name: "a ReadWriteOnce volume with two replicas: one node, not one pod",
    body: `spec:\n  distribution: {name: starter}\n  storage: {kv: {type: redis, host: r, port: 6379}, sql: {type: postgres, secretName: pg}}\n  workload: {replicas: 2, storage: {size: 1Gi}}\n`,
    errors: [
      "spec.workload.storage.accessMode: a ReadWriteOnce volume attaches to one node at a time, so a second replica scheduled on another node could never mount it; use one replica without autoscaling, or accessMode ReadWriteMany",
    ],
  },
];

describe("messages for the generic shape errors", () => {
  for (const row of rows)
    it(row.name, () => {
      const out = render(HEAD + row.body, "cr.yaml", syncContext(), NOW);
      expect(out.problems).to.deep.equal(row.errors);
      expect(out.failed).to.equal(true);
    });

  it("a resource without spec: required, with the smallest spec to add", () => {
    expect(() => render(HEAD, "cr.yaml", syncContext(), NOW))
      .to.throw(RenderError)
      .with.property(
        "message",
        "cr.yaml: spec: required; every LlamaStackDistribution needs one, with at least a distribution: spec: { distribution: { name: starter } }",
      );
  });

  it("knows the v1alpha1 spec's own top-level fields", () => {
    expect([...V1ALPHA1_SPEC_FIELDS]).to.deep.equal(Object.keys(V1alpha1Spec.shape).sort());
  });
});
