// The resource the boot tests start from, and what the hook generates for it.
// A starter whose inference goes to an upstream the test serves, shed of the
// base providers and APIs the venvs cannot run (torch, sentence-transformers,
// OGX's vertexai with google-genai, which the lock cannot hold) or that call
// an outside service; synced as Metacontroller sends it, with its related
// objects. What the servers then run is the generated config, with the
// container's environment (Secret values as test values).
import type { Deployment } from "kubernetes-types/apps/v1.js";
import { SyncRequest, type KubeObject, type SyncResponse } from "../../src/api/hook.js";
import { sync } from "../../src/sync.js";
import { configOf, containerEnv, syncContext } from "../support/harness.js";

/** A new resource's release: the first of configs/releases.json. */
const DEFAULT_RELEASE = syncContext().catalog.releases[0] ?? "";

/** The starter's base providers the venvs cannot run, or that call an outside service. */
const HEAVY_PROVIDERS = [
  "sentence-transformers",
  "transformers",
  "fireworks",
  "together",
  "bedrock",
  "openai",
  "anthropic",
  "gemini",
  "groq",
  "sambanova",
  "meta",
  "vertexai",
];

/** The APIs shed so that inference boots alone, where `release` has them. */
const HEAVY_APIS = [
  "safety",
  "eval",
  "scoring",
  "datasetio",
  "vectorIo",
  "responses",
  "toolRuntime",
  "batches",
  "fileProcessors",
  "agents",
  "postTraining",
];

/** A spec's `disabledProviders` and `disabled` that leave `release` inference only (0.6.1: agents, post_training; OGX: no eval, ...). */
export function inferenceOnly(release: string): {
  disabledProviders: string[];
  disabled: string[];
} {
  const apis = syncContext().catalog.byRelease[release]?.apis.providable;
  if (apis === undefined) throw new Error(`no release ${release} in the catalog`);
  const camel = (api: string) => api.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
  return {
    disabledProviders: HEAVY_PROVIDERS,
    disabled: HEAVY_APIS.filter((name) => apis.some((api) => camel(api) === name)),
  };
}

/**
 * The boot tests' usual spec: starter on `release` (the default when
 * undefined), one vllm upstream at `endpoint` with its key from the Secret
 * `vllmCreds` makes, `model` registered on it, inference only.
 */
export function vllmStarter(
  release: string | undefined,
  endpoint: string,
  model: string,
): Record<string, unknown> {
  return {
    distribution: release === undefined ? { name: "starter" } : { name: "starter", release },
    providers: {
      inference: [
        {
          provider: "vllm",
          endpoint,
          apiKey: { secretKeyRef: { name: "vllm-creds", key: "token" } },
        },
      ],
    },
    ...inferenceOnly(release ?? DEFAULT_RELEASE),
    resources: { models: [{ name: model }] },
  };
}

/** The Secret vllmStarter's key comes from (the server sees a test value in its place). */
export function vllmCreds(namespace: string): KubeObject {
  return related("Secret", namespace, "vllm-creds", {
    token: Buffer.from("unused").toString("base64"),
  });
}

/** A LlamaStackDistribution as Metacontroller sends it as the parent. */
export function llsd(name: string, namespace: string, spec: Record<string, unknown>): unknown {
  return {
    apiVersion: "llamastack.io/v1alpha2",
    kind: "LlamaStackDistribution",
    metadata: { name, namespace, uid: `uid-${name}`, generation: 1 },
    spec,
  };
}

/** A related Secret or ConfigMap in `namespace`. */
export function related(
  kind: "Secret" | "ConfigMap",
  namespace: string,
  name: string,
  data: Record<string, string>,
): KubeObject {
  return { apiVersion: "v1", kind, metadata: { name, namespace, resourceVersion: "1" }, data };
}

export interface Generated {
  configYaml: string;
  /** The server container's environment, each Secret value replaced by a test value. */
  env: Record<string, string>;
  deployment: Deployment;
  response: SyncResponse;
}

/** What the hook generates for `parent` with `objects` related; throws unless it is a config and a Deployment. */
export function generate(parent: unknown, objects: KubeObject[]): Generated {
  const byType: Record<string, Record<string, KubeObject>> = {};
  for (const o of objects)
    (byType[`${o.kind}.v1`] ??= {})[`${o.metadata.namespace}/${o.metadata.name}`] = o;
  const outcome = sync(
    SyncRequest.parse({ parent, related: byType }),
    "2026-11-01T12:00:00Z",
    syncContext(),
  );
  if (outcome.kind !== "ok") throw new Error(outcome.message);
  const { response } = outcome;
  const configYaml = configOf(response);
  const deployment = response.children.find((c) => c.kind === "Deployment") as
    Deployment | undefined;
  if (configYaml === undefined || deployment === undefined)
    throw new Error(`no config or Deployment:\n${JSON.stringify(response.status, null, 1)}`);
  return { configYaml, env: containerEnv(response), deployment, response };
}
