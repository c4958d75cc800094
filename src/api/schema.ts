// The LlamaStackDistribution API (llamastack.io/v1alpha2), written once in zod:
// TypeScript types (z.infer), the hook's validation and the CRD's
// openAPIV3Schema (scripts/generate-crd.ts) all come from here.
import { z } from "zod";
import { SPEC_API_KEYS } from "./llama-apis.js";
import { rule, withRules } from "./rules.js";
import { Auth } from "./auth.js";
import { Monitoring } from "./monitoring.js";
import { Trust } from "./trust.js";
import { DEFAULT_PORT, Networking, Workload } from "./workload.js";
import { Status } from "./status.js";
import { configMapKey } from "./ca-bundle.js";
import { DNS1123_SUBDOMAIN } from "./names.js";

export const GROUP = "llamastack.io";
export const VERSION = "v1alpha2";
export const API_VERSION = `${GROUP}/${VERSION}`;
export const KIND = "LlamaStackDistribution";
export const PLURAL = "llamastackdistributions";

// ---------------------------------------------------------------- limits
/** Limits keep every list and string bounded, so CEL rules stay inside the cost budget. */
const LIMITS = {
  providersPerApi: 16,
  models: 256,
  shields: 32,
  tools: 32,
  disabledProviders: 64,
  secretRefsPerProvider: 16,
  settingsKeys: 64,
  shortString: 253,
  url: 2048,
} as const;

const SECRET_KEY = /^[-._a-zA-Z0-9]+$/;
const PROVIDER_ID = /^[a-z0-9]([-a-z0-9_.]*[a-z0-9])?$/;
const CONFIG_FIELD = /^[a-z][a-z0-9_]*$/;

const objectName = (what: string) =>
  z
    .string()
    .min(1)
    .max(LIMITS.shortString)
    .regex(DNS1123_SUBDOMAIN, `must be a valid ${what} name (lower-case DNS subdomain)`);

// ---------------------------------------------------------------- secrets
const SecretKeySelector = z
  .strictObject({
    name: objectName("Secret").describe(
      "Name of a Secret in the LlamaStackDistribution's namespace.",
    ),
    key: z
      .string()
      .min(1)
      .max(LIMITS.shortString)
      .regex(SECRET_KEY, "must be a valid Secret key ([-._a-zA-Z0-9]+)")
      .describe("Key within the Secret."),
  })
  .describe("A key of a Secret in the same namespace.");

export const SecretRef = z
  .strictObject({
    secretKeyRef: SecretKeySelector.describe("The Secret key that holds the value."),
  })
  .describe(
    "A value read from a Secret. It reaches the server as an environment variable and never appears in the ConfigMap.",
  );
export type SecretRef = z.infer<typeof SecretRef>;

// ---------------------------------------------------------------- distribution
/** The key of spec.distribution.baseConfig when none is given. */
const BASE_CONFIG_KEY = "config.yaml";

const BaseConfig = configMapKey(BASE_CONFIG_KEY, {
  configMapName:
    "A ConfigMap in the LlamaStackDistribution's namespace holding the image's own config.yaml.",
  key: `The key holding the config; default ${BASE_CONFIG_KEY}.`,
}).describe(
  "The custom image's own config.yaml, the base the config is generated on (as a named distribution's is). Needs image and release.",
);

type DistributionFields = {
  name?: string | undefined;
  image?: string | undefined;
  release?: string | undefined;
  baseConfig?: unknown;
};

const distributionRules = [
  rule<DistributionFields>({
    id: "distribution-name-xor-image",
    cel: "has(self.name) != has(self.image)",
    message:
      "spec.distribution: set exactly one of name (a distribution llsd-hook knows) or image (a custom image)",
    check: (d) => (d.name !== undefined) !== (d.image !== undefined),
  }),
  rule<DistributionFields>({
    id: "distribution-release-needs-name-or-base-config",
    cel: "!has(self.release) || has(self.name) || has(self.baseConfig)",
    message:
      "spec.distribution.release: only valid with distribution.name, or with image and baseConfig; a custom image without baseConfig carries its own release",
    fieldPath: ".release",
    check: (d) => d.release === undefined || d.name !== undefined || d.baseConfig !== undefined,
  }),
  rule<DistributionFields>({
    id: "distribution-base-config-needs-image",
    cel: "!has(self.baseConfig) || has(self.image)",
    message:
      "spec.distribution.baseConfig: only valid with distribution.image; a named distribution's base config is llsd-hook's own, so remove baseConfig or use image",
    fieldPath: ".baseConfig",
    check: (d) => d.baseConfig === undefined || d.image !== undefined,
  }),
  rule<DistributionFields>({
    id: "distribution-base-config-needs-release",
    cel: "!has(self.baseConfig) || has(self.release)",
    message:
      'spec.distribution.release: required with baseConfig; name the release the image runs (e.g. "1.5.0"), whose schema the base is checked against',
    fieldPath: ".release",
    check: (d) => d.baseConfig === undefined || d.release !== undefined,
  }),
];

export const Distribution = withRules(
  z
    .strictObject({
      name: z
        .string()
        .min(1)
        .max(63)
        .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "must be a distribution name such as starter")
        .optional()
        .describe(
          "Name of a Llama Stack distribution known to llsd-hook (configs/distributions.json), e.g. starter or postgres-demo. Its image and its own config.yaml are the base of the generated config.",
        ),
      release: z
        .string()
        .min(1)
        .max(32)
        .regex(/^\d+\.\d+\.\d+$/, "must be a Llama Stack release such as 0.7.3")
        .optional()
        .describe(
          "Llama Stack release of the named distribution, e.g. 1.5.0. Default: the newest supported release that ships the distribution. With image and baseConfig: required, the release the image runs.",
        ),
      image: z
        .string()
        .min(1)
        .max(LIMITS.shortString)
        .optional()
        .describe(
          "A custom Llama Stack image. It needs baseConfig (its own config.yaml, with release) or spec.overrideConfig.",
        ),
      baseConfig: BaseConfig.optional(),
    })
    .describe(
      "Which Llama Stack distribution to run: a known name (optionally with a release), or an image with its base config and release, or an image with spec.overrideConfig.",
    ),
  distributionRules,
);
export type Distribution = z.infer<typeof Distribution>;

// ---------------------------------------------------------------- providers
const JsonValue: z.ZodType<unknown> = z.json();

const PYTHON_MODULE = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

export const ProviderEntry = withRules(
  z
    .strictObject({
      id: z
        .string()
        .min(1)
        .max(63)
        .regex(PROVIDER_ID, "must be lower-case letters, digits, '-', '_' or '.'")
        .optional()
        .describe(
          "provider_id in the generated config, unique within the API. Matching a base provider's id replaces that provider. Required when the API lists more than one provider; a single provider defaults to its provider name (vllm for remote::vllm).",
        ),
      provider: z
        .string()
        .min(1)
        .max(128)
        .regex(
          /^([a-z]+::)?[a-z0-9][-a-z0-9_.]*$/,
          "must be a provider type such as vllm or remote::vllm",
        )
        .describe(
          "Provider type: a short name (vllm, pgvector, llama-guard) resolved to remote::<name>, else inline::<name>, or a fully qualified type (remote::vllm). The valid types depend on the API and the release.",
        ),
      endpoint: z
        .string()
        .min(1)
        .max(LIMITS.url)
        .optional()
        .describe(
          "URL of the provider's service. Goes to the provider's one URL field (base_url for most providers).",
        ),
      apiKey: SecretRef.optional().describe(
        "Credential for the provider's one secret-typed field (api_key; api_token for vllm), read from a Secret.",
      ),
      secretRefs: z
        .record(z.string().regex(CONFIG_FIELD, "must be a provider config field name"), SecretRef)
        .optional()
        .describe(
          "Other provider config fields read from Secrets, by config field name (e.g. password).",
        )
        .meta({ maxProperties: LIMITS.secretRefsPerProvider }),
      settings: z
        .record(z.string(), JsonValue)
        .optional()
        .describe(
          "Provider config fields merged into the generated config as is (e.g. max_tokens: 8192). Secret-typed fields are refused here; use secretRefs.",
        )
        .meta({ "x-kubernetes-preserve-unknown-fields": true, maxProperties: LIMITS.settingsKeys }),
      module: z
        .string()
        .min(1)
        .max(LIMITS.shortString)
        .regex(PYTHON_MODULE, "must be a Python module name such as acme_provider")
        .optional()
        .describe(
          "An external provider: the Python module that implements provider (a fully qualified type the release's registry lacks), written as the entry's module. The module must be installed in the image (a custom image); llsd-hook cannot see its config class, so its fields go under settings and secretRefs.",
        ),
    })
    .describe("One provider of a Llama Stack API."),
  [
    rule<{ provider: string; module?: string | undefined }>({
      id: "provider-module-needs-qualified-type",
      cel: "!has(self.module) || self.provider.contains('::')",
      message:
        "an external provider (module) needs a fully qualified provider type such as remote::acme; the release's registry cannot resolve a short name to it",
      fieldPath: ".provider",
      check: (p) => p.module === undefined || p.provider.includes("::"),
    }),
  ],
);
export type ProviderEntry = z.infer<typeof ProviderEntry>;

function providerListFor(specKey: string) {
  return withRules(
    z
      .array(ProviderEntry)
      .min(1)
      .max(LIMITS.providersPerApi)
      .describe(
        `Providers of the ${specKey} API, overlaid on the distribution's by provider id. A list even for one provider.`,
      ),
    [
      rule<ProviderEntry[]>({
        id: `providers-${specKey}-ids-required`,
        cel: "self.size() <= 1 || self.all(p, has(p.id))",
        message: `spec.providers.${specKey}: every entry needs an id when the list has more than one provider; add an id to each`,
        check: (l) => l.length <= 1 || l.every((p) => p.id !== undefined),
      }),
      rule<ProviderEntry[]>({
        id: `providers-${specKey}-ids-unique`,
        cel: "self.all(p, !has(p.id) || self.exists_one(q, has(q.id) && q.id == p.id))",
        message: `spec.providers.${specKey}: provider ids must be unique within the API; rename the duplicate id`,
        check: (l) => {
          const ids = l.flatMap((p) => (p.id === undefined ? [] : [p.id]));
          return new Set(ids).size === ids.length;
        },
      }),
    ],
  );
}

const Providers = z
  .strictObject(Object.fromEntries(SPEC_API_KEYS.map((k) => [k, providerListFor(k).optional()])))
  .describe(
    "Providers by Llama Stack API, keyed by the camelCase API name (inference, safety, vectorIo, toolRuntime, files, responses, ...). Which APIs exist depends on the release.",
  );

// ---------------------------------------------------------------- resources
const Model = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .max(LIMITS.shortString)
      .describe("model_id. Llama Stack serves it as <provider id>/<providerModelId or name>."),
    provider: z
      .string()
      .min(1)
      .max(63)
      .optional()
      .describe(
        "Id of an enabled inference provider in the generated config. Default: the first inference provider the spec declares.",
      ),
    providerModelId: z
      .string()
      .min(1)
      .max(LIMITS.shortString)
      .optional()
      .describe("The model's name at the provider, when it differs from name."),
    modelType: z
      .enum(["llm", "embedding", "rerank"])
      .optional()
      .describe("llm (default), embedding (needs metadata.embedding_dimension) or rerank."),
    metadata: z
      .record(z.string(), JsonValue)
      .optional()
      .describe("Free-form model metadata, e.g. embedding_dimension: 768.")
      .meta({ "x-kubernetes-preserve-unknown-fields": true, maxProperties: 32 }),
  })
  .describe("A model registered at startup.");
type Model = z.infer<typeof Model>;

export const Resources = z
  .strictObject({
    models: z.array(Model).min(1).max(LIMITS.models).optional().describe("Models to register."),
    shields: z
      .array(z.string().min(1).max(LIMITS.shortString))
      .min(1)
      .max(LIMITS.shields)
      .optional()
      .describe(
        "Shields to register, with the first safety provider the spec declares; each name is also the provider's shield id (the guard model).",
      ),
    tools: z
      .array(z.string().min(1).max(LIMITS.shortString))
      .min(1)
      .max(LIMITS.tools)
      .optional()
      .describe(
        "Tool groups to register (websearch → builtin::websearch). Only releases that register tool groups (0.6 and older); on 0.7 tools come from toolRuntime providers.",
      ),
  })
  .describe("Resources registered at startup, added to the distribution's own.");
export type Resources = z.infer<typeof Resources>;

// ---------------------------------------------------------------- storage
// Connection fields are literals: a structural CRD cannot type "a literal or a
// {secretKeyRef}" union for CEL (docs/adr/0003). Secret-held connection data
// comes through password (a secretKeyRef) or secretName.
const Host = z.string().min(1).max(LIMITS.shortString);
const Port = z.number().int().min(1).max(65535);
const Word = z.string().min(1).max(LIMITS.shortString);

type StorageFields = { type: string; [k: string]: unknown };
const has = (s: StorageFields, ...keys: string[]) => keys.some((k) => s[k] !== undefined);
const CONNECTION = ["host", "port", "database", "user", "password", "secretName"];

function storageRules(kind: "kv" | "sql") {
  const at = `spec.storage.${kind}`;
  const celNone = (keys: string[]) => keys.map((k) => `!has(self.${k})`).join(" && ");
  const rules = [
    rule<StorageFields>({
      id: `storage-${kind}-sqlite-no-connection`,
      cel: `self.type != 'sqlite' || (${celNone(CONNECTION)})`,
      message: `${at}: type sqlite takes no connection fields (host, port, database, user, password, secretName); remove them or change the type`,
      check: (s) => s.type !== "sqlite" || !has(s, ...CONNECTION),
    }),
    rule<StorageFields>({
      id: `storage-${kind}-postgres-connection`,
      cel: "self.type != 'postgres' || has(self.secretName) || (has(self.host) && has(self.user) && has(self.password))",
      message: `${at}: postgres needs host, user and password (a secretKeyRef), or secretName for a Secret with keys host, port, dbname, user and password`,
      check: (s) =>
        s.type !== "postgres" ||
        has(s, "secretName") ||
        (has(s, "host") && has(s, "user") && has(s, "password")),
    }),
    rule<StorageFields>({
      id: `storage-${kind}-secret-name-exclusive`,
      cel: `!has(self.secretName) || (${celNone(["host", "port", "database", "user", "password"])})`,
      message: `${at}.secretName: reads host, port, dbname, user and password from the Secret; remove the separate connection fields`,
      fieldPath: ".secretName",
      check: (s) =>
        !has(s, "secretName") || !has(s, "host", "port", "database", "user", "password"),
    }),
  ];
  if (kind === "kv") {
    rules.push(
      rule<StorageFields>({
        id: "storage-kv-redis-fields",
        cel: `self.type != 'redis' || (has(self.host) && ${celNone(["database", "user", "secretName"])})`,
        message:
          "spec.storage.kv: type redis takes host (required), port and password; remove database, user and secretName",
        check: (s) =>
          s.type !== "redis" || (has(s, "host") && !has(s, "database", "user", "secretName")),
      }),
    );
  }
  return rules;
}

export const KvStorage = withRules(
  z
    .strictObject({
      type: z
        .enum(["sqlite", "redis", "postgres"])
        .describe("sqlite (a file in the pod's data volume), redis or postgres."),
      host: Host.optional().describe("redis/postgres host name."),
      port: Port.optional().describe("redis/postgres port."),
      database: Word.optional().describe("postgres database name."),
      user: Word.optional().describe("postgres user name."),
      password: SecretRef.optional().describe(
        "postgres (or redis, where the release supports it) password, from a Secret.",
      ),
      secretName: objectName("Secret")
        .optional()
        .describe(
          "postgres: a Secret with the conventional keys host, port, dbname, user and password, instead of the separate fields.",
        ),
    })
    .describe(
      "Key-value store backend. Replaces the distribution's kv backend; store references stay as they are.",
    ),
  storageRules("kv"),
);

export const SqlStorage = withRules(
  z
    .strictObject({
      type: z
        .enum(["sqlite", "postgres"])
        .describe("sqlite (a file in the pod's data volume) or postgres."),
      host: Host.optional().describe("postgres host name."),
      port: Port.optional().describe("postgres port."),
      database: Word.optional().describe("postgres database name."),
      user: Word.optional().describe("postgres user name."),
      password: SecretRef.optional().describe("postgres password, from a Secret."),
      secretName: objectName("Secret")
        .optional()
        .describe(
          "A Secret with the conventional keys host, port, dbname, user and password, instead of the separate fields.",
        ),
    })
    .describe(
      "SQL store backend. Replaces the distribution's sql backend; store references stay as they are.",
    ),
  storageRules("sql"),
);

export const Storage = z
  .strictObject({
    kv: KvStorage.optional(),
    sql: SqlStorage.optional(),
  })
  .describe("Where the server keeps its state. Omitted parts keep the distribution's backends.");
export type Storage = z.infer<typeof Storage>;
export type KvStorage = z.infer<typeof KvStorage>;
export type SqlStorage = z.infer<typeof SqlStorage>;

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
      cel: `self.metadata.name.size() <= ${MAX_NAME_LENGTH} && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')`,
      message: `metadata.name: must be a DNS-1035 label (lower-case letters, digits and '-', starting with a letter) of at most ${MAX_NAME_LENGTH} characters, so that the Service <name>-service fits; choose a shorter name`,
      fieldPath: ".metadata.name",
      check: (o) =>
        o.metadata.name.length <= MAX_NAME_LENGTH &&
        /^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(o.metadata.name),
    }),
  ],
);
