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
import { bootLlamaStack, type BootedStack } from "./boot.js";
import { startFakeOpenAI, type FakeOpenAI } from "./fake-openai.js";
import { generate, llsd, vllmCreds, vllmStarter } from "./generated.js";
import { isKnownQuirk } from "./quirks.js";
import { validateConfigs } from "./validator.js";

const model = "meta-llama/Llama-3.2-3B-Instruct";

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
    const generated = generate(
      llsd("booted", "default", vllmStarter(pinned, fake.baseUrl, model)),
      [vllmCreds("default")],
    );
    const { configYaml, env } = generated;
    expect(Object.keys(env)).to.include("LLSD_INFERENCE_API_KEY");
    const release = (generated.response.status as { resolvedDistribution?: { release?: string } })
      .resolvedDistribution?.release;
    if (release === undefined) throw new Error("no resolved release in the status");
    if (pinned !== undefined) expect(release).to.equal(pinned);

    const findings = await validateConfigs(release, [{ name: "generated", configYaml, env }]);
    const unexpected = (findings.get("generated") ?? []).filter(
      (f) => !isKnownQuirk(release, "starter", f),
    );
    expect(unexpected).to.deep.equal([]);

    stack = await bootLlamaStack({ release, configYaml, env });
    const deps = stack.deps.cached
      ? "deps: cached marker"
      : `deps: installed [${stack.deps.installed.join(" ")}] in ${(stack.deps.ms / 1000).toFixed(1)} s`;
    console.log(
      `      [boot generated ${release}] ${deps}; healthy after ${(stack.startMs / 1000).toFixed(1)} s`,
    );
    expect(stack.health).to.deep.equal({ status: "OK" });
    const registered = parse(configYaml) as {
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
