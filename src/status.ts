// Status (SPEC §6): computed from the outcome of this sync, the observed
// children and the observed status. Deterministic: the clock comes in as
// `now`, a condition keeps its lastTransitionTime while its status is
// unchanged, and generatedAt is the ConfigMap's creationTimestamp, so feeding
// a response's status back in gives the same response at any later `now`.
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { Condition, ConditionType, Phase, Status } from "./api/status.js";
import { formatProblem, type Problem } from "./problems.js";

export const ConditionReason = {
  Valid: "Valid",
  AllReferencesFound: "AllReferencesFound",
  SpecInvalid: "SpecInvalid",
  ConfigGenerated: "ConfigGenerated",
  OverrideConfig: "OverrideConfig",
  DeploymentUpdated: "DeploymentUpdated",
  KeptLastApplied: "KeptLastApplied",
  NotCreated: "NotCreated",
  DeploymentNotFound: "DeploymentNotFound",
  MinimumReplicasAvailable: "MinimumReplicasAvailable",
  MinimumReplicasUnavailable: "MinimumReplicasUnavailable",
  RollingOut: "RollingOut",
  Ready: "Ready",
} as const;

export type Check =
  | { ok: true }
  | { ok: false; problems: Problem[] }
  | { ok: "unknown"; reason: string; message: string };

export interface StatusInput {
  generation: number;
  now: string;
  observed: Status;
  validation: Check;
  references: Check;
  config: Check & { source?: "generated" | "override" };
  /** The desired Deployment was returned (false: last-applied children kept, or none). */
  deploymentUpdated: boolean;
  firstSync: boolean;
  observedDeployment: Deployment | undefined;
  rolledOut: boolean;
  warnings: Problem[];
  workloadWarnings: Problem[];
  resolvedDistribution: Status["resolvedDistribution"];
  configGeneration: Status["configGeneration"];
  serviceURL: string | undefined;
}

const MAX_MESSAGE = 4096;

function joinProblems(problems: readonly Problem[]): string {
  const text = problems.map(formatProblem).join("\n");
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 15)}\n… (truncated)` : text;
}

function fromCheck(
  check: Check,
  okReason: string,
  okMessage: string,
): [Condition["status"], string, string] {
  if (check.ok === true) return ["True", okReason, okMessage];
  if (check.ok === "unknown") return ["Unknown", check.reason, check.message];
  return ["False", check.problems[0]?.reason ?? "Failed", joinProblems(check.problems)];
}

function deploymentCondition(d: Deployment | undefined, type: string) {
  return d?.status?.conditions?.find((c) => c.type === type);
}

export function computeStatus(input: StatusInput): Status {
  const previous = new Map((input.observed.conditions ?? []).map((c) => [c.type, c]));
  const condition = (
    type: ConditionType,
    status: Condition["status"],
    reason: string,
    message: string,
  ): Condition => {
    const prior = previous.get(type);
    return {
      type,
      status,
      reason,
      message,
      lastTransitionTime:
        prior !== undefined && prior.status === status ? prior.lastTransitionTime : input.now,
      observedGeneration: input.generation,
    };
  };
  const problems = [input.validation, input.references, input.config].flatMap((c) =>
    c.ok === false ? c.problems : [],
  );
  const warningText =
    input.warnings.length > 0 ? `\nWarnings:\n${joinProblems(input.warnings)}` : "";

  const validation = condition(
    "ValidationSucceeded",
    ...fromCheck(input.validation, ConditionReason.Valid, "The spec is valid."),
  );
  const references = condition(
    "SecretsResolved",
    ...fromCheck(
      input.references,
      ConditionReason.AllReferencesFound,
      "Every referenced Secret and ConfigMap exists with the keys used.",
    ),
  );
  const configOk: [Condition["status"], string, string] =
    input.config.source === "override"
      ? ["True", ConditionReason.OverrideConfig, `Using spec.overrideConfig as is.${warningText}`]
      : [
          "True",
          ConditionReason.ConfigGenerated,
          `Generated ${input.configGeneration?.configMapName ?? "the config"}.${warningText}`,
        ];
  const config = condition(
    "ConfigGenerated",
    ...(input.config.ok === true ? configOk : fromCheck(input.config, "", "")),
  );
  const workloadWarningText =
    input.workloadWarnings.length > 0 ? `\nWarnings:\n${joinProblems(input.workloadWarnings)}` : "";
  const updated = input.deploymentUpdated
    ? condition(
        "DeploymentUpdated",
        "True",
        ConditionReason.DeploymentUpdated,
        `The Deployment matches the spec.${workloadWarningText}`,
      )
    : input.firstSync
      ? condition(
          "DeploymentUpdated",
          "False",
          ConditionReason.NotCreated,
          "Nothing is created until the problems above are fixed.",
        )
      : condition(
          "DeploymentUpdated",
          "False",
          ConditionReason.KeptLastApplied,
          "The running children are kept as last applied until the problems above are fixed.",
        );

  const dep = input.observedDeployment;
  const available = deploymentCondition(dep, "Available");
  const availableReplicas = dep?.status?.availableReplicas ?? 0;
  const availableCondition =
    dep === undefined
      ? condition(
          "Available",
          "False",
          ConditionReason.DeploymentNotFound,
          "The Deployment does not exist yet.",
        )
      : available?.status === "True" && availableReplicas > 0
        ? condition(
            "Available",
            "True",
            ConditionReason.MinimumReplicasAvailable,
            `${availableReplicas} replica(s) available.`,
          )
        : condition(
            "Available",
            "False",
            available?.reason ?? ConditionReason.MinimumReplicasUnavailable,
            available?.message ?? "No replica is available yet.",
          );

  const rollingOut = problems.length === 0 && dep !== undefined && !input.rolledOut;
  const notReady = [validation, references, config, updated, availableCondition].find(
    (c) => c.status !== "True",
  );
  const ready =
    notReady === undefined && input.rolledOut
      ? condition("Ready", "True", ConditionReason.Ready, "The server is running the current spec.")
      : condition(
          "Ready",
          "False",
          notReady?.reason ?? ConditionReason.RollingOut,
          notReady !== undefined
            ? `${notReady.type} is ${notReady.status}: ${notReady.message}`
            : "The Deployment is rolling out.",
        );

  const conditions = [validation, references, config, updated, availableCondition, ready];
  if (rollingOut || (problems.length === 0 && dep === undefined)) {
    conditions.push(
      condition(
        "Reconciling",
        "True",
        ConditionReason.RollingOut,
        dep === undefined ? "Creating the Deployment." : "The Deployment is rolling out.",
      ),
    );
  }
  if (problems.length > 0) {
    conditions.push(
      condition("Stalled", "True", problems[0]?.reason ?? "Failed", joinProblems(problems)),
    );
  }

  const phase: Phase =
    problems.length > 0
      ? "Failed"
      : ready.status === "True"
        ? "Ready"
        : dep === undefined
          ? "Pending"
          : "Initializing";
  const status: Status = { phase, conditions, availableReplicas };
  if (input.resolvedDistribution !== undefined)
    status.resolvedDistribution = input.resolvedDistribution;
  if (input.configGeneration !== undefined) status.configGeneration = input.configGeneration;
  if (input.serviceURL !== undefined) status.serviceURL = input.serviceURL;
  return status;
}
