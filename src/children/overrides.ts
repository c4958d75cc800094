// The checks on spec.workload.overrides that need what the hook itself puts in
// the pod: its env names, volume names and mount paths (exactly those of
// pod-layout.ts), its pod labels and annotations are reserved, and the API
// server refuses a pod whose volume names or mount paths repeat (
// docs/guide/workload.md).
import type { Overrides } from "../api/workload.js";
import { msg } from "../messages.js";
import { problem, type Problem } from "../problems.js";
import { Reason } from "../reasons.js";
import {
  CONFIG_HASH_ANNOTATION,
  CONTROLLER_UID_LABEL,
  INPUTS_HASH_ANNOTATION,
  labelsFor,
} from "./labels.js";
import type { PodLayout, Reserved } from "./pod-layout.js";

const AT = "spec.workload.overrides";
const RESERVED_LABELS = new Set([...Object.keys(labelsFor("x")), CONTROLLER_UID_LABEL]);

const namesOf = (reserved: readonly Reserved[]) => new Set(reserved.map((r) => r.name));

interface NameMessages {
  reserved: (name: string) => string;
  duplicate: (name: string) => string;
}

/**
 * A problem for each name that is reserved or repeats an earlier one, compared
 * by `keyOf(name)`; each problem is at `at(index)`.
 */
function checkNames(
  names: readonly string[],
  at: (index: number) => string,
  isReserved: (key: string) => boolean,
  messages: NameMessages,
  keyOf: (name: string) => string = (name) => name,
): Problem[] {
  const seen = new Set<string>();
  return names.flatMap((name, index) => {
    const key = keyOf(name);
    const detail = isReserved(key)
      ? messages.reserved(name)
      : seen.has(key)
        ? messages.duplicate(name)
        : undefined;
    seen.add(key);
    return detail === undefined ? [] : [problem(Reason.InvalidSpec, at(index), detail)];
  });
}

function checkEnv(env: Overrides["env"], layout: PodLayout): Problem[] {
  const reserved = namesOf(layout.reservedEnv);
  const prefix = layout.reservedEnvPrefix.name;
  return checkNames(
    (env ?? []).map((e) => e.name),
    (i) => `${AT}.env[${i}].name`,
    (name) => reserved.has(name) || name.startsWith(prefix),
    { reserved: msg.reservedEnv, duplicate: msg.duplicateEnv },
  );
}

function checkVolumes(volumes: Overrides["volumes"], layout: PodLayout): Problem[] {
  const reserved = namesOf(layout.reservedVolumes);
  return checkNames(
    (volumes ?? []).map((v) => v.name),
    (i) => `${AT}.volumes[${i}].name`,
    (name) => reserved.has(name),
    { reserved: msg.reservedVolume, duplicate: msg.duplicateVolume },
  );
}

/** Mount paths compare without their trailing slashes. */
function checkMountPaths(mounts: Overrides["volumeMounts"], layout: PodLayout): Problem[] {
  const reserved = namesOf(layout.reservedMountPaths);
  return checkNames(
    (mounts ?? []).map((m) => m.mountPath),
    (i) => `${AT}.volumeMounts[${i}].mountPath`,
    (path) => reserved.has(path),
    { reserved: msg.reservedMountPath, duplicate: msg.duplicateMountPath },
    (path) => path.replace(/\/+$/, ""),
  );
}

/** The labels every child carries select the pods; controller-uid is Metacontroller's. */
function checkPodLabels(labels: Overrides["podLabels"]): Problem[] {
  return Object.keys(labels ?? {})
    .sort()
    .filter((key) => RESERVED_LABELS.has(key))
    .map((key) => problem(Reason.InvalidSpec, `${AT}.podLabels`, msg.reservedLabel(key)));
}

function checkPodAnnotations(annotations: Overrides["podAnnotations"]): Problem[] {
  const reserved = (key: string) =>
    key === CONFIG_HASH_ANNOTATION ||
    key === INPUTS_HASH_ANNOTATION ||
    key.startsWith("llamastack.io/");
  return Object.keys(annotations ?? {})
    .sort()
    .filter(reserved)
    .map((key) => problem(Reason.InvalidSpec, `${AT}.podAnnotations`, msg.reservedAnnotation(key)));
}

/** Every problem of the overrides, in the order of their fields; `layout` is the pod's (podLayout). */
export function checkOverrides(overrides: Overrides | undefined, layout: PodLayout): Problem[] {
  if (overrides === undefined) return [];
  return [
    ...checkEnv(overrides.env, layout),
    ...checkVolumes(overrides.volumes, layout),
    ...checkMountPaths(overrides.volumeMounts, layout),
    ...checkPodLabels(overrides.podLabels),
    ...checkPodAnnotations(overrides.podAnnotations),
  ];
}
