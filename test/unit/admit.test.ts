// The admission check (src/admit.ts) through its one entry, admit(review):
// the review's envelope, hostile rows included; what is admitted unchecked;
// refusals and warnings; and, over the golden corpus, the same problems and
// warnings the status of /sync reports, but for what needs the cluster.
import { expect } from "chai";
import type { AdmissionResponse } from "../../src/api/admission.js";
import { admit } from "../../src/admit.js";
import { isWarningReason } from "../../src/reasons.js";
import { buildRequest, loadCases, runCase, syncContext } from "../support/harness.js";
import { syncUnder, withModels } from "./children/pod-policy-sync.js";

const ctx = syncContext();
const UID = "2b0c8f0e-6e2a-4c1e-9d35-0d6f3c1b7a10";
const RESOURCE = {
  group: "llamastack.io",
  version: "v1alpha2",
  resource: "llamastackdistributions",
};

const object = (spec: unknown, metadata: Record<string, unknown> = {}) => ({
  apiVersion: "llamastack.io/v1alpha2",
  kind: "LlamaStackDistribution",
  metadata: { name: "llama", namespace: "team-a", ...metadata },
  spec,
});

function review(request: Record<string, unknown>): unknown {
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: { uid: UID, resource: RESOURCE, namespace: "team-a", operation: "CREATE", ...request },
  };
}

const answer = (request: Record<string, unknown>): AdmissionResponse => {
  const out = admit(review(request), ctx);
  expect(out.apiVersion).to.equal("admission.k8s.io/v1");
  expect(out.kind).to.equal("AdmissionReview");
  return out.response;
};

const VALID = {
  distribution: { name: "starter", release: "1.5.0" },
  providers: {
    inference: [
      {
        provider: "vllm",
        endpoint: "http://vllm.models.svc:8000/v1",
        apiKey: { secretKeyRef: { name: "vllm-creds", key: "token" } },
      },
    ],
  },
  resources: { models: [{ name: "meta-llama/Llama-3.2-3B-Instruct" }] },
};
const UNKNOWN_TYPE = {
  distribution: { name: "starter", release: "1.5.0" },
  providers: { inference: [{ provider: "vlm", endpoint: "http://vllm:8000/v1" }] },
};
const UNKNOWN_TYPE_LINE =
  "spec.providers.inference[0].provider: vlm is not a provider type of the inference API in OGX 1.5.0; did you mean vllm? Otherwise use one of inline::sentence-transformers, remote::anthropic, remote::azure, remote::bedrock, remote::cerebras, remote::databricks, remote::deepseek, remote::fireworks, remote::gemini, remote::groq, remote::llama-cpp-server, remote::llama-openai-compat, remote::meta, remote::mistral, remote::nvidia, remote::oci, remote::ollama, remote::openai, remote::passthrough, remote::runpod, remote::sambanova, remote::text-embeddings-inference, remote::together, remote::vertexai, remote::vllm, remote::watsonx";

const INVALID_REVIEW = (why: string) =>
  `the request ${why}; the API server sends admission.k8s.io/v1 AdmissionReview requests with request.uid, request.resource, request.operation and request.object`;

describe("admit: the review", () => {
  const rows: [string, unknown, string, string][] = [
    ["null", null, "", INVALID_REVIEW("is not an admission.k8s.io/v1 AdmissionReview")],
    ["an array", [], "", INVALID_REVIEW("is not an admission.k8s.io/v1 AdmissionReview")],
    [
      "admission.k8s.io/v1beta1",
      { apiVersion: "admission.k8s.io/v1beta1", kind: "AdmissionReview", request: { uid: UID } },
      UID,
      INVALID_REVIEW("is not an admission.k8s.io/v1 AdmissionReview"),
    ],
    [
      "a ConversionReview",
      { apiVersion: "admission.k8s.io/v1", kind: "ConversionReview", request: { uid: UID } },
      UID,
      INVALID_REVIEW("is not an admission.k8s.io/v1 AdmissionReview"),
    ],
    [
      "no request",
      { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" },
      "",
      INVALID_REVIEW("has no request"),
    ],
    [
      "an empty uid",
      { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { uid: "" } },
      "",
      INVALID_REVIEW("has no request.uid"),
    ],
    [
      "no resource: the uid is echoed",
      { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { uid: UID } },
      UID,
      INVALID_REVIEW("has no request.resource"),
    ],
  ];
  // The uid is echoed whenever there is one, so that the API server reads the refusal as an answer.
  for (const [name, input, uid, message] of rows)
    it(`refuses ${name}, saying what the API server sends`, () => {
      expect(admit(input, ctx).response).to.deep.equal({
        uid,
        allowed: false,
        status: { code: 400, message },
      });
    });

  it("a uid that is not a string is not echoed", () => {
    const input = {
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      request: { uid: 7 },
    };
    expect(admit(input, ctx).response.uid).to.equal("");
  });
});

describe("admit: what is admitted without a check", () => {
  const invalid = object(UNKNOWN_TYPE);
  const rows: [string, Record<string, unknown>][] = [
    ["a DELETE", { operation: "DELETE", oldObject: invalid }],
    ["a CONNECT", { operation: "CONNECT", object: invalid }],
    ["the status subresource", { operation: "UPDATE", subResource: "status", object: invalid }],
    [
      "an UPDATE leaving the spec as it was (a label, a finalizer removed)",
      {
        operation: "UPDATE",
        object: object(UNKNOWN_TYPE, { labels: { "argocd.argoproj.io/instance": "llama" } }),
        oldObject: invalid,
      },
    ],
    [
      "an UPDATE of an object being deleted, its spec changed",
      {
        operation: "UPDATE",
        object: object(UNKNOWN_TYPE, { deletionTimestamp: "2026-11-01T12:00:00Z" }),
        oldObject: object(VALID, { deletionTimestamp: "2026-11-01T12:00:00Z" }),
      },
    ],
  ];
  for (const [name, request] of rows)
    it(name, () => {
      expect(answer(request)).to.deep.equal({ uid: UID, allowed: true });
    });

  it("another resource, with a warning naming the rules to narrow", () => {
    const resource = { group: "apps", version: "v1", resource: "deployments" };
    expect(answer({ resource, object: {} })).to.deep.equal({
      uid: UID,
      allowed: true,
      warnings: [
        "llsd-hook checks llamastackdistributions.llamastack.io only, and was sent deployments.apps: admitted unchecked; narrow the rules of the ValidatingWebhookConfiguration that calls POST /validate (manifests/components/admission)",
      ],
    });
  });
});

describe("admit: refusals and warnings", () => {
  it("admits a valid resource whose Secret does not exist yet (that stays a status)", () => {
    expect(answer({ object: object(VALID) })).to.deep.equal({ uid: UID, allowed: true });
  });

  it("refuses an invalid one as the status reports it: the message, and each field as a cause", () => {
    expect(answer({ object: object(UNKNOWN_TYPE) })).to.deep.equal({
      uid: UID,
      allowed: false,
      status: {
        code: 422,
        reason: "Invalid",
        message: UNKNOWN_TYPE_LINE,
        details: {
          group: "llamastack.io",
          kind: "LlamaStackDistribution",
          name: "llama",
          causes: [
            {
              reason: "FieldValueInvalid",
              field: "spec.providers.inference[0].provider",
              message: UNKNOWN_TYPE_LINE.slice("spec.providers.inference[0].provider: ".length),
            },
          ],
        },
      },
    });
  });

  it("checks an UPDATE whose spec changed, old and new alike invalid", () => {
    const oldObject = object({ ...UNKNOWN_TYPE, workload: { replicas: 2 } });
    const got = answer({ operation: "UPDATE", object: object(UNKNOWN_TYPE), oldObject });
    expect(got.allowed).to.equal(false);
    expect(got.status?.message).to.equal(UNKNOWN_TYPE_LINE);
  });

  it("a problem of the spec's shape, of the config and of the pod, one line and cause each", () => {
    const spec = {
      distribution: { name: "starter", release: "1.5.0" },
      providers: { inference: [{ provider: "vllm", id: "a", endpoint: "http://v:8000/v1" }] },
      resources: { models: [{ name: "m", provider: "b" }] },
      workload: { overrides: { env: [{ name: "A=B", value: "x" }] } },
    };
    const got = answer({ object: object(spec) });
    expect(got.status?.details?.causes.map((c) => c.field)).to.deep.equal([
      "spec.workload.overrides.env[0].name",
      "spec.resources.models[0].provider",
    ]);
    expect(got.status?.message.split("\n")).to.deep.equal(
      got.status?.details?.causes.map((c) => `${c.field}: ${c.message}`),
    );
  });

  it("admits with the status's warning conditions as warnings, each naming its condition", () => {
    const spec = { ...VALID, workload: { podDisruptionBudget: { minAvailable: 1 } } };
    expect(answer({ object: object(spec) })).to.deep.equal({
      uid: UID,
      allowed: true,
      warnings: [
        "PdbSkipped: spec.workload.podDisruptionBudget: no PodDisruptionBudget is created: with 1 replica(s) it would allow no disruption and block node drains; raise replicas or relax the budget",
      ],
    });
  });

  it("the confused-deputy rule as /sync applies it, ALLOWED_POD_FIELDS included", () => {
    const under = (spec: unknown, allowed?: string[]) =>
      admit(review({ object: object(spec) }), {
        ...ctx,
        ...(allowed === undefined ? {} : { allowedPodFields: new Set(allowed) }),
      }).response;
    const hostPath = withModels({ hostPath: { path: "/var/lib" } });
    const nfs = withModels({ nfs: { server: "nas", path: "/m" } });
    const condition = (spec: unknown, type: string) =>
      syncUnder(spec).conditions.find((c) => c.type === type)?.message;
    const refusal = condition(hostPath, "ValidationSucceeded");
    expect(refusal).to.match(/^spec\.workload\.overrides\.volumes\[1\]: .*hostPath/);
    expect(under(hostPath).status?.message).to.equal(refusal);
    const warning = condition(nfs, "RestrictedPodField");
    expect(warning).to.match(/^spec\.workload\.overrides\.volumes\[1\]: .*nfs/);
    expect(under(nfs)).to.deep.equal({
      uid: UID,
      allowed: true,
      warnings: [`RestrictedPodField: ${warning}`],
    });
    expect(under(hostPath, ["hostPath"])).to.deep.equal({ uid: UID, allowed: true });
    expect(under(nfs, ["nfs"])).to.deep.equal({ uid: UID, allowed: true });
  });

  it("assumes an optional child type declared: whether it is, is the cluster's", () => {
    const spec = { ...VALID, monitoring: { metrics: { serviceMonitor: {} } } };
    expect(answer({ object: object(spec) })).to.deep.equal({ uid: UID, allowed: true });
  });

  it("leaves a base config in a ConfigMap and an overrideConfig to the status", () => {
    for (const spec of [
      {
        distribution: {
          image: "registry.example.com/acme/ogx:1",
          release: "1.5.0",
          baseConfig: { configMapName: "acme-base" },
        },
      },
      { distribution: { name: "starter" }, overrideConfig: { configMapName: "full-config" } },
    ])
      expect(answer({ object: object(spec) })).to.deep.equal({ uid: UID, allowed: true });
  });

  it("checks in the request's namespace: an object without one is the request's", () => {
    const bare = { ...object(VALID), metadata: { name: "llama" } };
    expect(answer({ object: bare })).to.deep.equal({ uid: UID, allowed: true });
    const none = answer({ namespace: undefined, object: bare });
    expect(none.status?.details?.causes[0]?.field).to.equal("metadata.namespace");
  });

  it("a v1alpha1 object is converted as /convert converts it, then checked", () => {
    const v1 = (server: unknown) => ({
      apiVersion: "llamastack.io/v1alpha1",
      kind: "LlamaStackDistribution",
      metadata: { name: "old", namespace: "team-a" },
      spec: { replicas: 1, server },
    });
    expect(answer({ object: v1({ distribution: { name: "starter" } }) }).allowed).to.equal(true);
    const unknown = answer({ object: v1({ distribution: { name: "no-such-distribution" } }) });
    expect(unknown.allowed).to.equal(false);
    expect(unknown.status?.details?.causes[0]?.field).to.equal("spec.distribution.name");
    const unconvertible = answer({ object: v1({ distribution: "starter" }) });
    expect(unconvertible.allowed).to.equal(false);
    expect(unconvertible.status?.details?.causes[0]?.field).to.equal("spec.server.distribution");
  });

  const hostile: [string, unknown, string][] = [
    ["no object", undefined, "object"],
    ["a string", "llama", "object"],
    ["another version", { ...object(VALID), apiVersion: "llamastack.io/v9" }, "apiVersion"],
    ["another kind", { ...object(VALID), kind: "Deployment" }, "kind"],
    ["no metadata name", { ...object(VALID), metadata: { namespace: "team-a" } }, "metadata.name"],
    [
      "nested past the bounds",
      object({ distribution: { name: "starter" }, x: JSON.parse("[".repeat(60) + "]".repeat(60)) }),
      "spec.x",
    ],
  ];
  for (const [name, obj, field] of hostile)
    it(`refuses ${name}, naming ${field}`, () => {
      const got = answer({ object: obj });
      expect(got.allowed).to.equal(false);
      expect(got.status?.details?.causes[0]?.field).to.match(
        new RegExp(`^${field.replace(/\./g, "\\.")}`),
      );
    });
});

/**
 * Golden cases whose status says more than admission can know: what the
 * cluster holds (the objects a spec refers to, the children observed, which
 * optional child types are declared). Each with the lines only the status has.
 */
const NEEDS_THE_CLUSTER: Record<string, { why: string; problems?: number; warnings?: string[] }> = {
  "custom-image-base-config-not-yaml": { why: "the base config in a ConfigMap", problems: 1 },
  "custom-image-base-config-wrong-shape": { why: "the base config in a ConfigMap", problems: 1 },
  "external-provider-endpoint": { why: "the base config in a ConfigMap", problems: 2 },
  "wl-storage-immutable-change": { why: "the claim observed", problems: 1 },
  "hostile-claim-without-annotation": { why: "the claim observed", warnings: ["VolumeKept"] },
  "wl-storage-removed-pvc-kept": { why: "the claim observed", warnings: ["VolumeKept"] },
  "mon-service-monitor-without-kind": {
    why: "the child types declared",
    warnings: ["ServiceMonitorUnavailable"],
  },
  "ogx-us6-1-override-config-without-tls": {
    why: "the overrideConfig's contents",
    warnings: ["OverrideNeedsTls"],
  },
  "trust-override-config": {
    why: "the overrideConfig's contents",
    warnings: ["CaBundleNotApplied"],
  },
};

describe("admit: the golden corpus, against the status /sync reports", () => {
  const cases = loadCases();
  let compared = 0;
  let synced = 0;

  for (const c of cases) {
    const outcome = runCase(c.file, "v2");
    // A 409 (a child that is none of ours) has no status to compare: it is about the children.
    if (outcome.kind !== "ok") continue;
    synced++;
    it(c.name, () => {
      const parent = buildRequest(c.file, "v2").parent;
      const got = answer({
        operation: "UPDATE",
        namespace: parent.metadata.namespace,
        object: parent,
        oldObject: { ...parent, spec: {} },
      });
      const conditions = outcome.response.status.conditions ?? [];
      const problems = conditions
        .filter((x) => x.status === "False")
        .filter((x) => x.type === "ValidationSucceeded" || x.type === "ConfigGenerated")
        .flatMap((x) => x.message.split("\n"));
      const warnings = conditions
        .filter((x) => x.status === "True" && isWarningReason(x.type))
        .flatMap((x) => x.message.split("\n").map((line) => `${x.type}: ${line}`));
      const refused = got.status?.message.split("\n") ?? [];
      const exception = NEEDS_THE_CLUSTER[c.name];
      expect(got.allowed).to.equal(refused.length === 0);
      if (exception === undefined) {
        expect(refused.sort()).to.deep.equal(problems.sort());
        expect([...(got.warnings ?? [])].sort()).to.deep.equal(warnings.sort());
        compared++;
        return;
      }
      // Only the lines that need the cluster are missing; nothing is added.
      expect(problems.filter((l) => !refused.includes(l))).to.have.length(exception.problems ?? 0);
      expect(refused.filter((l) => !problems.includes(l))).to.deep.equal([]);
      const missing = warnings.filter((l) => !(got.warnings ?? []).includes(l));
      expect(missing.map((l) => l.split(":")[0])).to.deep.equal(exception.warnings ?? []);
      expect((got.warnings ?? []).filter((l) => !warnings.includes(l))).to.deep.equal([]);
    });
  }

  after(() => {
    // The corpus is compared, not skipped: all but the cases above agree line for line.
    expect(compared).to.equal(synced - Object.keys(NEEDS_THE_CLUSTER).length);
    expect(compared).to.be.above(150);
  });
});
