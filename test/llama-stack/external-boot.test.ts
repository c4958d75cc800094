// An external provider (spec.providers.<api>[].module) served by real servers.
// The hook generates the config for a starter resource whose only inference
// provider is acme_echo's `remote::acme-echo` (test/llama-stack/external/):
// its settings (base_url, prefix) and its key from a Secret go into the entry
// by field name, and a model is registered on it. The release's package runs
// that config (boot.ts) with the container's environment and acme_echo
// pip-installed into a temp dir on PYTHONPATH (external.ts), which stands in
// for a custom image that has it. Through HTTP: /v1/providers lists the entry
// with its type, /v1/models the model registered on it, and a chat completion
// on that model answers through the module's own code (its prefix before the
// echo service's answer; the service, a fake OpenAI upstream, saw the Secret's
// value as the bearer token). The same config without the package on
// PYTHONPATH does not start, and the log names the module: what served above
// was the module. Every supported release boots once for the positive
// assertions; the negative boot runs on the newest of each line (1.5.0, 0.7.3).
// Needs no Kubernetes: runs without test/k8s/setup.ts.
import { expect } from "chai";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parse } from "yaml";
import { bootLlamaStack, type BootedStack, type BootFailure } from "./boot.js";
import { installExternalProviders } from "./external.js";
import { startFakeOpenAI, type FakeOpenAI } from "./fake-openai.js";
import { generate, inferenceOnly, llsd, related, type Generated } from "./generated.js";
import { runValidator } from "./validator.js";

const RELEASES = ["1.5.0", "0.7.3", "1.4.1", "0.6.1"];
/** Where the negative boot runs: the newest of each line (ogx, llama-stack). */
const NEGATIVE = ["1.5.0", "0.7.3"];
const MODEL = "echo-1";
const PREFIX = "acme: ";
const REPLY = "pong from the echo service";
/** What containerEnv puts in place of the Secret's value. */
const KEY = "test-value-of-echo-token";

/** boot-generated.test.ts's shed of providers and APIs, inference served by acme_echo only. */
function generateWith(release: string, echoUrl: string): Generated {
  const spec = parse(`
distribution: {name: starter, release: "${release}"}
providers:
  inference:
    - id: echo
      provider: remote::acme-echo
      module: acme_echo
      settings: {base_url: "${echoUrl}", prefix: "${PREFIX}"}
      secretRefs:
        api_key: {secretKeyRef: {name: echo, key: token}}
resources:
  models:
    - {name: ${MODEL}, provider: echo}
`) as Record<string, unknown>;
  return generate(llsd("external", "default", { ...spec, ...inferenceOnly(release) }), [
    related("Secret", "default", "echo", { token: Buffer.from("unused").toString("base64") }),
  ]);
}

interface ProviderInfo {
  api: string;
  provider_id: string;
  provider_type: string;
}

async function getJson(stack: BootedStack, path: string): Promise<unknown> {
  const res = await fetch(`${stack.baseUrl}${path}`, { signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${path}: HTTP ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as unknown;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

describe("an external provider (module:) on real servers", function () {
  this.timeout(600_000);
  let echo: FakeOpenAI;
  let workDir: string;

  before(async () => {
    echo = await startFakeOpenAI({ models: [MODEL], reply: REPLY });
    workDir = mkdtempSync(join(tmpdir(), "llsd-external-boot-"));
  });

  after(async () => {
    await echo.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  for (const release of RELEASES) {
    describe(release, () => {
      let generated: Generated;
      let stack: BootedStack;

      before(async () => {
        generated = generateWith(release, echo.baseUrl);
        const pythonPath = installExternalProviders(release, workDir);
        stack = await bootLlamaStack({
          release,
          configYaml: generated.configYaml,
          env: { ...generated.env, PYTHONPATH: pythonPath },
        });
        console.log(`      [external ${release}] healthy after ${seconds(stack.startMs)}`);
        // Nothing went into the venv: the module came from PYTHONPATH only.
        expect(stack.deps.installed).to.deep.equal([]);
        expect(stack.deps.required).not.to.include("acme_echo");
      });

      after(async () => {
        await stack?.stop();
      });

      it("the generated entry names the module and maps settings and the Secret by field name", () => {
        const config = parse(generated.configYaml) as {
          providers: { inference: Record<string, unknown>[] };
        };
        const entry = config.providers.inference.find((p) => p["provider_id"] === "echo");
        expect(entry).to.deep.equal({
          provider_id: "echo",
          provider_type: "remote::acme-echo",
          module: "acme_echo",
          config: {
            api_key: "${env.LLSD_INFERENCE_API_KEY}",
            base_url: echo.baseUrl,
            prefix: PREFIX,
          },
        });
        expect(generated.env["LLSD_INFERENCE_API_KEY"]).to.equal(KEY);
      });

      it("/v1/providers lists the entry with its type", async () => {
        const body = (await getJson(stack, "/v1/providers")) as { data: ProviderInfo[] };
        const inference = body.data
          .filter((p) => p.api === "inference")
          .map((p) => ({ provider_id: p.provider_id, provider_type: p.provider_type }));
        expect(inference).to.deep.equal([
          { provider_id: "echo", provider_type: "remote::acme-echo" },
        ]);
        // The key is a SecretStr in the module's config class: listed masked.
        expect(JSON.stringify(body)).not.to.include(KEY);
      });

      it("/v1/models lists the model registered on it, and only that one", () => {
        // OGX's starter also registers `provider_id: all` aliases with
        // `provider_model_id: auto`, resolved from the first inference
        // provider's list_models; acme-echo lists none, so the server skips
        // them (a warning) and they are not listed.
        expect(stack.modelIds).to.deep.equal([`echo/${MODEL}`]);
        const [listed] = (stack.models as { data: { custom_metadata?: unknown }[] }).data;
        expect(listed?.custom_metadata).to.deep.include({
          provider_id: "echo",
          provider_resource_id: MODEL,
        });
      });

      it("a chat completion on that model answers through the module", async () => {
        echo.requests.length = 0;
        const res = await fetch(`${stack.baseUrl}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            model: `echo/${MODEL}`,
            messages: [{ role: "user", content: "ping" }],
          }),
          signal: AbortSignal.timeout(60_000),
        });
        const text = await res.text();
        expect(res.status, text).to.equal(200);
        const answer = JSON.parse(text) as { choices: { message: { content: string } }[] };
        expect(answer.choices[0]?.message.content).to.equal(`${PREFIX}${REPLY}`);
        const posted = echo.requests.filter((r) => r.method === "POST");
        expect(posted.map((r) => r.path)).to.deep.equal(["/v1/chat/completions"]);
        expect(posted[0]?.headers["authorization"]).to.equal(`Bearer ${KEY}`);
        expect(posted[0]?.body).to.deep.include({ model: MODEL });
      });

      // What a server does at startup with a spec whose module lacks the
      // entry point, the validator finds before: acme_noimpl's spec is
      // acme_echo's, naming a module without get_adapter_impl.
      if (NEGATIVE.includes(release))
        it("the validator refuses a spec whose module has no get_adapter_impl", async () => {
          const broken = join(workDir, `noimpl-${release}`, "acme_noimpl");
          mkdirSync(broken, { recursive: true });
          writeFileSync(join(broken, "__init__.py"), "");
          writeFileSync(
            join(broken, "provider.py"),
            [
              "from acme_echo.provider import get_provider_spec as echo_spec",
              "",
              "def get_provider_spec():",
              '    return echo_spec().model_copy(update={"module": "acme_noimpl"})',
              "",
            ].join("\n"),
          );
          const configYaml = generated.configYaml.replace(
            "module: acme_echo",
            "module: acme_noimpl",
          );
          expect(configYaml).to.include("module: acme_noimpl");
          const pythonPath = `${installExternalProviders(release, workDir)}:${dirname(broken)}`;
          const run = await runValidator(
            release,
            [{ name: "noimpl", configYaml, env: generated.env }],
            { pythonPath },
          );
          const findings = run.results.get("noimpl")?.findings ?? [];
          const missing = findings.filter((f) => f.code === "external-provider-unavailable");
          expect(missing, JSON.stringify(findings)).to.have.length(1);
          expect(missing[0]?.path).to.match(/^providers\.inference\[\d+\]\.module$/);
          expect(missing[0]?.message)
            .to.include("module acme_noimpl")
            .and.include("no get_adapter_impl()");
        });

      // The loader is the same code within a line: one release of each line is enough.
      if (NEGATIVE.includes(release))
        it("without the module on PYTHONPATH the same config does not start, naming the module", async () => {
          const started = performance.now();
          let failure: BootFailure | undefined;
          let unexpected: BootedStack | undefined;
          try {
            unexpected = await bootLlamaStack({
              release,
              configYaml: generated.configYaml,
              env: generated.env,
              printLogOnFailure: false,
            });
          } catch (e) {
            failure = e as BootFailure;
          } finally {
            await unexpected?.stop();
          }
          console.log(
            `      [external ${release}] refused after ${seconds(performance.now() - started)}`,
          );
          expect(failure, "the server started without acme_echo").to.be.instanceOf(Error);
          // The release's own message is generic (its loader turns the
          // ModuleNotFoundError into a ValueError); the traceback's cause names the module.
          expect(failure?.message).to.include("ValueError: get_provider_spec not found");
          expect(failure?.serverLog).to.include("ModuleNotFoundError: No module named 'acme_echo'");
        });
    });
  }
});
