// fast-check arbitraries for LlamaStackDistribution specs the hook accepts,
// and helpers to run them through sync the way Metacontroller would.
import fc from "fast-check";
import type { KubeObject, SyncResponse } from "../../src/api/hook.js";
import { SyncRequest } from "../../src/api/hook.js";
import { sync } from "../../src/sync.js";
import { applied, CHILD_GROUPS, syncContext } from "../golden/harness.js";

export const CANARY = "CANARY-s3cr3t-value-7f3a";

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

/** Every Secret a spec may name, with every key, holding canary values. */
export function canarySecrets(namespace = "default"): KubeObject[] {
  return ["creds-a", "creds-b"].map((name) => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace, resourceVersion: "1" },
    data: {
      token: Buffer.from(`${CANARY}-${name}-token`).toString("base64"),
      "api-key": Buffer.from(`${CANARY}-${name}-api-key`).toString("base64"),
    },
    stringData: { token: `${CANARY}-plain` },
  }));
}

export function request(
  spec: unknown,
  opts: {
    children?: KubeObject[];
    related?: KubeObject[];
    status?: unknown;
    generation?: number;
  } = {},
): SyncRequest {
  const children: Record<string, Record<string, KubeObject>> = Object.fromEntries(
    CHILD_GROUPS.map((g) => [g, {}]),
  );
  for (const c of opts.children ?? []) {
    const group = c.apiVersion === "v1" ? `${c.kind}.v1` : `${c.kind}.${c.apiVersion}`;
    (children[group] ??= {})[`default/${c.metadata.name}`] = c;
  }
  const related: Record<string, Record<string, KubeObject>> = {
    "Secret.v1": {},
    "ConfigMap.v1": {},
  };
  for (const r of opts.related ?? canarySecrets())
    (related[`${r.kind}.v1`] ??= {})[`default/${r.metadata.name}`] = r;
  return SyncRequest.parse({
    parent: {
      apiVersion: "llamastack.io/v1alpha2",
      kind: "LlamaStackDistribution",
      metadata: {
        name: "llama",
        namespace: "default",
        uid: "uid-parent",
        generation: opts.generation ?? 1,
      },
      spec,
      ...(opts.status === undefined ? {} : { status: opts.status }),
    },
    children,
    related,
  });
}

export function syncOk(req: SyncRequest, now = "2026-11-01T12:00:00Z"): SyncResponse {
  const out = sync(req, now, syncContext());
  if (out.kind !== "ok") throw new Error(out.message);
  return out.response;
}

/** The children as Metacontroller would observe them after applying a response. */
export function applyAll(response: SyncResponse, rolledOut = true): KubeObject[] {
  return response.children.map((c) =>
    applied(c, { parentUid: "uid-parent", rolledOut, lastApplied: true }),
  );
}
