// fast-check arbitraries for LlamaStackDistribution specs the hook accepts
// (run through sync with test/support/request.ts).
import fc from "fast-check";

const providerId = fc.constantFrom("primary", "backup", "vllm-a", "edge_1");
const secretName = fc.constantFrom("creds-a", "creds-b");
const secretKey = fc.constantFrom("token", "api-key");

const secretRef = fc.record({ secretKeyRef: fc.record({ name: secretName, key: secretKey }) });

const entryOf = (types: string[], requiredKeys: ("provider" | "endpoint")[]) =>
  fc.record(
    {
      provider: fc.constantFrom(...types),
      endpoint: fc.constantFrom("http://vllm:8000/v1", "https://models.example.com/v1"),
      apiKey: secretRef,
      settings: fc.record({ refresh_models: fc.boolean() }, { requiredKeys: [] }),
    },
    { requiredKeys },
  );

// vLLM has no URL of its own (starter's is ${env.VLLM_URL:=}, refused as empty): it needs endpoint.
const inferenceEntry = fc.oneof(
  entryOf(["vllm", "remote::vllm"], ["provider", "endpoint"]),
  entryOf(["ollama", "openai"], ["provider"]),
);

const inference = fc.oneof(
  inferenceEntry.map((e) => [e]),
  fc
    .uniqueArray(providerId, { minLength: 2, maxLength: 3 })
    .chain((ids) => fc.tuple(...ids.map((id) => inferenceEntry.map((e) => ({ id, ...e }))))),
);

export const validSpec = fc
  .record(
    {
      distribution: fc.constantFrom(
        { name: "starter" },
        { name: "starter", release: "0.6.1" },
        { name: "starter", release: "0.7.3" },
      ),
      inference,
      models: fc.uniqueArray(fc.constantFrom("llama3.2-8b", "granite-3b", "qwen-7b"), {
        minLength: 1,
        maxLength: 3,
      }),
      // Sets closed under dependencies (eval needs scoring; 0.6 post_training needs datasetio).
      disabled: fc.constantFrom(["eval"], ["batches"], ["eval", "scoring"], ["batches", "eval"]),
      disabledProviders: fc.subarray(["code-scanner", "brave-search", "tavily-search"], {
        minLength: 1,
      }),
      kv: fc.constantFrom(
        { type: "sqlite" },
        { type: "redis", host: "redis.cache.svc", port: 6379 },
      ),
    },
    { requiredKeys: ["distribution", "inference"] },
  )
  .map((r) => {
    const spec: Record<string, unknown> = {
      distribution: r.distribution,
      providers: { inference: r.inference },
    };
    if (r.models !== undefined) spec["resources"] = { models: r.models.map((name) => ({ name })) };
    if (r.disabled !== undefined) spec["disabled"] = r.disabled;
    if (r.disabledProviders !== undefined) spec["disabledProviders"] = r.disabledProviders;
    if (r.kv !== undefined) spec["storage"] = { kv: r.kv };
    return spec;
  });
