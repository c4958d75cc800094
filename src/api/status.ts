// The status llsd-hook writes (docs/operations/status.md). Also zod, so the CRD's status schema
// comes from the same source and nothing the hook writes gets pruned.
import { z } from "zod";
import { WARNING_REASONS, type WarningReason } from "../reasons.js";

/** The conditions every status has (Reconciling and Stalled only while True). */
export const CHECK_CONDITIONS = [
  "ValidationSucceeded",
  "SecretsResolved",
  "ConfigGenerated",
  "DeploymentUpdated",
  "Available",
  "Ready",
  "Reconciling",
  "Stalled",
] as const;

/** A condition's type: one of the above, or a warning's reason (present only while it holds). */
export type ConditionType = (typeof CHECK_CONDITIONS)[number] | WarningReason;

/**
 * Room for every condition the hook can write at once (Reconciling and Stalled
 * never together), and for warnings added later: the CRD's maxItems.
 */
export const MAX_CONDITIONS = 32;
/** The most conditions one status can hold today. */
export const CONDITION_TYPE_COUNT = CHECK_CONDITIONS.length - 1 + WARNING_REASONS.length;

export const PHASES = ["Pending", "Initializing", "Ready", "Failed"] as const;
export type Phase = (typeof PHASES)[number];

export const Condition = z
  .object({
    type: z.string().min(1).max(316).describe("Condition type, e.g. Ready."),
    status: z.enum(["True", "False", "Unknown"]).describe("True, False or Unknown."),
    reason: z
      .string()
      .min(1)
      .max(1024)
      .regex(/^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/)
      .describe("CamelCase reason; docs/operations/status.md lists them."),
    message: z.string().max(32768).describe("What happened, with the field path and the fix."),
    lastTransitionTime: z
      .string()
      .describe("When status last changed (RFC 3339).")
      .meta({ format: "date-time" }),
    observedGeneration: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("The .metadata.generation this condition is about."),
  })
  .describe("A status condition (metav1.Condition).");
export type Condition = z.infer<typeof Condition>;

export const Status = z
  .object({
    phase: z.enum(PHASES).optional().describe("Pending, Initializing, Ready or Failed."),
    observedGeneration: z
      .number()
      .int()
      .optional()
      .describe("The .metadata.generation of the last sync (written by Metacontroller)."),
    conditions: z
      .array(Condition)
      .max(MAX_CONDITIONS)
      .optional()
      .describe(
        "ValidationSucceeded, SecretsResolved, ConfigGenerated, DeploymentUpdated, Available, Ready, and Reconciling/Stalled while true; and one condition per warning while it holds, whose type is its reason (status True), e.g. RetiredImage.",
      )
      .meta({ "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"] }),
    resolvedDistribution: z
      .object({
        name: z
          .string()
          .max(63)
          .optional()
          .describe("Distribution name (absent for a custom image)."),
        release: z
          .string()
          .max(32)
          .optional()
          .describe("Llama Stack release (absent for a custom image)."),
        image: z.string().max(512).describe("The image the Deployment runs."),
        configSource: z
          .enum(["generated", "override"])
          .describe("generated from the spec, or the overrideConfig ConfigMap."),
      })
      .optional()
      .describe("What the spec resolved to."),
    configGeneration: z
      .object({
        configMapName: z
          .string()
          .max(253)
          .describe("The ConfigMap holding the generated config.yaml."),
        configHash: z.string().max(64).describe("sha256 of the generated config.yaml."),
        generatedAt: z
          .string()
          .optional()
          .describe(
            "When the hook first returned this config (kept while the config stays the same).",
          )
          .meta({ format: "date-time" }),
        providerCount: z.number().int().min(0).describe("Providers in the generated config."),
        resourceCount: z
          .number()
          .int()
          .min(0)
          .describe("Registered resources in the generated config."),
      })
      .optional()
      .describe("The generated config (absent with overrideConfig)."),
    availableReplicas: z.number().int().min(0).optional().describe("Available server pods."),
    serviceURL: z.string().max(512).optional().describe("In-cluster URL of the server."),
    externalURL: z
      .string()
      .max(512)
      .optional()
      .describe(
        "URL of the server through the Ingress of spec.networking.expose, when it has a hostname (https when it has a tlsSecretName).",
      ),
  })
  .describe("Observed state, written by llsd-hook through Metacontroller.");
export type Status = z.infer<typeof Status>;
