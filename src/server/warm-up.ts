// What a worker answers once before its first real request (./worker.ts):
// hook requests of the usual shapes, so that the schemas, generation, the
// child builders and the status (zod's fast paths included) are compiled
// before the worker takes traffic, and a replaced worker's first answers are
// not the slow ones. Each spec is sent to /sync, /customize and /convert.
import type { Job, Route } from "./answer.js";

/** The specs: one provider on the default release; the common features together; an older release; a spec that fails. */
const SPECS: readonly Record<string, unknown>[] = [
  {
    distribution: { name: "starter" },
    providers: { inference: [{ provider: "vllm", endpoint: "http://vllm:8000/v1" }] },
    resources: { models: [{ name: "meta-llama/Llama-3.2-3B-Instruct" }] },
  },
  {
    distribution: { name: "starter" },
    providers: {
      inference: [
        {
          id: "vllm",
          provider: "vllm",
          endpoint: "http://vllm.models.svc:8000/v1",
          apiKey: { secretKeyRef: { name: "creds", key: "token" } },
          settings: { max_tokens: 4096 },
        },
        { id: "ollama", provider: "ollama", endpoint: "http://ollama.models.svc:11434" },
      ],
    },
    resources: {
      models: [
        { name: "meta-llama/Llama-3.2-3B-Instruct", provider: "vllm" },
        { name: "llama3.2:3b", provider: "ollama" },
      ],
    },
    storage: {
      kv: { type: "postgres", secretName: "pg" },
      sql: { type: "postgres", secretName: "pg" },
    },
    disabled: ["batches"],
    networking: { port: 8443, tls: { enabled: true, secretName: "llama-tls" } },
    trust: { caBundle: { configMapName: "corporate-ca" } },
  },
  {
    distribution: { name: "starter", release: "0.7.3" },
    providers: { inference: [{ provider: "vllm", endpoint: "http://vllm:8000/v1" }] },
  },
  {
    distribution: { name: "starter", release: "0.7.3" },
    providers: { inference: [{ provider: "vllm", endpoint: "http://vllm:8000/v1" }] },
    disabled: ["inference"],
  },
];

/**
 * The time the warm-up requests carry. Their answers are thrown away, so any
 * time does; a fixed one keeps each start's warm-up the same.
 */
const WARM_UP_AT = "2026-01-01T00:00:00Z";

const encoder = new TextEncoder();

/** The body of a request of `route` about `parent`. */
function bodyOf(route: Route, parent: object): unknown {
  if (route === "sync") return { parent, children: {}, related: {} };
  if (route === "customize") return { parent };
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "ConversionReview",
    request: { uid: "warm-up", desiredAPIVersion: "llamastack.io/v1alpha1", objects: [parent] },
  };
}

const ROUTES: readonly Route[] = ["sync", "customize", "convert"];

/** The warm-up as the jobs the main thread would hand a worker. */
export function warmUpJobs(): Job[] {
  return SPECS.flatMap((spec) => {
    const parent = {
      apiVersion: "llamastack.io/v1alpha2",
      kind: "LlamaStackDistribution",
      metadata: { name: "warm-up", namespace: "default", uid: "warm-up", generation: 1 },
      spec,
      status: {},
    };
    return ROUTES.map((route) => ({
      route,
      body: encoder.encode(JSON.stringify(bodyOf(route, parent))),
      charset: "utf-8",
      at: WARM_UP_AT,
    }));
  });
}
