// Every reason the hook reports, in one registry (the reasons table of
// docs/operations/status.md is checked against it): the reasons of problems,
// each naming what is wrong in a spec or what it refers to, the reasons of
// warnings, and the reasons of conditions that hold. A failed condition takes
// its first problem's reason; a warning is a condition of its own, whose type
// is its reason (docs/adr/0012-warnings-as-conditions.md).

export const Reason = {
  // The spec itself
  InvalidSpec: "InvalidSpec",
  UnknownDistribution: "UnknownDistribution",
  UnsupportedRelease: "UnsupportedRelease",
  NoImage: "NoImage",
  RemovedApi: "RemovedApi",
  BaseConfigRequired: "BaseConfigRequired",
  InvalidBaseConfig: "InvalidBaseConfig",
  UnknownApi: "UnknownApi",
  UnknownProviderType: "UnknownProviderType",
  DeprecatedProviderType: "DeprecatedProviderType",
  FieldMappingFailed: "FieldMappingFailed",
  EndpointRequired: "EndpointRequired",
  InvalidProviderConfig: "InvalidProviderConfig",
  SecretInSettings: "SecretInSettings",
  ConflictingProvider: "ConflictingProvider",
  UnknownProvider: "UnknownProvider",
  DisabledDependency: "DisabledDependency",
  UnsupportedStorageField: "UnsupportedStorageField",
  UnsupportedResource: "UnsupportedResource",
  EnvVarCollision: "EnvVarCollision",
  EnvVarUnset: "EnvVarUnset",
  ChildTooLarge: "ChildTooLarge",
  UnsupportedAuthProvider: "UnsupportedAuthProvider",
  // Objects the spec refers to
  SecretNotFound: "SecretNotFound",
  SecretKeyNotFound: "SecretKeyNotFound",
  ConfigMapNotFound: "ConfigMapNotFound",
  ConfigMapKeyNotFound: "ConfigMapKeyNotFound",
  // Warnings (never blocking; each a condition of its own: WARNING_REASONS)
  NothingToDisable: "NothingToDisable",
  PdbSkipped: "PdbSkipped",
  VolumeKept: "VolumeKept",
  RetiredImage: "RetiredImage",
  NewerReleaseAvailable: "NewerReleaseAvailable",
  OverrideNeedsTls: "OverrideNeedsTls",
  OverrideNotChecked: "OverrideNotChecked",
  // spec.trust (warnings)
  CaBundleNotApplied: "CaBundleNotApplied",
  // spec.monitoring
  MetricsEndpointUnavailable: "MetricsEndpointUnavailable",
  // Converted from llamastack.io/v1alpha1 (docs/conversion.md)
  CrossNamespaceConfigMap: "CrossNamespaceConfigMap",
  FieldNotApplied: "FieldNotApplied",
  ServiceMonitorUnavailable: "ServiceMonitorUnavailable",
  // spec.networking (warnings)
  IngressMayBeBlocked: "IngressMayBeBlocked",
  // spec.workload (warnings): the confused-deputy rule's restricted fields
  RestrictedPodField: "RestrictedPodField",
} as const;
export type Reason = (typeof Reason)[keyof typeof Reason];

/**
 * The reasons a warning carries, in the order the status lists their
 * conditions: each warning is reported as a condition whose type and reason
 * are this reason, with status True, present only while the warning holds
 * (abnormal-true, as Reconciling and Stalled). DeprecatedProviderType is also
 * a problem's reason, when a release refuses the type instead of warning.
 */
export const WARNING_REASONS = [
  Reason.RetiredImage,
  Reason.NewerReleaseAvailable,
  Reason.FieldNotApplied,
  Reason.DeprecatedProviderType,
  Reason.NothingToDisable,
  Reason.OverrideNeedsTls,
  Reason.OverrideNotChecked,
  Reason.CaBundleNotApplied,
  Reason.RestrictedPodField,
  Reason.VolumeKept,
  Reason.PdbSkipped,
  Reason.IngressMayBeBlocked,
  Reason.ServiceMonitorUnavailable,
] as const satisfies readonly Reason[];
export type WarningReason = (typeof WARNING_REASONS)[number];

const WARNING_SET: ReadonlySet<string> = new Set(WARNING_REASONS);

/** Whether a condition type is a warning's (its reason). */
export function isWarningReason(type: string): type is WarningReason {
  return WARNING_SET.has(type);
}

/** Reasons of the conditions the status computes when no problem names one. */
export const ConditionReason = {
  Valid: "Valid",
  AllReferencesFound: "AllReferencesFound",
  SpecInvalid: "SpecInvalid",
  BaseConfigNotRead: "BaseConfigNotRead",
  ConfigGenerated: "ConfigGenerated",
  OverrideConfig: "OverrideConfig",
  DeploymentUpdated: "DeploymentUpdated",
  KeptLastApplied: "KeptLastApplied",
  NotCreated: "NotCreated",
  DeploymentNotFound: "DeploymentNotFound",
  MinimumReplicasAvailable: "MinimumReplicasAvailable",
  MinimumReplicasUnavailable: "MinimumReplicasUnavailable",
  ReplicaFailure: "ReplicaFailure",
  RollingOut: "RollingOut",
  Ready: "Ready",
} as const;

/** Every reason above, problem and condition alike. */
export const ALL_REASONS: readonly string[] = [
  ...Object.values(Reason),
  ...Object.values(ConditionReason),
];
