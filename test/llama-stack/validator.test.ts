// The validator against known-bad configs: each row starts from a small valid
// config, breaks one thing, and asserts the exact findings (code and path).
// Every row runs against the real package (llama-stack or ogx) of every
// supported release, in one validator process per release; a row with
// `releases` runs only on those.
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { runValidator, validateConfig, validateConfigs, type Finding } from "./validator.js";

const root = join(import.meta.dirname, "..", "..");
const releases = (
  JSON.parse(readFileSync(join(root, "configs", "releases.json"), "utf8")) as { releases: string[] }
).releases;

type Config = Record<string, unknown> & {
  apis: string[];
  providers: Record<string, Record<string, unknown>[]>;
  storage: { backends: Record<string, unknown>; stores: Record<string, Record<string, unknown>> };
  registered_resources: { models: Record<string, unknown>[] };
  server: Record<string, unknown>;
};

/** Releases of the renamed `ogx` package (0.8 on) and of the last `llama-stack` line. */
const ogx = ["1.5.0", "1.4.1"];
const llamaStack = ["0.7.3", "0.6.1"];
const isOgx = (release: string): boolean => !/^0\.[0-7]\./.test(release);

/**
 * A small config that every release accepts without findings; on ogx (1.2+
 * refuses to start without TLS) it also carries `server.insecure: true`. The
 * KV-shaped prompts/connectors stores are what 0.x wants; ogx migrates them to
 * SQL (kv_default -> sql_default) before parsing.
 */
const validYaml = `
version: 2
distro_name: llsd-test
apis: [inference]
providers:
  inference:
  - provider_id: vllm
    provider_type: remote::vllm
    config:
      base_url: \${env.VLLM_URL:=http://127.0.0.1:8000/v1}
      api_token: \${env.VLLM_API_TOKEN:=fake}
      max_tokens: 4096
storage:
  backends:
    kv_default: {type: kv_sqlite, db_path: "\${env.SQLITE_STORE_DIR:=/tmp/llsd}/kvstore.db"}
    sql_default: {type: sql_sqlite, db_path: "\${env.SQLITE_STORE_DIR:=/tmp/llsd}/sql_store.db"}
  stores:
    metadata: {namespace: registry, backend: kv_default}
    inference: {table_name: inference_store, backend: sql_default}
    conversations: {table_name: openai_conversations, backend: sql_default}
    prompts: {namespace: prompts, backend: kv_default}
    connectors: {namespace: connectors, backend: kv_default}
registered_resources:
  models:
  - {model_id: meta-llama/Llama-3.1-8B-Instruct, provider_id: vllm, model_type: llm}
server:
  port: 8321
`;

/** The valid config of one release, changed; rows hold it unrendered until the release is known. */
type Source = (release: string) => string;

function variant(change: (c: Config, release: string) => void): Source {
  return (release) => {
    const config = parse(validYaml) as Config;
    if (isOgx(release)) config.server["insecure"] = true;
    change(config, release);
    return stringify(config);
  };
}

const vllm = (c: Config): Record<string, unknown> => c.providers["inference"]![0]!;
const vllmConfig = (c: Config): Record<string, unknown> =>
  vllm(c)["config"] as Record<string, unknown>;

interface Row {
  name: string;
  configYaml: Source;
  env?: Record<string, string>;
  /** [code, path] of every finding, in the validator's order (sorted by path). */
  want: [string, string][];
  /** Substrings of the messages, in the same order (optional). */
  messages?: string[];
  /** Text that no message may contain (secret values). */
  hidden?: string;
  releases?: string[];
}

const rows: Row[] = [
  { name: "the valid base config", configYaml: variant(() => {}), want: [] },
  {
    name: "url where the release wants base_url (remote::vllm)",
    configYaml: variant((c) => {
      const config = vllmConfig(c);
      config["url"] = config["base_url"];
      delete config["base_url"];
    }),
    want: [["unknown-key", "providers.inference[0].config.url"]],
    messages: ["'url' is not a field of VLLMInferenceAdapterConfig (remote::vllm)"],
  },
  {
    name: "a model on a provider that does not exist",
    configYaml: variant((c) => {
      c.registered_resources.models[0]!["provider_id"] = "ollama";
    }),
    want: [["resource-provider-missing", "registered_resources.models[0].provider_id"]],
    messages: ["'ollama' is not an enabled inference provider (enabled: vllm)"],
  },
  {
    name: "a model on a provider switched off by its conditional id",
    configYaml: variant((c) => {
      vllm(c)["provider_id"] = "${env.VLLM_URL:+vllm}";
    }),
    want: [
      ["api-without-provider", "apis[0]"],
      ["resource-provider-missing", "registered_resources.models[0].provider_id"],
    ],
    messages: ["no enabled provider", "whose provider_id resolves empty (disabled)"],
  },
  {
    name: "the same provider switched on by its env var",
    configYaml: variant((c) => {
      vllm(c)["provider_id"] = "${env.VLLM_URL:+vllm}";
    }),
    env: { VLLM_URL: "http://vllm.example:8000/v1" },
    want: [],
  },
  {
    name: "a store on a backend that does not exist",
    configYaml: variant((c) => {
      c.storage.stores["inference"]!["backend"] = "sql_missing";
    }),
    want: [["store-backend-missing", "storage.stores.inference.backend"]],
    messages: ["names storage backend 'sql_missing'"],
  },
  {
    name: "a kv store on a sql backend",
    configYaml: variant((c) => {
      c.storage.stores["metadata"]!["backend"] = "sql_default";
    }),
    want: [["store-backend-kind", "storage.stores.metadata.backend"]],
    messages: ["backend 'sql_default' is of type sql_sqlite; it needs a kv_* backend"],
  },
  {
    name: "a store left to its default reference on a backend that is gone",
    configYaml: variant((c) => {
      delete c.storage.stores["connectors"];
      c.storage.backends["kv_main"] = c.storage.backends["kv_default"];
      delete c.storage.backends["kv_default"];
      c.storage.stores["metadata"]!["backend"] = "kv_main";
      c.storage.stores["prompts"]!["backend"] = "kv_main";
    }),
    want: [["store-backend-missing", "storage.stores.connectors"]],
    messages: ["default reference applies"],
    releases: llamaStack,
  },
  {
    name: "a store left to its default reference on a backend that is gone (ogx: connectors on sql_default)",
    configYaml: variant((c) => {
      delete c.storage.stores["connectors"];
      c.storage.backends["sql_main"] = c.storage.backends["sql_default"];
      delete c.storage.backends["sql_default"];
      c.storage.stores["inference"]!["backend"] = "sql_main";
      c.storage.stores["conversations"]!["backend"] = "sql_main";
      c.storage.stores["prompts"] = { table_name: "prompts", backend: "sql_main" };
    }),
    want: [["store-backend-missing", "storage.stores.connectors"]],
    messages: ["default reference applies, which names storage backend 'sql_default'"],
    releases: ogx,
  },
  {
    name: "a provider-level store reference of the wrong kind (files metadata_store on kv)",
    configYaml: variant((c) => {
      c.apis.push("files");
      c.providers["files"] = [
        {
          provider_id: "localfs",
          provider_type: "inline::localfs",
          config: {
            storage_dir: "/tmp/llsd/files",
            metadata_store: { table_name: "files_metadata", backend: "kv_default" },
          },
        },
      ];
    }),
    want: [["store-backend-kind", "providers.files[0].config.metadata_store.backend"]],
  },
  {
    name: "a bare ${env.X} whose variable the container does not have",
    configYaml: variant((c) => {
      vllmConfig(c)["base_url"] = "${env.VLLM_URL}";
    }),
    want: [["env-unset", "providers.inference[0].config.base_url"]],
    messages: ["${env.VLLM_URL} has no default and VLLM_URL is not set"],
  },
  {
    name: "the same bare ${env.X} with the variable set",
    configYaml: variant((c) => {
      vllmConfig(c)["base_url"] = "${env.VLLM_URL}";
    }),
    env: { VLLM_URL: "http://vllm.example:8000/v1" },
    want: [],
  },
  {
    name: "an unknown API under providers",
    configYaml: variant((c) => {
      c.providers["telemetry"] = [{ provider_id: "otel", provider_type: "inline::meta-reference" }];
    }),
    want: [["unknown-api", "providers.telemetry"]],
    messages: ["'telemetry' is not an API of "],
  },
  {
    name: "a routing-table API under providers",
    configYaml: variant((c) => {
      c.providers["models"] = [{ provider_id: "m", provider_type: "remote::vllm" }];
    }),
    want: [["unknown-api", "providers.models"]],
    messages: ["is a routing table"],
  },
  {
    name: "an internal API under providers",
    configYaml: variant((c) => {
      c.providers["inspect"] = [{ provider_id: "i", provider_type: "inline::builtin" }];
    }),
    want: [["unknown-api", "providers.inspect"]],
    messages: ["internal API"],
  },
  {
    name: "agents, renamed to responses in 0.7",
    configYaml: variant((c) => {
      c.providers["agents"] = [];
    }),
    want: [["unknown-api", "providers.agents"]],
    releases: ["0.7.3"],
  },
  {
    name: "an unknown provider_type",
    configYaml: variant((c) => {
      vllm(c)["provider_type"] = "remote::vllm-turbo";
    }),
    want: [["unknown-provider-type", "providers.inference[0].provider_type"]],
    messages: ["'remote::vllm-turbo' is not a provider type of API 'inference'"],
  },
  {
    name: "an external provider whose module is not installed",
    configYaml: variant((c) => {
      vllm(c)["provider_type"] = "remote::acme-missing";
      vllm(c)["module"] = "acme_missing";
    }),
    want: [["external-provider-unavailable", "providers.inference[0].module"]],
    messages: ["get_provider_spec not found"],
  },
  {
    name: "a provider config pydantic rejects",
    configYaml: variant((c) => {
      vllmConfig(c)["base_url"] = "vllm:8000";
    }),
    want: [["provider-config-invalid", "providers.inference[0].config.base_url"]],
  },
  {
    name: "an all-digit secret from the env becomes an int that the config class refuses",
    configYaml: variant((c) => {
      vllmConfig(c)["api_token"] = "${env.LLSD_INFERENCE_API_KEY}";
    }),
    env: { LLSD_INFERENCE_API_KEY: "20251122" },
    want: [["provider-config-invalid", "providers.inference[0].config.api_token"]],
    messages: ["(value not shown)"],
    hidden: "20251122",
  },
  {
    name: "unknown keys deep in a provider config and at the top",
    configYaml: variant((c) => {
      vllmConfig(c)["network"] = { tls: { verify: false, verify_hostname: false } };
      c["telemetry"] = { enabled: true };
      c.server["portt"] = 8080;
    }),
    want: [
      ["unknown-key", "providers.inference[0].config.network.tls.verify_hostname"],
      ["unknown-key", "server.portt"],
      ["unknown-key", "telemetry"],
    ],
  },
  {
    name: "a stale registered_resources key",
    configYaml: variant((c) => {
      (c.registered_resources as Record<string, unknown>)["vector_dbs"] = [];
    }),
    want: [["unknown-key", "registered_resources.vector_dbs"]],
  },
  {
    name: "a server field out of range",
    configYaml: variant((c) => {
      c.server["port"] = 80;
    }),
    want: [["stack-config-invalid", "server.port"]],
  },
  {
    name: "an API listed in apis that nothing provides",
    configYaml: variant((c) => {
      c.apis.push("files");
    }),
    want: [["api-without-provider", "apis[1]"]],
  },
  {
    name: "a provider whose API dependency is missing (batches without files)",
    configYaml: variant((c, release) => {
      c.apis.push("batches");
      c.providers["batches"] = [
        {
          provider_id: "reference",
          provider_type: "inline::reference",
          // ogx 1.0 moved the batches store from KV to SQL.
          config: isOgx(release)
            ? { sqlstore: { table_name: "batches", backend: "sql_default" } }
            : { kvstore: { namespace: "batches", backend: "kv_default" } },
        },
      ];
    }),
    want: [["api-dependency-missing", "providers.batches[0].provider_type"]],
    messages: ["needs the 'files' API"],
  },
  {
    name: "two providers with one id",
    configYaml: variant((c) => {
      c.providers["inference"]!.push({ ...vllm(c) });
    }),
    want: [["provider-id-duplicate", "providers.inference[1].provider_id"]],
  },
  {
    name: "paths keep the YAML's indices across a __disabled__ entry",
    configYaml: variant((c) => {
      const config = vllmConfig(c);
      config["url"] = "http://x:8000/v1";
      c.providers["inference"]!.unshift({
        provider_id: "__disabled__",
        provider_type: "remote::ollama",
        config: { base_url: "${env.NEVER_SET}" },
      });
    }),
    want: [["unknown-key", "providers.inference[1].config.url"]],
  },
  {
    name: "an embedding model without embedding_dimension",
    configYaml: variant((c) => {
      c.registered_resources.models.push({
        model_id: "nomic",
        provider_id: "vllm",
        model_type: "embedding",
      });
    }),
    want: [["resource-invalid", "registered_resources.models[1].metadata"]],
  },
  {
    name: "a model without provider_id",
    configYaml: variant((c) => {
      delete c.registered_resources.models[0]!["provider_id"];
    }),
    want: [["resource-without-provider", "registered_resources.models[0]"]],
  },
  {
    name: "vLLM's key under the field's Python name auth_credential instead of api_token",
    configYaml: variant((c) => {
      const config = vllmConfig(c);
      config["auth_credential"] = config["api_token"];
      delete config["api_token"];
    }),
    want: [["unknown-key", "providers.inference[0].config.auth_credential"]],
    messages: ["'auth_credential' is the field's Python name; it is read only from 'api_token'"],
  },
  {
    name: "a model on provider_id all, before ogx 1.0 an unknown provider",
    configYaml: variant((c) => {
      c.registered_resources.models[0]!["provider_id"] = "all";
    }),
    want: [["resource-provider-missing", "registered_resources.models[0].provider_id"]],
    releases: llamaStack,
  },

  // --- ogx only ------------------------------------------------------------------------
  {
    name: "no TLS and no insecure: ogx stack run refuses to start (1.2+)",
    configYaml: variant((c) => {
      delete c.server["insecure"];
    }),
    want: [["tls-required", "server"]],
    messages: ["no tls_certfile/tls_keyfile and no `insecure: true`; ogx stack run exits"],
    releases: ogx,
  },
  {
    name: "a TLS certificate without its key",
    configYaml: variant((c) => {
      delete c.server["insecure"];
      c.server["tls_certfile"] = "/etc/llama-stack/tls/tls.crt";
    }),
    want: [["tls-required", "server"]],
    messages: ["only tls_certfile is set"],
    releases: ogx,
  },
  {
    name: "TLS certificate and key, without insecure",
    configYaml: variant((c) => {
      delete c.server["insecure"];
      c.server["tls_certfile"] = "/etc/llama-stack/tls/tls.crt";
      c.server["tls_keyfile"] = "/etc/llama-stack/tls/tls.key";
    }),
    want: [],
    releases: ogx,
  },
  {
    name: "TLS with a cipher outside the FIPS set (enforced unless insecure)",
    configYaml: variant((c) => {
      delete c.server["insecure"];
      c.server["tls_certfile"] = "/etc/llama-stack/tls/tls.crt";
      c.server["tls_keyfile"] = "/etc/llama-stack/tls/tls.key";
      c.server["tls_config"] = { ciphers: ["ECDHE-RSA-CHACHA20-POLY1305"] };
    }),
    want: [["stack-config-invalid", "server"]],
    messages: ["FIPS-approved ciphers required"],
    releases: ogx,
  },
  {
    name: "auth with verify_tls false and no insecure: the server exits",
    configYaml: variant((c) => {
      delete c.server["insecure"];
      c.server["tls_certfile"] = "/etc/llama-stack/tls/tls.crt";
      c.server["tls_keyfile"] = "/etc/llama-stack/tls/tls.key";
      c.server["auth"] = { provider_config: { type: "kubernetes", verify_tls: false } };
    }),
    want: [["auth-refused", "server.auth.provider_config.verify_tls"]],
    releases: ogx,
  },
  {
    name: "auth with verify_tls false under insecure: only a warning",
    configYaml: variant((c) => {
      c.server["auth"] = { provider_config: { type: "kubernetes", verify_tls: false } };
    }),
    want: [],
    releases: ogx,
  },
  {
    name: "local_api_key auth with tenancy mode multi",
    configYaml: variant((c) => {
      c.server["auth"] = { provider_config: { type: "local_api_key", api_keys: ["k"] } };
      c.server["tenancy"] = { mode: "multi" };
    }),
    want: [["auth-refused", "server.tenancy.mode"]],
    releases: ogx,
  },
  {
    name: "a safety provider and API (removed in ogx 1.0)",
    configYaml: variant((c) => {
      c.apis.push("safety");
      c.providers["safety"] = [
        { provider_id: "llama-guard", provider_type: "inline::llama-guard", config: {} },
      ];
    }),
    want: [
      ["unknown-api", "apis[1]"],
      ["unknown-api", "providers.safety"],
    ],
    messages: ["'safety' is not an API of ogx ", "'safety' is not an API of ogx "],
    releases: ogx,
  },
  {
    name: "registered shields (removed in ogx 1.0)",
    configYaml: variant((c) => {
      (c.registered_resources as Record<string, unknown>)["shields"] = [
        { shield_id: "llama-guard", provider_id: "llama-guard" },
      ];
    }),
    want: [["unknown-key", "registered_resources.shields"]],
    releases: ogx,
  },
  {
    name: "an eval provider and API (removed in ogx 0.8)",
    configYaml: variant((c) => {
      c.apis.push("eval");
      c.providers["eval"] = [{ provider_id: "builtin", provider_type: "inline::builtin" }];
    }),
    want: [
      ["unknown-api", "apis[1]"],
      ["unknown-api", "providers.eval"],
    ],
    releases: ogx,
  },
  {
    name: "a model on provider_id all (the first enabled inference provider, ogx 1.0+)",
    configYaml: variant((c) => {
      c.registered_resources.models[0]!["provider_id"] = "all";
    }),
    want: [],
    releases: ogx,
  },
  {
    name: "a model on provider_id all with no enabled inference provider",
    configYaml: variant((c) => {
      vllm(c)["provider_id"] = "${env.VLLM_URL:+vllm}";
      c.registered_resources.models[0]!["provider_id"] = "all";
    }),
    want: [
      ["api-without-provider", "apis[0]"],
      ["resource-provider-missing", "registered_resources.models[0].provider_id"],
    ],
    messages: ["no enabled provider", "there is none"],
    releases: ogx,
  },
  {
    name: "a KV-shaped prompts store on a custom backend migrates to a SQL backend that is missing",
    configYaml: variant((c) => {
      c.storage.backends["kv_extra"] = { type: "kv_sqlite", db_path: "/tmp/llsd/extra.db" };
      c.storage.stores["prompts"] = { namespace: "prompts", backend: "kv_extra" };
    }),
    want: [["store-backend-missing", "storage.stores.prompts.backend"]],
    messages: ["names storage backend 'sql_extra'"],
    releases: ogx,
  },
  {
    name: "the 0.7 batches kvstore on ogx (moved to sqlstore in 1.0)",
    configYaml: variant((c) => {
      c.apis.push("batches", "files");
      c.providers["files"] = [
        {
          provider_id: "localfs",
          provider_type: "inline::localfs",
          config: {
            storage_dir: "/tmp/llsd/files",
            metadata_store: { table_name: "files_metadata", backend: "sql_default" },
          },
        },
      ];
      c.providers["batches"] = [
        {
          provider_id: "reference",
          provider_type: "inline::reference",
          config: { kvstore: { namespace: "batches", backend: "kv_default" } },
        },
      ];
    }),
    want: [
      ["unknown-key", "providers.batches[0].config.kvstore"],
      ["provider-config-invalid", "providers.batches[0].config.sqlstore"],
    ],
    releases: ogx,
  },
  {
    name: "an explicit empty apis list serves no provider-backed API (1.5)",
    configYaml: variant((c) => {
      c.apis = [];
    }),
    want: [["api-not-served", "providers.inference"]],
    releases: ["1.5.0"],
  },
  {
    name: "an explicit empty apis list serves every API with providers (before 1.5)",
    configYaml: variant((c) => {
      c.apis = [];
    }),
    want: [],
    releases: ["1.4.1", ...llamaStack],
  },
];

for (const release of releases) {
  describe(`validate.py on known-bad configs (${isOgx(release) ? "ogx" : "llama-stack"} ${release})`, function () {
    this.timeout(120_000);
    const mine = rows.filter((r) => r.releases === undefined || r.releases.includes(release));
    let results: Map<string, { findings: Finding[] }>;

    before(async () => {
      const run = await runValidator(
        release,
        mine.map((r) => ({ name: r.name, configYaml: r.configYaml(release), env: r.env ?? {} })),
      );
      results = run.results;
    });

    for (const row of mine) {
      it(row.name, () => {
        const findings = results.get(row.name)!.findings;
        expect(
          findings.map((f) => [f.code, f.path]),
          JSON.stringify(findings, null, 1),
        ).to.deep.equal(row.want);
        if (row.hidden !== undefined) {
          expect(JSON.stringify(findings)).not.to.include(row.hidden);
        }
        (row.messages ?? []).forEach((fragment, i) =>
          expect(findings[i]?.message ?? findings.map((f) => f.message).join("\n")).to.include(
            fragment,
          ),
        );
      });
    }
  });
}

describe("validateConfig / validateConfigs", function () {
  this.timeout(60_000);
  it("validateConfig says which variable a bare ${env.X} is missing", async () => {
    const broken = variant((c) => {
      vllmConfig(c)["api_token"] = "${env.LLSD_INFERENCE_API_KEY}";
    });
    const findings = await validateConfig("0.7.3", broken("0.7.3"), {});
    expect(findings).to.have.length(1);
    expect(findings[0]).to.include({
      code: "env-unset",
      path: "providers.inference[0].config.api_token",
    });
    expect(findings[0]!.message).to.include("LLSD_INFERENCE_API_KEY");
  });

  it("validateConfigs answers per name, with findings rather than a crash for non-configs", async () => {
    const results = await validateConfigs("0.7.3", [
      { name: "list", configYaml: "- just\n- a list\n", env: {} },
      { name: "broken yaml", configYaml: "a: [unclosed", env: {} },
      { name: "valid", configYaml: validYaml, env: {} },
    ]);
    expect([...results.keys()]).to.have.members(["list", "broken yaml", "valid"]);
    expect(results.get("list")).to.deep.equal([
      {
        code: "stack-config-invalid",
        path: "",
        message: "the config must be a YAML mapping, got list",
      },
    ]);
    expect(results.get("broken yaml")!.map((f) => f.code)).to.deep.equal(["yaml-invalid"]);
    expect(results.get("valid")).to.deep.equal([]);
  });

  it("refuses duplicate names", async () => {
    const item = { name: "same", configYaml: validYaml, env: {} };
    let error: unknown;
    await validateConfigs("0.7.3", [item, item]).catch((e: unknown) => (error = e));
    expect(String(error)).to.include('duplicate name "same"');
  });
});
