// The hook: sync(request, now) → response, one pure function in four rungs:
// observe what Metacontroller sent, resolve the spec once into what should run,
// return the children (built, or kept as applied when the spec cannot be used,
// so a bad edit never deletes or breaks what runs: docs/adr/0002), and compute
// the status.
import type { SyncRequest, SyncResponse } from "./api/hook.js";
import { canonicalObject } from "./children/canonical.js";
import { DEFAULT_FIELD_MANAGER } from "./children/managed-fields.js";
import { computeStatus } from "./compute-status.js";
import { observe, specInputsOf, type SpecInputs } from "./observe.js";
import type { ResolveContext } from "./resolve.js";
import { planSpec, returnChildren, type SpecPlan } from "./return-children.js";

export interface SyncContext extends ResolveContext {
  /** Metacontroller's server-side apply field manager (default "metacontroller"). */
  fieldManager?: string;
  /** What whoever runs the hook allows past the confused-deputy rule (ALLOWED_POD_FIELDS). */
  allowedPodFields?: ReadonlySet<string>;
  /** planSpec with this context, possibly memoized by the edge (server/memo.ts). */
  planSpec?: (inputs: SpecInputs) => SpecPlan;
}

export type SyncOutcome =
  { kind: "ok"; response: SyncResponse } | { kind: "conflict"; message: string };

export function sync(request: SyncRequest, now: string, ctx: SyncContext): SyncOutcome {
  const observed = observe(request);
  const inputs = specInputsOf(observed);
  const specPlan = ctx.planSpec === undefined ? planSpec(inputs, ctx) : ctx.planSpec(inputs);
  const fieldManager = ctx.fieldManager ?? DEFAULT_FIELD_MANAGER;
  const parent = { name: observed.name, namespace: observed.namespace, fieldManager };
  const returned = returnChildren(specPlan, observed, parent);
  if (returned.kind === "conflict") return returned;
  const { resolution } = specPlan;
  const status = computeStatus({ now, observed, resolution, returned });
  return {
    kind: "ok",
    response: { status, children: returned.children.map(canonicalObject) },
  };
}
