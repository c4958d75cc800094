// The Deployment that runs the server (SPEC §5).
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type {
  Container,
  EnvVar,
  PodSecurityContext,
  Probe,
  SecurityContext,
  Volume,
  VolumeMount,
} from "kubernetes-types/core/v1.js";
import {
  CONFIG_FILE,
  CONFIG_MOUNT_DIR,
  DATA_DIR,
  PORT_ENV,
  RUNTIME_ENV,
} from "../config/runtime.js";
import type { SecretBinding } from "../config/secrets.js";
import {
  CONFIG_HASH_ANNOTATION,
  CONTAINER_NAME,
  INPUTS_HASH_ANNOTATION,
  PORT_NAME,
  childNames,
  labelsFor,
  selectorFor,
} from "./labels.js";

/** A fixed non-root identity; the data volume is group-writable through fsGroup. */
export const RUN_AS_USER = 1001;

export interface DeploymentInput {
  llsd: string;
  namespace: string;
  image: string;
  port: number;
  /** The ConfigMap holding config.yaml (generated or spec.overrideConfig). */
  configMapName: string;
  /** sha256 of the generated config; absent with overrideConfig. */
  configHash: string | undefined;
  /** Hash of the referenced objects' resourceVersions: a change rolls the pods. */
  inputsHash: string;
  secretEnv: readonly SecretBinding[];
}

const CONFIG_VOLUME = "config";
const DATA_VOLUME = "data";

function env(input: DeploymentInput): EnvVar[] {
  const fixed: EnvVar[] = Object.entries({ ...RUNTIME_ENV, [PORT_ENV]: String(input.port) })
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => ({ name, value }));
  const secrets: EnvVar[] = input.secretEnv.map((s) => ({
    name: s.name,
    valueFrom: { secretKeyRef: { name: s.secretName, key: s.key } },
  }));
  return [...fixed, ...secrets];
}

function probe(overrides: Partial<Probe>): Probe {
  return { httpGet: { path: "/v1/health", port: PORT_NAME, scheme: "HTTP" }, ...overrides };
}

export const podSecurityContext: PodSecurityContext = {
  runAsNonRoot: true,
  runAsUser: RUN_AS_USER,
  runAsGroup: RUN_AS_USER,
  fsGroup: RUN_AS_USER,
  seccompProfile: { type: "RuntimeDefault" },
};

export const containerSecurityContext: SecurityContext = {
  allowPrivilegeEscalation: false,
  capabilities: { drop: ["ALL"] },
  runAsNonRoot: true,
};

export function buildDeployment(input: DeploymentInput): Deployment {
  const volumes: Volume[] = [
    {
      name: CONFIG_VOLUME,
      configMap: { name: input.configMapName, items: [{ key: CONFIG_FILE, path: CONFIG_FILE }] },
    },
    { name: DATA_VOLUME, emptyDir: {} },
  ];
  const mounts: VolumeMount[] = [
    { name: CONFIG_VOLUME, mountPath: CONFIG_MOUNT_DIR, readOnly: true },
    { name: DATA_VOLUME, mountPath: DATA_DIR },
  ];
  const container: Container = {
    name: CONTAINER_NAME,
    image: input.image,
    ports: [{ name: PORT_NAME, containerPort: input.port, protocol: "TCP" }],
    env: env(input),
    volumeMounts: mounts,
    startupProbe: probe({ periodSeconds: 5, failureThreshold: 60, timeoutSeconds: 5 }),
    readinessProbe: probe({ periodSeconds: 10, failureThreshold: 3, timeoutSeconds: 5 }),
    livenessProbe: probe({ periodSeconds: 30, failureThreshold: 3, timeoutSeconds: 5 }),
    securityContext: containerSecurityContext,
  };
  const annotations: Record<string, string> = { [INPUTS_HASH_ANNOTATION]: input.inputsHash };
  if (input.configHash !== undefined) annotations[CONFIG_HASH_ANNOTATION] = input.configHash;
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: childNames.deployment(input.llsd),
      namespace: input.namespace,
      labels: labelsFor(input.llsd),
    },
    spec: {
      replicas: 1,
      selector: { matchLabels: selectorFor(input.llsd) },
      strategy: { type: "RollingUpdate" },
      template: {
        metadata: { labels: labelsFor(input.llsd), annotations },
        spec: {
          containers: [container],
          volumes,
          securityContext: podSecurityContext,
          automountServiceAccountToken: false,
        },
      },
    },
  };
}
