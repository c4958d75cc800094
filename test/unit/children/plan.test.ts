// Table tests for planChildren: which children a valid spec gets, in which
// order, and the checks only spec, release and observed children together can
// make (reserved overrides, a claim's immutable fields, the size budget).
import { expect } from "chai";
import type { KubeObject } from "../../../src/api/hook.js";
import { LlamaStackDistributionSpec } from "../../../src/api/schema.js";
import { planChildren, type PlanInput } from "../../../src/children/plan.js";
import type { GeneratedConfig } from "../../../src/config/generate.js";
import type { Desired } from "../../../src/desired.js";
import { layoutOf } from "../../../src/resolve.js";
import { formatProblem } from "../../../src/problems.js";
import { groupKey, SERVICE_MONITOR_TYPE } from "../../../src/children/types.js";
import { releaseFacts } from "../../../src/release.js";
import type { Service } from "kubernetes-types/core/v1.js";
import type { NetworkPolicy } from "kubernetes-types/networking/v1.js";

const SERVICE_MONITOR_DECLARED = new Set([groupKey(SERVICE_MONITOR_TYPE)]);

const GENERATED: GeneratedConfig = {
  configYaml: "version: 2\n",
  configHash: "0123456789abcdef",
  secretEnv: [],
  providerCount: 0,
  resourceCount: 0,
};

interface Extra {
  generated?: GeneratedConfig;
  observedChildren?: KubeObject[];
  childGroups?: ReadonlySet<string>;
  release?: string;
}

function input(spec: unknown, extra: Extra = {}): PlanInput {
  const parsed = LlamaStackDistributionSpec.parse({
    distribution: { image: "img:1" },
    ...(spec as object),
  });
  const desired: Desired = {
    llsd: "llama",
    namespace: "default",
    spec: parsed,
    distribution: { name: undefined, release: extra.release, image: "img:1" },
    releaseFacts: releaseFacts(extra.release),
    ...layoutOf(parsed),
    references: [],
    inputsHash: "h",
    config:
      extra.generated === undefined
        ? undefined
        : { source: "generated", generated: extra.generated },
  };
  return {
    desired,
    observedChildren: extra.observedChildren ?? [],
    childGroups: extra.childGroups,
  };
}

const claim = (accessModes: string[], name = "llama-pvc"): KubeObject => ({
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { name, namespace: "default" },
  spec: { accessModes },
});

const names = (children: readonly KubeObject[]) =>
  children.map((c) => `${c.kind}/${c.metadata.name}`);
/** More than one replica needs shared storage; a config of one's own has it. */
const SHARED = { overrideConfig: { configMapName: "config" } };
const BASE = ["Deployment/llama", "Service/llama-service", "ServiceAccount/llama-sa"];

describe("planChildren", () => {
  const rows: [why: string, input: PlanInput, children: string[], warnings: string[]][] = [
    ["the least a server has", input({}), BASE, []],
    [
      "a generated config comes first",
      input({}, { generated: GENERATED }),
      ["ConfigMap/llama-config-0123456789", ...BASE],
      [],
    ],
    [
      "a ServiceAccount of the user's replaces ours",
      input({ workload: { overrides: { serviceAccountName: "mine" } } }),
      ["Deployment/llama", "Service/llama-service"],
      [],
    ],
    [
      "every optional child, in a fixed order",
      input({
        ...SHARED,
        networking: {
          expose: { hostname: "llama.example.com" },
          allowedFrom: { namespaces: ["ui"] },
        },
        workload: {
          storage: { size: "1Gi", accessMode: "ReadWriteMany" },
          autoscaling: { minReplicas: 2, maxReplicas: 4, targetCPUUtilizationPercentage: 80 },
          podDisruptionBudget: { maxUnavailable: 1 },
        },
      }),
      [
        ...BASE,
        "Ingress/llama-ingress",
        "NetworkPolicy/llama-network-policy",
        "PersistentVolumeClaim/llama-pvc",
        "HorizontalPodAutoscaler/llama-hpa",
        "PodDisruptionBudget/llama-pdb",
      ],
      ["spec.networking.allowedFrom"],
    ],
    [
      "an Ingress behind a policy that admits every namespace: no warning",
      input({
        networking: {
          expose: { hostname: "llama.example.com" },
          allowedFrom: { namespaces: ["ui", "*"] },
        },
      }),
      [...BASE, "Ingress/llama-ingress", "NetworkPolicy/llama-network-policy"],
      [],
    ],
    [
      "an Ingress behind a policy of label keys: the controller's namespace may lack them, a warning",
      input({
        networking: { expose: { enabled: true }, allowedFrom: { labels: ["llama-client"] } },
      }),
      [...BASE, "Ingress/llama-ingress", "NetworkPolicy/llama-network-policy"],
      ["spec.networking.allowedFrom"],
    ],
    [
      "expose turned off: no Ingress",
      input({ networking: { expose: { enabled: false } } }),
      BASE,
      [],
    ],
    [
      "a budget that would block every drain is left out, with a warning",
      input({ workload: { replicas: 1, podDisruptionBudget: { minAvailable: 1 } } }),
      BASE,
      ["spec.workload.podDisruptionBudget"],
    ],
    [
      "with autoscaling the budget counts minReplicas",
      input({
        ...SHARED,
        workload: {
          replicas: 1,
          autoscaling: { minReplicas: 3, maxReplicas: 5, targetCPUUtilizationPercentage: 80 },
          podDisruptionBudget: { minAvailable: 2 },
        },
      }),
      [...BASE, "HorizontalPodAutoscaler/llama-hpa", "PodDisruptionBudget/llama-pdb"],
      [],
    ],
    [
      "storage removed: the claim is kept by sync, with a warning",
      input({}, { observedChildren: [claim(["ReadWriteOnce"])] }),
      BASE,
      ["spec.workload.storage"],
    ],
    [
      "monitoring.metrics.serviceMonitor where the kind is declared: the ServiceMonitor last",
      input(
        {
          networking: { allowedFrom: { namespaces: ["apps"] } },
          monitoring: { metrics: { serviceMonitor: {} } },
        },
        { childGroups: SERVICE_MONITOR_DECLARED },
      ),
      [...BASE, "NetworkPolicy/llama-network-policy", "ServiceMonitor/llama-service-monitor"],
      [],
    ],
    [
      "the same where it is not: no ServiceMonitor, a warning",
      input({ monitoring: { metrics: { serviceMonitor: {} } } }),
      BASE,
      ["spec.monitoring.metrics.serviceMonitor"],
    ],
    [
      "hostile: a claim of another name is not ours to warn about",
      input({}, { observedChildren: [claim(["ReadWriteOnce"], "other-pvc")] }),
      BASE,
      [],
    ],
  ];
  for (const [why, planInput, children, warnings] of rows)
    it(why, () => {
      const plan = planChildren(planInput);
      if (!plan.ok) expect.fail(plan.problems.map(formatProblem).join("\n"));
      expect(names(plan.children)).to.deep.equal(children);
      expect(plan.warnings.map((w) => w.path)).to.deep.equal(warnings);
      expect(plan.children).to.include(plan.desiredDeployment);
    });

  const refused: [why: string, input: PlanInput, problems: string[]][] = [
    [
      "a reserved override",
      input({ workload: { overrides: { env: [{ name: "RUN_CONFIG_PATH", value: "/x" }] } } }),
      ["InvalidSpec spec.workload.overrides.env[0].name"],
    ],
    [
      "a claim whose access mode would change",
      input(
        { workload: { storage: { size: "1Gi" } } },
        { observedChildren: [claim(["ReadWriteMany"])] },
      ),
      ["InvalidSpec spec.workload.storage.accessMode"],
    ],
    [
      "hostile: pod annotations that fill the Deployment past its budget",
      input({
        workload: {
          overrides: {
            podAnnotations: Object.fromEntries(
              Array.from({ length: 64 }, (_, i) => [`k${i}`, "x".repeat(4096)]),
            ),
          },
        },
      }),
      ["ChildTooLarge spec.workload"],
    ],
    [
      "monitoring.metrics on a release without the endpoint",
      input({ monitoring: { metrics: {} } }, { release: "0.7.3" }),
      ["MetricsEndpointUnavailable spec.monitoring.metrics"],
    ],
    [
      "every problem at once, overrides first",
      input(
        {
          workload: {
            storage: { size: "1Gi" },
            overrides: { volumes: [{ name: "config", emptyDir: {} }] },
          },
        },
        { observedChildren: [claim([])] },
      ),
      [
        "InvalidSpec spec.workload.overrides.volumes[0].name",
        "InvalidSpec spec.workload.storage.accessMode",
      ],
    ],
  ];
  for (const [why, planInput, problems] of refused)
    it(`refused: ${why}`, () => {
      const plan = planChildren(planInput);
      if (plan.ok) expect.fail("planned");
      expect(plan.problems.map((p) => `${p.reason} ${p.path}`)).to.deep.equal(problems);
    });

  it("one TLS answer for the Deployment and the Ingress", () => {
    const plan = planChildren(
      input({
        networking: { tls: { enabled: true, secretName: "cert" }, expose: {} },
      }),
    );
    if (!plan.ok) expect.fail("refused");
    const ingress = plan.children.find((c) => c.kind === "Ingress");
    expect(ingress?.metadata.annotations).to.deep.equal({
      "nginx.ingress.kubernetes.io/backend-protocol": "HTTPS",
    });
    const volumes = plan.desiredDeployment.spec?.template.spec?.volumes ?? [];
    expect(volumes.find((v) => v.name === "tls")?.secret).to.deep.equal({ secretName: "cert" });
  });

  it("monitoring and the grace period reach the Deployment, the Service and the NetworkPolicy", () => {
    const plan = planChildren(
      input(
        {
          networking: { allowedFrom: { namespaces: ["apps"] } },
          workload: { terminationGracePeriodSeconds: 90 },
          monitoring: {
            metrics: { port: 9100, allowedFrom: { namespaces: ["monitoring"] } },
            otlp: { endpoint: "http://collector:4318" },
          },
        },
        { release: "1.5.0" },
      ),
    );
    if (!plan.ok) expect.fail(plan.problems.map(formatProblem).join("\n"));
    const pod = plan.desiredDeployment.spec?.template.spec;
    expect(pod?.terminationGracePeriodSeconds).to.equal(90);
    expect(pod?.containers[0]?.ports?.map((p) => `${p.name}:${p.containerPort}`)).to.deep.equal([
      "http:8321",
      "metrics:9100",
    ]);
    const env = Object.fromEntries((pod?.containers[0]?.env ?? []).map((e) => [e.name, e.value]));
    expect(env).to.include({
      OGX_METRICS_PORT: "9100",
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
      OTEL_SERVICE_NAMESPACE: "default",
    });
    const service = plan.children.find((c) => c.kind === "Service") as Service | undefined;
    expect(service?.spec?.ports?.map((p) => p.name)).to.deep.equal(["http", "metrics"]);
    const policy = plan.children.find((c) => c.kind === "NetworkPolicy") as
      NetworkPolicy | undefined;
    expect(policy?.spec?.ingress?.map((r) => r.ports?.map((p) => p.port))).to.deep.equal([
      [8321],
      [9100],
    ]);
  });

  it("never changes its input", () => {
    const planInput = input(
      { workload: { storage: { size: "1Gi" }, overrides: { env: [{ name: "A", value: "1" }] } } },
      { generated: GENERATED, observedChildren: [claim(["ReadWriteOnce"])] },
    );
    const before = structuredClone(planInput);
    planChildren(planInput);
    expect(planInput).to.deep.equal(before);
  });
});
