// fast-check arbitraries for LlamaStackDistribution objects at both versions:
// v1alpha1 from the retired operator's field set (api/v1alpha1 types, with
// Go's zero values, fork fields and operator-written status), and valid
// v1alpha2 objects. The tests check that each generated object parses with
// its version's schema, so a generator that drifts from the schema fails.
import fc from "fast-check";

/** A literal env value: it must never be copied into an annotation or a message. */
export const CANARY = "CANARY-literal-env-9d2c41";

const namespace = fc.constantFrom("team-a", "llama");
const TIME = "2025-06-01T10:00:00Z";

/** A field a fork of the operator added: unknown to both versions, kept through the annotation. */
const forkValue = fc.oneof(
  fc.boolean(),
  fc.constantFrom("on", "", 0, 7),
  fc.record({
    level: fc.integer({ min: -3, max: 3 }),
    tags: fc.array(fc.string({ maxLength: 4 })),
  }),
  fc.constant(null),
);

/** `arb`, sometimes with a fork's field. */
function withFork<T extends object>(arb: fc.Arbitrary<T>, key = "x-fork-feature") {
  return fc
    .tuple(arb, fc.option(forkValue, { nil: undefined, freq: 4 }))
    .map(([o, fork]) => (fork === undefined ? o : { ...o, [key]: fork }));
}

const opt = <T>(model: { [K in keyof T]: fc.Arbitrary<T[K]> }, required: (keyof T)[] = []) =>
  fc.record(model, { requiredKeys: required });

// ---------------------------------------------------------------- v1alpha1
const envVar = fc.oneof(
  fc.record({
    name: fc.constantFrom("INFERENCE_MODEL", "VLLM_URL", "VLLM_API_TOKEN"),
    value: fc.constant(CANARY),
  }),
  fc.constant({ name: "HF_TOKEN", valueFrom: { secretKeyRef: { name: "hf", key: "token" } } }),
);

const distributionV1 = fc.oneof(
  opt({
    name: fc.constantFrom(
      "starter",
      "postgres-demo",
      "remote-vllm",
      "meta-reference-gpu",
      "ollama",
      "",
    ),
  }),
  fc.record({
    image: fc.constantFrom(
      "docker.io/llamastack/distribution-starter:0.7.3",
      "llamastack/distribution-postgres-demo:latest",
      "docker.io/ogxai/distribution-starter:1.5.0",
      "quay.io/acme/llama-stack:v1",
      "registry.example.com/llama@sha256:0123456789abcdef",
      "",
    ),
  }),
);

const containerSpec = withFork(
  opt({
    name: fc.constantFrom("llama-stack", "server", ""),
    port: fc.constantFrom(0, 8321, 8080, 80),
    resources: fc.constantFrom(
      {},
      { requests: { cpu: "1", memory: "2Gi" } },
      { limits: { "nvidia.com/gpu": "1" } },
    ),
    env: fc.array(envVar, { maxLength: 3 }),
    command: fc.constantFrom([], ["/bin/sh", "-c", "llama stack run /etc/llama-stack/config.yaml"]),
    args: fc.constantFrom([], ["--port", "8321"]),
  }),
);

const podOverrides = opt({
  serviceAccountName: fc.constantFrom("", "llama-sa"),
  terminationGracePeriodSeconds: fc.integer({ min: 0, max: 300 }),
  volumes: fc.constantFrom(
    [],
    [{ name: "cache", emptyDir: {} }],
    [{ name: "models", persistentVolumeClaim: { claimName: "models" } }],
  ),
  volumeMounts: fc.constantFrom([], [{ name: "cache", mountPath: "/cache" }]),
});

const server = withFork(
  opt(
    {
      distribution: distributionV1,
      containerSpec,
      workers: fc.integer({ min: 1, max: 8 }),
      podOverrides,
      podDisruptionBudget: fc.constantFrom(
        {},
        { minAvailable: 1 },
        { maxUnavailable: "50%" },
        { minAvailable: 1, maxUnavailable: 1 },
      ),
      topologySpreadConstraints: fc.constantFrom(
        [],
        [
          {
            maxSkew: 1,
            topologyKey: "topology.kubernetes.io/zone",
            whenUnsatisfiable: "ScheduleAnyway",
          },
        ],
      ),
      autoscaling: opt(
        {
          minReplicas: fc.integer({ min: 1, max: 3 }),
          maxReplicas: fc.integer({ min: 0, max: 6 }),
          targetCPUUtilizationPercentage: fc.integer({ min: 50, max: 90 }),
          targetMemoryUtilizationPercentage: fc.integer({ min: 50, max: 90 }),
        },
        ["maxReplicas"],
      ),
      storage: opt({
        size: fc.constantFrom("10Gi", "20Gi", 10737418240),
        mountPath: fc.constantFrom("", "/.llama", "/data"),
      }),
      userConfig: opt(
        {
          configMapName: fc.constantFrom("run-config", "llama-config"),
          configMapNamespace: fc.constantFrom("", "team-a", "other"),
        },
        ["configMapName"],
      ),
      tlsConfig: opt({
        caBundle: opt(
          {
            configMapName: fc.constant("custom-ca"),
            configMapNamespace: fc.constantFrom("team-a", "other"),
            configMapKeys: fc.subarray(["ca-bundle.crt", "extra.pem"]),
          },
          ["configMapName"],
        ),
      }),
    },
    ["distribution"],
  ),
);

const network = opt({
  exposeRoute: fc.boolean(),
  allowedFrom: opt({
    namespaces: fc.subarray(["apps", "*", "team-a", "monitoring"]),
    labels: fc.subarray(["myproject/lls-allowed", "team/authorized"]),
  }),
});

const condition = (type: string) =>
  fc.record({
    type: fc.constant(type),
    status: fc.constantFrom("True", "False"),
    reason: fc.constantFrom("MinimumReplicasAvailable", "HealthCheckFailed"),
    message: fc.constantFrom("Deployment is ready", ""),
    lastTransitionTime: fc.constant(TIME),
  });

const statusV1 = withFork(
  opt({
    phase: fc.constantFrom("Pending", "Initializing", "Ready", "Failed", "Terminating"),
    version: opt({
      operatorVersion: fc.constantFrom("0.4.0", ""),
      llamaStackServerVersion: fc.constantFrom(
        "0.7.3",
        "0.2.22",
        "v0.6.1",
        "0.3.0rc2",
        "",
        "1.5.0",
      ),
      lastUpdated: fc.constant(TIME),
    }),
    distributionConfig: opt({
      activeDistribution: fc.constantFrom("starter", "custom"),
      providers: fc.constantFrom(
        [],
        [
          {
            api: "inference",
            provider_id: "vllm",
            provider_type: "remote::vllm",
            config: { url: "http://vllm:8000/v1", api_token: "********" },
            health: { status: "OK", message: "" },
          },
        ],
      ),
      availableDistributions: fc.constant({
        starter: "docker.io/llamastack/distribution-starter:latest",
      }),
    }),
    conditions: fc
      .subarray(["DeploymentReady", "HealthCheck"])
      .chain((types) => fc.tuple(...types.map(condition))),
    availableReplicas: fc.integer({ min: 0, max: 3 }),
    serviceURL: fc.constant("http://llama-service.team-a.svc.cluster.local:8321"),
    routeURL: fc.constantFrom("", "http://llama.apps.example.com"),
  }),
);

const metadata = opt(
  {
    name: fc.constantFrom("llama", "chat-server"),
    namespace,
    uid: fc.constant("6f1c2a4e-0000-4000-8000-000000000001"),
    resourceVersion: fc.constant("4711"),
    generation: fc.integer({ min: 1, max: 9 }),
    creationTimestamp: fc.constant(TIME),
    labels: fc.constantFrom({}, { team: "ml" }),
    annotations: fc.constantFrom({}, { "example.com/owner": "ml-platform" }),
  },
  ["name"],
);

export const v1alpha1Object = fc
  .record(
    {
      metadata,
      spec: withFork(
        opt({ replicas: fc.integer({ min: 0, max: 4 }), server, network }, ["server"]),
      ),
      status: statusV1,
    },
    { requiredKeys: ["metadata", "spec"] },
  )
  .map((o) => ({ apiVersion: "llamastack.io/v1alpha1", kind: "LlamaStackDistribution", ...o }));

// ---------------------------------------------------------------- v1alpha2
const secretRef = (name: string, key: string) => ({ secretKeyRef: { name, key } });

const providersV2 = fc.record({
  inference: fc.constantFrom(
    [{ provider: "vllm", endpoint: "http://vllm:8000/v1", apiKey: secretRef("vllm", "token") }],
    [
      {
        id: "primary",
        provider: "vllm",
        endpoint: "http://vllm:8000/v1",
        settings: { max_tokens: 4096 },
      },
      { id: "backup", provider: "ollama", endpoint: "http://ollama:11434" },
    ],
  ),
});

/** The parts that generate a config; excluded by overrideConfig. */
const configParts = opt({
  providers: providersV2,
  resources: fc.constantFrom(
    { models: [{ name: "llama3.2-8b" }] },
    { shields: ["meta-llama/Llama-Guard-3-8B"] },
  ),
  disabled: fc.constantFrom(["eval"]),
  disabledProviders: fc.constantFrom(["code-scanner"]),
});

const SHARED_STORAGE = {
  kv: { type: "redis", host: "redis.cache.svc", port: 6379 },
  sql: { type: "postgres", secretName: "pg" },
};

const networking = opt({
  port: fc.constantFrom(8321, 8080),
  tls: fc.constantFrom(
    { enabled: false },
    { enabled: true, secretName: "llama-tls" },
    {
      enabled: true,
      secretName: "llama-tls",
      requireClientCertificate: true,
    },
  ),
  expose: fc.constantFrom(
    {},
    { enabled: true },
    { enabled: false },
    { hostname: "llama.example.com", ingressClassName: "nginx", tlsSecretName: "llama-web-tls" },
  ),
  // v1alpha2 refuses an allowedFrom naming no peer (it would admit every source).
  allowedFrom: opt({
    namespaces: fc.subarray(["apps", "*", "team-a"], { minLength: 1 }),
    labels: fc.constantFrom(["myproject/lls-allowed"]),
  }).filter((a) => a.namespaces !== undefined || a.labels !== undefined),
});

const overrides = opt({
  serviceAccountName: fc.constant("llama-sa"),
  env: fc.array(envVar, { minLength: 1, maxLength: 2 }),
  command: fc.constant(["llama", "stack", "run"]),
  args: fc.constant(["--port", "8321"]),
  volumes: fc.constant([{ name: "cache", emptyDir: {} }]),
  volumeMounts: fc.constant([{ name: "cache", mountPath: "/cache" }]),
  imagePullSecrets: fc.constant([{ name: "pull" }]),
  nodeSelector: fc.constant({ "nvidia.com/gpu.present": "true" }),
  tolerations: fc.constant([{ key: "gpu", operator: "Exists", effect: "NoSchedule" }]),
  podLabels: fc.constant({ team: "ml" }),
  podAnnotations: fc.constant({ "example.com/x": "y" }),
});

const workload = opt({
  replicas: fc.integer({ min: 0, max: 3 }),
  workers: fc.integer({ min: 1, max: 4 }),
  resources: fc.constant({ requests: { cpu: "1", memory: "2Gi" } }),
  autoscaling: fc.constantFrom(
    { minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 80 },
    { maxReplicas: 3 },
  ),
  storage: opt({
    size: fc.constantFrom("10Gi", "50Gi"),
    storageClassName: fc.constant("fast"),
    accessMode: fc.constantFrom("ReadWriteOnce", "ReadWriteMany"),
    mountPath: fc.constantFrom("/.llama", "/data"),
  }),
  podDisruptionBudget: fc.constantFrom({ maxUnavailable: 1 }, { minAvailable: "50%" }),
  topologySpreadConstraints: fc.constant([
    { maxSkew: 1, topologyKey: "kubernetes.io/hostname", whenUnsatisfiable: "DoNotSchedule" },
  ]),
  terminationGracePeriodSeconds: fc.integer({ min: 1, max: 3600 }),
  overrides,
});

const statusV2 = opt({
  phase: fc.constantFrom("Pending", "Ready", "Failed"),
  observedGeneration: fc.integer({ min: 1, max: 9 }),
  conditions: fc
    .subarray(["Ready", "Available"])
    .chain((types) => fc.tuple(...types.map(condition))),
  resolvedDistribution: fc.constant({
    name: "starter",
    release: "1.5.0",
    image: "docker.io/ogxai/distribution-starter:1.5.0",
    configSource: "generated",
  }),
  configGeneration: fc.constant({
    configMapName: "llama-config-5d41402a",
    configHash: "5d41402abc4b2a76b9719d911017c592",
    providerCount: 9,
    resourceCount: 2,
  }),
  availableReplicas: fc.integer({ min: 0, max: 3 }),
  serviceURL: fc.constant("http://llama-service.team-a.svc.cluster.local:8321"),
});

type Loose = Record<string, unknown>;

/** Makes the combination valid: shared storage for several replicas, ReadWriteMany for them. */
function fixSpec(spec: Loose, override: boolean): Loose {
  const w = spec["workload"] as Loose | undefined;
  const several =
    w !== undefined && ((w["replicas"] as number) > 1 || w["autoscaling"] !== undefined);
  if (several && !override) spec["storage"] = SHARED_STORAGE;
  const storage = w?.["storage"] as Loose | undefined;
  if (several && storage !== undefined) storage["accessMode"] = "ReadWriteMany";
  return spec;
}

export const v1alpha2Object = fc
  .record(
    {
      metadata,
      distribution: fc.oneof(
        opt(
          {
            name: fc.constantFrom("starter", "postgres-demo"),
            release: fc.constantFrom("1.5.0", "0.7.3"),
          },
          ["name"],
        ),
        fc.constant({ image: "quay.io/acme/llama-stack:v1" }),
      ),
      config: fc.oneof(
        configParts,
        fc.constant({ overrideConfig: { configMapName: "run-config" } }),
      ),
      networking,
      workload,
      monitoring: fc.constantFrom(
        { otlp: { endpoint: "http://otel-collector.observability.svc:4318" } },
        { metrics: { port: 9464 } },
      ),
      auth: fc.constantFrom(
        { kubernetes: {} },
        {
          oauth2: {
            issuer: "https://login.example.com",
            audience: "llama",
            jwksURI: "https://login.example.com/keys",
          },
        },
      ),
      status: statusV2,
    },
    { requiredKeys: ["metadata", "distribution", "config"] },
  )
  .map((r) => {
    const override = "overrideConfig" in r.config;
    const spec: Loose = { distribution: r.distribution, ...r.config };
    if (r.networking !== undefined) spec["networking"] = r.networking;
    if (r.workload !== undefined) spec["workload"] = structuredClone(r.workload);
    if (r.monitoring !== undefined) spec["monitoring"] = r.monitoring;
    // spec.auth cannot go with overrideConfig (rule override-config-no-auth).
    if (r.auth !== undefined && !override) spec["auth"] = r.auth;
    return {
      apiVersion: "llamastack.io/v1alpha2",
      kind: "LlamaStackDistribution",
      metadata: r.metadata,
      spec: fixSpec(spec, override),
      ...(r.status === undefined ? {} : { status: r.status }),
    };
  });

/** The same value with every object's keys in reverse order. */
export function reorder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reorder);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reorder(v)]),
  );
}
