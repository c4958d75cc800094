// The field table: every llamastack.io/v1alpha1 field (the retired Go
// operator's api/v1alpha1 types) and its home in v1alpha2. A row with a home
// and no `custom` note is a plain move, done by map.ts in both directions; a
// row with `custom` is done by a function in map.ts, because its meaning needs
// more than a move; a row without a home (`v1alpha2: null`) is kept in the
// annotation by the restore list. Giving a planned home is a one-line change
// here: set `v1alpha2` to the `planned` path. docs/conversion.md shows this
// table; test/unit/convert/table.test.ts keeps the two, and the v1alpha1
// schema, in step.

export type Kind =
  "integer" | "string" | "boolean" | "list" | "object" | "intOrString" | "quantity";

export interface FieldRule {
  /** Where the field is in a v1alpha1 object. */
  v1alpha1: string;
  /** Its home in a v1alpha2 object; null: none (yet), kept in the annotation. */
  v1alpha2: string | null;
  kind: Kind;
  /** v1alpha1's zero value (0, "", an empty list or object) meant "the default": no v1alpha2 value. */
  zeroIsDefault?: true;
  /** Only its presence moves (an empty object); its fields have rows of their own. */
  presenceOnly?: true;
  /** The home a field without one will get ("home planned"). */
  planned?: string;
  /** Moved by a function in map.ts; how, in a few words. */
  custom?: string;
}

export const FIELD_RULES: readonly FieldRule[] = [
  { v1alpha1: "spec.replicas", v1alpha2: "spec.workload.replicas", kind: "integer" },
  {
    v1alpha1: "spec.server.distribution.name",
    v1alpha2: "spec.distribution.name",
    kind: "string",
    custom:
      "same name; release pinned: the running server's version (status.version.llamaStackServerVersion), else 0.7.3",
  },
  {
    v1alpha1: "spec.server.distribution.image",
    v1alpha2: "spec.distribution.image",
    kind: "string",
    custom:
      "an upstream image (llamastack/ or ogxai/distribution-<name>:<release or latest>) becomes name and release; any other stays image",
  },
  { v1alpha1: "spec.server.containerSpec.name", v1alpha2: null, kind: "string" },
  {
    v1alpha1: "spec.server.containerSpec.port",
    v1alpha2: "spec.networking.port",
    kind: "integer",
    zeroIsDefault: true,
  },
  {
    v1alpha1: "spec.server.containerSpec.resources",
    v1alpha2: "spec.workload.resources",
    kind: "object",
    zeroIsDefault: true,
  },
  {
    v1alpha1: "spec.server.containerSpec.env",
    v1alpha2: "spec.workload.overrides.env",
    kind: "list",
    zeroIsDefault: true,
  },
  {
    v1alpha1: "spec.server.containerSpec.command",
    v1alpha2: "spec.workload.overrides.command",
    kind: "list",
    zeroIsDefault: true,
  },
  {
    v1alpha1: "spec.server.containerSpec.args",
    v1alpha2: "spec.workload.overrides.args",
    kind: "list",
    zeroIsDefault: true,
  },
  { v1alpha1: "spec.server.workers", v1alpha2: "spec.workload.workers", kind: "integer" },
  {
    v1alpha1: "spec.server.podOverrides.serviceAccountName",
    v1alpha2: "spec.workload.overrides.serviceAccountName",
    kind: "string",
    zeroIsDefault: true,
  },
  {
    v1alpha1: "spec.server.podOverrides.terminationGracePeriodSeconds",
    v1alpha2: "spec.workload.terminationGracePeriodSeconds",
    kind: "integer",
  },
  {
    v1alpha1: "spec.server.podOverrides.volumes",
    v1alpha2: "spec.workload.overrides.volumes",
    kind: "list",
    zeroIsDefault: true,
  },
  {
    v1alpha1: "spec.server.podOverrides.volumeMounts",
    v1alpha2: "spec.workload.overrides.volumeMounts",
    kind: "list",
    zeroIsDefault: true,
  },
  {
    v1alpha1: "spec.server.podDisruptionBudget",
    v1alpha2: "spec.workload.podDisruptionBudget",
    kind: "object",
    presenceOnly: true,
    custom:
      "none with more than one replica: { maxUnavailable: 1 }, the budget v1alpha1 created then",
  },
  {
    v1alpha1: "spec.server.podDisruptionBudget.minAvailable",
    v1alpha2: "spec.workload.podDisruptionBudget.minAvailable",
    kind: "intOrString",
  },
  {
    v1alpha1: "spec.server.podDisruptionBudget.maxUnavailable",
    v1alpha2: "spec.workload.podDisruptionBudget.maxUnavailable",
    kind: "intOrString",
  },
  {
    v1alpha1: "spec.server.topologySpreadConstraints",
    v1alpha2: "spec.workload.topologySpreadConstraints",
    kind: "list",
    zeroIsDefault: true,
  },
  {
    v1alpha1: "spec.server.autoscaling",
    v1alpha2: "spec.workload.autoscaling",
    kind: "object",
    presenceOnly: true,
    custom: "maxReplicas 0 (no autoscaler in v1alpha1): none",
  },
  {
    v1alpha1: "spec.server.autoscaling.minReplicas",
    v1alpha2: "spec.workload.autoscaling.minReplicas",
    kind: "integer",
    custom: "the minimum v1alpha1 used: the largest of 1, spec.replicas and minReplicas",
  },
  {
    v1alpha1: "spec.server.autoscaling.maxReplicas",
    v1alpha2: "spec.workload.autoscaling.maxReplicas",
    kind: "integer",
  },
  {
    v1alpha1: "spec.server.autoscaling.targetCPUUtilizationPercentage",
    v1alpha2: "spec.workload.autoscaling.targetCPUUtilizationPercentage",
    kind: "integer",
  },
  {
    v1alpha1: "spec.server.autoscaling.targetMemoryUtilizationPercentage",
    v1alpha2: "spec.workload.autoscaling.targetMemoryUtilizationPercentage",
    kind: "integer",
  },
  {
    v1alpha1: "spec.server.storage",
    v1alpha2: "spec.workload.storage",
    kind: "object",
    presenceOnly: true,
  },
  {
    v1alpha1: "spec.server.storage.size",
    v1alpha2: "spec.workload.storage.size",
    kind: "quantity",
  },
  {
    v1alpha1: "spec.server.storage.mountPath",
    v1alpha2: "spec.workload.storage.mountPath",
    kind: "string",
    zeroIsDefault: true,
  },
  {
    v1alpha1: "spec.server.userConfig.configMapName",
    v1alpha2: "spec.overrideConfig.configMapName",
    kind: "string",
    custom: "only a ConfigMap in the object's own namespace; one in another namespace is kept",
  },
  {
    v1alpha1: "spec.server.userConfig.configMapNamespace",
    v1alpha2: null,
    kind: "string",
    custom: "the object's own namespace needs no field; another namespace has no safe meaning",
  },
  {
    v1alpha1: "spec.server.tlsConfig.caBundle",
    v1alpha2: "spec.trust.caBundle",
    kind: "object",
    custom:
      "exactly one of configMapKeys, or none (the retired operator's default key ca-bundle.crt, trust.caBundle's too), in the object's own namespace: { configMapName, key }; otherwise kept",
  },
  {
    v1alpha1: "spec.network.exposeRoute",
    v1alpha2: "spec.networking.expose.enabled",
    kind: "boolean",
    custom: "true: expose { enabled: true } (an Ingress for every host); false: no expose",
  },
  {
    v1alpha1: "spec.network.allowedFrom",
    v1alpha2: "spec.networking.allowedFrom",
    kind: "object",
    presenceOnly: true,
  },
  {
    v1alpha1: "spec.network.allowedFrom.namespaces",
    v1alpha2: "spec.networking.allowedFrom.namespaces",
    kind: "list",
    custom:
      "plus the object's own namespace, which v1alpha1 always admitted and v1alpha2 admits only when listed",
  },
  {
    v1alpha1: "spec.network.allowedFrom.labels",
    v1alpha2: "spec.networking.allowedFrom.labels",
    kind: "list",
    zeroIsDefault: true,
  },
  {
    v1alpha1: "status.phase",
    v1alpha2: "status.phase",
    kind: "string",
    custom: "Terminating has no v1alpha2 phase and is kept",
  },
  {
    v1alpha1: "status.conditions",
    v1alpha2: "status.conditions",
    kind: "list",
    zeroIsDefault: true,
  },
  { v1alpha1: "status.availableReplicas", v1alpha2: "status.availableReplicas", kind: "integer" },
  { v1alpha1: "status.serviceURL", v1alpha2: "status.serviceURL", kind: "string" },
  { v1alpha1: "status.version", v1alpha2: null, kind: "object" },
  { v1alpha1: "status.distributionConfig", v1alpha2: null, kind: "object" },
  { v1alpha1: "status.routeURL", v1alpha2: null, kind: "string" },
];

/** v1alpha2 fields that v1alpha1 has no place for: on a v1alpha1 object they are kept in the annotation. */
export const V1ALPHA2_ONLY: readonly string[] = [
  "spec.distribution.release",
  "spec.distribution.baseConfig",
  "spec.providers",
  "spec.disabledProviders",
  "spec.resources",
  "spec.storage",
  "spec.disabled",
  "spec.monitoring",
  "spec.auth",
  "spec.networking.tls",
  "spec.networking.expose.hostname",
  "spec.networking.expose.ingressClassName",
  "spec.networking.expose.tlsSecretName",
  "spec.workload.storage.storageClassName",
  "spec.workload.storage.accessMode",
  "spec.workload.overrides.imagePullSecrets",
  "spec.workload.overrides.nodeSelector",
  "spec.workload.overrides.tolerations",
  "spec.workload.overrides.affinity",
  "spec.workload.overrides.podLabels",
  "spec.workload.overrides.podAnnotations",
  "status.observedGeneration",
  "status.resolvedDistribution",
  "status.configGeneration",
  "status.externalURL",
];
