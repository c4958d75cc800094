// The Deployment `<name>` that runs the server (docs/operations/children.md): one container, probed on /v1/health, non-root under Pod Security
// `restricted`, rolled by the hashes of its config and referenced objects.
import type { Deployment, DeploymentSpec, DeploymentStrategy } from "kubernetes-types/apps/v1.js";
import type {
  Container,
  EnvVar,
  PodSecurityContext,
  PodSpec,
  Probe,
  ResourceRequirements,
  SecurityContext,
  TopologySpreadConstraint,
  Volume,
  VolumeMount,
} from "kubernetes-types/core/v1.js";
import type { PodFields } from "../api/workload.js";
import { OTEL_WRAPPER, serverCommand } from "../container.js";
import type { SecretBinding } from "../config/secrets.js";
import { compareStrings, defined } from "../lib/json.js";
import { childMetadata, type Child } from "./child.js";
import { containerResources } from "./container-resources.js";
import {
  CONFIG_HASH_ANNOTATION,
  CONTAINER_NAME,
  INPUTS_HASH_ANNOTATION,
  METRICS_PORT_NAME,
  PORT_NAME,
  RELEASE_LABEL,
  childNames,
  labelsFor,
  selectorFor,
} from "./labels.js";
import { podLayout, type LayoutInput, type PodLayout } from "./pod-layout.js";

/**
 * RollingUpdate with the API server's own defaults, written out: an apply
 * removes only what it set itself, so a later switch to Recreate (a
 * ReadWriteOnce volume added) must find rollingUpdate ours to remove, or the
 * Deployment is invalid ("may not be specified when strategy type is
 * 'Recreate'").
 */
function rollingUpdate(): DeploymentStrategy {
  return { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } };
}

/** A fixed non-root identity; the data volume is group-writable through fsGroup. */
const RUN_AS_USER = 1001;

export interface DeploymentInput extends LayoutInput {
  llsd: string;
  namespace: string;
  image: string;
  /** The Llama Stack release, when known (not for a custom image). */
  release: string | undefined;
  /** The image is the one configs/distributions.json pins for the release (not spec.distribution.image). */
  pinnedImage: boolean;
  /** sha256 of the generated config; absent with overrideConfig. */
  configHash: string | undefined;
  /** Hash of the referenced objects' resourceVersions: a change rolls the pods. */
  inputsHash: string;
  secretEnv: readonly SecretBinding[];
  /** undefined with autoscaling: the HPA owns the replica count. */
  replicas: number | undefined;
  /** Recreate instead of RollingUpdate (a ReadWriteOnce volume). */
  recreate: boolean;
  tls: { secretName: string; requireClientCertificate: boolean } | undefined;
  // From LayoutInput: releaseFacts (also the start command), port, configMapName
  // (generated or spec.overrideConfig), dataDir, pvcName, authCa (the file the
  // config's tls_cafile names), caBundle (spec.trust's, mounted at TRUST_FILE
  // and named by TRUST.env) and monitoringEnv.
  serviceAccountName: string;
  /** Generated ServiceAccount: no API token is mounted. */
  generatedServiceAccount: boolean;
  /** The user's spec.workload.resources; default requests fill in the rest. */
  resources?: ResourceRequirements | undefined;
  /** Server worker processes per pod (spec.workload.workers, default 1): scales the default requests. */
  workers: number;
  topologySpreadConstraints?: TopologySpreadConstraint[] | undefined;
  userEnv?: EnvVar[] | undefined;
  command?: string[] | undefined;
  args?: string[] | undefined;
  volumes?: Volume[] | undefined;
  volumeMounts?: VolumeMount[] | undefined;
  /** The pod fields the workload passes through (api/workload.ts podFieldsOf), spread into the pod spec. */
  pod?: PodFields | undefined;
  podLabels?: Record<string, string> | undefined;
  podAnnotations?: Record<string, string> | undefined;
  /** spec.monitoring.metrics: the container port `metrics`. */
  metricsPort?: number | undefined;
}

/** Whether the container's environment sets an OTEL_* variable (the image's entrypoint checks the same). */
function setsOtel(input: DeploymentInput): boolean {
  return [
    ...Object.keys(input.monitoringEnv ?? {}),
    ...(input.userEnv ?? []).map((e) => e.name),
  ].some((name) => name.startsWith("OTEL_"));
}

/** The container's command: the user's, else the server's own for a pinned OGX image (container.ts). */
function commandOf(input: DeploymentInput): string[] | undefined {
  return input.command ?? serverCommand(input.releaseFacts, input.pinnedImage, setsOtel(input));
}

/** What the start command needs in the environment: the wrapper's disabled instrumentations. */
function commandEnv(input: DeploymentInput): Record<string, string> {
  return input.command === undefined && commandOf(input)?.[0] === OTEL_WRAPPER.command
    ? { [OTEL_WRAPPER.disabledEnv]: OTEL_WRAPPER.disabled }
    : {};
}

/**
 * Our env, then the user's: a user variable replaces one of ours of the same
 * name (only the data paths are allowed to; plan.ts refuses the others).
 */
function env(input: DeploymentInput, own: PodLayout["env"]): EnvVar[] {
  const fixed: EnvVar[] = Object.entries({
    ...Object.fromEntries(own.map((e) => [e.name, e.value])),
    ...commandEnv(input),
  })
    .sort(([a], [b]) => compareStrings(a, b))
    .map(([name, value]) => ({ name, value }));
  const secrets: EnvVar[] = input.secretEnv.map((s) => ({
    name: s.name,
    valueFrom: { secretKeyRef: { name: s.secretName, key: s.key } },
  }));
  const user = input.userEnv ?? [];
  const overridden = new Set(user.map((e) => e.name));
  return [...[...fixed, ...secrets].filter((e) => !overridden.has(e.name)), ...user];
}

function probe(input: DeploymentInput, overrides: Partial<Probe>): Probe {
  if (input.tls?.requireClientCertificate === true)
    return { tcpSocket: { port: PORT_NAME }, ...overrides };
  return {
    httpGet: {
      path: "/v1/health",
      port: PORT_NAME,
      scheme: input.tls === undefined ? "HTTP" : "HTTPS",
    },
    ...overrides,
  };
}

const podSecurityContext: PodSecurityContext = {
  runAsNonRoot: true,
  runAsUser: RUN_AS_USER,
  runAsGroup: RUN_AS_USER,
  fsGroup: RUN_AS_USER,
  seccompProfile: { type: "RuntimeDefault" },
};

const containerSecurityContext: SecurityContext = {
  allowPrivilegeEscalation: false,
  capabilities: { drop: ["ALL"] },
  runAsNonRoot: true,
};

function buildContainer(input: DeploymentInput, layout: PodLayout): Container {
  return defined<Container>({
    name: CONTAINER_NAME,
    image: input.image,
    command: commandOf(input),
    args: input.args,
    ports: [
      { name: PORT_NAME, containerPort: input.port, protocol: "TCP" },
      ...(input.metricsPort === undefined
        ? []
        : [{ name: METRICS_PORT_NAME, containerPort: input.metricsPort, protocol: "TCP" }]),
    ],
    env: env(input, layout.env),
    resources: containerResources(input.resources, input.workers),
    volumeMounts: [...layout.volumes.map((v) => v.mount), ...(input.volumeMounts ?? [])],
    // Every second for up to five minutes: Ready follows the server's start
    // within a second (a real pod: test/node), where a 5 s period made it wait.
    startupProbe: probe(input, { periodSeconds: 1, failureThreshold: 300, timeoutSeconds: 5 }),
    readinessProbe: probe(input, { periodSeconds: 10, failureThreshold: 3, timeoutSeconds: 5 }),
    livenessProbe: probe(input, { periodSeconds: 30, failureThreshold: 3, timeoutSeconds: 5 }),
    securityContext: containerSecurityContext,
  });
}

/** The user's pod annotations, then the hashes whose change rolls the pods. */
function podAnnotations(input: DeploymentInput): Record<string, string> {
  return {
    ...(input.podAnnotations ?? {}),
    [INPUTS_HASH_ANNOTATION]: input.inputsHash,
    ...(input.configHash === undefined ? {} : { [CONFIG_HASH_ANNOTATION]: input.configHash }),
  };
}

/** The pod spec fields the hook writes itself: never one of the workload's pass-through fields. */
type OwnPodFields = { [K in Exclude<keyof PodSpec, keyof PodFields>]?: PodSpec[K] | undefined };

function buildPodSpec(input: DeploymentInput): PodSpec {
  const layout = podLayout(input);
  const own: OwnPodFields = {
    serviceAccountName: input.serviceAccountName,
    automountServiceAccountToken: input.generatedServiceAccount ? false : undefined,
    containers: [buildContainer(input, layout)],
    volumes: [...layout.volumes.map((v) => v.volume), ...(input.volumes ?? [])],
    securityContext: podSecurityContext,
    // A constraint without labelSelector selects this server's pods.
    topologySpreadConstraints: input.topologySpreadConstraints?.map((c) =>
      c.labelSelector === undefined
        ? { ...c, labelSelector: { matchLabels: selectorFor(input.llsd) } }
        : c,
    ),
  };
  return defined<PodSpec>({ ...input.pod, ...own });
}

export function buildDeployment(input: DeploymentInput): Child<Deployment> {
  const owner = { llsd: input.llsd, namespace: input.namespace };
  const metadata = childMetadata(owner, childNames.deployment(input.llsd));
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata:
      input.release === undefined
        ? metadata
        : { ...metadata, labels: { ...labelsFor(input.llsd), [RELEASE_LABEL]: input.release } },
    spec: defined<DeploymentSpec>({
      replicas: input.replicas,
      selector: { matchLabels: selectorFor(input.llsd) },
      strategy: input.recreate ? { type: "Recreate" } : rollingUpdate(),
      template: {
        metadata: {
          labels: { ...(input.podLabels ?? {}), ...labelsFor(input.llsd) },
          annotations: podAnnotations(input),
        },
        spec: buildPodSpec(input),
      },
    }),
  };
}
