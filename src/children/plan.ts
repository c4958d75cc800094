// All the children of a valid spec (SPEC §5), and the checks only the
// combination of spec and observed children can make (reserved names, a PVC's
// immutable fields).
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { KubeObject } from "../api/hook.js";
import type { Spec } from "../api/schema.js";
import { DEFAULT_DATA_DIR, DEFAULT_PORT } from "../api/workload.js";
import type { GeneratedConfig } from "../config/generate.js";
import {
  CONFIG_MOUNT_DIR,
  TLS_MOUNT_DIR,
  isOgx,
  isReservedEnvName,
  OGX_TMP,
} from "../config/runtime.js";
import { msg } from "../messages.js";
import { problem, Reason, type Problem } from "../problems.js";
import { checkSizes } from "./budget.js";
import { buildConfigMap } from "./configmap.js";
import { buildDeployment, VOLUME_NAMES } from "./deployment.js";
import {
  childNames,
  CONFIG_HASH_ANNOTATION,
  CONTROLLER_UID_LABEL,
  INPUTS_HASH_ANNOTATION,
  labelsFor,
} from "./labels.js";
import { buildService } from "./service.js";
import {
  allowedDisruptions,
  buildHpa,
  buildIngress,
  buildNetworkPolicy,
  buildPdb,
  buildPvc,
  buildServiceAccount,
} from "./workload-children.js";

export interface PlanInput {
  llsd: string;
  namespace: string;
  spec: Spec;
  image: string;
  release: string | undefined;
  generated: GeneratedConfig | undefined;
  inputsHash: string;
  observedChildren: readonly KubeObject[];
}

export type Plan =
  | { ok: true; children: KubeObject[]; desiredDeployment: Deployment; warnings: Problem[] }
  | { ok: false; problems: Problem[] };

const RESERVED_LABELS = new Set([...Object.keys(labelsFor("x")), CONTROLLER_UID_LABEL]);

function checkOverrides(spec: Spec, dataDir: string, release: string | undefined): Problem[] {
  const ogx = release !== undefined && isOgx(release);
  const o = spec.workload?.overrides;
  if (o === undefined) return [];
  const at = "spec.workload.overrides";
  const problems: Problem[] = [];
  const envNames = new Set<string>();
  (o.env ?? []).forEach((e, i) => {
    if (isReservedEnvName(e.name))
      problems.push(problem(Reason.InvalidSpec, `${at}.env[${i}].name`, msg.reservedEnv(e.name)));
    else if (envNames.has(e.name))
      problems.push(problem(Reason.InvalidSpec, `${at}.env[${i}].name`, msg.duplicateEnv(e.name)));
    envNames.add(e.name);
  });
  // The API server refuses a pod whose volume names or mount paths repeat.
  const reservedVolumes = new Set<string>([
    ...Object.values(VOLUME_NAMES),
    ...(ogx ? [OGX_TMP.volume] : []),
  ]);
  const volumeNames = new Set<string>();
  (o.volumes ?? []).forEach((v, i) => {
    const path = `${at}.volumes[${i}].name`;
    if (reservedVolumes.has(v.name))
      problems.push(problem(Reason.InvalidSpec, path, msg.reservedVolume(v.name)));
    else if (volumeNames.has(v.name))
      problems.push(problem(Reason.InvalidSpec, path, msg.duplicateVolume(v.name)));
    volumeNames.add(v.name);
  });
  const reservedPaths = new Set([
    CONFIG_MOUNT_DIR,
    TLS_MOUNT_DIR,
    dataDir,
    ...(ogx ? [OGX_TMP.mountPath] : []),
  ]);
  const mountPaths = new Set<string>();
  (o.volumeMounts ?? []).forEach((m, i) => {
    const path = `${at}.volumeMounts[${i}].mountPath`;
    const normalized = m.mountPath.replace(/\/+$/, "");
    if (reservedPaths.has(normalized))
      problems.push(problem(Reason.InvalidSpec, path, msg.reservedMountPath(m.mountPath)));
    else if (mountPaths.has(normalized))
      problems.push(problem(Reason.InvalidSpec, path, msg.duplicateMountPath(m.mountPath)));
    mountPaths.add(normalized);
  });
  for (const key of Object.keys(o.podLabels ?? {}).sort()) {
    if (RESERVED_LABELS.has(key))
      problems.push(problem(Reason.InvalidSpec, `${at}.podLabels`, msg.reservedLabel(key)));
  }
  for (const key of Object.keys(o.podAnnotations ?? {}).sort()) {
    if (
      key === CONFIG_HASH_ANNOTATION ||
      key === INPUTS_HASH_ANNOTATION ||
      key.startsWith("llamastack.io/")
    ) {
      problems.push(
        problem(Reason.InvalidSpec, `${at}.podAnnotations`, msg.reservedAnnotation(key)),
      );
    }
  }
  return problems;
}

/** A PVC's access modes and class cannot change once created. */
function checkPvc(desired: KubeObject, observed: KubeObject | undefined): Problem[] {
  if (observed === undefined) return [];
  const have = observed as unknown as {
    spec?: { accessModes?: string[]; storageClassName?: string };
  };
  const want = desired as unknown as { spec: { accessModes: string[]; storageClassName?: string } };
  const problems: Problem[] = [];
  if (JSON.stringify(have.spec?.accessModes ?? []) !== JSON.stringify(want.spec.accessModes)) {
    problems.push(
      problem(
        Reason.InvalidSpec,
        "spec.workload.storage.accessMode",
        msg.pvcImmutable(
          "accessMode",
          (have.spec?.accessModes ?? []).join(","),
          observed.metadata.name,
        ),
      ),
    );
  }
  if (
    want.spec.storageClassName !== undefined &&
    have.spec?.storageClassName !== want.spec.storageClassName
  ) {
    problems.push(
      problem(
        Reason.InvalidSpec,
        "spec.workload.storage.storageClassName",
        msg.pvcImmutable(
          "storageClassName",
          have.spec?.storageClassName ?? "(default)",
          observed.metadata.name,
        ),
      ),
    );
  }
  return problems;
}

export function planChildren(input: PlanInput): Plan {
  const { llsd, namespace, spec, generated } = input;
  const base = { llsd, namespace };
  const port = spec.networking?.port ?? DEFAULT_PORT;
  const workload = spec.workload;
  const storage = workload?.storage;
  const dataDir = (storage?.mountPath ?? DEFAULT_DATA_DIR).replace(/\/+$/, "");
  const tls =
    spec.networking?.tls?.enabled === true && spec.networking.tls.secretName !== undefined
      ? {
          secretName: spec.networking.tls.secretName,
          requireClientCertificate: spec.networking.tls.requireClientCertificate === true,
        }
      : undefined;
  const problems = checkOverrides(spec, dataDir, input.release);
  const warnings: Problem[] = [];
  const children: KubeObject[] = [];
  const observedPvc = input.observedChildren.find(
    (c) => c.kind === "PersistentVolumeClaim" && c.metadata.name === childNames.pvc(llsd),
  );

  if (generated !== undefined) {
    children.push(
      buildConfigMap({
        llsd,
        namespace,
        configYaml: generated.configYaml,
        configHash: generated.configHash,
      }) as KubeObject,
    );
  }
  const overrides = workload?.overrides;
  const serviceAccountName = overrides?.serviceAccountName ?? childNames.serviceAccount(llsd);
  const autoscaling = workload?.autoscaling;
  const desiredDeployment = buildDeployment({
    llsd,
    namespace,
    image: input.image,
    release: input.release,
    port,
    configMapName:
      generated !== undefined
        ? childNames.configMap(llsd, generated.configHash)
        : (spec.overrideConfig?.configMapName ?? ""),
    configHash: generated?.configHash,
    inputsHash: input.inputsHash,
    secretEnv: generated?.secretEnv ?? [],
    replicas: autoscaling === undefined ? (workload?.replicas ?? 1) : undefined,
    dataDir,
    pvcName: storage === undefined ? undefined : childNames.pvc(llsd),
    recreate: storage !== undefined && storage.accessMode !== "ReadWriteMany",
    tls,
    serviceAccountName,
    generatedServiceAccount: overrides?.serviceAccountName === undefined,
    resources: workload?.resources,
    topologySpreadConstraints: workload?.topologySpreadConstraints,
    userEnv: overrides?.env,
    command: overrides?.command,
    args: overrides?.args,
    volumes: overrides?.volumes,
    volumeMounts: overrides?.volumeMounts,
    imagePullSecrets: overrides?.imagePullSecrets,
    nodeSelector: overrides?.nodeSelector,
    tolerations: overrides?.tolerations,
    affinity: overrides?.affinity,
    podLabels: overrides?.podLabels,
    podAnnotations: overrides?.podAnnotations,
  });
  children.push(
    desiredDeployment as KubeObject,
    buildService({ llsd, namespace, port }) as KubeObject,
  );
  if (overrides?.serviceAccountName === undefined)
    children.push(buildServiceAccount(base) as KubeObject);

  const expose = spec.networking?.expose;
  if (expose !== undefined && expose.enabled) {
    children.push(
      buildIngress({
        ...base,
        hostname: expose.hostname,
        ingressClassName: expose.ingressClassName,
        tlsSecretName: expose.tlsSecretName,
        backendTls: tls !== undefined,
      }) as KubeObject,
    );
  }
  const allowedFrom = spec.networking?.allowedFrom;
  if (allowedFrom !== undefined) {
    children.push(
      buildNetworkPolicy({
        ...base,
        port,
        namespaces: allowedFrom.namespaces ?? [],
        labels: allowedFrom.labels ?? [],
      }) as KubeObject,
    );
  }
  if (storage !== undefined) {
    const pvc = buildPvc({
      ...base,
      size: storage.size,
      accessMode: storage.accessMode,
      storageClassName: storage.storageClassName,
    }) as KubeObject;
    problems.push(...checkPvc(pvc, observedPvc));
    children.push(pvc);
  } else if (observedPvc !== undefined) {
    // Removing workload.storage unmounts the volume but never deletes the data:
    // sync keeps the claim as it was applied (children/keep.ts).
    warnings.push(
      problem(Reason.VolumeKept, "spec.workload.storage", msg.pvcKept(observedPvc.metadata.name)),
    );
  }
  if (autoscaling !== undefined) {
    children.push(
      buildHpa({
        ...base,
        minReplicas: autoscaling.minReplicas,
        maxReplicas: autoscaling.maxReplicas,
        cpu: autoscaling.targetCPUUtilizationPercentage,
        memory: autoscaling.targetMemoryUtilizationPercentage,
      }) as KubeObject,
    );
  }
  const pdb = workload?.podDisruptionBudget;
  if (pdb !== undefined) {
    const replicas = autoscaling?.minReplicas ?? workload?.replicas ?? 1;
    if (allowedDisruptions(replicas, pdb) >= 1)
      children.push(buildPdb({ ...base, ...pdb }) as KubeObject);
    else
      warnings.push(
        problem(Reason.PdbSkipped, "spec.workload.podDisruptionBudget", msg.pdbSkipped(replicas)),
      );
  }
  problems.push(...checkSizes(children));
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, children, desiredDeployment, warnings };
}
