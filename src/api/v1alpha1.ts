// llamastack.io/v1alpha1 LlamaStackDistribution, the version the retired Go
// operator (llamastack/llama-stack-k8s-operator, api/v1alpha1) served: its
// field set with the JSON names, defaults and validation markers of its Go
// types, and nothing stricter, so that every object it stored still parses.
// Objects keep unknown fields (forks added their own): every object here is
// loose, and the CRD's v1alpha1 version is to carry
// x-kubernetes-preserve-unknown-fields. Used to check generated test objects
// and, later, to generate that CRD version. The conversion itself reads
// objects field by field (src/convert/reader.ts) and never rejects what this accepts.
import type {
  EnvVar,
  ResourceRequirements,
  TopologySpreadConstraint,
  Volume,
  VolumeMount,
} from "kubernetes-types/core/v1.js";
import { z } from "zod";
import { k8sType } from "./k8s.js";
import { withRules } from "./rules.js";
import { GROUP, KIND } from "./schema.js";
import { Condition } from "./status.js";

export const V1ALPHA1 = "v1alpha1";
export const V1ALPHA1_API_VERSION = `${GROUP}/${V1ALPHA1}`;

const int32 = () =>
  z
    .number()
    .int()
    .min(-(2 ** 31))
    .max(2 ** 31 - 1);
const intOrString = z
  .union([z.number().int(), z.string()])
  .meta({ "x-kubernetes-int-or-string": true });
const QUANTITY =
  /^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$/;
const quantity = z
  .union([z.number().int(), z.string().regex(QUANTITY)])
  .meta({ "x-kubernetes-int-or-string": true });

// ---------------------------------------------------------------- spec.server
type DistributionType = { name?: string | undefined; image?: string | undefined };

const DistributionType = withRules(
  z
    .looseObject({
      name: z.string().optional().describe("A distribution name the operator mapped to an image."),
      image: z.string().optional().describe("An image to run instead of a named distribution."),
    })
    .describe("The distribution: a name or an image."),
  // Not registered with rule(): it belongs to this version only, not to v1alpha2's rules.
  [
    {
      id: "v1alpha1-distribution-name-or-image",
      cel: "!(has(self.name) && has(self.image))",
      message: "Only one of name or image can be specified",
      check: (d: DistributionType) => !(d.name !== undefined && d.image !== undefined),
    },
  ],
);

const ContainerSpec = z
  .looseObject({
    name: z.string().default("llama-stack").describe("Container name."),
    port: int32().optional().describe("Server port; 0 or unset: 8321."),
    resources: k8sType<ResourceRequirements>("ResourceRequirements").optional(),
    env: z.array(k8sType<EnvVar>("EnvVar")).optional(),
    command: z.array(z.string()).optional(),
    args: z.array(z.string()).optional(),
  })
  .describe("The server container.");

const PodOverrides = z
  .looseObject({
    serviceAccountName: z.string().optional(),
    terminationGracePeriodSeconds: z.number().int().optional(),
    volumes: z.array(k8sType<Volume>("Volume")).optional(),
    volumeMounts: z.array(k8sType<VolumeMount>("VolumeMount")).optional(),
  })
  .describe("Pod-level overrides.");

const PodDisruptionBudgetSpec = z.looseObject({
  minAvailable: intOrString.optional(),
  maxUnavailable: intOrString.optional(),
});

const AutoscalingSpec = z.looseObject({
  minReplicas: int32().optional(),
  maxReplicas: int32(),
  targetCPUUtilizationPercentage: int32().optional(),
  targetMemoryUtilizationPercentage: int32().optional(),
});

const StorageSpec = z.looseObject({
  size: quantity.optional(),
  mountPath: z.string().optional(),
});

const UserConfigSpec = z.looseObject({
  configMapName: z.string(),
  configMapNamespace: z.string().optional(),
});

const CABundleConfig = z.looseObject({
  configMapName: z.string(),
  configMapNamespace: z.string().optional(),
  configMapKeys: z
    .array(
      z
        .string()
        .max(253)
        .regex(/^[a-zA-Z0-9]([a-zA-Z0-9\-_.]*[a-zA-Z0-9])?$/),
    )
    .max(50)
    .optional(),
});

const ServerSpec = z.looseObject({
  distribution: DistributionType,
  containerSpec: ContainerSpec.optional(),
  workers: int32().min(1).optional(),
  podOverrides: PodOverrides.optional(),
  podDisruptionBudget: PodDisruptionBudgetSpec.optional(),
  topologySpreadConstraints: z
    .array(k8sType<TopologySpreadConstraint>("TopologySpreadConstraint"))
    .optional(),
  autoscaling: AutoscalingSpec.optional(),
  storage: StorageSpec.optional(),
  userConfig: UserConfigSpec.optional(),
  tlsConfig: z.looseObject({ caBundle: CABundleConfig.optional() }).optional(),
});

const NetworkSpec = z.looseObject({
  exposeRoute: z.boolean().default(false),
  allowedFrom: z
    .looseObject({
      namespaces: z.array(z.string()).optional(),
      labels: z.array(z.string()).optional(),
    })
    .optional(),
});

export const V1alpha1Spec = z.looseObject({
  replicas: int32().default(1),
  server: ServerSpec,
  network: NetworkSpec.optional(),
});

// ---------------------------------------------------------------- status
const ProviderInfo = z.looseObject({
  api: z.string(),
  provider_id: z.string(),
  provider_type: z.string(),
  config: z.json().meta({ "x-kubernetes-preserve-unknown-fields": true }),
  health: z.looseObject({ status: z.string(), message: z.string() }),
});

export const V1alpha1Status = z.looseObject({
  phase: z.enum(["Pending", "Initializing", "Ready", "Failed", "Terminating"]).optional(),
  version: z
    .looseObject({
      operatorVersion: z.string().optional(),
      llamaStackServerVersion: z.string().optional(),
      lastUpdated: z.string().meta({ format: "date-time" }).optional(),
    })
    .optional(),
  distributionConfig: z
    .looseObject({
      activeDistribution: z.string().optional(),
      providers: z.array(ProviderInfo).optional(),
      availableDistributions: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  conditions: z.array(Condition).optional(),
  availableReplicas: int32().optional(),
  serviceURL: z.string().optional(),
  routeURL: z.string().optional(),
});

export const V1alpha1LlamaStackDistribution = z.looseObject({
  apiVersion: z.literal(V1ALPHA1_API_VERSION),
  kind: z.literal(KIND),
  metadata: z.looseObject({ name: z.string().min(1), namespace: z.string().optional() }),
  spec: V1alpha1Spec,
  status: V1alpha1Status.optional(),
});
export type V1alpha1LlamaStackDistribution = z.infer<typeof V1alpha1LlamaStackDistribution>;
