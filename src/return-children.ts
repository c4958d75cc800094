// The third rung of sync: the children to return. The desired ones when every
// check passed, with what must outlive them; else every child as last applied,
// so a bad edit never deletes or breaks what runs (docs/adr/0002). An observed
// object that is none of this parent's children makes the answer a 409, never
// a shorter list.
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { KubeObject } from "./api/hook.js";
import {
  appliedOf,
  checkIdentity,
  isOwnedName,
  keepAll,
  type Kept,
  type ParentRef,
} from "./children/keep.js";
import { planChildren } from "./children/plan.js";
import { jsonEqual } from "./lib/json.js";
import { msg } from "./messages.js";
import type { Observed, ObservedDeployment, SpecInputs } from "./observe.js";
import { formatProblem, type Problem, type Warning } from "./problems.js";
import {
  problemsOf,
  resolve,
  type Check,
  type Resolution,
  type ResolveContext,
} from "./resolve.js";

/** What the children rung did. */
export interface Returned {
  /** Whether the children could be built; undefined when the spec left nothing to plan. */
  plan: Check | undefined;
  /** The desired children were returned (false: the applied ones were kept, or none). */
  updated: boolean;
  /** The returned Deployment is applied and rolled out. */
  rolledOut: boolean;
  /** Warnings about the children returned (none when the applied ones were kept). */
  workloadWarnings: Warning[];
}

/** The parent, and the field manager Metacontroller applies its children as. */
export type Parent = ParentRef & { fieldManager: string };

export type ReturnedChildren =
  (Returned & { kind: "ok"; children: KubeObject[] }) | { kind: "conflict"; message: string };

/** The children this sync returns: built when every check passed, else kept as applied. */
export function returnChildren(
  specPlan: SpecPlan,
  observed: Observed,
  parent: Parent,
): ReturnedChildren {
  const { resolution, check, planned } = specPlan;
  return planned === undefined
    ? keepApplied(problemsOf(resolution, check), check, observed, parent)
    : withKept(planned, observed, parent);
}

interface Planned {
  children: KubeObject[];
  deployment: Deployment;
  warnings: Warning[];
}

/** The third rung's first step: whether the children can be built, and them when every check passed. */
export interface Plan {
  /** Undefined when there is nothing to plan (the spec is invalid). */
  check: Check | undefined;
  planned: Planned | undefined;
}

/**
 * The desired children, when every check passed. A plan that cannot be built
 * (duplicate volumes, a child too large) is a failed check of its own, which
 * the status reports under ValidationSucceeded.
 */
export function plan(
  resolution: Resolution,
  inputs: Pick<SpecInputs, "claim" | "childGroups">,
  allowedPodFields: ReadonlySet<string> | undefined,
): Plan {
  const desired = resolution.desired;
  if (desired === undefined) return { check: undefined, planned: undefined };
  const result = planChildren({
    desired,
    observedChildren: inputs.claim === undefined ? [] : [inputs.claim],
    childGroups: new Set(inputs.childGroups),
    allowedPodFields,
  });
  if (!result.ok) return { check: { ok: false, problems: result.problems }, planned: undefined };
  const check: Check = { ok: true };
  if (problemsOf(resolution, check).length > 0) return { check, planned: undefined };
  const { children, desiredDeployment: deployment, warnings } = result;
  return { check, planned: { children, deployment, warnings } };
}

/** The spec's side of a sync: the second rung and the children's plan. */
export interface SpecPlan extends Plan {
  resolution: Resolution;
}

/**
 * The spec's side of a sync, worked out from `inputs` alone (observe.ts,
 * SpecInputs) and the process's fixed context: the same inputs give the same
 * plan, so the edge may reuse one for as long as they do (server/memo.ts).
 */
export function planSpec(
  inputs: SpecInputs,
  ctx: ResolveContext & { allowedPodFields?: ReadonlySet<string> | undefined },
): SpecPlan {
  const resolution = resolve(inputs, ctx);
  return { resolution, ...plan(resolution, inputs, ctx.allowedPodFields) };
}

/**
 * The desired children, plus what must outlive them: the ConfigMaps the running
 * pods may still mount until the rollout is done, and every claim (removing
 * workload.storage keeps the claim with its data). An observed object that is
 * none of this parent's children makes it a 409, as in keepApplied: never a
 * shorter list.
 */
function withKept(planned: Planned, observed: Observed, parent: Parent): ReturnedChildren {
  const rolledOut = isRolledOut(observed.deployment, planned.deployment, parent);
  const desired = new Set(planned.children.map((c) => `${c.kind}/${c.metadata.name}`));
  const ours = (kind: string) =>
    observed.children.filter(
      (c) =>
        c.kind === kind &&
        !desired.has(`${kind}/${c.metadata.name}`) &&
        isOwnedName(kind, c.metadata.name, observed.name),
    );
  // An object Metacontroller adopted that is none of ours: left out, it would be deleted.
  for (const child of observed.children) {
    const untrusted = checkIdentity(child, parent);
    if (untrusted !== undefined) {
      const adopted = { ok: false as const, child, untrusted };
      return conflict(adopted, observed.namespace, parent.fieldManager, msg.adoptedChild());
    }
  }
  const children = [...planned.children];
  for (const [toKeep, situation] of [
    [rolledOut ? [] : ours("ConfigMap"), msg.keepBecauseRollout()],
    [ours("PersistentVolumeClaim"), msg.keepBecauseStorageRemoved()],
  ] as const) {
    const kept = keepAll(toKeep, parent);
    if (!kept.ok) return conflict(kept, observed.namespace, parent.fieldManager, situation);
    children.push(...kept.children);
  }
  const workloadWarnings = planned.warnings;
  return { kind: "ok", children, plan: { ok: true }, updated: true, rolledOut, workloadWarnings };
}

/** Every child as last applied, while the spec cannot be used (docs/adr/0002). */
function keepApplied(
  problems: readonly Problem[],
  plan: Check | undefined,
  observed: Observed,
  parent: Parent,
): ReturnedChildren {
  const kept = keepAll(observed.children, parent);
  if (kept.ok)
    return {
      kind: "ok",
      children: kept.children,
      plan,
      updated: false,
      rolledOut: false,
      workloadWarnings: [],
    };
  const first = problems[0];
  const situation = msg.keepBecauseInvalid(
    first === undefined ? msg.seeStatus() : formatProblem(first),
  );
  return conflict(kept, observed.namespace, parent.fieldManager, situation);
}

/** Metacontroller applied our Deployment and the Deployment controller finished rolling it out. */
function isRolledOut(
  observed: ObservedDeployment | undefined,
  desired: Deployment,
  parent: ParentRef,
): boolean {
  if (observed === undefined) return false;
  const applied = appliedOf(observed, parent);
  if (!applied.ok || !jsonEqual(applied.object, desired)) return false;
  const status = observed.status ?? {};
  const replicas = observed.spec?.replicas ?? 1;
  return (
    (status.observedGeneration ?? 0) >= (observed.metadata.generation ?? 0) &&
    (status.updatedReplicas ?? 0) >= replicas &&
    (status.replicas ?? 0) <= (status.updatedReplicas ?? 0) &&
    (status.availableReplicas ?? 0) >= replicas
  );
}

function conflict(
  kept: Extract<Kept, { ok: false }>,
  namespace: string,
  fieldManager: string,
  situation: string,
): ReturnedChildren {
  const { child, untrusted } = kept;
  const fix =
    untrusted.kind === "foreign"
      ? msg.fixForeignChild()
      : untrusted.kind === "unrecorded"
        ? msg.fixUnrecordedChild(fieldManager)
        : msg.fixUnreadableChild();
  const id = `${child.kind} ${child.metadata.namespace ?? namespace}/${child.metadata.name}`;
  return { kind: "conflict", message: msg.cannotKeep(id, untrusted.why, situation, fix) };
}
