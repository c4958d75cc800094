// A config the hook generates boots a real `llama stack run`: starter on the
// default release, one vllm endpoint (the fake OpenAI upstream) with its key
// from a Secret, a model registered on it, and the APIs and base providers
// that need heavy dependencies (torch, sentence-transformers) shed with
// `disabled` and `disabledProviders`. The server runs with the environment
// the generated Deployment gives the container, Secret values replaced by
// test values, and lists the CR's model on /v1/models.
import { expect } from "chai";
import { parse } from "yaml";
import { SyncRequest } from "../../src/api/hook.js";
import { configOf, containerEnv, syncContext } from "../golden/harness.js";
import { sync } from "../../src/sync.js";
import { bootLlamaStack, type BootedStack } from "./boot.js";
import { startFakeOpenAI, type FakeOpenAI } from "./fake-openai.js";
import { isKnownQuirk } from "./quirks.js";
import { validateConfigs } from "./validator.js";

const model = "meta-llama/Llama-3.2-3B-Instruct";

function llsd(endpoint: string): string {
  return `apiVersion: llamastack.io/v1alpha2
kind: LlamaStackDistribution
metadata: {name: booted, namespace: default, uid: uid-booted, generation: 1}
spec:
  distribution: {name: starter}
  providers:
    inference:
      - provider: vllm
        endpoint: ${endpoint}
        apiKey: {secretKeyRef: {name: vllm-creds, key: token}}
  disabledProviders: [sentence-transformers, transformers, fireworks, together, bedrock,
                      openai, anthropic, gemini, groq, sambanova]
  disabled: [safety, eval, scoring, datasetio, vectorIo, responses, toolRuntime, batches,
             fileProcessors]
  resources:
    models: [{name: ${model}}]
`;
}

describe("booting a config the hook generated", function () {
  this.timeout(900_000);

  it("starter with one vllm endpoint boots and lists the CR's model on /v1/models", async () => {
    const fake: FakeOpenAI = await startFakeOpenAI({ models: [model], reply: "pong" });
    let stack: BootedStack | undefined;
    try {
      const request = SyncRequest.parse({
        parent: parse(llsd(fake.baseUrl)),
        related: {
          "Secret.v1": {
            "default/vllm-creds": {
              apiVersion: "v1",
              kind: "Secret",
              metadata: { name: "vllm-creds", namespace: "default", resourceVersion: "1" },
              data: { token: Buffer.from("unused").toString("base64") },
            },
          },
        },
      });
      const outcome = sync(request, "2026-11-01T12:00:00Z", syncContext());
      if (outcome.kind !== "ok") throw new Error(outcome.message);
      const configYaml = configOf(outcome.response);
      expect(configYaml, "a generated config").to.be.a("string");
      const env = containerEnv(outcome.response);
      expect(Object.keys(env)).to.include("LLSD_INFERENCE_API_KEY");

      const findings = await validateConfigs("0.7.3", [
        { name: "generated", configYaml: configYaml ?? "", env },
      ]);
      const unexpected = (findings.get("generated") ?? []).filter(
        (f) => !isKnownQuirk("0.7.3", "starter", f),
      );
      expect(unexpected).to.deep.equal([]);

      stack = await bootLlamaStack({ release: "0.7.3", configYaml: configYaml ?? "", env });
      const deps = stack.deps.cached
        ? "deps: cached marker"
        : `deps: installed [${stack.deps.installed.join(" ")}] in ${(stack.deps.ms / 1000).toFixed(1)} s`;
      console.log(
        `      [boot generated] ${deps}; healthy after ${(stack.startMs / 1000).toFixed(1)} s`,
      );
      expect(stack.health).to.deep.equal({ status: "OK" });
      expect(stack.modelIds).to.deep.equal([`vllm/${model}`]);
    } finally {
      await stack?.stop();
      await fake.close();
    }
  });
});
