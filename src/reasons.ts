// Every reason the hook reports, in one registry (the README's reasons table
// is checked against it): the reasons of problems, each naming what is wrong
// in a spec or what it refers to, and the reasons of conditions that hold.
// A failed condition takes its first problem's reason.

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
  // Warnings (reported in messages, never blocking)
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
} as const;
export type Reason = (typeof Reason)[keyof typeof Reason];

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
  RollingOut: "RollingOut",
  Ready: "Ready",
} as const;

/** Every reason above, problem and condition alike. */
export const ALL_REASONS: readonly string[] = [
  ...Object.values(Reason),
  ...Object.values(ConditionReason),
];
