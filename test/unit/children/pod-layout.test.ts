// Table tests for the pod layout: what the hook puts in the pod for each input
// (volumes, mounts, variables), and what the override checks reserve beyond it
// (TLS always, trust's directory).
import { expect } from "chai";
import { podLayout, type LayoutInput } from "../../../src/children/pod-layout.js";
import { releaseFacts } from "../../../src/release.js";

const LLAMA = releaseFacts("0.7.3");
const OGX = releaseFacts("1.5.0");

const BASE: LayoutInput = {
  configMapName: "llama-config-0123456789",
  dataDir: "/.llama",
  pvcName: undefined,
  releaseFacts: LLAMA,
  port: 8321,
  tls: undefined,
};
const BUNDLE = { configMapName: "corporate-ca", key: "ca-bundle.pem" };
const AUTH = { configMapName: "kube-root-ca.crt", key: "ca.crt" };
const tagged = (list: readonly { feature: string; name: string }[]) =>
  list.map((r) => `${r.feature}:${r.name}`);

describe("podLayout", () => {
  const rows: [
    why: string,
    over: Partial<LayoutInput>,
    mounted: string[],
    volumes: string[],
    paths: string[],
  ][] = [
    [
      "config and data only; TLS reserved though not mounted",
      {},
      ["config:/etc/llama-stack", "data:/.llama"],
      ["config:config", "data:data", "tls:tls"],
      ["config:/etc/llama-stack", "data:/.llama", "tls:/etc/llama-stack/tls"],
    ],
    [
      "the data directory is wherever storage mounts it",
      { pvcName: "llama-pvc", dataDir: "/data" },
      ["config:/etc/llama-stack", "data:/data"],
      ["config:config", "data:data", "tls:tls"],
      ["config:/etc/llama-stack", "data:/data", "tls:/etc/llama-stack/tls"],
    ],
    [
      "OGX: /tmp in memory",
      { releaseFacts: OGX },
      ["config:/etc/llama-stack", "data:/.llama", "ogx-tmp:/tmp"],
      ["config:config", "data:data", "ogx-tmp:ogx-tmp", "tls:tls"],
      ["config:/etc/llama-stack", "data:/.llama", "ogx-tmp:/tmp", "tls:/etc/llama-stack/tls"],
    ],
    [
      "a custom image (release unknown) is not OGX",
      { releaseFacts: undefined },
      ["config:/etc/llama-stack", "data:/.llama"],
      ["config:config", "data:data", "tls:tls"],
      ["config:/etc/llama-stack", "data:/.llama", "tls:/etc/llama-stack/tls"],
    ],
    [
      "TLS on: mounted, reserved once",
      { tls: { secretName: "cert" } },
      ["config:/etc/llama-stack", "data:/.llama", "tls:/etc/llama-stack/tls"],
      ["config:config", "data:data", "tls:tls"],
      ["config:/etc/llama-stack", "data:/.llama", "tls:/etc/llama-stack/tls"],
    ],
    [
      "trust mounts one file and reserves its directory",
      { caBundle: BUNDLE },
      ["config:/etc/llama-stack", "data:/.llama", "trust:/etc/llama-stack-trust/ca-bundle.crt"],
      ["config:config", "data:data", "trust:trust", "tls:tls"],
      [
        "config:/etc/llama-stack",
        "data:/.llama",
        "trust:/etc/llama-stack-trust",
        "tls:/etc/llama-stack/tls",
      ],
    ],
    [
      "the auth CA mounts its directory",
      { authCa: AUTH },
      ["config:/etc/llama-stack", "data:/.llama", "auth-ca:/etc/llama-stack/auth-ca"],
      ["config:config", "data:data", "auth-ca:auth-ca", "tls:tls"],
      [
        "config:/etc/llama-stack",
        "data:/.llama",
        "auth-ca:/etc/llama-stack/auth-ca",
        "tls:/etc/llama-stack/tls",
      ],
    ],
    [
      "everything, in the pod's order",
      { releaseFacts: OGX, tls: { secretName: "cert" }, caBundle: BUNDLE, authCa: AUTH },
      [
        "config:/etc/llama-stack",
        "data:/.llama",
        "ogx-tmp:/tmp",
        "tls:/etc/llama-stack/tls",
        "trust:/etc/llama-stack-trust/ca-bundle.crt",
        "auth-ca:/etc/llama-stack/auth-ca",
      ],
      [
        "config:config",
        "data:data",
        "ogx-tmp:ogx-tmp",
        "tls:tls",
        "trust:trust",
        "auth-ca:auth-ca",
      ],
      [
        "config:/etc/llama-stack",
        "data:/.llama",
        "ogx-tmp:/tmp",
        "tls:/etc/llama-stack/tls",
        "trust:/etc/llama-stack-trust",
        "auth-ca:/etc/llama-stack/auth-ca",
      ],
    ],
  ];
  for (const [why, over, mounted, volumes, paths] of rows)
    it(why, () => {
      const layout = podLayout({ ...BASE, ...over });
      expect(layout.volumes.map((v) => `${v.feature}:${v.mount.mountPath}`)).to.deep.equal(mounted);
      expect(layout.volumes.map((v) => v.mount.name)).to.deep.equal(
        layout.volumes.map((v) => v.volume.name),
      );
      expect(tagged(layout.reservedVolumes)).to.deep.equal(volumes);
      expect(tagged(layout.reservedMountPaths)).to.deep.equal(paths);
    });

  it("one CA shape: trust and the auth CA read their ConfigMap key alike", () => {
    const layout = podLayout({ ...BASE, caBundle: BUNDLE, authCa: AUTH });
    const [trust, authCa] = layout.volumes.slice(-2);
    expect(trust?.volume).to.deep.equal({
      name: "trust",
      configMap: { name: "corporate-ca", items: [{ key: "ca-bundle.pem", path: "ca-bundle.crt" }] },
    });
    expect(trust?.mount).to.deep.equal({
      name: "trust",
      mountPath: "/etc/llama-stack-trust/ca-bundle.crt",
      subPath: "ca-bundle.crt",
      readOnly: true,
    });
    expect(authCa?.volume).to.deep.equal({
      name: "auth-ca",
      configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] },
    });
    expect(authCa?.mount).to.deep.equal({
      name: "auth-ca",
      mountPath: "/etc/llama-stack/auth-ca",
      readOnly: true,
    });
  });

  const envRows: [why: string, over: Partial<LayoutInput>, env: string[]][] = [
    [
      "Llama Stack: the data paths, the config path and LLAMA_STACK_PORT",
      {},
      [
        "data:HOME=/.llama",
        "data:SQLITE_STORE_DIR=/.llama/data",
        "data:FILES_STORAGE_DIR=/.llama/files",
        "data:HF_HOME=/.llama/huggingface",
        "config:RUN_CONFIG_PATH=/etc/llama-stack/config.yaml",
        "config:LLAMA_STACK_CONFIG=/etc/llama-stack/config.yaml",
        "server:LLAMA_STACK_PORT=8321",
      ],
    ],
    [
      "OGX: OGX_PORT; spec.monitoring's; the trust bundle's path",
      {
        releaseFacts: OGX,
        dataDir: "/data",
        monitoringEnv: { OTEL_SERVICE_NAME: "llama" },
        caBundle: BUNDLE,
      },
      [
        "data:HOME=/data",
        "data:SQLITE_STORE_DIR=/data/data",
        "data:FILES_STORAGE_DIR=/data/files",
        "data:HF_HOME=/data/huggingface",
        "config:RUN_CONFIG_PATH=/etc/llama-stack/config.yaml",
        "server:OGX_PORT=8321",
        "monitoring:OTEL_SERVICE_NAME=llama",
        "trust:LLSD_TRUST_CA_BUNDLE=/etc/llama-stack-trust/ca-bundle.crt",
      ],
    ],
  ];
  for (const [why, over, env] of envRows)
    it(`env: ${why}`, () =>
      expect(
        podLayout({ ...BASE, ...over }).env.map((e) => `${e.feature}:${e.name}=${e.value}`),
      ).to.deep.equal(env));

  it("env: the config's and the server's names in any release, and the LLSD_ prefix", () => {
    for (const facts of [LLAMA, OGX, undefined]) {
      const layout = podLayout({ ...BASE, releaseFacts: facts });
      expect(tagged(layout.reservedEnv)).to.deep.equal([
        "config:RUN_CONFIG_PATH",
        "config:LLAMA_STACK_CONFIG",
        "config:OGX_CONFIG",
        "server:LLAMA_STACK_PORT",
        "server:OGX_PORT",
        "server:OGX_WORKERS",
      ]);
      expect(layout.reservedEnvPrefix).to.deep.equal({ feature: "hook", name: "LLSD_" });
    }
  });
});
