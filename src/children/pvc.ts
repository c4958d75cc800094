// The PersistentVolumeClaim `<name>-pvc` of workload.storage (docs/guide/
// workload.md): built from the spec, checked against the claim that exists
// (access modes and class cannot change), and rebuilt from the live claim when
// it must be kept without a record of what was applied (keep.ts, rule 3).
import type { PersistentVolumeClaim, PersistentVolumeClaimSpec } from "kubernetes-types/core/v1.js";
import { z } from "zod";
import type { KubeObject } from "../api/hook.js";
import { defined, isObject } from "../lib/json.js";
import { msg } from "../messages.js";
import { problem, type Problem } from "../problems.js";
import { Reason } from "../reasons.js";
import { childMetadata, type Child, type Owner } from "./child.js";
import { childNames } from "./labels.js";
import { canonicalQuantity } from "./quantity.js";

export interface PvcInput extends Owner {
  size: string;
  accessMode: string;
  storageClassName?: string | undefined;
}

export function buildPvc(input: PvcInput): Child<PersistentVolumeClaim> {
  const { storageClassName } = input;
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: childMetadata(input, childNames.pvc(input.llsd)),
    spec: {
      accessModes: [input.accessMode],
      resources: { requests: { storage: canonicalQuantity(input.size) } },
      ...(storageClassName === undefined ? {} : { storageClassName }),
    },
  };
}

/** The immutable fields of an observed claim, read without trusting their shape. */
function immutableFields(observed: KubeObject): {
  accessModes: string[];
  storageClassName: string | undefined;
} {
  const spec = observed["spec"];
  const accessModes = isObject(spec) ? spec["accessModes"] : undefined;
  const storageClassName = isObject(spec) ? spec["storageClassName"] : undefined;
  return {
    accessModes: Array.isArray(accessModes) ? accessModes.map(String) : [],
    storageClassName: typeof storageClassName === "string" ? storageClassName : undefined,
  };
}

/** A claim's access modes and class cannot change once it exists; a class left out keeps any. */
export function checkPvcChange(
  desired: Child<PersistentVolumeClaim>,
  observed: KubeObject | undefined,
): Problem[] {
  if (observed === undefined) return [];
  const have = immutableFields(observed);
  const wantModes = desired.spec?.accessModes ?? [];
  const wantClass = desired.spec?.storageClassName;
  const name = observed.metadata.name;
  const problems: Problem[] = [];
  if (JSON.stringify(have.accessModes) !== JSON.stringify(wantModes)) {
    const detail = msg.pvcImmutable("accessMode", have.accessModes.join(","), name);
    problems.push(problem(Reason.InvalidSpec, "spec.workload.storage.accessMode", detail));
  }
  if (wantClass !== undefined && have.storageClassName !== wantClass) {
    const current = have.storageClassName ?? "(default)";
    const detail = msg.pvcImmutable("storageClassName", current, name);
    problems.push(problem(Reason.InvalidSpec, "spec.workload.storage.storageClassName", detail));
  }
  return problems;
}

const Strings = z.record(z.string(), z.string());
/** The fields of a live claim that are kept: the ones a claim is created with. */
const LiveClaim = z.object({
  spec: z.object({
    accessModes: z.array(z.string()).max(8).optional(),
    resources: z.object({ requests: Strings.optional(), limits: Strings.optional() }).optional(),
    storageClassName: z.string().optional(),
    volumeMode: z.string().optional(),
  }),
});

/**
 * The claim as it runs, for keeping it without a record of what was applied:
 * its name from the observed claim, the fields it was created with from the
 * live spec; undefined when the live spec does not have their shape.
 */
export function claimFromLive(
  observed: KubeObject,
  owner: Owner,
): Child<PersistentVolumeClaim> | undefined {
  const live = LiveClaim.safeParse(observed);
  if (!live.success) return undefined;
  const { resources, ...rest } = live.data.spec;
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: childMetadata(owner, observed.metadata.name),
    spec: defined<PersistentVolumeClaimSpec>({
      ...rest,
      resources: resources === undefined ? undefined : defined(resources),
    }),
  };
}
