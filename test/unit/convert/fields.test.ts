// The field table, row by row: each v1alpha1 field alone in an object, what
// it becomes in v1alpha2, what the annotation keeps, and that it converts
// back. Every row of src/convert/table.ts has a case here (docs/conversion.md
// cites them by field).
import { expect } from "chai";
import type { JsonObject } from "../../../src/lib/json.js";
import {
  V1ALPHA1_FIELDS_ANNOTATION,
  V1ALPHA2_FIELDS_ANNOTATION,
} from "../../../src/convert/annotations.js";
import { OBJECT_BOUNDS, toV1alpha1, toV1alpha2 } from "../../../src/convert/convert.js";
import { getAt, pathOf } from "../../../src/convert/json-path.js";
import { decodeRestore, treeOf } from "../../../src/convert/restore.js";
import { FIELD_RULES, V1ALPHA2_ONLY } from "../../../src/convert/table.js";
import { LlamaStackDistribution } from "../../../src/api/schema.js";

type Obj = JsonObject;
const METADATA = { name: "llama", namespace: "team-a" };
const STARTER = { name: "starter" };
/** What the base { name: starter } becomes: the release pinned to 0.7.3, nothing saying otherwise. */
const DIST = { distribution: { name: "starter", release: "0.7.3" } };

const v1 = (server: Obj = {}, spec: Obj = {}, status?: Obj): JsonObject => ({
  apiVersion: "llamastack.io/v1alpha1",
  kind: "LlamaStackDistribution",
  metadata: METADATA,
  spec: { server: { distribution: STARTER, ...server }, ...spec },
  ...(status === undefined ? {} : { status }),
});

interface Case {
  /** The v1alpha1 field (a row of the field table). */
  field: string;
  /** What the row shows. */
  title: string;
  input: JsonObject;
  /** The v1alpha2 spec (and status) it gives. */
  spec: Obj;
  status?: Obj;
  /** Paths of the annotation's entries (what v1alpha2 has no place for). */
  kept?: string[];
}

const CASES: Case[] = [
  {
    field: "spec.replicas",
    title: "replicas",
    input: v1({}, { replicas: 1 }),
    spec: { ...DIST, workload: { replicas: 1 } },
  },
  {
    field: "spec.replicas",
    title: "more than one replica: the budget v1alpha1 made",
    input: v1({}, { replicas: 3 }),
    spec: { ...DIST, workload: { replicas: 3, podDisruptionBudget: { maxUnavailable: 1 } } },
  },
  {
    field: "spec.server.distribution.name",
    title: "a name runs the release the server reported",
    input: v1(
      { distribution: { name: "postgres-demo" } },
      {},
      { version: { llamaStackServerVersion: "v0.6.1" } },
    ),
    spec: { distribution: { name: "postgres-demo", release: "0.6.1" } },
    kept: ["status"],
  },
  {
    field: "spec.server.distribution.name",
    title: "a name with no version reported: 0.7.3, never the newest",
    input: v1({ distribution: { name: "starter" } }),
    spec: DIST,
  },
  {
    field: "spec.server.distribution.image",
    title: "an upstream image is its distribution and release",
    input: v1({ distribution: { image: "docker.io/llamastack/distribution-starter:0.7.3" } }),
    spec: DIST,
    kept: ["spec.server.distribution.image", "spec.server.distribution.name"],
  },
  {
    field: "spec.server.distribution.image",
    title: "an upstream :latest image runs the reported release",
    input: v1(
      { distribution: { image: "llamastack/distribution-starter:latest" } },
      {},
      { version: { llamaStackServerVersion: "0.7.3" } },
    ),
    spec: DIST,
    kept: ["spec.server.distribution.image", "spec.server.distribution.name", "status"],
  },
  {
    field: "spec.server.distribution.image",
    title: "any other image stays an image",
    input: v1({ distribution: { image: "quay.io/acme/llama-stack:v1" } }),
    spec: { distribution: { image: "quay.io/acme/llama-stack:v1" } },
  },
  {
    field: "spec.server.containerSpec.name",
    title: "the container name has no home",
    input: v1({ containerSpec: { name: "llama-stack" } }),
    spec: DIST,
    kept: ["spec.server.containerSpec"],
  },
  {
    field: "spec.server.containerSpec.port",
    title: "port",
    input: v1({ containerSpec: { port: 8080 } }),
    spec: { ...DIST, networking: { port: 8080 } },
  },
  {
    field: "spec.server.containerSpec.port",
    title: "port 0 meant the default",
    input: v1({ containerSpec: { port: 0 } }),
    spec: DIST,
    kept: ["spec.server.containerSpec"],
  },
  {
    field: "spec.server.containerSpec.resources",
    title: "resources",
    input: v1({ containerSpec: { resources: { requests: { cpu: "1" } } } }),
    spec: { ...DIST, workload: { resources: { requests: { cpu: "1" } } } },
  },
  {
    field: "spec.server.containerSpec.env",
    title: "env, literal values included",
    input: v1({ containerSpec: { env: [{ name: "INFERENCE_MODEL", value: "llama3.2" }] } }),
    spec: {
      ...DIST,
      workload: { overrides: { env: [{ name: "INFERENCE_MODEL", value: "llama3.2" }] } },
    },
  },
  {
    field: "spec.server.containerSpec.command",
    title: "command",
    input: v1({ containerSpec: { command: ["llama"] } }),
    spec: { ...DIST, workload: { overrides: { command: ["llama"] } } },
  },
  {
    field: "spec.server.containerSpec.args",
    title: "args",
    input: v1({ containerSpec: { args: ["--port", "8321"] } }),
    spec: { ...DIST, workload: { overrides: { args: ["--port", "8321"] } } },
  },
  {
    field: "spec.server.workers",
    title: "workers",
    input: v1({ workers: 4 }),
    spec: { ...DIST, workload: { workers: 4 } },
  },
  {
    field: "spec.server.podOverrides.serviceAccountName",
    title: "serviceAccountName",
    input: v1({ podOverrides: { serviceAccountName: "llama-sa" } }),
    spec: { ...DIST, workload: { overrides: { serviceAccountName: "llama-sa" } } },
  },
  {
    field: "spec.server.podOverrides.terminationGracePeriodSeconds",
    title: "terminationGracePeriodSeconds",
    input: v1({ podOverrides: { terminationGracePeriodSeconds: 60 } }),
    spec: { ...DIST, workload: { terminationGracePeriodSeconds: 60 } },
  },
  {
    field: "spec.server.podOverrides.volumes",
    title: "volumes",
    input: v1({ podOverrides: { volumes: [{ name: "cache", emptyDir: {} }] } }),
    spec: { ...DIST, workload: { overrides: { volumes: [{ name: "cache", emptyDir: {} }] } } },
  },
  {
    field: "spec.server.podOverrides.volumeMounts",
    title: "volumeMounts",
    input: v1({ podOverrides: { volumeMounts: [{ name: "cache", mountPath: "/cache" }] } }),
    spec: {
      ...DIST,
      workload: { overrides: { volumeMounts: [{ name: "cache", mountPath: "/cache" }] } },
    },
  },
  {
    field: "spec.server.podDisruptionBudget",
    title: "an empty budget has no v1alpha2 form",
    input: v1({ podDisruptionBudget: {} }),
    spec: DIST,
    kept: ["spec.server.podDisruptionBudget"],
  },
  {
    field: "spec.server.podDisruptionBudget.minAvailable",
    title: "minAvailable",
    input: v1({ podDisruptionBudget: { minAvailable: 1 } }),
    spec: { ...DIST, workload: { podDisruptionBudget: { minAvailable: 1 } } },
  },
  {
    field: "spec.server.podDisruptionBudget.maxUnavailable",
    title: "maxUnavailable",
    input: v1({ podDisruptionBudget: { maxUnavailable: "50%" } }),
    spec: { ...DIST, workload: { podDisruptionBudget: { maxUnavailable: "50%" } } },
  },
  {
    field: "spec.server.topologySpreadConstraints",
    title: "topologySpreadConstraints",
    input: v1({
      topologySpreadConstraints: [
        { maxSkew: 1, topologyKey: "zone", whenUnsatisfiable: "DoNotSchedule" },
      ],
    }),
    spec: {
      ...DIST,
      workload: {
        topologySpreadConstraints: [
          { maxSkew: 1, topologyKey: "zone", whenUnsatisfiable: "DoNotSchedule" },
        ],
      },
    },
  },
  {
    field: "spec.server.autoscaling",
    title: "maxReplicas 0 made no autoscaler",
    input: v1({ autoscaling: { maxReplicas: 0 } }),
    spec: DIST,
    kept: ["spec.server.autoscaling"],
  },
  {
    field: "spec.server.autoscaling.minReplicas",
    title: "no minReplicas: the replicas, as v1alpha1 resolved it",
    input: v1({ autoscaling: { maxReplicas: 5 } }, { replicas: 2 }),
    spec: {
      ...DIST,
      workload: {
        replicas: 2,
        autoscaling: { minReplicas: 2, maxReplicas: 5 },
        podDisruptionBudget: { maxUnavailable: 1 },
      },
    },
    kept: ["spec.server.autoscaling.minReplicas"],
  },
  {
    field: "spec.server.autoscaling.maxReplicas",
    title: "maxReplicas",
    input: v1({ autoscaling: { minReplicas: 1, maxReplicas: 3 } }),
    spec: { ...DIST, workload: { autoscaling: { minReplicas: 1, maxReplicas: 3 } } },
  },
  {
    field: "spec.server.autoscaling.targetCPUUtilizationPercentage",
    title: "CPU target",
    input: v1({
      autoscaling: { minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 80 },
    }),
    spec: {
      ...DIST,
      workload: {
        autoscaling: { minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 80 },
      },
    },
  },
  {
    field: "spec.server.autoscaling.targetMemoryUtilizationPercentage",
    title: "memory target",
    input: v1({
      autoscaling: { minReplicas: 1, maxReplicas: 3, targetMemoryUtilizationPercentage: 70 },
    }),
    spec: {
      ...DIST,
      workload: {
        autoscaling: { minReplicas: 1, maxReplicas: 3, targetMemoryUtilizationPercentage: 70 },
      },
    },
  },
  {
    field: "spec.server.storage",
    title: "storage: {} is a volume with the defaults",
    input: v1({ storage: {} }),
    spec: { ...DIST, workload: { storage: {} } },
  },
  {
    field: "spec.server.storage.size",
    title: "size",
    input: v1({ storage: { size: "20Gi" } }),
    spec: { ...DIST, workload: { storage: { size: "20Gi" } } },
  },
  {
    field: "spec.server.storage.size",
    title: "a size written as a number becomes a string",
    input: v1({ storage: { size: 10737418240 } }),
    spec: { ...DIST, workload: { storage: { size: "10737418240" } } },
    kept: ["spec.server.storage.size"],
  },
  {
    field: "spec.server.storage.mountPath",
    title: "mountPath",
    input: v1({ storage: { mountPath: "/data" } }),
    spec: { ...DIST, workload: { storage: { mountPath: "/data" } } },
  },
  {
    field: "spec.server.userConfig.configMapName",
    title: "the user's ConfigMap becomes overrideConfig",
    input: v1({ userConfig: { configMapName: "run-config" } }),
    spec: { ...DIST, overrideConfig: { configMapName: "run-config" } },
  },
  {
    field: "spec.server.userConfig.configMapNamespace",
    title: "the object's own namespace",
    input: v1({ userConfig: { configMapName: "run-config", configMapNamespace: "team-a" } }),
    spec: { ...DIST, overrideConfig: { configMapName: "run-config" } },
    kept: ["spec.server.userConfig.configMapNamespace"],
  },
  {
    field: "spec.server.userConfig.configMapNamespace",
    title: "another namespace has no safe meaning: kept, and the status says so",
    input: v1({ userConfig: { configMapName: "run-config", configMapNamespace: "other" } }),
    spec: DIST,
    kept: ["spec.server.userConfig"],
  },
  {
    field: "spec.server.tlsConfig.caBundle",
    title: "caBundle with one key becomes trust.caBundle",
    input: v1({
      tlsConfig: { caBundle: { configMapName: "custom-ca", configMapKeys: ["ca.crt"] } },
    }),
    spec: { ...DIST, trust: { caBundle: { configMapName: "custom-ca", key: "ca.crt" } } },
  },
  {
    field: "spec.server.tlsConfig.caBundle",
    title: "caBundle in the object's own namespace",
    input: v1({
      tlsConfig: {
        caBundle: {
          configMapName: "custom-ca",
          configMapNamespace: "team-a",
          configMapKeys: ["a"],
        },
      },
    }),
    spec: { ...DIST, trust: { caBundle: { configMapName: "custom-ca", key: "a" } } },
    kept: ["spec.server.tlsConfig.caBundle.configMapNamespace"],
  },
  {
    field: "spec.server.tlsConfig.caBundle",
    title: "caBundle over several keys: kept, and the status says so",
    input: v1({
      tlsConfig: { caBundle: { configMapName: "custom-ca", configMapKeys: ["a.crt", "b.crt"] } },
    }),
    spec: DIST,
    kept: ["spec.server.tlsConfig"],
  },
  {
    field: "spec.server.tlsConfig.caBundle",
    // The retired operator's DefaultCABundleKey, ca-bundle.crt
    // (llamastack/llama-stack-k8s-operator @ 0126182,
    // controllers/llamastackdistribution_controller.go), is trust.caBundle's default key.
    title: "caBundle without keys: the retired operator's default key, ca-bundle.crt",
    input: v1({ tlsConfig: { caBundle: { configMapName: "custom-ca" } } }),
    spec: { ...DIST, trust: { caBundle: { configMapName: "custom-ca" } } },
  },
  {
    field: "spec.server.tlsConfig.caBundle",
    title: "caBundle with an empty list of keys: the default key too",
    input: v1({ tlsConfig: { caBundle: { configMapName: "custom-ca", configMapKeys: [] } } }),
    spec: { ...DIST, trust: { caBundle: { configMapName: "custom-ca" } } },
    kept: ["spec.server.tlsConfig.caBundle.configMapKeys"],
  },
  {
    field: "spec.server.tlsConfig.caBundle",
    title: "caBundle in another namespace: kept",
    input: v1({
      tlsConfig: {
        caBundle: { configMapName: "custom-ca", configMapNamespace: "other", configMapKeys: ["a"] },
      },
    }),
    spec: DIST,
    kept: ["spec.server.tlsConfig"],
  },
  {
    field: "spec.network.exposeRoute",
    title: "exposeRoute: an Ingress for every host",
    input: v1({}, { network: { exposeRoute: true } }),
    spec: { ...DIST, networking: { expose: { enabled: true } } },
  },
  {
    field: "spec.network.exposeRoute",
    title: "exposeRoute false: no expose",
    input: v1({}, { network: { exposeRoute: false } }),
    spec: DIST,
    kept: ["spec.network"],
  },
  {
    field: "spec.network.allowedFrom",
    title: "an empty allowedFrom admitted the own namespace",
    input: v1({}, { network: { allowedFrom: {} } }),
    spec: { ...DIST, networking: { allowedFrom: { namespaces: ["team-a"] } } },
  },
  {
    field: "spec.network.allowedFrom.namespaces",
    title: "namespaces, plus the own namespace",
    input: v1({}, { network: { allowedFrom: { namespaces: ["apps"] } } }),
    spec: { ...DIST, networking: { allowedFrom: { namespaces: ["team-a", "apps"] } } },
  },
  {
    field: "spec.network.allowedFrom.namespaces",
    title: "every namespace",
    input: v1({}, { network: { allowedFrom: { namespaces: ["*"] } } }),
    spec: { ...DIST, networking: { allowedFrom: { namespaces: ["*"] } } },
  },
  {
    field: "spec.network.allowedFrom.labels",
    title: "labels",
    input: v1({}, { network: { allowedFrom: { labels: ["team/authorized"] } } }),
    spec: {
      ...DIST,
      networking: { allowedFrom: { namespaces: ["team-a"], labels: ["team/authorized"] } },
    },
  },
  {
    field: "status.phase",
    title: "phase",
    input: v1({}, {}, { phase: "Ready" }),
    spec: DIST,
    status: { phase: "Ready" },
  },
  {
    field: "status.phase",
    title: "Terminating has no v1alpha2 phase",
    input: v1({}, {}, { phase: "Terminating" }),
    spec: DIST,
    kept: ["status"],
  },
  {
    field: "status.conditions",
    title: "conditions",
    input: v1(
      {},
      {},
      {
        conditions: [
          {
            type: "HealthCheck",
            status: "True",
            reason: "Ok",
            message: "",
            lastTransitionTime: "2025-06-01T10:00:00Z",
          },
        ],
      },
    ),
    spec: DIST,
    status: {
      conditions: [
        {
          type: "HealthCheck",
          status: "True",
          reason: "Ok",
          message: "",
          lastTransitionTime: "2025-06-01T10:00:00Z",
        },
      ],
    },
  },
  {
    field: "status.availableReplicas",
    title: "availableReplicas",
    input: v1({}, {}, { availableReplicas: 2 }),
    spec: DIST,
    status: { availableReplicas: 2 },
  },
  {
    field: "status.serviceURL",
    title: "serviceURL",
    input: v1({}, {}, { serviceURL: "http://llama-service.team-a.svc.cluster.local:8321" }),
    spec: DIST,
    status: { serviceURL: "http://llama-service.team-a.svc.cluster.local:8321" },
  },
  {
    field: "status.version",
    title: "version: kept (its server version pins the release)",
    input: v1({}, {}, { version: { operatorVersion: "0.4.0", llamaStackServerVersion: "0.7.3" } }),
    spec: DIST,
    kept: ["status"],
  },
  {
    field: "status.distributionConfig",
    title: "distributionConfig: kept",
    input: v1({}, {}, { distributionConfig: { activeDistribution: "starter" } }),
    spec: DIST,
    kept: ["status"],
  },
  {
    field: "status.routeURL",
    title: "routeURL: kept",
    input: v1({}, {}, { routeURL: "http://llama.apps.example.com" }),
    spec: DIST,
    kept: ["status"],
  },
];

function keptPaths(obj: JsonObject, key: string): string[] {
  const text = getAt(obj, ["metadata", "annotations", key]);
  if (text === undefined) return [];
  const decoded = decodeRestore(String(text), OBJECT_BOUNDS);
  if ("error" in decoded) return [`error: ${decoded.error}`];
  return decoded.entries.map((e) => e.path.join("."));
}

function converted(result: ReturnType<typeof toV1alpha2>): JsonObject {
  if (!result.ok) expect.fail(result.problems.map((p) => `${p.path}: ${p.detail}`).join("\n"));
  return result.value;
}

describe("the field table (v1alpha1 → v1alpha2)", () => {
  it("every row of the table has a case", () => {
    const covered = new Set(CASES.map((c) => c.field));
    for (const rule of FIELD_RULES)
      expect(covered.has(rule.v1alpha1), rule.v1alpha1).to.equal(true);
  });

  for (const c of CASES) {
    it(`${c.field}: ${c.title}`, () => {
      const up = converted(toV1alpha2(c.input));
      expect(up["spec"]).to.deep.equal(c.spec);
      expect(up["status"]).to.deep.equal(c.status);
      expect(keptPaths(up, V1ALPHA1_FIELDS_ANNOTATION)).to.deep.equal(c.kept ?? []);
      expect(converted(toV1alpha1(up))).to.deep.equal(c.input);
    });
  }

  it("a typical object of the retired operator converts to a valid v1alpha2 object", () => {
    const legacy = v1(
      {
        containerSpec: {
          name: "llama-stack",
          port: 8321,
          env: [{ name: "INFERENCE_MODEL", value: "llama3.2" }],
        },
        storage: { size: "20Gi" },
        userConfig: { configMapName: "run-config" },
      },
      { replicas: 1, network: { exposeRoute: true, allowedFrom: { namespaces: ["apps"] } } },
      { phase: "Ready", version: { llamaStackServerVersion: "0.7.3" }, availableReplicas: 1 },
    );
    const up = converted(toV1alpha2(legacy));
    const parsed = LlamaStackDistribution.safeParse(up);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).to.equal(true);
  });
});

/** A v1alpha2 object using every field v1alpha1 has no place for. */
const RICH_V1ALPHA2: JsonObject = {
  apiVersion: "llamastack.io/v1alpha2",
  kind: "LlamaStackDistribution",
  metadata: METADATA,
  spec: {
    // baseConfig goes with image, not name; the converter carries it either way.
    distribution: {
      name: "starter",
      release: "1.5.0",
      baseConfig: { configMapName: "acme-base", key: "config.yaml" },
    },
    providers: { inference: [{ provider: "vllm", endpoint: "http://vllm:8000/v1" }] },
    disabledProviders: ["code-scanner"],
    resources: { models: [{ name: "llama3.2-8b" }] },
    storage: { kv: { type: "redis", host: "redis", port: 6379 } },
    disabled: ["eval"],
    monitoring: { otlp: { endpoint: "http://otel-collector.observability.svc:4318" } },
    auth: { kubernetes: {} },
    networking: {
      port: 8321,
      tls: { enabled: true, secretName: "llama-tls" },
      expose: {
        enabled: true,
        hostname: "llama.example.com",
        ingressClassName: "nginx",
        tlsSecretName: "web-tls",
      },
    },
    workload: {
      storage: {
        size: "10Gi",
        storageClassName: "fast",
        accessMode: "ReadWriteOnce",
        mountPath: "/.llama",
      },
      overrides: {
        imagePullSecrets: [{ name: "pull" }],
        nodeSelector: { gpu: "true" },
        tolerations: [{ key: "gpu", operator: "Exists" }],
        affinity: { nodeAffinity: {} },
        podLabels: { team: "ml" },
        podAnnotations: { "example.com/a": "b" },
      },
    },
  },
  status: {
    observedGeneration: 3,
    resolvedDistribution: {
      name: "starter",
      release: "1.5.0",
      image: "docker.io/ogxai/distribution-starter:1.5.0",
      configSource: "generated",
    },
    configGeneration: {
      configMapName: "llama-config-1",
      configHash: "abc",
      providerCount: 1,
      resourceCount: 1,
    },
    externalURL: "https://llama.example.com",
  },
};

describe("v1alpha2 fields without a v1alpha1 home (v1alpha2 → v1alpha1)", () => {
  const down = converted(toV1alpha1(RICH_V1ALPHA2));
  const text = String(getAt(down, ["metadata", "annotations", V1ALPHA2_FIELDS_ANNOTATION]));
  const decoded = decodeRestore(text, OBJECT_BOUNDS);
  const keptTree = "error" in decoded ? {} : treeOf(decoded.entries);

  for (const field of V1ALPHA2_ONLY) {
    it(`${field} is kept in ${V1ALPHA2_FIELDS_ANNOTATION}`, () => {
      expect(getAt(RICH_V1ALPHA2, pathOf(field)), "the sample has it").not.to.equal(undefined);
      expect(getAt(keptTree, pathOf(field))).to.deep.equal(getAt(RICH_V1ALPHA2, pathOf(field)));
    });
  }

  it("the v1alpha1 object holds what has a home, and converts back whole", () => {
    expect(down["spec"]).to.deep.equal({
      server: {
        distribution: { name: "starter" },
        containerSpec: { port: 8321 },
        storage: { size: "10Gi", mountPath: "/.llama" },
      },
      network: { exposeRoute: true },
    });
    expect(converted(toV1alpha2(down))).to.deep.equal(RICH_V1ALPHA2);
  });
});
