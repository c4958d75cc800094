// The messages a newcomer meets first, each as the field, what is wrong and
// the fix, exactly as `llsd-hook render` prints them (issue 25, points 5 and
// 9; issue 31): one row per mistake, input → the lines a user sees. Each row
// is also sent to /sync, whose status must be the one render printed: the
// texts come from one module, whichever way the resource arrives.
import { expect } from "chai";
import { pino } from "pino";
import request from "supertest";
import { parse } from "yaml";
import { render, RenderError, requestOf } from "../../src/cli/render.js";
import { V1alpha1Spec } from "../../src/api/v1alpha1.js";
import { V1ALPHA1_SPEC_FIELDS } from "../../src/shape-messages.js";
import { createApp } from "../../src/server/app.js";
import { API_SERVER_CLASS } from "../../src/server/classes.js";
import { testPool } from "../support/pool.js";
import { loadCatalog } from "../../src/edge/load-catalog.js";
import { syncContext } from "../support/harness.js";

const NOW = new Date("2026-11-01T12:00:00Z");
const HEAD =
  "apiVersion: llamastack.io/v1alpha2\nkind: LlamaStackDistribution\nmetadata: {name: llama}\n";
const VLLM =
  "  providers:\n    inference:\n      - provider: vllm\n        endpoint: http://vllm:8000/v1\n";
const STARTER = "spec:\n  distribution: {name: starter}\n";
const SECRET = "sk-CANARY-7f3a9c";

interface Row {
  name: string;
  /** The resource after apiVersion, kind and metadata (name llama, or resourceName). */
  body: string;
  resourceName?: string;
  errors: string[];
  warnings?: string[];
}

const rows: Row[] = [
  {
    // zod: "Invalid input: expected object, received undefined"
    name: "spec without distribution",
    body: "spec: {}\n",
    errors: [
      "spec.distribution: required (an object); add distribution: { name: starter } (a shipped distribution; kubectl explain llamastackdistribution.spec.distribution lists the fields), or { image, release, baseConfig } for a custom image",
    ],
  },
  {
    // zod: "expected string, received number"
    name: "release: 1.5 unquoted, which YAML reads as a number",
    body: "spec:\n  distribution: {name: starter, release: 1.5}\n",
    errors: [
      'spec.distribution.release: expected a string, but YAML read 1.5 as a number; quote it, with the release in full: release: "1.5.0"',
    ],
  },
  {
    name: "a string field given a boolean",
    body: `spec:\n  distribution: {name: starter}\n${VLLM}  resources:\n    models: [{name: true}]\n`,
    errors: [
      'spec.resources.models[0].name: expected a string, but YAML read true as a boolean; quote it: name: "true"',
    ],
  },
  {
    // was two problems, one telling to remove name and key: the wrong fix
    name: "the secretKeyRef wrapper left out",
    body: `spec:\n  distribution: {name: starter}\n${VLLM}        apiKey: {name: vllm-creds, key: token}\n`,
    errors: [
      "spec.providers.inference[0].apiKey: name and key go inside secretKeyRef; write apiKey: { secretKeyRef: { name: vllm-creds, key: token } }",
    ],
  },
  {
    name: "a v1alpha1 spec under apiVersion v1alpha2",
    body: "spec:\n  replicas: 1\n  server:\n    distribution: {name: starter}\n",
    errors: [
      "spec.distribution: required (an object); add distribution: { name: starter } (a shipped distribution; kubectl explain llamastackdistribution.spec.distribution lists the fields), or { image, release, baseConfig } for a custom image",
      "spec: unknown field(s) replicas, server: replicas, server are fields of llamastack.io/v1alpha1, the retired operator's version; write the spec as v1alpha2 (spec.server.distribution → spec.distribution, spec.replicas → spec.workload.replicas, spec.network → spec.networking; docs/conversion.md maps every field), or apply it with apiVersion llamastack.io/v1alpha1 to a cluster with the v1alpha1 component, which converts it",
    ],
  },
  {
    name: "an unknown field that is no v1alpha1 field keeps the plain fix",
    body: "spec:\n  distribution: {name: starter}\n  replica: 2\n",
    errors: [
      "spec: unknown field(s) replica; remove them (kubectl explain llamastackdistribution.spec lists the fields)",
    ],
  },
  {
    // zod: "Too small: expected array to have >=1 items"
    name: "env: [] (an empty list)",
    body: "spec:\n  distribution: {name: starter}\n  workload: {overrides: {env: []}}\n",
    errors: [
      "spec.workload.overrides.env: an empty list is not allowed; remove env, or give it at least one entry",
    ],
  },
  {
    name: "an unknown distribution: the shipped ones and both custom-image routes",
    body: "spec:\n  distribution: {name: acme}\n",
    errors: [
      "spec.distribution.name: distribution acme is not known to llsd-hook; use one of dell, nvidia, oci, open-benchmark, postgres-demo, starter, starter-gpu, watsonx, or for an image of your own set distribution.image with distribution.baseConfig and distribution.release (the image's config.yaml as the base), or with spec.overrideConfig (the whole config)",
    ],
  },
  {
    name: "a ReadWriteOnce volume with two replicas: one node, not one pod",
    body: `spec:\n  distribution: {name: starter}\n  storage: {kv: {type: redis, host: r, port: 6379}, sql: {type: postgres, secretName: pg}}\n  workload: {replicas: 2, storage: {size: 1Gi}}\n`,
    errors: [
      "spec.workload.storage.accessMode: a ReadWriteOnce volume attaches to one node at a time, so a second replica scheduled on another node could never mount it; use one replica without autoscaling, or accessMode ReadWriteMany",
    ],
  },
  // issue 31: the generic shape errors, each with the right shape, read from the schema
  {
    name: "apiKey: a key itself where a Secret reference goes (the value is never said back)",
    body: `${STARTER}${VLLM}        apiKey: ${SECRET}\n`,
    errors: [
      "spec.providers.inference[0].apiKey: takes a reference to a key of a Secret, never the value itself (anyone who can read the resource could read it); put the value in a Secret (kubectl create secret generic <name> --from-literal=<key>=<value>) and write apiKey: { secretKeyRef: { name: <name>, key: <key> } }",
    ],
  },
  {
    name: "a key where the secretKeyRef object goes: not said back, though it would pass for a name",
    body: `${STARTER}${VLLM}        apiKey: {secretKeyRef: ${SECRET.toLowerCase()}}\n`,
    errors: [
      "spec.providers.inference[0].apiKey.secretKeyRef: expected an object, not a string; write secretKeyRef: { name: …, key: … } (kubectl explain llamastackdistribution.spec.providers.inference.apiKey.secretKeyRef lists its fields)",
    ],
  },
  {
    name: "a list of keys where a Secret reference goes",
    body: `${STARTER}${VLLM}        apiKey: [${SECRET}]\n`,
    errors: [
      "spec.providers.inference[0].apiKey: takes a reference to a key of a Secret, never the value itself (anyone who can read the resource could read it); put the value in a Secret (kubectl create secret generic <name> --from-literal=<key>=<value>) and write apiKey: { secretKeyRef: { name: <name>, key: <key> } }",
    ],
  },
  {
    name: "a storage password written out",
    body: `${STARTER}  storage: {kv: {type: postgres, host: pg, user: llama, password: ${SECRET}}}\n`,
    errors: [
      "spec.storage.kv.password: takes a reference to a key of a Secret, never the value itself (anyone who can read the resource could read it); put the value in a Secret (kubectl create secret generic <name> --from-literal=<key>=<value>) and write password: { secretKeyRef: { name: <name>, key: <key> } }",
    ],
  },
  {
    name: "a provider written as an object instead of a list",
    body: `${STARTER}  providers:\n    inference:\n      provider: vllm\n      endpoint: http://vllm:8000/v1\n`,
    errors: [
      'spec.providers.inference: expected a list, not an object; make it a list of one entry, inference: [{ provider: …, endpoint: … }] (in block style, "- " before the entry\'s first field)',
    ],
  },
  {
    name: "models as a string",
    body: `${STARTER}${VLLM}  resources:\n    models: meta-llama/Llama-3.2-3B-Instruct\n`,
    errors: [
      "spec.resources.models: expected a list, not a string; write models: [{ name: meta-llama/Llama-3.2-3B-Instruct }]",
    ],
  },
  {
    name: "shields as a string",
    body: `${STARTER}  resources: {shields: llama-guard}\n`,
    errors: ["spec.resources.shields: expected a list, not a string; write shields: [llama-guard]"],
  },
  {
    name: "env as a map: an embedded Kubernetes type, explained by kubectl",
    body: `${STARTER}  workload: {overrides: {env: {LOG_LEVEL: debug}}}\n`,
    errors: [
      "spec.workload.overrides.env: expected a list, not an object; write env: […] (kubectl explain llamastackdistribution.spec.workload.overrides.env lists its fields)",
    ],
  },
  {
    name: 'port: "8321", a quoted number',
    body: `${STARTER}  networking:\n    port: "8321"\n`,
    errors: [
      'spec.networking.port: expected a whole number from 1024 to 65535, but the quotes make "8321" a string; write it without quotes: port: 8321',
    ],
  },
  {
    name: 'replicas: "1", a quoted number with the bounds of its own schema',
    body: `${STARTER}  workload: {replicas: "1"}\n`,
    errors: [
      'spec.workload.replicas: expected a whole number from 0 to 1000, but the quotes make "1" a string; write it without quotes: replicas: 1',
    ],
  },
  {
    name: 'enabled: "true", a quoted boolean',
    body: `${STARTER}  networking: {tls: {enabled: "true", secretName: llama-tls}}\n`,
    errors: [
      'spec.networking.tls.enabled: expected true or false, but the quotes make "true" a string; write it without quotes: enabled: true',
    ],
  },
  {
    name: "distribution: starter, a name where the object goes",
    body: "spec:\n  distribution: starter\n",
    errors: [
      "spec.distribution: expected an object, not a string; write distribution: { name: starter }",
    ],
  },
  {
    name: "kv: sqlite, a type where the object goes",
    body: `${STARTER}  storage: {kv: sqlite}\n`,
    errors: ["spec.storage.kv: expected an object, not a string; write kv: { type: sqlite }"],
  },
  // issue 31: did you mean …?
  {
    name: "a mistyped field of a provider entry",
    body: `${STARTER}  providers:\n    inference:\n      - provider: vllm\n        endpiont: http://vllm:8000/v1\n`,
    errors: [
      "spec.providers.inference[0]: unknown field(s) endpiont (did you mean endpoint?); rename or remove them (kubectl explain llamastackdistribution.spec.providers.inference lists the fields)",
    ],
  },
  {
    name: "a mistyped field of the spec",
    body: `${STARTER}  provders:\n    inference:\n      - provider: vllm\n        endpoint: http://vllm:8000/v1\n`,
    errors: [
      "spec: unknown field(s) provders (did you mean providers?); rename or remove them (kubectl explain llamastackdistribution.spec lists the fields)",
    ],
  },
  {
    name: "a mistyped API name under providers",
    body: `${STARTER}  providers:\n    infernce:\n      - provider: vllm\n`,
    errors: [
      "spec.providers: unknown field(s) infernce (did you mean inference?); rename or remove them (kubectl explain llamastackdistribution.spec.providers lists the fields)",
    ],
  },
  {
    name: "a mistyped API name under disabled",
    body: `${STARTER}  disabled: [postTrainig]\n`,
    errors: [
      "spec.disabled[0]: must be one of agents, batches, containerRuntime, datasetio, eval, fileProcessors, files, inference, interactions, messages, postTraining, responses, safety, scoring, skills, toolRuntime, vectorIo; did you mean postTraining?",
    ],
  },
  {
    name: "an enum value in the wrong case",
    body: `${STARTER}${VLLM}  resources:\n    models: [{name: m, modelType: LLM}]\n`,
    errors: [
      "spec.resources.models[0].modelType: must be one of llm, embedding, rerank; did you mean llm?",
    ],
  },
  {
    name: "a mistyped provider type",
    body: `${STARTER}  providers:\n    inference:\n      - provider: sentence-transformer\n`,
    errors: [
      "spec.providers.inference[0].provider: sentence-transformer is not a provider type of the inference API in OGX 1.5.0; did you mean sentence-transformers? Otherwise use one of inline::sentence-transformers, remote::anthropic, remote::azure, remote::bedrock, remote::cerebras, remote::databricks, remote::deepseek, remote::fireworks, remote::gemini, remote::groq, remote::llama-cpp-server, remote::llama-openai-compat, remote::meta, remote::mistral, remote::nvidia, remote::oci, remote::ollama, remote::openai, remote::passthrough, remote::runpod, remote::sambanova, remote::text-embeddings-inference, remote::together, remote::vertexai, remote::vllm, remote::watsonx",
    ],
  },
  {
    name: "a mistyped provider id in disabledProviders (a warning)",
    body: `${STARTER}  disabledProviders: [sentence-transformer]\n`,
    errors: [],
    warnings: [
      "NothingToDisable: spec.disabledProviders[0]: starter 1.5.0's config has no provider sentence-transformer, so there is nothing to disable; did you mean sentence-transformers?",
    ],
  },
  {
    name: "a mistyped provider id in a model",
    body: `${STARTER}${VLLM}  resources:\n    models: [{name: m, provider: vlm}]\n`,
    errors: [
      "spec.resources.models[0].provider: vlm is not an enabled inference provider of the generated config; did you mean vllm? Otherwise use one of vllm, fireworks, together, bedrock, openai, anthropic, gemini, groq, meta, sambanova, sentence-transformers",
    ],
  },
  {
    name: "a mistyped provider config field under settings",
    body: `${STARTER}${VLLM}        settings: {max_tokns: 4096}\n`,
    errors: [
      "spec.providers.inference[0].settings.max_tokns: max_tokns is not a config field of remote::vllm; did you mean max_tokens? Otherwise use one of allowed_models, api_token, base_url, fairness_header_attribute, max_tokens, network, refresh_models, tls_verify",
    ],
  },
  {
    name: "a mistyped distribution",
    body: "spec:\n  distribution: {name: startr}\n",
    errors: [
      "spec.distribution.name: distribution startr is not known to llsd-hook; did you mean starter? Otherwise use one of dell, nvidia, oci, open-benchmark, postgres-demo, starter, starter-gpu, watsonx, or for an image of your own set distribution.image with distribution.baseConfig and distribution.release (the image's config.yaml as the base), or with spec.overrideConfig (the whole config)",
    ],
  },
  {
    name: "a release that is not one, near one of its line",
    body: 'spec:\n  distribution: {name: starter, release: "1.4.0"}\n',
    errors: [
      "spec.distribution.release: OGX 1.4.0 is not supported for starter; did you mean 1.4.1? Otherwise use one of 1.5.0, 1.4.1, 0.7.3, 0.6.1, or omit release for the newest",
    ],
  },
  // issue 31: a remote provider whose URL would be empty
  {
    name: "a vllm provider without endpoint: the base config's ${env.VLLM_URL:=}, set nowhere",
    body: `${STARTER}  providers:\n    inference:\n      - provider: vllm\n`,
    errors: [
      "spec.providers.inference[0].endpoint: remote::vllm's base_url would be empty (the config reads it from VLLM_URL, which nothing sets), so the server would start without a URL and fail at its first request; set endpoint to the URL of the service, or set VLLM_URL in spec.workload.overrides.env",
    ],
  },
  {
    name: "an azure provider without endpoint: its key alone does not give it a URL",
    body: `${STARTER}  providers:\n    inference:\n      - provider: azure\n        apiKey: {secretKeyRef: {name: azure, key: key}}\n`,
    errors: [
      "spec.providers.inference[0].endpoint: remote::azure's base_url would be empty (the config reads it from AZURE_API_BASE, which nothing sets), so the server would start without a URL and fail at its first request; set endpoint to the URL of the service, or set AZURE_API_BASE in spec.workload.overrides.env",
    ],
  },
  // issue 31: the name hint of the rule that failed
  {
    name: "a name with upper case and '_'",
    resourceName: "Llama_1",
    body: STARTER,
    errors: [
      "metadata.name: must be a DNS-1035 label, as the Service <name>-service is: lower-case letters, digits and '-', starting with a letter and ending with a letter or digit (no upper case, '_' or '.'); rename it, e.g. llama-1 for Llama_1 or 1-llama",
    ],
  },
  {
    name: "a name starting with a digit",
    resourceName: "9-lives",
    body: STARTER,
    errors: [
      "metadata.name: must be a DNS-1035 label, as the Service <name>-service is: lower-case letters, digits and '-', starting with a letter and ending with a letter or digit (no upper case, '_' or '.'); rename it, e.g. llama-1 for Llama_1 or 1-llama",
    ],
  },
  {
    name: "a name too long, and only that",
    resourceName: "a-name-that-is-fifty-six-characters-long-abcdefghijklmno",
    body: STARTER,
    errors: [
      "metadata.name: is longer than 55 characters, and the Service <name>-service must fit in the 63 of a DNS-1035 label; choose a shorter name",
    ],
  },
];

const textOf = (row: Row) =>
  `${HEAD.replace("{name: llama}", `{name: ${row.resourceName ?? "llama"}}`)}${row.body}`;

describe("messages for the generic shape errors", () => {
  const app = createApp({
    pool: testPool(),
    catalog: loadCatalog(),
    logger: pino({ level: "silent" }),
    now: () => NOW,
  });
  const apiServerApp = createApp({
    pool: testPool(),
    catalog: loadCatalog(),
    logger: pino({ level: "silent" }),
    now: () => NOW,
    endpoints: API_SERVER_CLASS,
  });

  for (const row of rows)
    describe(row.name, () => {
      it("render prints them", () => {
        const out = render(textOf(row), "cr.yaml", syncContext(), NOW);
        expect(out.problems).to.deep.equal(row.errors);
        expect(out.warnings.filter((w) => !w.startsWith("NewerReleaseAvailable"))).to.deep.equal(
          row.warnings ?? [],
        );
        expect(out.failed).to.equal(row.errors.length > 0);
        for (const part of [out.children, out.status, ...out.notes])
          expect(part).not.to.include(SECRET);
      });

      it("/sync reports the same status", async () => {
        const out = render(textOf(row), "cr.yaml", syncContext(), NOW);
        const { request: body } = requestOf(textOf(row), "cr.yaml");
        const res = await request(app).post("/sync").send(body).expect(200);
        expect(res.body.status).to.deep.equal((parse(out.status) as { status: unknown }).status);
        expect(JSON.stringify(res.body).toLowerCase()).not.to.include(SECRET.toLowerCase());
      });
    });

  it("a resource without spec: required, with the smallest spec to add", () => {
    expect(() => render(HEAD, "cr.yaml", syncContext(), NOW))
      .to.throw(RenderError)
      .with.property(
        "message",
        "cr.yaml: spec: required; every LlamaStackDistribution needs one, with at least a distribution: spec: { distribution: { name: starter } }",
      );
  });

  describe("a v1alpha2 spec under apiVersion llamastack.io/v1alpha1", () => {
    const v1alpha1 =
      HEAD.replace("v1alpha2", "v1alpha1") + VLLM.replace("  providers", STARTER + "  providers");
    const says =
      "apiVersion: is llamastack.io/v1alpha1, but the spec is written for llamastack.io/v1alpha2: spec.distribution, spec.providers are fields of v1alpha2, and a v1alpha1 spec has its distribution under spec.server; write apiVersion: llamastack.io/v1alpha2";

    it("render says which apiVersion to write", () => {
      expect(() => render(v1alpha1, "cr.yaml", syncContext(), NOW))
        .to.throw(RenderError)
        .with.property("message", `cr.yaml: ${says}`);
    });

    it("the conversion webhook refuses it with the same words", async () => {
      const object = parse(v1alpha1) as Record<string, unknown>;
      const res = await request(apiServerApp)
        .post("/convert")
        .send({
          apiVersion: "apiextensions.k8s.io/v1",
          kind: "ConversionReview",
          request: { uid: "1", desiredAPIVersion: "llamastack.io/v1alpha2", objects: [object] },
        })
        .expect(200);
      const result = (res.body as { response: { result: { status: string; message: string } } })
        .response.result;
      expect(result.status).to.equal("Failure");
      expect(result.message).to.include(says);
    });
  });

  it("knows the v1alpha1 spec's own top-level fields", () => {
    expect([...V1ALPHA1_SPEC_FIELDS]).to.deep.equal(Object.keys(V1alpha1Spec.shape).sort());
  });
});
