// Table tests for the config's ConfigMap: built from the generated config, and
// rebuilt from the live one while pods may still mount it (keep.ts, rule 3).
import { expect } from "chai";
import type { KubeObject } from "../../../src/api/hook.js";
import { buildConfigMap, configMapFromLive } from "../../../src/children/configmap.js";

const owner = { llsd: "llama", namespace: "default" };
const labels = {
  "app.kubernetes.io/name": "llama-stack",
  "app.kubernetes.io/instance": "llama",
  "app.kubernetes.io/part-of": "llama-stack",
  "app.kubernetes.io/managed-by": "llsd-hook",
};
const HASH = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

describe("buildConfigMap", () => {
  it("is immutable, named by the first ten hex digits of its hash", () =>
    expect(
      buildConfigMap({ ...owner, configYaml: "version: 2\n", configHash: HASH }),
    ).to.deep.equal({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "llama-config-0123456789", namespace: "default", labels },
      data: { "config.yaml": "version: 2\n" },
      immutable: true,
    }));

  it("an empty config is still a key", () =>
    expect(buildConfigMap({ ...owner, configYaml: "", configHash: HASH }).data).to.deep.equal({
      "config.yaml": "",
    }));
});

describe("configMapFromLive", () => {
  const live = (fields: Record<string, unknown>): KubeObject => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "llama-config-0123456789",
      namespace: "default",
      uid: "u1",
      resourceVersion: "4",
    },
    ...fields,
  });
  const rows: [
    why: string,
    fields: Record<string, unknown>,
    kept: Record<string, unknown> | undefined,
  ][] = [
    [
      "immutable with data: data and immutable kept",
      { immutable: true, data: { "config.yaml": "a: 1\n" } },
      { immutable: true, data: { "config.yaml": "a: 1\n" } },
    ],
    [
      "binaryData kept too",
      { immutable: true, binaryData: { x: "eA==" } },
      { immutable: true, binaryData: { x: "eA==" } },
    ],
    ["immutable without data", { immutable: true }, { immutable: true }],
    [
      "mutable: its data may not be what the pods started with",
      { data: { "config.yaml": "a: 1\n" } },
      undefined,
    ],
    ["immutable: false", { immutable: false, data: {} }, undefined],
    ["hostile: immutable as a string", { immutable: "true", data: {} }, undefined],
    ["hostile: a numeric value", { immutable: true, data: { "config.yaml": 1 } }, undefined],
    ["hostile: data is a list", { immutable: true, data: ["a"] }, undefined],
  ];
  for (const [why, fields, kept] of rows)
    it(why, () =>
      expect(configMapFromLive(live(fields), owner)).to.deep.equal(
        kept === undefined
          ? undefined
          : {
              apiVersion: "v1",
              kind: "ConfigMap",
              metadata: { name: "llama-config-0123456789", namespace: "default", labels },
              ...kept,
            },
      ),
    );
});
