// Boots a real `llama stack run` (the published package of each release) on a
// minimal hand-written config whose one remote::vllm provider points at a fake
// OpenAI-compatible upstream, and checks what a client would see: /v1/health,
// the registered model on /v1/models under <provider_id>/<model_id>, a chat
// completion forwarded upstream. A config the validator says cannot start is
// booted too, to check that the server fails the same way.
import { expect } from "chai";
import { bootLlamaStack, type BootedStack } from "./boot.js";
import { startFakeOpenAI, type FakeOpenAI } from "./fake-openai.js";
import { validateConfigs } from "./validator.js";

const model = "meta-llama/Llama-3.1-8B-Instruct";

function minimalConfig(upstream: string, extra = ""): string {
  return `version: 2
distro_name: llsd-boot
apis: [inference${extra === "" ? "" : ", batches"}]
providers:
  inference:
  - provider_id: vllm
    provider_type: remote::vllm
    config:
      base_url: ${upstream}
      api_token: \${env.LLSD_INFERENCE_API_KEY}
${extra}storage:
  backends:
    kv_default: {type: kv_sqlite, db_path: "\${env.SQLITE_STORE_DIR:=~/.llama/distributions/llsd-boot}/kvstore.db"}
    sql_default: {type: sql_sqlite, db_path: "\${env.SQLITE_STORE_DIR:=~/.llama/distributions/llsd-boot}/sql_store.db"}
  stores:
    metadata: {namespace: registry, backend: kv_default}
    inference: {table_name: inference_store, backend: sql_default}
    conversations: {table_name: openai_conversations, backend: sql_default}
    prompts: {namespace: prompts, backend: kv_default}
    connectors: {namespace: connectors, backend: kv_default}
registered_resources:
  models:
  - {model_id: ${model}, provider_id: vllm, model_type: llm}
server:
  port: 8321
`;
}

// batches inline::reference declares files, inference and models as dependencies.
const batchesWithoutFiles = `  batches:
  - provider_id: reference
    provider_type: inline::reference
    config:
      kvstore: {namespace: batches, backend: kv_default}
`;

const env = { LLSD_INFERENCE_API_KEY: "fake-token" };

function report(release: string, stack: BootedStack): void {
  const deps = stack.deps.cached
    ? "deps: cached marker"
    : `deps: list-deps + check ${(stack.deps.ms / 1000).toFixed(1)} s, installed [${stack.deps.installed.join(" ")}]`;
  console.log(
    `      [boot ${release}] ${deps}; server healthy after ${(stack.startMs / 1000).toFixed(1)} s`,
  );
}

describe("booting a real llama stack run against a fake OpenAI upstream", function () {
  // A cold run installs the provider dependencies the config needs first.
  this.timeout(600_000);

  for (const release of ["0.7.3", "0.6.1"]) {
    it(`${release}: /v1/health answers, /v1/models lists vllm/${model}, completions reach the upstream`, async () => {
      const fake: FakeOpenAI = await startFakeOpenAI({ models: [model], reply: "pong" });
      let stack: BootedStack | undefined;
      try {
        const configYaml = minimalConfig(fake.baseUrl);
        const findings = await validateConfigs(release, [{ name: "boot", configYaml, env }]);
        expect(findings.get("boot"), "the boot config must be valid").to.deep.equal([]);

        stack = await bootLlamaStack({ release, configYaml, env });
        report(release, stack);
        expect(stack.health).to.deep.equal({ status: "OK" });
        expect(stack.modelIds).to.deep.equal([`vllm/${model}`]);
        expect(
          fake.requests.some((r) => r.method === "GET" && r.path === "/v1/models"),
          "Llama Stack asks the upstream for its models at startup",
        ).to.equal(true);

        const res = await fetch(`${stack.baseUrl}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            model: `vllm/${model}`,
            messages: [{ role: "user", content: "ping" }],
          }),
        });
        expect(res.status).to.equal(200);
        const body = (await res.json()) as { choices: { message: { content: string } }[] };
        expect(body.choices[0]!.message.content).to.equal("pong");
        const upstream = fake.requests.find(
          (r) => r.method === "POST" && r.path === "/v1/chat/completions",
        );
        expect(upstream?.body).to.include({ model });
        expect(upstream?.headers["authorization"]).to.equal("Bearer fake-token");
      } finally {
        await stack?.stop();
        await fake.close();
      }
      // Stopped means stopped: nothing answers on the port any more.
      const after = await fetch(`${stack.baseUrl}/v1/health`).then(
        () => "answered",
        () => "refused",
      );
      expect(after).to.equal("refused");
    });
  }

  it("0.7.3: a provider whose API dependency is missing fails to boot as the validator says", async () => {
    const fake = await startFakeOpenAI({ models: [model] });
    try {
      const configYaml = minimalConfig(fake.baseUrl, batchesWithoutFiles);
      const findings = await validateConfigs("0.7.3", [{ name: "deps", configYaml, env }]);
      expect(findings.get("deps")!.map((f) => [f.code, f.path])).to.deep.equal([
        ["api-dependency-missing", "providers.batches[0].provider_type"],
      ]);
      let error: unknown;
      await bootLlamaStack({
        release: "0.7.3",
        configYaml,
        env,
        timeoutMs: 60_000,
        printLogOnFailure: false,
      }).then(
        async (stack) => {
          await stack.stop();
        },
        (e: unknown) => {
          error = e;
        },
      );
      expect(String(error)).to.include("exited with 1 before /v1/health answered");
      expect(String(error)).to.include("required dependency 'files' is not available");
    } finally {
      await fake.close();
    }
  });
});
