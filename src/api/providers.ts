// spec.providers: the providers of each Llama Stack API, overlaid on the
// distribution's by provider id.
import { z } from "zod";
import { JsonValue, LIMITS, PROVIDER_ID, SecretRef } from "./fields.js";
import { SPEC_API_KEYS } from "./llama-apis.js";
import { rule, withRules } from "./rules.js";

const CONFIG_FIELD = /^[a-z][a-z0-9_]*$/;
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

export const Providers = z
  .strictObject(Object.fromEntries(SPEC_API_KEYS.map((k) => [k, providerListFor(k).optional()])))
  .describe(
    "Providers by Llama Stack API, keyed by the camelCase API name (inference, safety, vectorIo, toolRuntime, files, responses, ...). Which APIs exist depends on the release.",
  );
