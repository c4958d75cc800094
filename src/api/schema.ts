// The LlamaStackDistribution API (llamastack.io/v1alpha2), written once in zod:
// TypeScript types (z.infer), the hook's validation and the CRD's
// openAPIV3Schema (scripts/generate-crd.ts) all come from here. Each section
// of the spec has a file of its name (distribution.ts, providers.ts,
// resources.ts, storage.ts, networking.ts, workload.ts, monitoring.ts,
// trust.ts, auth.ts); this one holds the spec's own small fields
// (disabledProviders, disabled, overrideConfig), the rules across sections
// and the resource.
import { z } from "zod";
import { SPEC_API_KEYS } from "./llama-apis.js";
import { rule, withRules } from "./rules.js";
import { Auth } from "./auth.js";
import { Distribution } from "./distribution.js";
import { LIMITS, objectName, PROVIDER_ID } from "./fields.js";
import { Monitoring } from "./monitoring.js";
import { DEFAULT_PORT, Networking } from "./networking.js";
import { Providers } from "./providers.js";
import { Resources } from "./resources.js";
import { Storage } from "./storage.js";
import { Trust } from "./trust.js";
import { Workload } from "./workload.js";
import { Status } from "./status.js";
import { DNS1035_LABEL } from "./names.js";

export const GROUP = "llamastack.io";
export const VERSION = "v1alpha2";
export const API_VERSION = `${GROUP}/${VERSION}`;
export const KIND = "LlamaStackDistribution";
export const PLURAL = "llamastackdistributions";

// ---------------------------------------------------------------- overrideConfig
const OverrideConfig = z
  .strictObject({
    configMapName: objectName("ConfigMap").describe(
      "A ConfigMap in the same namespace whose key config.yaml is the whole server config, used as is.",
    ),
  })
  .describe(
    "Escape hatch: run this config.yaml as is instead of a generated one. Excludes providers, resources, storage, disabled and disabledProviders.",
  );

// ---------------------------------------------------------------- spec
const CONFIG_FIELDS = [
  "providers",
  "resources",
  "storage",
  "disabled",
  "disabledProviders",
] as const;

function configuredAndDisabledRule(specKey: string) {
  return rule<Spec>({
    id: `api-${specKey}-configured-and-disabled`,
    cel: `!has(self.providers) || !has(self.providers.${specKey}) || !has(self.disabled) || !('${specKey}' in self.disabled)`,
    message: `spec.disabled: ${specKey} is both configured under spec.providers and disabled; remove one of them`,
    fieldPath: ".disabled",
    check: (s) => !(s.providers?.[specKey] !== undefined && (s.disabled ?? []).includes(specKey)),
  });
}

const specRules = [
  rule<Spec>({
    id: "override-config-exclusive",
    cel: `!has(self.overrideConfig) || (${CONFIG_FIELDS.map((f) => `!has(self.${f})`).join(" && ")})`,
    message:
      "spec.overrideConfig: cannot be combined with providers, resources, storage, disabled or disabledProviders; the ConfigMap is used as is, so move those settings into it or drop overrideConfig",
    check: (s) => s.overrideConfig === undefined || CONFIG_FIELDS.every((f) => s[f] === undefined),
  }),
  rule<Spec>({
    id: "override-config-no-base-config",
    cel: "!has(self.overrideConfig) || !has(self.distribution.baseConfig)",
    message:
      "spec.overrideConfig: cannot be combined with spec.distribution.baseConfig; baseConfig generates the config on the image's own, overrideConfig runs one as is: keep one of them",
    check: (s) => s.overrideConfig === undefined || s.distribution.baseConfig === undefined,
  }),
  rule<Spec>({
    id: "override-config-no-auth",
    cel: "!has(self.overrideConfig) || !has(self.auth)",
    message:
      "spec.auth: cannot be combined with spec.overrideConfig, whose config.yaml is used as is; write server.auth into that config.yaml (mounting the CA through workload.overrides), or drop overrideConfig",
    fieldPath: ".auth",
    check: (s) => s.overrideConfig === undefined || s.auth === undefined,
  }),
  ...SPEC_API_KEYS.map(configuredAndDisabledRule),
  rule<Spec>({
    id: "replicas-need-shared-storage",
    cel: "!has(self.workload) || (self.workload.replicas <= 1 && !has(self.workload.autoscaling)) || has(self.overrideConfig) || (has(self.storage) && has(self.storage.kv) && self.storage.kv.type != 'sqlite' && has(self.storage.sql) && self.storage.sql.type == 'postgres')",
    message:
      "spec.workload: more than one replica (or autoscaling) needs shared storage, since SQLite files are per pod; set spec.storage.kv to redis or postgres and spec.storage.sql to postgres",
    fieldPath: ".workload",
    check: (s) =>
      s.workload === undefined ||
      ((s.workload.replicas ?? 1) <= 1 && s.workload.autoscaling === undefined) ||
      s.overrideConfig !== undefined ||
      (s.storage?.kv !== undefined &&
        s.storage.kv.type !== "sqlite" &&
        s.storage.sql?.type === "postgres"),
  }),
  rule<Spec>({
    id: "metrics-port-not-server-port",
    cel: `!has(self.monitoring) || !has(self.monitoring.metrics) || self.monitoring.metrics.port != (has(self.networking) ? self.networking.port : ${DEFAULT_PORT})`,
    message: `spec.monitoring.metrics.port: must differ from the server port (spec.networking.port, default ${DEFAULT_PORT}); choose another port`,
    fieldPath: ".monitoring.metrics.port",
    check: (s) =>
      s.monitoring?.metrics === undefined ||
      s.monitoring.metrics.port !== (s.networking?.port ?? DEFAULT_PORT),
  }),
  rule<Spec>({
    id: "metrics-allowed-from-needs-policy",
    cel: "!has(self.monitoring) || !has(self.monitoring.metrics) || !has(self.monitoring.metrics.allowedFrom) || (has(self.networking) && has(self.networking.allowedFrom))",
    message:
      "spec.monitoring.metrics.allowedFrom: narrows the NetworkPolicy that spec.networking.allowedFrom creates, and there is none; set networking.allowedFrom, or remove metrics.allowedFrom",
    fieldPath: ".monitoring.metrics.allowedFrom",
    check: (s) =>
      s.monitoring?.metrics?.allowedFrom === undefined || s.networking?.allowedFrom !== undefined,
  }),
];

const SpecShape = z.strictObject({
  distribution: Distribution,
  providers: Providers.optional(),
  disabledProviders: z
    .array(z.string().min(1).max(63).regex(PROVIDER_ID, "must be a provider id"))
    .min(1)
    .max(LIMITS.disabledProviders)
    .optional()
    .describe(
      "Ids of the distribution's own providers to remove, in every API, with the resources and defaults that use them.",
    ),
  resources: Resources.optional(),
  storage: Storage.optional(),
  disabled: z
    .array(z.enum(SPEC_API_KEYS))
    .min(1)
    .max(SPEC_API_KEYS.length)
    .optional()
    .describe(
      "Whole Llama Stack APIs to remove from the generated config (camelCase: postTraining, eval, vectorIo, ...), with everything that points at their providers.",
    ),
  overrideConfig: OverrideConfig.optional(),
  networking: Networking.optional(),
  workload: Workload.optional(),
  monitoring: Monitoring.optional(),
  trust: Trust.optional(),
  auth: Auth.optional(),
});
export type Spec = z.infer<typeof SpecShape>;

export const LlamaStackDistributionSpec = withRules(
  SpecShape.describe("Desired state of a Llama Stack server."),
  specRules,
);

/** Every child name must fit: the Service <name>-service is a DNS-1035 label of at most 63 characters. */
const MAX_NAME_LENGTH = 63 - "-service".length;

export const LlamaStackDistribution = withRules(
  z
    .looseObject({
      apiVersion: z.literal(API_VERSION),
      kind: z.literal(KIND),
      metadata: z.looseObject({ name: z.string().min(1), namespace: z.string().optional() }),
      spec: LlamaStackDistributionSpec,
      status: Status.optional(),
    })
    .describe(
      "A Llama Stack server: which distribution, its providers, models and storage, and how it runs. Managed by llsd-hook through Metacontroller.",
    ),
  [
    rule<{ metadata: { name: string } }>({
      id: "name-fits-children",
      cel: `self.metadata.name.size() <= ${MAX_NAME_LENGTH}`,
      message: `metadata.name: is longer than ${MAX_NAME_LENGTH} characters, and the Service <name>-service must fit in the 63 of a DNS-1035 label; choose a shorter name`,
      fieldPath: ".metadata.name",
      check: (o) => o.metadata.name.length <= MAX_NAME_LENGTH,
    }),
    rule<{ metadata: { name: string } }>({
      id: "name-is-dns-1035-label",
      cel: `self.metadata.name.matches('${DNS1035_LABEL.source}')`,
      message:
        "metadata.name: must be a DNS-1035 label, as the Service <name>-service is: lower-case letters, digits and '-', starting with a letter and ending with a letter or digit (no upper case, '_' or '.'); rename it, e.g. llama-1 for Llama_1 or 1-llama",
      fieldPath: ".metadata.name",
      check: (o) => DNS1035_LABEL.test(o.metadata.name),
    }),
  ],
);
