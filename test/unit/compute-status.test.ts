// Table tests of computeStatus: one row per situation the status must tell apart;
// a failure's detail stated once, warnings each a condition of their own.
import { expect } from "chai";
import type { Status } from "../../src/api/status.js";
import { computeStatus } from "../../src/compute-status.js";
import type { Returned } from "../../src/return-children.js";
import { releaseFacts } from "../../src/release.js";
import type { Observed, ObservedDeployment } from "../../src/observe.js";
import { msg } from "../../src/messages.js";
import { problem, warning } from "../../src/problems.js";
import { Reason } from "../../src/reasons.js";
import type { Desired } from "../../src/desired.js";
import type { Resolution } from "../../src/resolve.js";

const NOW = "2026-11-23T10:00:00Z";
const EARLIER = "2026-11-01T10:00:00Z";

function observed(over: Partial<Observed> = {}): Observed {
  return {
    name: "llsd",
    namespace: "ns",
    generation: 3,
    spec: {},
    children: [],
    childGroups: new Set(),
    related: { secrets: new Map(), configMaps: new Map() },
    status: {},
    deployment: undefined,
    conversion: { errors: [], warnings: [] },
    ...over,
  };
}

function deployment(
  available: number,
  ready: boolean,
  failure?: { reason?: string; message: string },
): ObservedDeployment {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "llsd" },
    status: {
      availableReplicas: available,
      conditions: [
        { type: "Available", status: ready ? "True" : "False", reason: "R", message: "M" },
        ...(failure === undefined
          ? []
          : [{ type: "ReplicaFailure", status: "True", reason: "FailedCreate", ...failure }]),
      ],
    },
  };
}

const FORBIDDEN =
  'pods "llsd-5c8d7b9f4-qv2lm" is forbidden: violates PodSecurity "restricted:latest": restricted volume types (volume "models" uses restricted volume type "nfs")';
const NO_ACCOUNT = (name: string, namespace = "ns") =>
  `pods "llsd-5c8d7b9f4-" is forbidden: error looking up service account ${namespace}/${name}: serviceaccount "${name}" not found`;
const QUOTA =
  'pods "llsd-5c8d7b9f4-qv2lm" is forbidden: exceeded quota: compute, requested: requests.cpu=250m, used: requests.cpu=2, limited: requests.cpu=2';

/** The Deployment just created, before its controller has posted a status. */
const created: ObservedDeployment = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "llsd" },
};

/** The same once the Deployment controller has posted its first status (no pod available). */
const posted: ObservedDeployment = {
  ...created,
  status: {
    replicas: 1,
    unavailableReplicas: 1,
    conditions: [
      {
        type: "Available",
        status: "False",
        reason: "MinimumReplicasUnavailable",
        message: "Deployment does not have minimum availability.",
      },
    ],
  },
};

/** A ConfigMap the hook returned, as Metacontroller created it. */
const configMap = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "llsd-config-abcdef0123", creationTimestamp: "2026-11-23T10:00:07Z" },
};

const desired: Desired = {
  llsd: "llsd",
  namespace: "ns",
  spec: { distribution: { name: "starter" } },
  distribution: { name: "starter", release: "0.7.3", image: "img:1" },
  releaseFacts: releaseFacts("0.7.3"),
  port: 8321,
  tls: undefined,
  ingress: undefined,
  dataDir: "/.llama",
  replicas: 1,
  minReplicas: 1,
  references: [],
  inputsHash: "0",
  config: {
    source: "generated",
    generated: {
      configYaml: "",
      configHash: "abcdef0123456789abcdef",
      secretEnv: [],
      providerCount: 2,
      resourceCount: 1,
    },
  },
};

const valid: Resolution = {
  validation: { ok: true },
  references: { ok: true },
  config: { ok: true },
  warnings: [],
  desired,
};

const invalid: Resolution = {
  validation: {
    ok: false,
    problems: [problem(Reason.InvalidSpec, "spec.distribution", "is required; set it")],
  },
  references: {
    ok: "unknown",
    reason: "SpecInvalid",
    message: "Not checked: the spec is invalid.",
  },
  config: { ok: "unknown", reason: "SpecInvalid", message: "Not generated: the spec is invalid." },
  warnings: [],
  desired: undefined,
};

const updated: Returned = {
  plan: { ok: true },
  updated: true,
  rolledOut: false,
  workloadWarnings: [],
};
const kept: Returned = { plan: undefined, updated: false, rolledOut: false, workloadWarnings: [] };
const done: Returned = { plan: { ok: true }, updated: true, rolledOut: true, workloadWarnings: [] };

const byType = (s: Status) => new Map((s.conditions ?? []).map((c) => [c.type, c]));

describe("computeStatus", () => {
  const rows: {
    what: string;
    observed: Observed;
    resolution: Resolution;
    returned: Returned;
    phase: string;
    ready: string;
    extra: string[];
  }[] = [
    {
      what: "first sync of a valid spec: the Deployment it creates, Initializing, Reconciling",
      observed: observed(),
      resolution: valid,
      returned: updated,
      phase: "Initializing",
      ready: "MinimumReplicasUnavailable",
      extra: ["Reconciling"],
    },
    {
      what: "a later sync that still finds no Deployment: Pending, DeploymentNotFound",
      observed: observed({ status: { conditions: [] } }),
      resolution: valid,
      returned: updated,
      phase: "Pending",
      ready: "DeploymentNotFound",
      extra: ["Reconciling"],
    },
    {
      what: "first sync of an invalid spec: Failed, nothing created, never Reconciling",
      observed: observed(),
      resolution: invalid,
      returned: kept,
      phase: "Failed",
      ready: "InvalidSpec",
      extra: ["Stalled"],
    },
    {
      what: "Deployment exists, not yet available: Initializing",
      observed: observed({ deployment: deployment(0, false) }),
      resolution: valid,
      returned: updated,
      phase: "Initializing",
      ready: "R",
      extra: ["Reconciling"],
    },
    {
      what: "pods refused by Pod Security: Available and Ready say ReplicaFailure",
      observed: observed({ deployment: deployment(0, false, { message: FORBIDDEN }) }),
      resolution: valid,
      returned: updated,
      phase: "Initializing",
      ready: "ReplicaFailure",
      extra: ["Reconciling"],
    },
    {
      what: "a rollout whose new pods are refused while old ones serve: Ready says ReplicaFailure",
      observed: observed({ deployment: deployment(1, true, { message: QUOTA }) }),
      resolution: valid,
      returned: updated,
      phase: "Initializing",
      ready: "ReplicaFailure",
      extra: ["Reconciling"],
    },
    {
      what: "available but the rollout of this spec is not done: not Ready",
      observed: observed({ deployment: deployment(1, true) }),
      resolution: valid,
      returned: updated,
      phase: "Initializing",
      ready: "RollingOut",
      extra: ["Reconciling"],
    },
    {
      what: "available and rolled out: Ready",
      observed: observed({ deployment: deployment(2, true) }),
      resolution: valid,
      returned: done,
      phase: "Ready",
      ready: "Ready",
      extra: [],
    },
    {
      what: "an invalid spec: Failed and Stalled, never Reconciling",
      observed: observed({ deployment: deployment(2, true) }),
      resolution: invalid,
      returned: kept,
      phase: "Failed",
      ready: "InvalidSpec",
      extra: ["Stalled"],
    },
    {
      what: "a valid spec whose children cannot be built: ValidationSucceeded=False, Stalled",
      observed: observed({ deployment: deployment(2, true) }),
      resolution: valid,
      returned: {
        ...kept,
        plan: { ok: false, problems: [problem(Reason.ChildTooLarge, "spec", "too large")] },
      },
      phase: "Failed",
      ready: "ChildTooLarge",
      extra: ["Stalled"],
    },
  ];
  for (const row of rows)
    it(row.what, () => {
      const status = computeStatus({ now: NOW, ...row });
      const conditions = byType(status);
      expect(status.phase).to.equal(row.phase);
      expect(conditions.get("Ready")?.reason).to.equal(row.ready);
      expect([...conditions.keys()].slice(6)).to.deep.equal(row.extra);
      for (const c of conditions.values()) expect(c.observedGeneration).to.equal(3);
    });

  it("says a ReplicaFailure in its own words: the Pod Security level, the quota, or the reason, never the refusal's text", () => {
    const rows: [failure: { reason?: string; message: string }, message: string][] = [
      [{ message: FORBIDDEN }, msg.replicaFailurePodSecurity("llsd", "restricted")],
      [
        { message: FORBIDDEN.replace("restricted:latest", "baseline:v1.37") },
        msg.replicaFailurePodSecurity("llsd", "baseline"),
      ],
      [{ message: QUOTA }, msg.replicaFailureQuota("llsd", "compute")],
      [{ message: NO_ACCOUNT("runner") }, msg.replicaFailureServiceAccount("llsd", "runner")],
      [{ message: NO_ACCOUNT("llsd-sa") }, msg.replicaFailureOwnServiceAccount("llsd", "llsd-sa")],
      // Another namespace's account, or a name that is not the one refused: not ours to echo.
      [{ message: NO_ACCOUNT("runner", "other") }, msg.replicaFailure("llsd", "FailedCreate")],
      [
        { message: NO_ACCOUNT("runner").replace('"runner" not', '"x" not') },
        msg.replicaFailure("llsd", "FailedCreate"),
      ],
      [
        { message: 'admission webhook "x" denied the request: token=s3cr3t' },
        msg.replicaFailure("llsd", "FailedCreate"),
      ],
      [{ reason: "FailedCreate; rm -rf", message: "" }, msg.replicaFailure("llsd", "FailedCreate")],
      [{ reason: "FailedDelete", message: "anything" }, msg.replicaFailure("llsd", "FailedDelete")],
    ];
    for (const [failure, message] of rows) {
      const status = computeStatus({
        now: NOW,
        observed: observed({ deployment: deployment(0, false, failure) }),
        resolution: valid,
        returned: updated,
      });
      const available = byType(status).get("Available");
      expect(available?.reason).to.equal("ReplicaFailure");
      expect(available?.message, failure.message).to.equal(message);
      expect(JSON.stringify(status)).to.not.include("qv2lm").and.not.include("s3cr3t");
    }
  });

  it("a new parent's ReplicaSet refused for its ServiceAccount before the hook's was created: no pod available yet, once that account is observed", () => {
    // Metacontroller creates a sync's children in no fixed order: the
    // ReplicaSet may try its first pod before the ServiceAccount exists.
    const failing = deployment(0, false, { message: NO_ACCOUNT("llsd-sa") });
    const account = { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "llsd-sa" } };
    const conditions = (
      children: Observed["children"],
      dep = failing,
      resolution: Resolution = valid,
    ) =>
      byType(
        computeStatus({
          now: NOW,
          observed: observed({ deployment: dep, children: [dep, ...children] }),
          resolution,
          returned: updated,
        }),
      );
    const before = conditions([]);
    expect(before.get("Available")?.reason).to.equal("ReplicaFailure");
    const after = conditions([account]);
    expect(after.get("Available")?.reason).to.equal("R");
    expect(after.get("Available")?.message).to.equal(msg.noReplicaAvailable());
    expect(after.get("Ready")?.reason).to.equal("R");
    // Another account of that name is not the hook's: only the one it creates clears the refusal.
    const theirs = conditions(
      [{ ...account, metadata: { name: "runner" } }],
      deployment(0, false, { message: NO_ACCOUNT("runner") }),
    );
    expect(theirs.get("Available")?.message).to.equal(
      msg.replicaFailureServiceAccount("llsd", "runner"),
    );
    // An override that names the default's name: the hook creates no account, so it is the user's to create.
    const overridden: Resolution = {
      ...valid,
      desired: {
        ...desired,
        spec: {
          ...desired.spec,
          workload: { replicas: 1, overrides: { serviceAccountName: "llsd-sa" } },
        },
      },
    };
    expect(conditions([], failing, overridden).get("Available")?.message).to.equal(
      msg.replicaFailureServiceAccount("llsd", "llsd-sa"),
    );
  });

  it("writes a new parent's status once: what its first sync reports is what the next ones find", () => {
    const first = computeStatus({
      now: EARLIER,
      observed: observed(),
      resolution: valid,
      returned: updated,
    });
    // Metacontroller created the children before it wrote that status; the
    // Deployment controller posts its first status at any time around the next sync.
    for (const dep of [created, posted]) {
      const next = computeStatus({
        now: NOW,
        observed: observed({ status: first, deployment: dep, children: [configMap, dep] }),
        resolution: valid,
        returned: updated,
      });
      expect(next, dep === created ? "just created" : "status posted").to.deep.equal(first);
    }
    const conditions = byType(first);
    expect(conditions.get("Available")).to.include({
      status: "False",
      reason: "MinimumReplicasUnavailable",
      message: "No replica is available yet.",
    });
    expect(conditions.get("Reconciling")?.message).to.equal("The Deployment is rolling out.");
    expect(first.configGeneration?.generatedAt).to.equal(EARLIER);
  });

  it("says the Deployment is missing from the second sync on, when its creation did not happen", () => {
    const first = computeStatus({
      now: EARLIER,
      observed: observed(),
      resolution: valid,
      returned: updated,
    });
    const again = computeStatus({
      now: NOW,
      observed: observed({ status: first, children: [configMap] }),
      resolution: valid,
      returned: updated,
    });
    expect(again.phase).to.equal("Pending");
    expect(byType(again).get("Available")).to.include({
      status: "False",
      reason: "DeploymentNotFound",
      lastTransitionTime: EARLIER,
    });
    expect(byType(again).get("Reconciling")?.message).to.equal("Creating the Deployment.");
    // generatedAt stays as first reported, not the ConfigMap's creationTimestamp.
    expect(again.configGeneration?.generatedAt).to.equal(EARLIER);
    const settled = computeStatus({
      now: NOW,
      observed: observed({ status: again, children: [configMap] }),
      resolution: valid,
      returned: updated,
    });
    expect(settled).to.deep.equal(again);
  });

  it("takes generatedAt from the ConfigMap when the status has none for that config", () => {
    const prior: Status = {
      configGeneration: {
        configMapName: "llsd-config-0000000000",
        configHash: "0000000000",
        generatedAt: EARLIER,
        providerCount: 1,
        resourceCount: 0,
      },
    };
    const status = computeStatus({
      now: NOW,
      observed: observed({ status: prior, children: [configMap], deployment: created }),
      resolution: valid,
      returned: updated,
    });
    expect(status.configGeneration?.generatedAt).to.equal("2026-11-23T10:00:07Z");
    const edited = computeStatus({
      now: NOW,
      observed: observed({ status: prior, deployment: created }),
      resolution: valid,
      returned: updated,
    });
    expect(edited.configGeneration?.generatedAt).to.equal(NOW);
  });

  it("keeps lastTransitionTime while a condition's status holds, and moves it when it changes", () => {
    const first = computeStatus({
      now: EARLIER,
      observed: observed({ deployment: created }),
      resolution: valid,
      returned: updated,
    });
    const again = computeStatus({
      now: NOW,
      observed: observed({ status: first, deployment: created }),
      resolution: valid,
      returned: updated,
    });
    expect(again).to.deep.equal(first);
    const broken = computeStatus({
      now: NOW,
      observed: observed({ status: first }),
      resolution: invalid,
      returned: kept,
    });
    const times = byType(broken);
    expect(times.get("ValidationSucceeded")?.lastTransitionTime).to.equal(NOW);
    expect(times.get("Available")?.lastTransitionTime).to.equal(EARLIER);
  });

  it("describes the run from the desired state only when it was returned", () => {
    const prior: Status = {
      resolvedDistribution: {
        name: "starter",
        release: "0.6.1",
        image: "old",
        configSource: "generated",
      },
      serviceURL: "http://old",
    };
    const fresh = computeStatus({
      now: NOW,
      observed: observed(),
      resolution: valid,
      returned: updated,
    });
    expect(fresh.resolvedDistribution?.release).to.equal("0.7.3");
    expect(fresh.serviceURL).to.equal("http://llsd-service.ns.svc.cluster.local:8321");
    expect(fresh.configGeneration).to.deep.equal({
      configMapName: "llsd-config-abcdef0123",
      configHash: "abcdef0123456789abcdef",
      generatedAt: NOW,
      providerCount: 2,
      resourceCount: 1,
    });
    const keptRun = computeStatus({
      now: NOW,
      observed: observed({ status: prior }),
      resolution: invalid,
      returned: kept,
    });
    expect(keptRun.resolvedDistribution).to.deep.equal(prior.resolvedDistribution);
    expect(keptRun.serviceURL).to.equal("http://old");
    expect(keptRun).not.to.have.property("configGeneration");
  });

  it("states a failure's detail once, in its condition; Ready and Stalled name it in one line", () => {
    const detail = "is not a provider type; use one of a, b";
    const status = computeStatus({
      now: NOW,
      observed: observed(),
      resolution: {
        ...valid,
        references: {
          ok: false,
          problems: [problem(Reason.SecretNotFound, "spec.providers.inference[0].apiKey", "gone")],
        },
        config: {
          ok: false,
          problems: [
            problem(Reason.UnknownProviderType, "spec.providers.inference[0].provider", detail),
            problem(Reason.UnknownProviderType, "spec.providers.inference[1].provider", detail),
          ],
        },
      },
      returned: kept,
    });
    const conditions = byType(status);
    expect(conditions.get("ConfigGenerated")?.message).to.equal(
      `spec.providers.inference[0].provider: ${detail}\nspec.providers.inference[1].provider: ${detail}`,
    );
    expect(conditions.get("Ready")).to.include({
      reason: "SecretNotFound",
      message: "SecretsResolved is False: SecretNotFound at spec.providers.inference[0].apiKey",
    });
    expect(conditions.get("Stalled")).to.include({
      reason: "SecretNotFound",
      message:
        "SecretsResolved is False: SecretNotFound at spec.providers.inference[0].apiKey; ConfigGenerated is False: UnknownProviderType at spec.providers.inference[0].provider (and 1 more)",
    });
    const said = (status.conditions ?? []).filter((c) => c.message.includes(detail));
    expect(said.map((c) => c.type)).to.deep.equal(["ConfigGenerated"]);
  });

  it("reports each warning reason as a condition of its own, several at once, in a fixed order", () => {
    const warnings = {
      config: [
        warning(Reason.CaBundleNotApplied, "spec.trust.caBundle", "a"),
        warning(Reason.RetiredImage, "spec.distribution", "retired"),
        warning(Reason.CaBundleNotApplied, "spec.providers.inference[0].settings", "b"),
      ],
      workload: [warning(Reason.PdbSkipped, "spec.workload.podDisruptionBudget", "skipped")],
    };
    const status = computeStatus({
      now: NOW,
      observed: observed({ deployment: deployment(1, true) }),
      resolution: { ...valid, warnings: warnings.config },
      returned: { ...done, workloadWarnings: warnings.workload },
    });
    const conditions = status.conditions ?? [];
    expect(conditions.slice(6).map((c) => [c.type, c.status, c.reason])).to.deep.equal([
      ["RetiredImage", "True", "RetiredImage"],
      ["CaBundleNotApplied", "True", "CaBundleNotApplied"],
      ["PdbSkipped", "True", "PdbSkipped"],
    ]);
    expect(byType(status).get("CaBundleNotApplied")?.message).to.equal(
      "spec.trust.caBundle: a\nspec.providers.inference[0].settings: b",
    );
    for (const c of conditions.slice(0, 5))
      expect(c.message, c.type).not.to.match(/retired|skipped|\bWarnings\b/);
    expect(byType(status).get("Ready")).to.include({
      status: "True",
      message:
        "The server is running the current spec. Warning conditions: RetiredImage, CaBundleNotApplied, PdbSkipped.",
    });
    expect(status.phase).to.equal("Ready");
  });

  it("a warning keeps its lastTransitionTime while it holds, and its condition goes when it ends", () => {
    const retired = warning(Reason.RetiredImage, "spec.distribution", "retired");
    const newer = warning(Reason.NewerReleaseAvailable, "spec.distribution.release", "newer");
    const first = computeStatus({
      now: EARLIER,
      observed: observed(),
      resolution: { ...valid, warnings: [retired] },
      returned: updated,
    });
    const later = computeStatus({
      now: NOW,
      observed: observed({ status: first }),
      resolution: { ...valid, warnings: [retired, newer] },
      returned: updated,
    });
    expect(byType(later).get("RetiredImage")?.lastTransitionTime).to.equal(EARLIER);
    expect(byType(later).get("NewerReleaseAvailable")?.lastTransitionTime).to.equal(NOW);
    const ended = computeStatus({
      now: NOW,
      observed: observed({ status: later }),
      resolution: valid,
      returned: updated,
    });
    for (const type of ["RetiredImage", "NewerReleaseAvailable"])
      expect(byType(ended).has(type), type).to.equal(false);
    // Warnings are reported while the spec fails too.
    const failing = computeStatus({
      now: NOW,
      observed: observed(),
      resolution: { ...invalid, warnings: [retired] },
      returned: kept,
    });
    expect(byType(failing).get("RetiredImage")?.status).to.equal("True");
  });

  it("truncates very long messages", () => {
    const warn = warning(Reason.NewerReleaseAvailable, "spec.distribution", "x".repeat(5000));
    const status = computeStatus({
      now: NOW,
      observed: observed(),
      resolution: { ...valid, warnings: [warn] },
      returned: updated,
    });
    expect(byType(status).get("NewerReleaseAvailable")?.message).to.match(
      /^spec\.distribution: x+\n… \(truncated\)$/,
    );
  });
});
