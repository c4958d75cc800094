// The Deployment `<name>` that runs the server (docs/operations/children.md): one container, probed on /v1/health, non-root under Pod Security
// `restricted`, rolled by the hashes of its config and referenced objects.
import type { Deployment, DeploymentSpec, DeploymentStrategy } from "kubernetes-types/apps/v1.js";
import type {
  Affinity,
  Container,
  EnvVar,
  LocalObjectReference,
  PodSecurityContext,
  PodSpec,
  Probe,
  ResourceRequirements,
  SecurityContext,
  Toleration,
  TopologySpreadConstraint,
  Volume,
  VolumeMount,
} from "kubernetes-types/core/v1.js";
import {
  AUTH_CA_FILE,
  AUTH_CA_MOUNT_DIR,
  CONFIG_FILE,
  CONFIG_MOUNT_DIR,
  TLS_MOUNT_DIR,
  dataEnv,
  isOgx,
  OGX_TMP,
  serverEnv,
  TRUST,
  TRUST_FILE,
} from "../config/runtime.js";
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

export const VOLUME_NAMES = { config: "config", data: "data", tls: "tls" } as const;
/** spec.auth's CA, mounted only with spec.auth. */
export const AUTH_CA_VOLUME = "auth-ca";

/** spec.trust.caBundle: the ConfigMap key mounted as the server's extra CA bundle. */
interface CaBundleMount {
  configMapName: string;
  key: string;
}

export interface DeploymentInput {
  llsd: string;
  namespace: string;
  image: string;
  /** The Llama Stack release, when known (not for a custom image). */
  release: string | undefined;
  port: number;
  /** The ConfigMap holding config.yaml (generated or spec.overrideConfig). */
  configMapName: string;
  /** sha256 of the generated config; absent with overrideConfig. */
  configHash: string | undefined;
  /** Hash of the referenced objects' resourceVersions: a change rolls the pods. */
  inputsHash: string;
  secretEnv: readonly SecretBinding[];
  /** undefined with autoscaling: the HPA owns the replica count. */
  replicas: number | undefined;
  dataDir: string;
  /** The PVC to mount as the data volume (else an emptyDir). */
  pvcName: string | undefined;
  /** Recreate instead of RollingUpdate (a ReadWriteOnce volume). */
  recreate: boolean;
  tls: { secretName: string; requireClientCertificate: boolean } | undefined;
  /** spec.auth's CA: this ConfigMap key becomes the file the config's tls_cafile names. */
  authCa?: { configMapName: string; key: string } | undefined;
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
  imagePullSecrets?: LocalObjectReference[] | undefined;
  nodeSelector?: Record<string, string> | undefined;
  tolerations?: Toleration[] | undefined;
  affinity?: Affinity | undefined;
  podLabels?: Record<string, string> | undefined;
  podAnnotations?: Record<string, string> | undefined;
  /** spec.monitoring.metrics: the container port `metrics`. */
  metricsPort?: number | undefined;
  /** The environment spec.monitoring sets (children/monitoring.ts). */
  monitoringEnv?: Record<string, string> | undefined;
  terminationGracePeriodSeconds?: number | undefined;
  /** spec.trust.caBundle: mounted at TRUST_FILE, named by TRUST.env (generated or override config). */
  caBundle?: CaBundleMount | undefined;
}

/**
 * Our env, then the user's: a user variable replaces one of ours of the same
 * name (only the data paths are allowed to; plan.ts refuses the others).
 */
function env(input: DeploymentInput): EnvVar[] {
  const fixed: EnvVar[] = Object.entries({
    ...dataEnv(input.dataDir),
    ...serverEnv(input.release, input.port),
    ...input.monitoringEnv,
    ...(input.caBundle === undefined ? {} : { [TRUST.env]: TRUST_FILE }),
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

/** The config, data, OGX /tmp, TLS, CA bundle and auth CA volumes, with the container's mounts of them. */
function ourVolumes(input: DeploymentInput): { volumes: Volume[]; mounts: VolumeMount[] } {
  const volumes: Volume[] = [
    {
      name: VOLUME_NAMES.config,
      configMap: { name: input.configMapName, items: [{ key: CONFIG_FILE, path: CONFIG_FILE }] },
    },
    input.pvcName === undefined
      ? { name: VOLUME_NAMES.data, emptyDir: {} }
      : { name: VOLUME_NAMES.data, persistentVolumeClaim: { claimName: input.pvcName } },
  ];
  const mounts: VolumeMount[] = [
    { name: VOLUME_NAMES.config, mountPath: CONFIG_MOUNT_DIR, readOnly: true },
    { name: VOLUME_NAMES.data, mountPath: input.dataDir },
  ];
  if (input.release !== undefined && isOgx(input.release)) {
    volumes.push({
      name: OGX_TMP.volume,
      emptyDir: { medium: "Memory", sizeLimit: OGX_TMP.sizeLimit },
    });
    mounts.push({ name: OGX_TMP.volume, mountPath: OGX_TMP.mountPath });
  }
  if (input.tls !== undefined) {
    volumes.push({ name: VOLUME_NAMES.tls, secret: { secretName: input.tls.secretName } });
    mounts.push({ name: VOLUME_NAMES.tls, mountPath: TLS_MOUNT_DIR, readOnly: true });
  }
  if (input.caBundle !== undefined) {
    // One file by subPath: it stays what the pod started with (runtime.ts TRUST).
    const { configMapName, key } = input.caBundle;
    volumes.push({
      name: TRUST.volume,
      configMap: { name: configMapName, items: [{ key, path: TRUST.file }] },
    });
    mounts.push({ name: TRUST.volume, mountPath: TRUST_FILE, subPath: TRUST.file, readOnly: true });
  }
  if (input.authCa !== undefined) {
    const path = AUTH_CA_FILE.slice(AUTH_CA_MOUNT_DIR.length + 1);
    volumes.push({
      name: AUTH_CA_VOLUME,
      configMap: { name: input.authCa.configMapName, items: [{ key: input.authCa.key, path }] },
    });
    mounts.push({ name: AUTH_CA_VOLUME, mountPath: AUTH_CA_MOUNT_DIR, readOnly: true });
  }
  return { volumes, mounts };
}

function buildContainer(input: DeploymentInput, mounts: readonly VolumeMount[]): Container {
  return defined<Container>({
    name: CONTAINER_NAME,
    image: input.image,
    command: input.command,
    args: input.args,
    ports: [
      { name: PORT_NAME, containerPort: input.port, protocol: "TCP" },
      ...(input.metricsPort === undefined
        ? []
        : [{ name: METRICS_PORT_NAME, containerPort: input.metricsPort, protocol: "TCP" }]),
    ],
    env: env(input),
    resources: containerResources(input.resources, input.workers),
    volumeMounts: [...mounts, ...(input.volumeMounts ?? [])],
    startupProbe: probe(input, { periodSeconds: 5, failureThreshold: 60, timeoutSeconds: 5 }),
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

function buildPodSpec(input: DeploymentInput): PodSpec {
  const { volumes, mounts } = ourVolumes(input);
  return defined<PodSpec>({
    serviceAccountName: input.serviceAccountName,
    automountServiceAccountToken: input.generatedServiceAccount ? false : undefined,
    containers: [buildContainer(input, mounts)],
    volumes: [...volumes, ...(input.volumes ?? [])],
    securityContext: podSecurityContext,
    terminationGracePeriodSeconds: input.terminationGracePeriodSeconds,
    imagePullSecrets: input.imagePullSecrets,
    nodeSelector: input.nodeSelector,
    tolerations: input.tolerations,
    affinity: input.affinity,
    // A constraint without labelSelector selects this server's pods.
    topologySpreadConstraints: input.topologySpreadConstraints?.map((c) =>
      c.labelSelector === undefined
        ? { ...c, labelSelector: { matchLabels: selectorFor(input.llsd) } }
        : c,
    ),
  });
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
