// spec.workload: how the server runs (replicas, resources, storage, disruption
// budget, the pod fields passed through to the Deployment).
import type {
  Affinity,
  EnvVar,
  LocalObjectReference,
  PodSpec,
  ResourceRequirements,
  Toleration,
  TopologySpreadConstraint,
  Volume,
  VolumeMount,
} from "kubernetes-types/core/v1.js";
import { z } from "zod";
import { k8sType } from "./k8s.js";
import { rule, withRules } from "./rules.js";
import { DNS1123_SUBDOMAIN, LABEL_KEY } from "./names.js";

export const DEFAULT_DATA_DIR = "/.llama";

const QUANTITY =
  /^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$/;

const intOrPercent = z
  .union([
    z.number().int().min(0),
    z.string().regex(/^\d{1,3}%$/, "must be a number or a percentage such as 50%"),
  ])
  .meta({ "x-kubernetes-int-or-string": true });

type Autoscaling = { minReplicas: number; maxReplicas: number };

const Autoscaling = withRules(
  z
    .strictObject({
      minReplicas: z.number().int().min(1).max(1000).default(1).describe("Fewest replicas."),
      maxReplicas: z.number().int().min(1).max(1000).describe("Most replicas."),
      targetCPUUtilizationPercentage: z
        .number()
        .int()
        .min(1)
        .max(100)
        .optional()
        .describe(
          "Target average CPU utilization, in percent of the CPU request (the default request when workload.resources sets none).",
        ),
      targetMemoryUtilizationPercentage: z
        .number()
        .int()
        .min(1)
        .max(100)
        .optional()
        .describe(
          "Target average memory utilization, in percent of the memory request (the default request when workload.resources sets none).",
        ),
    })
    .describe(
      "A HorizontalPodAutoscaler (autoscaling/v2); the Deployment then has no replicas of its own. Without a target it scales on 80% average CPU utilization (the autoscaler's default).",
    ),
  [
    rule<Autoscaling>({
      id: "autoscaling-max-ge-min",
      cel: "self.maxReplicas >= self.minReplicas",
      message:
        "spec.workload.autoscaling.maxReplicas: must be at least minReplicas; raise maxReplicas or lower minReplicas",
      fieldPath: ".maxReplicas",
      check: (a) => a.maxReplicas >= a.minReplicas,
    }),
  ],
);

const PvcStorage = z
  .strictObject({
    size: z
      .string()
      .min(1)
      .max(64)
      .regex(QUANTITY, "must be a quantity such as 10Gi")
      .default("10Gi")
      .describe("Requested size, e.g. 10Gi."),
    storageClassName: z
      .string()
      .min(1)
      .max(253)
      .optional()
      .describe("StorageClass of the volume; default: the cluster's default class."),
    accessMode: z
      .enum(["ReadWriteOnce", "ReadWriteOncePod", "ReadWriteMany"])
      .default("ReadWriteOnce")
      .describe(
        "ReadWriteOnce (one replica, Recreate rollouts), ReadWriteOncePod, or ReadWriteMany.",
      ),
    mountPath: z
      .string()
      .min(2)
      .max(1024)
      .regex(/^\/[^:]*$/, "must be an absolute path")
      .default(DEFAULT_DATA_DIR)
      .describe(
        "Where the data volume is mounted; HOME, SQLITE_STORE_DIR, FILES_STORAGE_DIR and HF_HOME live inside it.",
      ),
  })
  .describe(
    "A PersistentVolumeClaim for the server's data instead of an emptyDir. Never deleted by an edit: removing storage keeps the claim until the LlamaStackDistribution is deleted.",
  );

type Pdb = {
  minAvailable?: number | string | undefined;
  maxUnavailable?: number | string | undefined;
};

const PodDisruptionBudget = withRules(
  z
    .strictObject({
      minAvailable: intOrPercent
        .optional()
        .describe("Pods that must stay available (a number or a percentage)."),
      maxUnavailable: intOrPercent
        .optional()
        .describe("Pods that may be unavailable (a number or a percentage)."),
    })
    .describe(
      "A PodDisruptionBudget. It is not created when it would block draining (for example with one replica).",
    ),
  [
    rule<Pdb>({
      id: "pdb-exactly-one",
      cel: "has(self.minAvailable) != has(self.maxUnavailable)",
      message:
        "spec.workload.podDisruptionBudget: set exactly one of minAvailable or maxUnavailable",
      check: (p) => (p.minAvailable !== undefined) !== (p.maxUnavailable !== undefined),
    }),
  ],
);

export const stringMap = (what: string) =>
  z
    .record(
      z.string().min(1).max(317).regex(LABEL_KEY, `must be a valid ${what} key`),
      z.string().max(4096),
    )
    .meta({ maxProperties: 64 });

/** Schemas of pod spec fields, each under its PodSpec name and of its PodSpec type. */
type PodFieldSchemas = { readonly [K in keyof PodSpec]?: z.ZodType<PodSpec[K]> };

/**
 * The pod fields spec.workload.overrides passes to the Deployment's pod spec as
 * they are, under their PodSpec names (spec.workload's own are
 * WORKLOAD_POD_FIELDS). A field added to either group is in the schema,
 * picked by podFieldsOf and spread into the pod spec (children/deployment.ts
 * buildPodSpec): nothing copies it by hand (docs/architecture.md, "Adding a
 * spec field").
 */
const OVERRIDES_POD_FIELDS = {
  imagePullSecrets: z
    .array(k8sType<LocalObjectReference>("LocalObjectReference"))
    .min(1)
    .max(16)
    .optional()
    .describe("Secrets for pulling the image."),
  nodeSelector: stringMap("label").optional().describe("Node labels the pods require."),
  tolerations: z
    .array(k8sType<Toleration>("Toleration"))
    .min(1)
    .max(64)
    .optional()
    .describe("Tolerations of the pods."),
  affinity: k8sType<Affinity>("Affinity").optional().describe("Affinity of the pods."),
} satisfies PodFieldSchemas;

/** The pod fields spec.workload itself passes through (see OVERRIDES_POD_FIELDS). */
const WORKLOAD_POD_FIELDS = {
  terminationGracePeriodSeconds: z
    .number()
    .int()
    .min(1, "must be between 1 and 3600 (0 would kill the requests in flight at once)")
    .max(3600, "must be between 1 and 3600")
    .optional()
    .describe(
      "Seconds a stopping pod has to finish the requests in flight (such as long streamed responses) before it is killed: the pod's terminationGracePeriodSeconds (1-3600; default: Kubernetes' 30).",
    ),
} satisfies PodFieldSchemas;

export const Overrides = z
  .strictObject({
    serviceAccountName: z
      .string()
      .min(1)
      .max(253)
      .regex(DNS1123_SUBDOMAIN, "must be a ServiceAccount name")
      .optional()
      .describe("Run as this ServiceAccount instead of the generated <name>-sa."),
    env: z
      .array(k8sType<EnvVar>("EnvVar"))
      .min(1)
      .max(128)
      .optional()
      .describe(
        "Extra environment variables. They may set HOME, SQLITE_STORE_DIR, FILES_STORAGE_DIR and HF_HOME; the other variables llsd-hook sets are reserved.",
      ),
    command: z
      .array(z.string().max(4096))
      .min(1)
      .max(64)
      .optional()
      .describe("Replaces the image's entrypoint."),
    args: z
      .array(z.string().max(4096))
      .min(1)
      .max(256)
      .optional()
      .describe("Replaces the image's arguments."),
    volumes: z
      .array(k8sType<Volume>("Volume"))
      .min(1)
      .max(64)
      .optional()
      .describe("Extra pod volumes (names config, data and tls are reserved)."),
    volumeMounts: z
      .array(k8sType<VolumeMount>("VolumeMount"))
      .min(1)
      .max(64)
      .optional()
      .describe("Extra mounts in the server container."),
    ...OVERRIDES_POD_FIELDS,
    podLabels: stringMap("label")
      .optional()
      .describe("Extra pod labels (app.kubernetes.io/* are reserved)."),
    podAnnotations: stringMap("annotation")
      .optional()
      .describe("Extra pod annotations (llamastack.io/* are reserved)."),
  })
  .describe("Pod-level settings passed through to the Deployment.");
export type Overrides = z.infer<typeof Overrides>;

type WorkloadShape = {
  replicas: number;
  autoscaling?: unknown;
  storage?: { accessMode: string } | undefined;
};

export const Workload = withRules(
  z
    .strictObject({
      replicas: z
        .number()
        .int()
        .min(0)
        .max(1000)
        .default(1)
        .describe("Server pods (ignored with autoscaling)."),
      workers: z
        .number()
        .int()
        .min(1)
        .max(64)
        .optional()
        .describe("Server worker processes per pod (server.workers)."),
      resources: k8sType<ResourceRequirements>("ResourceRequirements")
        .optional()
        .describe(
          "CPU and memory requests and limits of the server container. CPU and memory each get a default request (CPU 250m per worker; memory 512Mi plus 256Mi per further worker) unless a request or a limit is set here for it; no default limits.",
        ),
      autoscaling: Autoscaling.optional(),
      storage: PvcStorage.optional(),
      podDisruptionBudget: PodDisruptionBudget.optional(),
      topologySpreadConstraints: z
        .array(k8sType<TopologySpreadConstraint>("TopologySpreadConstraint"))
        .min(1)
        .max(16)
        .optional()
        .describe(
          "How pods spread over nodes and zones; a constraint without labelSelector selects this server's pods.",
        ),
      ...WORKLOAD_POD_FIELDS,
      overrides: Overrides.optional(),
    })
    .describe("How the server runs."),
  [
    rule<WorkloadShape>({
      id: "rwo-storage-single-replica",
      cel: "!has(self.storage) || self.storage.accessMode == 'ReadWriteMany' || (self.replicas <= 1 && !has(self.autoscaling))",
      message:
        "spec.workload.storage.accessMode: a ReadWriteOnce volume attaches to one node at a time, so a second replica scheduled on another node could never mount it; use one replica without autoscaling, or accessMode ReadWriteMany",
      fieldPath: ".storage.accessMode",
      check: (w) =>
        w.storage === undefined ||
        w.storage.accessMode === "ReadWriteMany" ||
        (w.replicas <= 1 && w.autoscaling === undefined),
    }),
  ],
);
export type Workload = z.infer<typeof Workload>;

/** The pod fields a workload passes through: OVERRIDES_POD_FIELDS and WORKLOAD_POD_FIELDS. */
export type PodFields = {
  [K in keyof typeof OVERRIDES_POD_FIELDS | keyof typeof WORKLOAD_POD_FIELDS]?:
    PodSpec[K] | undefined;
};

const OVERRIDES_POD_KEYS = z.strictObject(OVERRIDES_POD_FIELDS).keyof().options;
const WORKLOAD_POD_KEYS = z.strictObject(WORKLOAD_POD_FIELDS).keyof().options;

/** `keys` of `from`, each as it is. */
function pick<T extends object, K extends keyof T>(
  from: T | undefined,
  keys: readonly K[],
): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  if (from !== undefined) for (const key of keys) out[key] = from[key];
  return out;
}

/** The pod fields a workload sets, for the pod spec as they are. */
export function podFieldsOf(workload: Workload | undefined): PodFields {
  return {
    ...pick(workload, WORKLOAD_POD_KEYS),
    ...pick(workload?.overrides, OVERRIDES_POD_KEYS),
  };
}
