// All the children of a valid spec (README "Children and rollouts"), and the
// checks only the combination of spec, release and observed children can make:
// reserved names in the overrides, a claim's immutable fields, the size budget.
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { KubeObject } from "../api/hook.js";
import type { Spec } from "../api/schema.js";
import { DEFAULT_DATA_DIR, DEFAULT_PORT } from "../api/workload.js";
import type { GeneratedConfig } from "../config/generate.js";
import { msg } from "../messages.js";
import { problem, Reason, type Problem } from "../problems.js";
import { checkSizes } from "./budget.js";
import type { Child, Owner } from "./child.js";
import { buildConfigMap } from "./configmap.js";
import { buildDeployment, type DeploymentInput } from "./deployment.js";
import { buildHpa } from "./hpa.js";
import { buildIngress } from "./ingress.js";
import { childNames } from "./labels.js";
import { buildNetworkPolicy } from "./network-policy.js";
import { checkOverrides } from "./overrides.js";
import { allowedDisruptions, buildPdb } from "./pdb.js";
import { buildPvc, checkPvcChange } from "./pvc.js";
import { buildServiceAccount } from "./service-account.js";
import { buildService } from "./service.js";

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
  | { ok: true; children: KubeObject[]; desiredDeployment: Child<Deployment>; warnings: Problem[] }
  | { ok: false; problems: Problem[] };

/** What several children agree on, worked out once from the spec. */
interface Layout {
  owner: Owner;
  port: number;
  /** The data volume's mount path, without a trailing slash. */
  dataDir: string;
  tls: DeploymentInput["tls"];
}

/** Children, with what they add to the answer's problems and warnings. */
interface Part {
  children: KubeObject[];
  problems: Problem[];
  warnings: Problem[];
}

function layoutOf(input: PlanInput): Layout {
  const { networking, workload } = input.spec;
  const tls = networking?.tls;
  return {
    owner: { llsd: input.llsd, namespace: input.namespace },
    port: networking?.port ?? DEFAULT_PORT,
    dataDir: (workload?.storage?.mountPath ?? DEFAULT_DATA_DIR).replace(/\/+$/, ""),
    tls:
      tls?.enabled === true && tls.secretName !== undefined
        ? {
            secretName: tls.secretName,
            requireClientCertificate: tls.requireClientCertificate === true,
          }
        : undefined,
  };
}

/** The spec's workload, mapped onto the Deployment's input. */
function deploymentInputOf(input: PlanInput, layout: Layout): DeploymentInput {
  const { spec, generated, llsd } = input;
  const workload = spec.workload;
  const storage = workload?.storage;
  const overrides = workload?.overrides;
  return {
    ...layout.owner,
    image: input.image,
    release: input.release,
    port: layout.port,
    configMapName:
      generated !== undefined
        ? childNames.configMap(llsd, generated.configHash)
        : (spec.overrideConfig?.configMapName ?? ""),
    configHash: generated?.configHash,
    inputsHash: input.inputsHash,
    secretEnv: generated?.secretEnv ?? [],
    replicas: workload?.autoscaling === undefined ? (workload?.replicas ?? 1) : undefined,
    dataDir: layout.dataDir,
    pvcName: storage === undefined ? undefined : childNames.pvc(llsd),
    recreate: storage !== undefined && storage.accessMode !== "ReadWriteMany",
    tls: layout.tls,
    serviceAccountName: overrides?.serviceAccountName ?? childNames.serviceAccount(llsd),
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
  };
}

/** The Ingress of networking.expose and the NetworkPolicy of networking.allowedFrom. */
function networkChildren(spec: Spec, layout: Layout): KubeObject[] {
  const expose = spec.networking?.expose;
  const allowedFrom = spec.networking?.allowedFrom;
  const children: KubeObject[] = [];
  if (expose !== undefined && expose.enabled) {
    children.push(
      buildIngress({
        ...layout.owner,
        hostname: expose.hostname,
        ingressClassName: expose.ingressClassName,
        tlsSecretName: expose.tlsSecretName,
        backendTls: layout.tls !== undefined,
      }),
    );
  }
  if (allowedFrom !== undefined) {
    children.push(
      buildNetworkPolicy({
        ...layout.owner,
        port: layout.port,
        namespaces: allowedFrom.namespaces ?? [],
        labels: allowedFrom.labels ?? [],
      }),
    );
  }
  return children;
}

/**
 * The claim of workload.storage, refused if it would change one that exists.
 * Removing workload.storage unmounts the volume but never deletes the data:
 * sync keeps the claim as it was applied (children/keep.ts), with a warning.
 */
function storageChildren(input: PlanInput, owner: Owner): Part {
  const storage = input.spec.workload?.storage;
  const observed = input.observedChildren.find(
    (c) => c.kind === "PersistentVolumeClaim" && c.metadata.name === childNames.pvc(owner.llsd),
  );
  const none: Part = { children: [], problems: [], warnings: [] };
  if (storage === undefined) {
    if (observed === undefined) return none;
    const detail = msg.pvcKept(observed.metadata.name);
    return { ...none, warnings: [problem(Reason.VolumeKept, "spec.workload.storage", detail)] };
  }
  const pvc = buildPvc({
    ...owner,
    size: storage.size,
    accessMode: storage.accessMode,
    storageClassName: storage.storageClassName,
  });
  return { ...none, children: [pvc], problems: checkPvcChange(pvc, observed) };
}

/**
 * The HPA of workload.autoscaling and the budget of workload.podDisruptionBudget;
 * a budget that would allow no disruption is left out, since it would block
 * every node drain.
 */
function scalingChildren(workload: Spec["workload"], owner: Owner): Part {
  const autoscaling = workload?.autoscaling;
  const budget = workload?.podDisruptionBudget;
  const part: Part = { children: [], problems: [], warnings: [] };
  if (autoscaling !== undefined) {
    part.children.push(
      buildHpa({
        ...owner,
        minReplicas: autoscaling.minReplicas,
        maxReplicas: autoscaling.maxReplicas,
        cpu: autoscaling.targetCPUUtilizationPercentage,
        memory: autoscaling.targetMemoryUtilizationPercentage,
      }),
    );
  }
  if (budget === undefined) return part;
  const replicas = autoscaling?.minReplicas ?? workload?.replicas ?? 1;
  if (allowedDisruptions(replicas, budget) >= 1)
    part.children.push(buildPdb({ ...owner, ...budget }));
  else {
    const detail = msg.pdbSkipped(replicas);
    part.warnings.push(problem(Reason.PdbSkipped, "spec.workload.podDisruptionBudget", detail));
  }
  return part;
}

export function planChildren(input: PlanInput): Plan {
  const { spec, generated } = input;
  const layout = layoutOf(input);
  const { owner } = layout;
  const desiredDeployment = buildDeployment(deploymentInputOf(input, layout));
  const storage = storageChildren(input, owner);
  const scaling = scalingChildren(spec.workload, owner);
  const configMaps =
    generated === undefined
      ? []
      : [
          buildConfigMap({
            ...owner,
            configYaml: generated.configYaml,
            configHash: generated.configHash,
          }),
        ];
  const children: KubeObject[] = [
    ...configMaps,
    desiredDeployment,
    buildService({ ...owner, port: layout.port }),
    ...(spec.workload?.overrides?.serviceAccountName === undefined
      ? [buildServiceAccount(owner)]
      : []),
    ...networkChildren(spec, layout),
    ...storage.children,
    ...scaling.children,
  ];
  const problems = [
    ...checkOverrides(spec.workload?.overrides, {
      dataDir: layout.dataDir,
      release: input.release,
    }),
    ...storage.problems,
    ...checkSizes(children),
  ];
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    children,
    desiredDeployment,
    warnings: [...storage.warnings, ...scaling.warnings],
  };
}
