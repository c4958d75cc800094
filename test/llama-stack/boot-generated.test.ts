// A config the hook generates boots a real `llama stack run` / `ogx stack run`
// (as the image starts it: no --insecure): starter on the default release, one
// vllm endpoint (the fake OpenAI upstream) with its key from a Secret, a model
// registered on it, and the APIs and base providers that need heavy
// dependencies (torch, sentence-transformers; on ogx also vertexai's
// google-genai, which the lock cannot hold) or an external service shed with
// `disabled` and `disabledProviders`. The server runs with the environment the generated
// Deployment gives the container, Secret values replaced by test values, and
// lists the CR's model on /v1/models (on ogx also the base's `provider_id: all`
// aliases, registered on the first enabled inference provider).
import { expect } from "chai";
import { parse } from "yaml";
import { SyncRequest } from "../../src/api/hook.js";
import { configOf, containerEnv, syncContext } from "../support/harness.js";
import { sync } from "../../src/sync.js";
import { bootLlamaStack, type BootedStack } from "./boot.js";
import { startFakeOpenAI, type FakeOpenAI } from "./fake-openai.js";
import { isKnownQuirk } from "./quirks.js";
import { validateConfigs } from "./validator.js";

const model = "meta-llama/Llama-3.2-3B-Instruct";

function llsd(endpoint: string, release: string | undefined): string {
  return `apiVersion: llamastack.io/v1alpha2
kind: LlamaStackDistribution
metadata: {name: booted, namespace: default, uid: uid-booted, generation: 1}
spec:
  distribution: {name: starter${release === undefined ? "" : `, release: "${release}"`}}
  providers:
    inference:
      - provider: vllm
        endpoint: ${endpoint}
        apiKey: {secretKeyRef: {name: vllm-creds, key: token}}
  disabledProviders: [sentence-transformers, transformers, fireworks, together, bedrock,
                      openai, anthropic, gemini, groq, sambanova, meta, vertexai]
  disabled: [safety, eval, scoring, datasetio, vectorIo, responses, toolRuntime, batches,
             fileProcessors]
  resources:
    models: [{name: ${model}}]
`;
}

describe("booting a config the hook generated", function () {
  this.timeout(900_000);

  // The default release (a new resource naming none), and the last llama-stack line.
  for (const pinned of [undefined, "0.7.3"]) {
    const which = pinned === undefined ? "the default release" : pinned;
    it(`${which}: starter with one vllm endpoint boots and lists the CR's model on /v1/models`, async () => {
      await bootGenerated(pinned);
    });
  }
});

async function bootGenerated(pinned: string | undefined): Promise<void> {
  const fake: FakeOpenAI = await startFakeOpenAI({ models: [model], reply: "pong" });
  let stack: BootedStack | undefined;
  try {
    const request = SyncRequest.parse({
      parent: parse(llsd(fake.baseUrl, pinned)),
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
    const release = (outcome.response.status as { resolvedDistribution?: { release?: string } })
      .resolvedDistribution?.release;
    if (release === undefined) throw new Error("no resolved release in the status");
    if (pinned !== undefined) expect(release).to.equal(pinned);

    const findings = await validateConfigs(release, [
      { name: "generated", configYaml: configYaml ?? "", env },
    ]);
    const unexpected = (findings.get("generated") ?? []).filter(
      (f) => !isKnownQuirk(release, "starter", f),
    );
    expect(unexpected).to.deep.equal([]);

    stack = await bootLlamaStack({ release, configYaml: configYaml ?? "", env });
    const deps = stack.deps.cached
      ? "deps: cached marker"
      : `deps: installed [${stack.deps.installed.join(" ")}] in ${(stack.deps.ms / 1000).toFixed(1)} s`;
    console.log(
      `      [boot generated ${release}] ${deps}; healthy after ${(stack.startMs / 1000).toFixed(1)} s`,
    );
    expect(stack.health).to.deep.equal({ status: "OK" });
    const registered = parse(configYaml ?? "") as {
      registered_resources?: { models?: { model_id: string; provider_id?: string }[] };
    };
    const aliases = (registered.registered_resources?.models ?? [])
      .filter((m) => m.provider_id === "all")
      .map((m) => m.model_id);
    expect([...stack.modelIds].sort()).to.deep.equal([...aliases, `vllm/${model}`].sort());
  } finally {
    await stack?.stop();
    await fake.close();
  }
}
