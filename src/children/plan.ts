// All the children of a valid spec (docs/operations/children.md), and the
// checks only the combination of spec, release and observed children can make:
// reserved names in the overrides, a claim's immutable fields, the size budget.
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { NetworkPolicyPeer } from "kubernetes-types/networking/v1.js";
import type { KubeObject } from "../api/hook.js";
import type { Networking } from "../api/networking.js";
import { podFieldsOf } from "../api/workload.js";
import { authCaOf } from "../config/auth.js";
import type { GeneratedConfig } from "../config/generate.js";
import type { Desired } from "../desired.js";
import { msg } from "../messages.js";
import { warning, type Problem, type Warning } from "../problems.js";
import { Reason } from "../reasons.js";
import { checkSizes } from "../api/budget.js";
import type { Child, Owner } from "./child.js";
import { buildConfigMap } from "./configmap.js";
import { buildDeployment, type DeploymentInput } from "./deployment.js";
import { buildHpa } from "./hpa.js";
import { buildIngress } from "./ingress.js";
import { childNames } from "./labels.js";
import { allowedPeers, buildNetworkPolicy, type Peers } from "./network-policy.js";
import { monitoringEnv, planMonitoring } from "./monitoring.js";
import { checkOverrides } from "./overrides.js";
import { podLayout } from "./pod-layout.js";
import { checkPodPolicy } from "./pod-policy.js";
import { checkPodRules } from "./pod-rules.js";
import { allowedDisruptions, buildPdb } from "./pdb.js";
import { buildPvc, checkPvcChange } from "./pvc.js";
import { buildServiceAccount } from "./service-account.js";
import { buildService } from "./service.js";

export interface PlanInput {
  desired: Desired;
  observedChildren: readonly KubeObject[];
  /**
   * The keys of the request's children map (Metacontroller sends one for every
   * child type the CompositeController declares): an optional child type
   * (types.ts) is returned only when its key is here. Undefined: none is.
   */
  childGroups?: ReadonlySet<string> | undefined;
  /** What whoever runs the hook allows past the confused-deputy rule (pod-policy.ts); default nothing. */
  allowedPodFields?: ReadonlySet<string> | undefined;
}

export type Plan =
  | { ok: true; children: KubeObject[]; desiredDeployment: Child<Deployment>; warnings: Warning[] }
  | { ok: false; problems: Problem[] };

/** Children, with what they add to the answer's problems and warnings. */
interface Part {
  children: KubeObject[];
  problems: Problem[];
  warnings: Warning[];
}

function generatedOf(desired: Desired): GeneratedConfig | undefined {
  return desired.config?.source === "generated" ? desired.config.generated : undefined;
}

/**
 * The spec's workload, mapped onto the Deployment's input: every field of it
 * named (Required), so one left out does not compile.
 */
function deploymentInputOf(desired: Desired, owner: Owner): Required<DeploymentInput> {
  const { spec, llsd } = desired;
  const generated = generatedOf(desired);
  const workload = spec.workload;
  const storage = workload?.storage;
  const overrides = workload?.overrides;
  return {
    ...owner,
    image: desired.distribution.image,
    release: desired.distribution.release,
    releaseFacts: desired.releaseFacts,
    pinnedImage: desired.distribution.name !== undefined,
    port: desired.port,
    configMapName:
      generated !== undefined
        ? childNames.configMap(llsd, generated.configHash)
        : (spec.overrideConfig?.configMapName ?? ""),
    configHash: generated?.configHash,
    inputsHash: desired.inputsHash,
    secretEnv: generated?.secretEnv ?? [],
    replicas: desired.replicas,
    dataDir: desired.dataDir,
    pvcName: storage === undefined ? undefined : childNames.pvc(llsd),
    recreate: storage !== undefined && storage.accessMode !== "ReadWriteMany",
    tls: desired.tls,
    authCa: authCaOf(spec.auth),
    serviceAccountName: overrides?.serviceAccountName ?? childNames.serviceAccount(llsd),
    generatedServiceAccount: overrides?.serviceAccountName === undefined,
    resources: workload?.resources,
    workers: workload?.workers ?? 1,
    topologySpreadConstraints: workload?.topologySpreadConstraints,
    userEnv: overrides?.env,
    command: overrides?.command,
    args: overrides?.args,
    volumes: overrides?.volumes,
    volumeMounts: overrides?.volumeMounts,
    pod: podFieldsOf(workload),
    podLabels: overrides?.podLabels,
    podAnnotations: overrides?.podAnnotations,
    metricsPort: spec.monitoring?.metrics?.port,
    monitoringEnv: monitoringEnv(spec.monitoring, desired.releaseFacts?.ogx, owner),
    caBundle: spec.trust?.caBundle,
  };
}

function peersOf(allowedFrom: NonNullable<Networking["allowedFrom"]>): Peers {
  return { namespaces: allowedFrom.namespaces ?? [], labels: allowedFrom.labels ?? [] };
}

/**
 * An Ingress behind a NetworkPolicy: the ingress controller's pods connect to
 * the server, and the policy admits them only if their namespace is among the
 * peers. Where the controller runs is not in the spec, so only a rule that
 * admits every namespace (`"*"`: an empty namespaceSelector) or every source
 * (no peer at all) is known to let it in.
 */
function ingressWarnings(allowedFrom: Networking["allowedFrom"]): Warning[] {
  if (allowedFrom === undefined) return [];
  const { namespaces, labels } = peersOf(allowedFrom);
  const from = allowedPeers(namespaces, labels);
  const everyNamespace = (p: NetworkPolicyPeer) =>
    p.podSelector === undefined &&
    p.ipBlock === undefined &&
    p.namespaceSelector !== undefined &&
    Object.keys(p.namespaceSelector).length === 0;
  if (from.length === 0 || from.some(everyNamespace)) return [];
  const detail = msg.ingressMayBeBlocked(namespaces, labels);
  return [warning(Reason.IngressMayBeBlocked, "spec.networking.allowedFrom", detail)];
}

/** The Ingress of networking.expose and the NetworkPolicy of networking.allowedFrom. */
function networkChildren(desired: Desired, owner: Owner): Part {
  const { spec } = desired;
  const { ingress } = desired;
  const allowedFrom = spec.networking?.allowedFrom;
  const children: KubeObject[] = [];
  const warnings = ingress === undefined ? [] : ingressWarnings(allowedFrom);
  if (ingress !== undefined) {
    children.push(
      buildIngress({
        ...owner,
        hostname: ingress.hostname,
        ingressClassName: ingress.ingressClassName,
        tlsSecretName: ingress.tlsSecretName,
        backendTls: desired.tls !== undefined,
      }),
    );
  }
  if (allowedFrom !== undefined) {
    const metrics = spec.monitoring?.metrics;
    children.push(
      buildNetworkPolicy({
        ...owner,
        port: desired.port,
        ...peersOf(allowedFrom),
        metrics: metrics && {
          port: metrics.port,
          from: metrics.allowedFrom && peersOf(metrics.allowedFrom),
        },
      }),
    );
  }
  return { children, problems: [], warnings };
}

/**
 * The claim of workload.storage, refused if it would change one that exists.
 * Removing workload.storage unmounts the volume but never deletes the data:
 * sync keeps the claim as it was applied (children/keep.ts), with a warning.
 */
function storageChildren(input: PlanInput, owner: Owner): Part {
  const storage = input.desired.spec.workload?.storage;
  const observed = input.observedChildren.find(
    (c) => c.kind === "PersistentVolumeClaim" && c.metadata.name === childNames.pvc(owner.llsd),
  );
  const none: Part = { children: [], problems: [], warnings: [] };
  if (storage === undefined) {
    if (observed === undefined) return none;
    const detail = msg.pvcKept(observed.metadata.name);
    return { ...none, warnings: [warning(Reason.VolumeKept, "spec.workload.storage", detail)] };
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
function scalingChildren(desired: Desired, owner: Owner): Part {
  const workload = desired.spec.workload;
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
  const replicas = desired.minReplicas;
  if (allowedDisruptions(replicas, budget) >= 1)
    part.children.push(buildPdb({ ...owner, ...budget }));
  else {
    const detail = msg.pdbSkipped(replicas);
    part.warnings.push(warning(Reason.PdbSkipped, "spec.workload.podDisruptionBudget", detail));
  }
  return part;
}

export function planChildren(input: PlanInput): Plan {
  const { desired } = input;
  const { spec } = desired;
  const generated = generatedOf(desired);
  const owner: Owner = { llsd: desired.llsd, namespace: desired.namespace };
  const deploymentInput = deploymentInputOf(desired, owner);
  const desiredDeployment = buildDeployment(deploymentInput);
  const parts: Part[] = [
    networkChildren(desired, owner),
    storageChildren(input, owner),
    scalingChildren(desired, owner),
    planMonitoring(
      {
        monitoring: spec.monitoring,
        release: desired.distribution.release,
        releaseFacts: desired.releaseFacts,
        overrides: spec.workload?.overrides,
        childGroups: input.childGroups,
      },
      owner,
    ),
  ];
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
    buildService({ ...owner, port: desired.port, metricsPort: spec.monitoring?.metrics?.port }),
    ...(spec.workload?.overrides?.serviceAccountName === undefined
      ? [buildServiceAccount(owner)]
      : []),
    ...parts.flatMap((p) => p.children),
  ];
  const policy = checkPodPolicy(
    desiredDeployment,
    spec.workload,
    input.allowedPodFields ?? new Set(),
  );
  const problems = [
    ...checkOverrides(spec.workload?.overrides, podLayout(deploymentInput)),
    ...checkPodRules(spec.workload, desiredDeployment),
    ...policy.problems,
    ...parts.flatMap((p) => p.problems),
    ...checkSizes(children),
  ];
  if (problems.length > 0) return { ok: false, problems };
  const warnings = [...policy.warnings, ...parts.flatMap((p) => p.warnings)];
  return { ok: true, children, desiredDeployment, warnings };
}
