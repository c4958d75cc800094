// Table tests for the checks on spec.workload.overrides: what the hook puts in
// the pod is reserved, and what the API server refuses twice is refused once.
import { expect } from "chai";
import type { Overrides } from "../../../src/api/workload.js";
import { checkOverrides } from "../../../src/children/overrides.js";
import { podLayout, type LayoutInput } from "../../../src/children/pod-layout.js";
import { releaseFacts } from "../../../src/release.js";
import { msg } from "../../../src/messages.js";
import { formatProblem } from "../../../src/problems.js";

const AT = "spec.workload.overrides";
// The layouts the checks reserve: what the Deployment mounts for each input (pod-layout.ts).
const LLAMA: LayoutInput = {
  configMapName: "llama-config",
  dataDir: "/.llama",
  pvcName: undefined,
  releaseFacts: releaseFacts("0.7.3"),
  port: 8321,
  tls: undefined,
};
const OGX: LayoutInput = { ...LLAMA, releaseFacts: releaseFacts("1.5.0") };
const CUSTOM_IMAGE: LayoutInput = { ...LLAMA, dataDir: "/data", releaseFacts: undefined }; // release unknown: no OGX volume
const BUNDLE = { configMapName: "ca", key: "ca.crt" };
const TRUSTING: LayoutInput = { ...LLAMA, caBundle: BUNDLE };
const env = (...names: string[]) => names.map((name) => ({ name, value: "x" }));
const volumes = (...names: string[]) => names.map((name) => ({ name, emptyDir: {} }));
const mounts = (...paths: string[]) => paths.map((mountPath, i) => ({ name: `v${i}`, mountPath }));

describe("checkOverrides", () => {
  const rows: [
    why: string,
    overrides: Overrides | undefined,
    layout: LayoutInput,
    problems: string[],
  ][] = [
    ["no overrides", undefined, LLAMA, []],
    ["empty overrides", {}, LLAMA, []],
    // env
    [
      "the data paths may be set",
      { env: env("HOME", "HF_HOME", "SQLITE_STORE_DIR", "FILES_STORAGE_DIR") },
      LLAMA,
      [],
    ],
    [
      "a variable of ours",
      { env: env("MY_VAR", "RUN_CONFIG_PATH") },
      LLAMA,
      [`${AT}.env[1].name: ${msg.reservedEnv("RUN_CONFIG_PATH")}`],
    ],
    [
      "the LLSD_ prefix",
      { env: env("LLSD_ANYTHING") },
      LLAMA,
      [`${AT}.env[0].name: ${msg.reservedEnv("LLSD_ANYTHING")}`],
    ],
    [
      "OGX names are reserved in every release",
      { env: env("OGX_PORT") },
      CUSTOM_IMAGE,
      [`${AT}.env[0].name: ${msg.reservedEnv("OGX_PORT")}`],
    ],
    [
      "a name set twice: the second is reported",
      { env: env("A", "B", "A") },
      LLAMA,
      [`${AT}.env[2].name: ${msg.duplicateEnv("A")}`],
    ],
    [
      "a reserved name twice: reserved both times, never a duplicate",
      { env: env("OGX_CONFIG", "OGX_CONFIG") },
      LLAMA,
      [
        `${AT}.env[0].name: ${msg.reservedEnv("OGX_CONFIG")}`,
        `${AT}.env[1].name: ${msg.reservedEnv("OGX_CONFIG")}`,
      ],
    ],
    [
      "hostile: a name like an Object property",
      { env: env("constructor", "__proto__") },
      LLAMA,
      [],
    ],
    // volumes
    [
      "our volume names",
      { volumes: volumes("cache", "data") },
      LLAMA,
      [`${AT}.volumes[1].name: ${msg.reservedVolume("data")}`],
    ],
    ["ogx-tmp is free before OGX", { volumes: volumes("ogx-tmp") }, LLAMA, []],
    [
      "ogx-tmp is ours on OGX",
      { volumes: volumes("ogx-tmp") },
      OGX,
      [`${AT}.volumes[0].name: ${msg.reservedVolume("ogx-tmp")}`],
    ],
    ["a custom image is not OGX", { volumes: volumes("ogx-tmp") }, CUSTOM_IMAGE, []],
    ["trust is free without spec.trust", { volumes: volumes("trust") }, LLAMA, []],
    [
      "trust is ours with spec.trust",
      { volumes: volumes("trust") },
      TRUSTING,
      [`${AT}.volumes[0].name: ${msg.reservedVolume("trust")}`],
    ],
    [
      "a volume name twice",
      { volumes: volumes("a", "a") },
      LLAMA,
      [`${AT}.volumes[1].name: ${msg.duplicateVolume("a")}`],
    ],
    // mounts
    ["a free path", { volumeMounts: mounts("/models") }, LLAMA, []],
    [
      "the config directory",
      { volumeMounts: mounts("/etc/llama-stack") },
      LLAMA,
      [`${AT}.volumeMounts[0].mountPath: ${msg.reservedMountPath("/etc/llama-stack")}`],
    ],
    [
      "trailing slashes do not hide a reserved path",
      { volumeMounts: mounts("/etc/llama-stack/tls//") },
      LLAMA,
      [`${AT}.volumeMounts[0].mountPath: ${msg.reservedMountPath("/etc/llama-stack/tls//")}`],
    ],
    [
      "the data directory is wherever storage mounts it",
      { volumeMounts: mounts("/.llama", "/data") },
      CUSTOM_IMAGE,
      [`${AT}.volumeMounts[1].mountPath: ${msg.reservedMountPath("/data")}`],
    ],
    [
      "below a reserved path is free",
      { volumeMounts: mounts("/etc/llama-stack/extra") },
      LLAMA,
      [],
    ],
    ["/tmp is free before OGX", { volumeMounts: mounts("/tmp") }, LLAMA, []],
    // spec.auth's CA volume, only when spec.auth mounts one
    [
      "auth-ca and its path are free without spec.auth",
      { volumes: volumes("auth-ca"), volumeMounts: mounts("/etc/llama-stack/auth-ca") },
      OGX,
      [],
    ],
    [
      "auth-ca and its path (trailing slash too) are ours with spec.auth",
      { volumes: volumes("auth-ca"), volumeMounts: mounts("/etc/llama-stack/auth-ca//") },
      { ...LLAMA, authCa: BUNDLE },
      [
        `${AT}.volumes[0].name: ${msg.reservedVolume("auth-ca")}`,
        `${AT}.volumeMounts[0].mountPath: ${msg.reservedMountPath("/etc/llama-stack/auth-ca//")}`,
      ],
    ],
    [
      "the CA bundle's directory is free without spec.trust",
      { volumeMounts: mounts("/etc/llama-stack-trust") },
      LLAMA,
      [],
    ],
    [
      "the CA bundle's directory is ours with spec.trust",
      { volumeMounts: mounts("/etc/llama-stack-trust/") },
      TRUSTING,
      [`${AT}.volumeMounts[0].mountPath: ${msg.reservedMountPath("/etc/llama-stack-trust/")}`],
    ],
    [
      "/tmp is ours on OGX",
      { volumeMounts: mounts("/tmp/") },
      OGX,
      [`${AT}.volumeMounts[0].mountPath: ${msg.reservedMountPath("/tmp/")}`],
    ],
    [
      "a path twice, with and without its slash",
      { volumeMounts: mounts("/models", "/models/") },
      LLAMA,
      [`${AT}.volumeMounts[1].mountPath: ${msg.duplicateMountPath("/models/")}`],
    ],
    // pod labels and annotations, reported in key order
    [
      "the selector labels and controller-uid",
      { podLabels: { team: "a", "controller-uid": "x", "app.kubernetes.io/name": "y" } },
      LLAMA,
      [
        `${AT}.podLabels: ${msg.reservedLabel("app.kubernetes.io/name")}`,
        `${AT}.podLabels: ${msg.reservedLabel("controller-uid")}`,
      ],
    ],
    [
      "other app.kubernetes.io labels are free",
      { podLabels: { "app.kubernetes.io/version": "1" } },
      LLAMA,
      [],
    ],
    [
      "every llamastack.io annotation",
      {
        podAnnotations: {
          "llamastack.io/z": "1",
          "llamastack.io/config-hash": "x",
          "example.com/a": "b",
        },
      },
      LLAMA,
      [
        `${AT}.podAnnotations: ${msg.reservedAnnotation("llamastack.io/config-hash")}`,
        `${AT}.podAnnotations: ${msg.reservedAnnotation("llamastack.io/z")}`,
      ],
    ],
    [
      "hostile: Object property names as keys",
      {
        podLabels: { constructor: "x" },
        podAnnotations: JSON.parse('{"__proto__": "y"}') as Record<string, string>,
      },
      LLAMA,
      [],
    ],
    [
      "problems come in field order: env, volumes, mounts, labels, annotations",
      {
        podAnnotations: { "llamastack.io/a": "1" },
        podLabels: { "controller-uid": "x" },
        volumeMounts: mounts("/etc/llama-stack"),
        volumes: volumes("tls"),
        env: env("LLAMA_STACK_PORT"),
      },
      LLAMA,
      [
        `${AT}.env[0].name: ${msg.reservedEnv("LLAMA_STACK_PORT")}`,
        `${AT}.volumes[0].name: ${msg.reservedVolume("tls")}`,
        `${AT}.volumeMounts[0].mountPath: ${msg.reservedMountPath("/etc/llama-stack")}`,
        `${AT}.podLabels: ${msg.reservedLabel("controller-uid")}`,
        `${AT}.podAnnotations: ${msg.reservedAnnotation("llamastack.io/a")}`,
      ],
    ],
  ];
  for (const [why, overrides, layout, problems] of rows)
    it(why, () =>
      expect(checkOverrides(overrides, podLayout(layout)).map(formatProblem)).to.deep.equal(
        problems,
      ),
    );

  it("a hundred and twenty-eight variables of one name: each after the first once", () => {
    const overrides = { env: env(...Array.from({ length: 128 }, () => "A")) };
    const problems = checkOverrides(overrides, podLayout(LLAMA));
    expect(problems).to.have.length(127);
  });
});
