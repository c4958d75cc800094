// Table tests for the Deployment: what each input changes in the pod.
import { expect } from "chai";
import { buildDeployment, type DeploymentInput } from "../../../src/children/deployment.js";
import { releaseFacts } from "../../../src/release.js";

const OGX = releaseFacts("1.5.0");

const BASE: DeploymentInput = {
  llsd: "llama",
  namespace: "default",
  image: "img:1",
  release: "0.7.3",
  releaseFacts: releaseFacts("0.7.3"),
  pinnedImage: true,
  port: 8321,
  configMapName: "llama-config-0123456789",
  configHash: "0123456789abcdef",
  inputsHash: "inputs",
  secretEnv: [],
  replicas: 1,
  dataDir: "/.llama",
  pvcName: undefined,
  recreate: false,
  tls: undefined,
  serviceAccountName: "llama-sa",
  generatedServiceAccount: true,
  workers: 1,
};
const build = (over: Partial<DeploymentInput>) => buildDeployment({ ...BASE, ...over });
const pod = (over: Partial<DeploymentInput>) => build(over).spec?.template.spec;
const container = (over: Partial<DeploymentInput>) => pod(over)?.containers[0];
const envNames = (over: Partial<DeploymentInput>) =>
  (container(over)?.env ?? []).map((e) => e.name);
const SELECTOR = { "app.kubernetes.io/name": "llama-stack", "app.kubernetes.io/instance": "llama" };

describe("buildDeployment", () => {
  describe("replicas and strategy", () => {
    const rows: [
      why: string,
      over: Partial<DeploymentInput>,
      replicas: number | undefined,
      strategy: string,
    ][] = [
      ["a count", { replicas: 3 }, 3, "RollingUpdate"],
      ["zero is a count", { replicas: 0 }, 0, "RollingUpdate"],
      [
        "with autoscaling the HPA owns the count: no key",
        { replicas: undefined },
        undefined,
        "RollingUpdate",
      ],
      ["a ReadWriteOnce volume: Recreate", { recreate: true }, 1, "Recreate"],
    ];
    for (const [why, over, replicas, strategy] of rows)
      it(why, () => {
        const spec = build(over).spec;
        expect(spec?.replicas).to.equal(replicas);
        expect(spec !== undefined && "replicas" in spec).to.equal(replicas !== undefined);
        expect(spec?.strategy?.type).to.equal(strategy);
      });
  });

  describe("probes follow TLS", () => {
    const rows: [why: string, tls: DeploymentInput["tls"], probe: unknown][] = [
      ["plain HTTP", undefined, { httpGet: { path: "/v1/health", port: "http", scheme: "HTTP" } }],
      [
        "HTTPS",
        { secretName: "cert", requireClientCertificate: false },
        { httpGet: { path: "/v1/health", port: "http", scheme: "HTTPS" } },
      ],
      [
        "mutual TLS: the probes have no client certificate, so TCP",
        { secretName: "cert", requireClientCertificate: true },
        { tcpSocket: { port: "http" } },
      ],
    ];
    for (const [why, tls, probe] of rows)
      it(why, () =>
        expect(container({ tls })?.readinessProbe).to.deep.equal({
          ...(probe as object),
          periodSeconds: 10,
          failureThreshold: 3,
          timeoutSeconds: 5,
        }),
      );
  });

  describe("volumes", () => {
    const rows: [
      why: string,
      over: Partial<DeploymentInput>,
      volumes: string[],
      mounts: string[],
    ][] = [
      [
        "config and an emptyDir for data",
        {},
        ["config:configMap", "data:emptyDir"],
        ["/etc/llama-stack", "/.llama"],
      ],
      [
        "a claim for data",
        { pvcName: "llama-pvc", dataDir: "/data" },
        ["config:configMap", "data:persistentVolumeClaim"],
        ["/etc/llama-stack", "/data"],
      ],
      [
        "OGX: /tmp in memory",
        { release: "1.5.0", releaseFacts: OGX },
        ["config:configMap", "data:emptyDir", "ogx-tmp:emptyDir"],
        ["/etc/llama-stack", "/.llama", "/tmp"],
      ],
      [
        "a custom image is not OGX",
        { release: undefined, releaseFacts: undefined },
        ["config:configMap", "data:emptyDir"],
        ["/etc/llama-stack", "/.llama"],
      ],
      [
        "TLS: the Secret, read-only",
        { tls: { secretName: "cert", requireClientCertificate: false } },
        ["config:configMap", "data:emptyDir", "tls:secret"],
        ["/etc/llama-stack", "/.llama", "/etc/llama-stack/tls"],
      ],
      [
        "the user's after ours",
        {
          volumes: [{ name: "models", emptyDir: {} }],
          volumeMounts: [{ name: "models", mountPath: "/models" }],
        },
        ["config:configMap", "data:emptyDir", "models:emptyDir"],
        ["/etc/llama-stack", "/.llama", "/models"],
      ],
    ];
    for (const [why, over, volumes, mounts] of rows)
      it(why, () => {
        const spec = pod(over);
        expect(
          (spec?.volumes ?? []).map(
            (v) =>
              `${v.name}:${Object.keys(v)
                .filter((k) => k !== "name")
                .join()}`,
          ),
        ).to.deep.equal(volumes);
        expect((spec?.containers[0]?.volumeMounts ?? []).map((m) => m.mountPath)).to.deep.equal(
          mounts,
        );
      });
  });

  describe("env", () => {
    const rows: [why: string, over: Partial<DeploymentInput>, names: string[]][] = [
      [
        "ours, sorted by name",
        {},
        [
          "FILES_STORAGE_DIR",
          "HF_HOME",
          "HOME",
          "LLAMA_STACK_CONFIG",
          "LLAMA_STACK_PORT",
          "RUN_CONFIG_PATH",
          "SQLITE_STORE_DIR",
        ],
      ],
      [
        "OGX reads its port from OGX_PORT",
        { release: "1.5.0", releaseFacts: OGX },
        ["FILES_STORAGE_DIR", "HF_HOME", "HOME", "OGX_PORT", "RUN_CONFIG_PATH", "SQLITE_STORE_DIR"],
      ],
      [
        "Secret-backed variables after ours",
        {
          release: "1.5.0",
          releaseFacts: OGX,
          secretEnv: [{ name: "LLSD_KEY", secretName: "s", key: "k", specPath: "spec.x" }],
        },
        [
          "FILES_STORAGE_DIR",
          "HF_HOME",
          "HOME",
          "OGX_PORT",
          "RUN_CONFIG_PATH",
          "SQLITE_STORE_DIR",
          "LLSD_KEY",
        ],
      ],
      [
        "a user variable replaces ours of the same name, and comes last",
        {
          release: "1.5.0",
          releaseFacts: OGX,
          userEnv: [
            { name: "HOME", value: "/home" },
            { name: "EXTRA", value: "1" },
          ],
        },
        [
          "FILES_STORAGE_DIR",
          "HF_HOME",
          "OGX_PORT",
          "RUN_CONFIG_PATH",
          "SQLITE_STORE_DIR",
          "HOME",
          "EXTRA",
        ],
      ],
    ];
    for (const [why, over, names] of rows)
      it(why, () => expect(envNames(over)).to.deep.equal(names));
  });

  describe("pod metadata", () => {
    it("the user's labels never replace the selector labels", () => {
      const labels = build({ podLabels: { team: "a", "app.kubernetes.io/instance": "other" } }).spec
        ?.template.metadata?.labels;
      expect(labels).to.include({ team: "a", ...SELECTOR });
    });
    const rows: [
      why: string,
      over: Partial<DeploymentInput>,
      annotations: Record<string, string>,
    ][] = [
      [
        "both hashes",
        {},
        { "llamastack.io/inputs-hash": "inputs", "llamastack.io/config-hash": "0123456789abcdef" },
      ],
      [
        "overrideConfig: no config hash",
        { configHash: undefined },
        { "llamastack.io/inputs-hash": "inputs" },
      ],
      [
        "the user's annotations, ours winning",
        {
          podAnnotations: { a: "b", "llamastack.io/inputs-hash": "forged" },
          configHash: undefined,
        },
        { a: "b", "llamastack.io/inputs-hash": "inputs" },
      ],
    ];
    for (const [why, over, annotations] of rows)
      it(why, () =>
        expect(build(over).spec?.template.metadata?.annotations).to.deep.equal(annotations),
      );

    const releases: [release: string | undefined, label: string | undefined][] = [
      ["0.7.3", "0.7.3"],
      [undefined, undefined],
    ];
    for (const [release, label] of releases)
      it(`the Deployment (not the pods) carries the release: ${String(release)}`, () => {
        const deployment = build({ release });
        expect(deployment.metadata.labels?.["llamastack.io/release"]).to.equal(label);
        expect(deployment.spec?.template.metadata?.labels).to.not.have.property(
          "llamastack.io/release",
        );
      });
  });

  describe("pod spec", () => {
    it("our ServiceAccount mounts no token; the user's is left to its own setting", () => {
      expect(pod({})?.automountServiceAccountToken).to.equal(false);
      const spec = pod({ serviceAccountName: "mine", generatedServiceAccount: false });
      expect(spec?.serviceAccountName).to.equal("mine");
      expect(spec !== undefined && "automountServiceAccountToken" in spec).to.equal(false);
    });
    it("a spread constraint without labelSelector selects this server's pods; one with it is kept", () => {
      const own = { maxSkew: 1, topologyKey: "zone", whenUnsatisfiable: "DoNotSchedule" };
      const given = { ...own, labelSelector: { matchLabels: { x: "y" } } };
      expect(
        pod({ topologySpreadConstraints: [own, given] })?.topologySpreadConstraints,
      ).to.deep.equal([{ ...own, labelSelector: { matchLabels: SELECTOR } }, given]);
    });
    it("resources in stored form; default requests where the user set none", () => {
      expect(
        container({ resources: { requests: { cpu: "1000m", memory: "1024Mi" } } })?.resources,
      ).to.deep.equal({
        requests: { cpu: "1", memory: "1Gi" },
      });
      expect(container({ workers: 2 })?.resources).to.deep.equal({
        requests: { cpu: "500m", memory: "768Mi" },
      });
    });
    it("unset pass-through fields are left out, never undefined", () => {
      const spec = pod({});
      for (const key of [
        "imagePullSecrets",
        "nodeSelector",
        "tolerations",
        "affinity",
        "topologySpreadConstraints",
      ])
        expect(spec).to.not.have.property(key);
      for (const key of ["command", "args"]) expect(container({})).to.not.have.property(key);
    });
    describe("the start command", () => {
      const RUN = ["ogx", "run", "/etc/llama-stack/config.yaml"];
      const OTEL = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };
      const rows: [why: string, over: Partial<DeploymentInput>, command: string[] | undefined][] = [
        ["a Llama Stack release keeps its image's entrypoint", {}, undefined],
        [
          "a pinned OGX image runs `ogx run <config>`",
          { release: "1.5.0", releaseFacts: OGX },
          RUN,
        ],
        ["so does 1.4.1", { release: "1.4.1", releaseFacts: releaseFacts("1.4.1") }, RUN],
        [
          "a custom image keeps its entrypoint",
          { release: "1.5.0", releaseFacts: OGX, pinnedImage: false },
          undefined,
        ],
        [
          "an OTEL_* variable from spec.monitoring: under opentelemetry-instrument",
          { release: "1.5.0", releaseFacts: OGX, monitoringEnv: OTEL },
          ["opentelemetry-instrument", ...RUN],
        ],
        [
          "an OTEL_* variable of the user's: the same",
          {
            release: "1.5.0",
            releaseFacts: OGX,
            userEnv: [{ name: "OTEL_SERVICE_NAME", value: "x" }],
          },
          ["opentelemetry-instrument", ...RUN],
        ],
        [
          "the user's command wins",
          { release: "1.5.0", releaseFacts: OGX, command: ["sh"] },
          ["sh"],
        ],
      ];
      for (const [why, over, command] of rows)
        it(why, () => expect(container(over)?.command).to.deep.equal(command));

      const disabled = (over: Partial<DeploymentInput>) =>
        container(over)?.env?.find((e) => e.name === "OTEL_PYTHON_DISABLED_INSTRUMENTATIONS");
      it("the wrapper turns off the asyncpg and sqlite3 instrumentations, as the entrypoint does", () =>
        expect(
          disabled({ release: "1.5.0", releaseFacts: OGX, monitoringEnv: OTEL }),
        ).to.deep.equal({
          name: "OTEL_PYTHON_DISABLED_INSTRUMENTATIONS",
          value: "asyncpg,sqlite3",
        }));
      it("a value of the user's replaces ours; no wrapper, no value", () => {
        const mine = { name: "OTEL_PYTHON_DISABLED_INSTRUMENTATIONS", value: "requests" };
        expect(disabled({ release: "1.5.0", releaseFacts: OGX, userEnv: [mine] })).to.deep.equal(
          mine,
        );
        expect(disabled({ release: "1.5.0", releaseFacts: OGX })).to.equal(undefined);
        expect(
          disabled({ release: "1.5.0", releaseFacts: OGX, monitoringEnv: OTEL, command: ["sh"] }),
        ).to.equal(undefined);
      });
    });
    it("spec.monitoring.metrics: the container port metrics after http", () =>
      expect(container({ metricsPort: 9464 })?.ports).to.deep.equal([
        { name: "http", containerPort: 8321, protocol: "TCP" },
        { name: "metrics", containerPort: 9464, protocol: "TCP" },
      ]));
    it("spec.monitoring's variables sorted with ours", () =>
      expect(
        envNames({
          release: "1.5.0",
          releaseFacts: OGX,
          monitoringEnv: { OTEL_SERVICE_NAME: "llama", OGX_METRICS_PORT: "9464" },
        }),
      ).to.deep.equal([
        "FILES_STORAGE_DIR",
        "HF_HOME",
        "HOME",
        "OGX_METRICS_PORT",
        "OGX_PORT",
        "OTEL_PYTHON_DISABLED_INSTRUMENTATIONS",
        "OTEL_SERVICE_NAME",
        "RUN_CONFIG_PATH",
        "SQLITE_STORE_DIR",
      ]));
    it("terminationGracePeriodSeconds on the pod, only when set", () => {
      expect(
        pod({ pod: { terminationGracePeriodSeconds: 120 } })?.terminationGracePeriodSeconds,
      ).to.equal(120);
      expect(pod({})).to.not.have.property("terminationGracePeriodSeconds");
      expect(container({})?.ports).to.have.length(1);
    });
    it("does not change its input", () => {
      const input: DeploymentInput = {
        ...BASE,
        userEnv: [{ name: "A", value: "1" }],
        podLabels: { a: "b" },
      };
      const before = structuredClone(input);
      buildDeployment(input);
      expect(input).to.deep.equal(before);
    });
  });
});
