// A problem found while turning a spec into a config and children: where (a
// field path in the LlamaStackDistribution), what and the fix (the message),
// and a CamelCase reason for status conditions (docs/operations/status.md).
import type { z } from "zod";
import { explainIssues } from "./shape-messages.js";

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

export interface Problem {
  reason: Reason;
  /** Field path in the LlamaStackDistribution, e.g. spec.providers.inference[0].endpoint. */
  path: string;
  /** What is wrong and the fix, without the path. */
  detail: string;
}

export function problem(reason: Reason, path: string, detail: string): Problem {
  return { reason, path, detail };
}

/** `spec.x.y: what is wrong; the fix` */
export function formatProblem(p: Problem): string {
  return `${p.path}: ${p.detail}`;
}

export type Result<T> =
  | { ok: true; value: T; warnings: Problem[] }
  | { ok: false; problems: Problem[]; warnings: Problem[] };

/**
 * zod's issues as problems: the path in the object parsed (`input`, which
 * names the values in the messages), the shape expected and the fix.
 */
export function problemsFromZod(error: z.ZodError, input?: unknown): Problem[] {
  return explainIssues(error.issues, input).map((issue) => {
    const path =
      issue.path
        .map((p) => (typeof p === "number" ? `[${p}]` : String(p)))
        .join(".")
        .replace(/\.\[/g, "[") || "spec";
    let detail = issue.detail;
    if (detail.startsWith(`${path}: `)) detail = detail.slice(path.length + 2);
    return problem(Reason.InvalidSpec, path, detail);
  });
}
