// The checks on spec.workload.overrides that need what the hook itself puts in
// the pod: its env names, volume names, mount paths, pod labels and
// annotations are reserved, and the API server refuses a pod whose volume
// names or mount paths repeat (docs/guide/workload.md).
import type { Overrides } from "../api/workload.js";
import {
  AUTH_CA_MOUNT_DIR,
  CONFIG_MOUNT_DIR,
  TLS_MOUNT_DIR,
  isOgx,
  isReservedEnvName,
  OGX_TMP,
  TRUST,
} from "../config/runtime.js";
import { msg } from "../messages.js";
import { problem, Reason, type Problem } from "../problems.js";
import { AUTH_CA_VOLUME, VOLUME_NAMES } from "./deployment.js";
import {
  CONFIG_HASH_ANNOTATION,
  CONTROLLER_UID_LABEL,
  INPUTS_HASH_ANNOTATION,
  labelsFor,
} from "./labels.js";

const AT = "spec.workload.overrides";
const RESERVED_LABELS = new Set([...Object.keys(labelsFor("x")), CONTROLLER_UID_LABEL]);

export interface PodLayout {
  /** The data volume's mount path, without a trailing slash. */
  dataDir: string;
  /** The Llama Stack release, when known: OGX mounts one more volume. */
  release: string | undefined;
  /** spec.trust is set: the CA bundle's volume and directory are taken. */
  trust: boolean;
  /** spec.auth mounts its CA: that volume and directory are taken. */
  authCa: boolean;
}

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

function checkEnv(env: Overrides["env"]): Problem[] {
  return checkNames(
    (env ?? []).map((e) => e.name),
    (i) => `${AT}.env[${i}].name`,
    isReservedEnvName,
    { reserved: msg.reservedEnv, duplicate: msg.duplicateEnv },
  );
}

function checkVolumes(volumes: Overrides["volumes"], layout: PodLayout): Problem[] {
  const ogx = layout.release !== undefined && isOgx(layout.release);
  const reserved = new Set<string>([
    ...Object.values(VOLUME_NAMES),
    ...(ogx ? [OGX_TMP.volume] : []),
    ...(layout.trust ? [TRUST.volume] : []),
    ...(layout.authCa ? [AUTH_CA_VOLUME] : []),
  ]);
  return checkNames(
    (volumes ?? []).map((v) => v.name),
    (i) => `${AT}.volumes[${i}].name`,
    (name) => reserved.has(name),
    { reserved: msg.reservedVolume, duplicate: msg.duplicateVolume },
  );
}

/** Mount paths compare without their trailing slashes. */
function checkMountPaths(mounts: Overrides["volumeMounts"], layout: PodLayout): Problem[] {
  const ogx = layout.release !== undefined && isOgx(layout.release);
  const reserved = new Set<string>([
    CONFIG_MOUNT_DIR,
    TLS_MOUNT_DIR,
    layout.dataDir,
    ...(ogx ? [OGX_TMP.mountPath] : []),
    ...(layout.trust ? [TRUST.mountDir] : []),
    ...(layout.authCa ? [AUTH_CA_MOUNT_DIR] : []),
  ]);
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

/** Every problem of the overrides, in the order of their fields. */
export function checkOverrides(overrides: Overrides | undefined, layout: PodLayout): Problem[] {
  if (overrides === undefined) return [];
  return [
    ...checkEnv(overrides.env),
    ...checkVolumes(overrides.volumes, layout),
    ...checkMountPaths(overrides.volumeMounts, layout),
    ...checkPodLabels(overrides.podLabels),
    ...checkPodAnnotations(overrides.podAnnotations),
  ];
}
