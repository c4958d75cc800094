// The hook and a real kube-apiserver agree on the pod-spec shapes of
// test/unit/children/pod-rules-rows.ts: each shape the hook refuses, put
// into the Deployment the hook builds for a valid resource, is refused by
// the API server's dry run (422); the workload using the same fields as the
// API server accepts them is accepted both in that Deployment and as the hook
// builds it itself.
import { expect } from "chai";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { Container, PodSpec } from "kubernetes-types/core/v1.js";
import { ACCEPTED_WORKLOAD, POD_RULE_ROWS } from "../unit/children/pod-rules-rows.js";
import { request, syncOk } from "../support/request.js";
import { cluster } from "./setup.js";

const base = {
  distribution: { name: "starter" },
  providers: { inference: [{ provider: "vllm", endpoint: "http://vllm:8000/v1" }] },
};

function deploymentOf(spec: unknown): Deployment {
  const found = syncOk(request(spec)).children.find((c) => c.kind === "Deployment");
  if (found === undefined) throw new Error("the hook built no Deployment");
  return found as unknown as Deployment;
}

type Shape = {
  overrides?: {
    env?: Container["env"];
    volumes?: PodSpec["volumes"];
    volumeMounts?: Container["volumeMounts"];
    tolerations?: PodSpec["tolerations"];
    nodeSelector?: Record<string, string>;
    affinity?: PodSpec["affinity"];
    podLabels?: Record<string, string>;
    podAnnotations?: Record<string, string>;
  };
  resources?: Container["resources"];
  topologySpreadConstraints?: PodSpec["topologySpreadConstraints"];
};

/** `deployment` with the workload's fields where the hook puts them, without the hook's checks. */
function withShape(deployment: Deployment, workload: Shape): Deployment {
  const d = structuredClone(deployment);
  const template = d.spec?.template;
  const pod = template?.spec;
  const container = pod?.containers.find((c) => c.name === "llama-stack");
  if (template === undefined || pod === undefined || container === undefined)
    throw new Error("no server container");
  const o = workload.overrides ?? {};
  if (o.env) container.env = [...(container.env ?? []), ...o.env];
  if (o.volumes) pod.volumes = [...(pod.volumes ?? []), ...o.volumes];
  if (o.volumeMounts)
    container.volumeMounts = [...(container.volumeMounts ?? []), ...o.volumeMounts];
  if (o.tolerations) pod.tolerations = o.tolerations;
  if (o.nodeSelector) pod.nodeSelector = o.nodeSelector;
  if (o.affinity) pod.affinity = o.affinity;
  if (o.podLabels)
    template.metadata = {
      ...template.metadata,
      labels: { ...template.metadata?.labels, ...o.podLabels },
    };
  if (o.podAnnotations)
    template.metadata = {
      ...template.metadata,
      annotations: { ...template.metadata?.annotations, ...o.podAnnotations },
    };
  if (workload.resources) container.resources = workload.resources;
  if (workload.topologySpreadConstraints)
    pod.topologySpreadConstraints = workload.topologySpreadConstraints.map((t) => ({
      ...t,
      labelSelector: { matchLabels: d.spec?.selector.matchLabels ?? {} },
    }));
  return d;
}

async function dryRun(deployment: Deployment): Promise<{ status: number; message: string }> {
  const res = await cluster().kube.create("apps/v1", "deployments", deployment, { dryRun: "All" });
  const message = (res.body as { message?: string }).message ?? "";
  return { status: res.status, message };
}

describe("pod-spec rules: the hook and the API server agree", () => {
  const built = deploymentOf(base);

  for (const row of POD_RULE_ROWS)
    it(`refused by both: ${row.name}`, async () => {
      const out = await dryRun(withShape(built, row.workload));
      expect(out.status, out.message).to.equal(422);
    });

  it("the accepted workload, as put in that Deployment and as the hook builds it, is accepted", async () => {
    const shaped = await dryRun(withShape(built, ACCEPTED_WORKLOAD));
    expect(shaped.status, shaped.message).to.equal(201);
    const own = await dryRun(deploymentOf({ ...base, workload: ACCEPTED_WORKLOAD }));
    expect(own.status, own.message).to.equal(201);
  });
});
