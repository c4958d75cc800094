// A sync request for a spec, as Metacontroller sends it for the parent
// default/llama (every child group, the related Secrets holding canary
// values), and the hook's answer to it; the children as Metacontroller
// applies them. The unit tests, their properties and the Kubernetes tests
// build their requests with it.
import type { KubeObject, SyncResponse } from "../../src/api/hook.js";
import { SyncRequest } from "../../src/api/hook.js";
import { sync } from "../../src/sync.js";
import { applied, CHILD_GROUPS, syncContext } from "./harness.js";

export const CANARY = "CANARY-s3cr3t-value-7f3a";

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
