// The last rung of sync: the status, from the resolution, what was returned
// and what was observed. Deterministic: the clock comes in as `now`, a
// condition keeps its lastTransitionTime while its status is unchanged, and
// generatedAt keeps the time the status first named its config, so feeding a
// response's status back in gives the same response at any later `now`.
//
// A failure's detail is stated once, in the condition it belongs to; Ready and
// Stalled carry a one-line summary naming that condition. Each warning reason
// is a condition of its own, True while it holds and absent otherwise
// (docs/adr/0012-warnings-as-conditions.md).
//
// Each status change is a write through Metacontroller's rate-limited client
// (docs/operations/capacity.md), so the status changes only when something a
// reader needs changed: a new parent's first status already says what the
// second sync will find (the Deployment just created, no replica available),
// and the Deployment controller's first status post changes nothing here.
import type { Condition, ConditionType, Phase, Status } from "./api/status.js";
import { childNames } from "./children/labels.js";
import { serviceUrl } from "./children/service.js";
import { defined } from "./lib/json.js";
import { msg } from "./messages.js";
import type { Observed, ObservedDeployment } from "./observe.js";
import { formatProblem, type Problem, type Warning } from "./problems.js";
import { ConditionReason, WARNING_REASONS } from "./reasons.js";
import type { Desired } from "./desired.js";
import { problemsOf, type Check, type Resolution } from "./resolve.js";
import type { Returned } from "./return-children.js";

/**
 * The conditions a spec's problems make False: each message holds the
 * problems, one `field: what; fix` line each (render prints them).
 */
export const PROBLEM_CONDITIONS = [
  "ValidationSucceeded",
  "SecretsResolved",
  "ConfigGenerated",
] as const satisfies readonly ConditionType[];
type ProblemCondition = (typeof PROBLEM_CONDITIONS)[number];

function isProblemCondition(type: string): type is ProblemCondition {
  return (PROBLEM_CONDITIONS as readonly string[]).includes(type);
}

export interface StatusInput {
  now: string;
  observed: Observed;
  resolution: Resolution;
  returned: Returned;
}

type Verdict = [Condition["status"], string, string];

const MAX_MESSAGE = 4096;

/** One line per problem (a problem found twice is said once), within MAX_MESSAGE. */
export function joinProblems(problems: readonly Problem[]): string {
  const text = [...new Set(problems.map(formatProblem))].join("\n");
  const cut = MAX_MESSAGE - 15;
  return text.length > MAX_MESSAGE ? `${text.slice(0, cut)}${msg.truncated()}` : text;
}

function fromCheck(check: Check, okReason: string, okMessage: string): Verdict {
  if (check.ok === true) return ["True", okReason, okMessage];
  if (check.ok === "unknown") return ["Unknown", check.reason, check.message];
  return ["False", check.problems[0]?.reason ?? "Failed", joinProblems(check.problems)];
}

/** ValidationSucceeded: the spec is valid and its children can be built. */
function validationCheck(resolution: Resolution, plan: Check | undefined): Check {
  return resolution.validation.ok === true && plan !== undefined ? plan : resolution.validation;
}

/** Builds conditions that keep their lastTransitionTime while their status holds. */
function conditionFactory(input: StatusInput) {
  const previous = new Map((input.observed.status.conditions ?? []).map((c) => [c.type, c]));
  return (type: ConditionType, status: Condition["status"], reason: string, message: string) => {
    const prior = previous.get(type);
    const unchanged = prior !== undefined && prior.status === status;
    return {
      type,
      status,
      reason,
      message,
      lastTransitionTime: unchanged ? prior.lastTransitionTime : input.now,
      observedGeneration: input.observed.generation,
    } satisfies Condition;
  };
}

/** configMapName: the ConfigMap the status's configGeneration names. */
function configVerdict(resolution: Resolution, configMapName: string | undefined): Verdict {
  const { config, desired } = resolution;
  if (config.ok !== true) return fromCheck(config, "", "");
  if (desired?.config?.source === "override")
    return ["True", ConditionReason.OverrideConfig, msg.usingOverride()];
  return ["True", ConditionReason.ConfigGenerated, msg.generated(configMapName)];
}

function updatedVerdict(input: StatusInput): Verdict {
  if (input.returned.updated)
    return ["True", ConditionReason.DeploymentUpdated, msg.deploymentMatches()];
  return input.observed.children.length === 0
    ? ["False", ConditionReason.NotCreated, msg.nothingCreated()]
    : ["False", ConditionReason.KeptLastApplied, msg.keptLastApplied()];
}

/**
 * Whether the status reports a Deployment: the one observed, or the one this
 * answer creates on the parent's first sync. Metacontroller writes the status
 * after it has created the children, so a first status that reports the new
 * Deployment as created with no replica available is what the second sync
 * observes: that sync then writes nothing (one status write per new parent, not
 * two). Only the first sync assumes it: a later sync that still finds no
 * Deployment (its creation failed, or someone deleted it) says so.
 */
function reportsDeployment(input: StatusInput): boolean {
  const { observed, returned } = input;
  if (observed.deployment !== undefined) return true;
  return returned.updated && observed.status.conditions === undefined;
}

/** A quota's name as the API server words its refusal: `exceeded quota: <name>, requested: …`. */
const QUOTA = /exceeded quota: ([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?),/;
const POD_SECURITY = /violates PodSecurity "(baseline|restricted):(latest|v\d{1,3}\.\d{1,3})"/;
/**
 * The ServiceAccount admission's refusal of a pod whose account is missing:
 * `error looking up service account <namespace>/<name>: serviceaccount "<name>" not found`.
 */
const NO_SERVICE_ACCOUNT =
  /error looking up service account ([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)\/([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?): serviceaccount "\3" not found/;

/**
 * The refusal of a missing ServiceAccount, in the hook's words, or undefined
 * when it is the hook's own account and it exists now: Metacontroller creates a
 * sync's children in no fixed order, so a new parent's ReplicaSet may try its
 * first pod before the account is created, and its next try (moments later)
 * finds it. Saying so would write the status twice more for nothing.
 */
function missingAccount(input: StatusInput, dep: ObservedDeployment, text: string) {
  const { observed, resolution } = input;
  const found = NO_SERVICE_ACCOUNT.exec(text);
  if (found === null) return undefined;
  const [, namespace, , account] = found;
  if (namespace !== observed.namespace || account === undefined) return undefined;
  // The account the hook creates: none when an override names another (with
  // an invalid spec, the children kept as applied: taken to be the default).
  const override = resolution.desired?.spec.workload?.overrides?.serviceAccountName;
  const ours = override === undefined && account === childNames.serviceAccount(observed.name);
  if (
    ours &&
    observed.children.some((c) => c.kind === "ServiceAccount" && c.metadata.name === account)
  )
    return { text: undefined };
  return {
    text: ours
      ? msg.replicaFailureOwnServiceAccount(dep.metadata.name, account)
      : msg.replicaFailureServiceAccount(dep.metadata.name, account),
  };
}

/**
 * The Deployment's ReplicaFailure (its ReplicaSet cannot create pods: Pod
 * Security, a quota, a missing ServiceAccount, an admission webhook), in the
 * hook's own words. Its message is no text of ours, so nothing of it is echoed
 * but what matches a known refusal's shape (a level, a quota's or an account's
 * name); and a message that names no pod (they are named at random) keeps the
 * status still while it holds.
 */
function replicaFailure(input: StatusInput): string | undefined {
  const dep = input.observed.deployment;
  const failure = dep?.status?.conditions?.find(
    (c) => c.type === "ReplicaFailure" && c.status === "True",
  );
  if (dep === undefined || failure === undefined) return undefined;
  const text = failure.message ?? "";
  const level = POD_SECURITY.exec(text)?.[1];
  if (level !== undefined) return msg.replicaFailurePodSecurity(dep.metadata.name, level);
  const quota = QUOTA.exec(text)?.[1];
  if (quota !== undefined) return msg.replicaFailureQuota(dep.metadata.name, quota);
  const account = missingAccount(input, dep, text);
  if (account !== undefined) return account.text;
  const reason = /^[A-Z][A-Za-z]{0,63}$/.test(failure.reason ?? "") ? failure.reason : undefined;
  return msg.replicaFailure(dep.metadata.name, reason ?? "FailedCreate");
}

function availableVerdict(
  observed: Observed,
  deployed: boolean,
  failure: string | undefined,
): Verdict {
  const dep = observed.deployment;
  if (!deployed) return ["False", ConditionReason.DeploymentNotFound, msg.noDeployment()];
  const available = dep?.status?.conditions?.find((c) => c.type === "Available");
  const replicas = dep?.status?.availableReplicas ?? 0;
  if (available?.status === "True" && replicas > 0)
    return ["True", ConditionReason.MinimumReplicasAvailable, msg.replicasAvailable(replicas)];
  if (failure !== undefined) return ["False", ConditionReason.ReplicaFailure, failure];
  // The Deployment's own message is a fixed sentence that appears only once its
  // controller has posted a status: copying it would rewrite the status once
  // more per new parent and say nothing new.
  return [
    "False",
    available?.reason ?? ConditionReason.MinimumReplicasUnavailable,
    msg.noReplicaAvailable(),
  ];
}

function phaseOf(failed: boolean, ready: boolean, deployed: boolean): Phase {
  if (failed) return "Failed";
  if (ready) return "Ready";
  return deployed ? "Initializing" : "Pending";
}

type Conditioned = ReturnType<typeof conditionFactory>;

/**
 * One line naming a condition that is not True: for a failed check, its first
 * problem's reason and field and how many more it holds; otherwise its own
 * message's first line.
 */
function summaryOf(c: Condition, checks: Record<ProblemCondition, Check>): string {
  const check = isProblemCondition(c.type) ? checks[c.type] : undefined;
  const first = check?.ok === false ? check.problems[0] : undefined;
  if (check?.ok === false && first !== undefined)
    return msg.failedSummary(c.type, c.reason, first.path, check.problems.length - 1);
  return msg.notReady(c.type, c.status, c.message.split("\n")[0] ?? "");
}

/** Each warning reason that holds, as a condition of that type (WARNING_REASONS order). */
function warningConditions(
  warnings: readonly Warning[],
  condition: Conditioned,
): ReturnType<Conditioned>[] {
  return WARNING_REASONS.flatMap((reason) => {
    const found = warnings.filter((w) => w.reason === reason);
    return found.length === 0 ? [] : [condition(reason, "True", reason, joinProblems(found))];
  });
}

/**
 * Ready: True when every check holds and the rollout is done, naming the
 * warnings; else why not, in one line (a rollout whose new pods cannot be
 * created, while old ones serve, says so).
 */
function readyVerdict(
  checked: readonly Condition[],
  checks: Record<ProblemCondition, Check>,
  rollout: { done: boolean; failure: string | undefined },
  warnings: readonly Condition[],
): Verdict {
  const notReady = checked.find((c) => c.status !== "True");
  if (notReady !== undefined) return ["False", notReady.reason, summaryOf(notReady, checks)];
  if (!rollout.done && rollout.failure !== undefined)
    return ["False", ConditionReason.ReplicaFailure, rollout.failure];
  if (!rollout.done) return ["False", ConditionReason.RollingOut, msg.rollingOut()];
  return ["True", ConditionReason.Ready, msg.runningCurrentSpec(warnings.map((w) => w.type))];
}

export function computeStatus(input: StatusInput): Status {
  const { observed, resolution, returned } = input;
  const condition = conditionFactory(input);
  const problems = problemsOf(resolution, returned.plan);
  const deployed = reportsDeployment(input);
  const failure = replicaFailure(input);
  const run = describedRun(input);
  const checks: Record<ProblemCondition, Check> = {
    ValidationSucceeded: validationCheck(resolution, returned.plan),
    SecretsResolved: resolution.references,
    ConfigGenerated: resolution.config,
  };
  const checked = [
    condition(
      "ValidationSucceeded",
      ...fromCheck(checks.ValidationSucceeded, ConditionReason.Valid, msg.specValid()),
    ),
    condition(
      "SecretsResolved",
      ...fromCheck(
        checks.SecretsResolved,
        ConditionReason.AllReferencesFound,
        msg.referencesFound(),
      ),
    ),
    condition("ConfigGenerated", ...configVerdict(resolution, run.configGeneration?.configMapName)),
    condition("DeploymentUpdated", ...updatedVerdict(input)),
    condition("Available", ...availableVerdict(observed, deployed, failure)),
  ];
  const warnings = warningConditions(
    [...resolution.warnings, ...returned.workloadWarnings],
    condition,
  );
  const rollout = { done: returned.rolledOut, failure };
  const ready = condition("Ready", ...readyVerdict(checked, checks, rollout, warnings));
  const conditions = [...checked, ready];
  const dep = observed.deployment;
  if (problems.length === 0 && (dep === undefined || !returned.rolledOut)) {
    const message = deployed ? msg.rollingOut() : msg.creatingDeployment();
    conditions.push(condition("Reconciling", "True", ConditionReason.RollingOut, message));
  }
  if (problems.length > 0) {
    const reason = problems[0]?.reason ?? "Failed";
    const failed = checked.filter((c) => c.status === "False" && isProblemCondition(c.type));
    const message = failed.map((c) => summaryOf(c, checks)).join("; ");
    conditions.push(condition("Stalled", "True", reason, message));
  }
  conditions.push(...warnings);
  const status: Status = {
    phase: phaseOf(problems.length > 0, ready.status === "True", deployed),
    conditions,
    availableReplicas: dep?.status?.availableReplicas ?? 0,
  };
  return { ...status, ...run };
}

/** What the status says about the run: from the desired state when it was returned, else as observed. */
function describedRun(
  input: StatusInput,
): Pick<Status, "resolvedDistribution" | "configGeneration" | "serviceURL" | "externalURL"> {
  const { observed, resolution, returned } = input;
  const desired = resolution.desired;
  if (!returned.updated || desired === undefined) {
    const { resolvedDistribution, configGeneration, serviceURL, externalURL } = observed.status;
    return defined({ resolvedDistribution, configGeneration, serviceURL, externalURL });
  }
  const { name, release, image } = desired.distribution;
  return defined({
    resolvedDistribution: defined({
      name,
      release,
      image,
      configSource: desired.config?.source ?? "generated",
    }),
    configGeneration: configGeneration(desired, observed, input.now),
    serviceURL: serviceUrl({
      llsd: desired.llsd,
      namespace: desired.namespace,
      port: desired.port,
      tls: desired.tls !== undefined,
    }),
    externalURL: externalUrl(desired.ingress),
  });
}

/** Where the Ingress of networking.expose serves the server, when it names a host. */
function externalUrl(ingress: Desired["ingress"]): string | undefined {
  if (ingress?.hostname === undefined) return undefined;
  return `${ingress.tlsSecretName === undefined ? "http" : "https"}://${ingress.hostname}`;
}

/**
 * generatedAt: when the status first named this config, kept from the status
 * while the config stays the same. A status without it (written before the
 * hook kept it, or lost) takes the ConfigMap's creationTimestamp, and a config
 * returned for the first time takes `now`: never absent, so the sync after the
 * ConfigMap's creation does not rewrite the status to add it.
 */
function configGeneration(
  desired: Desired,
  observed: Observed,
  now: string,
): Status["configGeneration"] {
  if (desired.config?.source !== "generated") return undefined;
  const { configHash, providerCount, resourceCount } = desired.config.generated;
  const configMapName = childNames.configMap(desired.llsd, configHash);
  const configMap = observed.children.find(
    (c) => c.kind === "ConfigMap" && c.metadata.name === configMapName,
  );
  const prior = observed.status.configGeneration;
  const generatedAt =
    (prior?.configHash === configHash ? prior.generatedAt : undefined) ??
    configMap?.metadata.creationTimestamp ??
    now;
  return defined({ configMapName, configHash, generatedAt, providerCount, resourceCount });
}
