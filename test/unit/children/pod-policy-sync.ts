// What the confused-deputy rule's tests share (test/unit/children/pod-policy.test.ts,
// test/k8s/pod-policy.test.ts): a starter spec, one with a volume mounted at
// /models, and the hook's answer for a spec under an ALLOWED_POD_FIELDS.
import type { KubeObject } from "../../../src/api/hook.js";
import { sync } from "../../../src/sync.js";
import { syncContext } from "../../support/harness.js";
import { request } from "../../support/request.js";

export const BASE = {
  distribution: { name: "starter" },
  providers: { inference: [{ provider: "vllm", endpoint: "http://vllm:8000/v1" }] },
};

/** BASE with an emptyDir and a volume `models` of `source`, mounted read-only at /models. */
export function withModels(source: Record<string, unknown>) {
  return {
    ...BASE,
    workload: {
      overrides: {
        volumes: [
          { name: "cache", emptyDir: {} },
          { name: "models", ...source },
        ],
        volumeMounts: [{ name: "models", mountPath: "/models", readOnly: true }],
      },
    },
  };
}

export interface PolicyAnswer {
  conditions: { type: string; status: string; message: string }[];
  children: KubeObject[];
}

/** The hook's answer for `spec`; `allowed`: ALLOWED_POD_FIELDS (default: none). */
export function syncUnder(spec: unknown, allowed?: string[]): PolicyAnswer {
  const ctx =
    allowed === undefined
      ? syncContext()
      : { ...syncContext(), allowedPodFields: new Set(allowed) };
  const out = sync(request(spec), "2026-11-01T12:00:00Z", ctx);
  if (out.kind !== "ok") throw new Error(out.message);
  const conditions = out.response.status["conditions"] as PolicyAnswer["conditions"];
  return { conditions, children: out.response.children };
}
