// Table tests of the resolve rung's small functions, hostile rows included.
import { expect } from "chai";
import type { KubeObject } from "../../src/api/hook.js";
import type { Status } from "../../src/api/status.js";
import { releaseHistory, type ObservedDeployment, type Related } from "../../src/observe.js";
import type { Reference } from "../../src/references.js";
import { checkReferences, inputsHash, parseSpec, recordedRelease } from "../../src/resolve.js";
import { loadCatalog } from "../../src/edge/load-catalog.js";

const catalog = loadCatalog();

function object(kind: string, name: string, keys: string[], resourceVersion = "1"): KubeObject {
  return {
    apiVersion: "v1",
    kind,
    metadata: { name, resourceVersion },
    data: Object.fromEntries(keys.map((k) => [k, "eA=="])),
  };
}

function related(...objects: KubeObject[]): Related {
  return {
    secrets: new Map(objects.filter((o) => o.kind === "Secret").map((o) => [o.metadata.name, o])),
    configMaps: new Map(
      objects.filter((o) => o.kind === "ConfigMap").map((o) => [o.metadata.name, o]),
    ),
  };
}

const key = (name: string, keys: string[], path = "spec.x"): Reference => ({
  kind: "Secret",
  name,
  keys,
  path,
});

describe("checkReferences", () => {
  const rows: [string, Reference[], Related, string[]][] = [
    ["nothing referenced", [], related(), []],
    ["present with its key", [key("s", ["k"])], related(object("Secret", "s", ["k"])), []],
    [
      "a missing Secret is reported once, however often it is used",
      [key("s", ["a"], "spec.a"), key("s", ["b"], "spec.b")],
      related(),
      ["SecretNotFound spec.a"],
    ],
    [
      "every missing key is reported where it is used",
      [key("s", ["a", "b"], "spec.a"), key("s", ["c"], "spec.c")],
      related(object("Secret", "s", ["b"])),
      ["SecretKeyNotFound spec.a", "SecretKeyNotFound spec.c"],
    ],
    [
      "a ConfigMap of the same name does not stand in for a Secret",
      [key("s", [])],
      related(object("ConfigMap", "s", [])),
      ["SecretNotFound spec.x"],
    ],
    [
      "keys under stringData and binaryData count; values are never read",
      [key("s", ["k"])],
      related({ apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, stringData: { k: "" } }),
      [],
    ],
    [
      "a hostile data field (a list, null) has no keys",
      [key("s", ["0"])],
      related({ apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, data: ["x"] }),
      ["SecretKeyNotFound spec.x"],
    ],
  ];
  for (const [what, refs, rel, want] of rows)
    it(what, () =>
      expect(checkReferences(refs, rel, "ns").map((p) => `${p.reason} ${p.path}`)).to.deep.equal(
        want,
      ),
    );

  it("names the object, the key and the namespace, never a value", () => {
    const [p] = checkReferences([key("s", ["k"])], related(object("Secret", "s", ["z"])), "ns");
    expect(p?.detail).to.equal(
      "Secret s in namespace ns has no key k; add the key or fix the reference",
    );
    expect(p?.detail).not.to.contain("eA==");
  });
});

describe("inputsHash", () => {
  const refs = [key("a", ["k"]), key("b", ["k"])];
  it("does not depend on the order or repetition of references", () => {
    const rel = related(object("Secret", "a", []), object("Secret", "b", []));
    expect(inputsHash(refs, rel)).to.equal(inputsHash([...refs].reverse().concat(refs), rel));
  });
  it("changes when a referenced object changes or appears", () => {
    const before = inputsHash(refs, related(object("Secret", "a", [], "1")));
    const edited = inputsHash(refs, related(object("Secret", "a", [], "2")));
    const created = inputsHash(
      refs,
      related(object("Secret", "a", [], "1"), object("Secret", "b", [])),
    );
    expect(new Set([before, edited, created]).size).to.equal(3);
  });
  it("is 16 hex digits", () => expect(inputsHash([], related())).to.match(/^[0-9a-f]{16}$/));
});

describe("recordedRelease", () => {
  const dep = (labels: Record<string, string>, image: string): ObservedDeployment => ({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "x-deployment", labels },
    spec: {
      selector: {},
      template: { spec: { containers: [{ name: "llama-stack", image }] } },
    },
  });
  const starter = (release: string): Status => ({
    resolvedDistribution: { name: "starter", release, image: "i", configSource: "generated" },
  });
  const rows: [string, string | undefined, Status, ObservedDeployment | undefined, unknown][] = [
    ["no distribution name", undefined, starter("0.7.3"), undefined, undefined],
    [
      "the status wins",
      "starter",
      starter("0.7.3"),
      dep({ "llamastack.io/release": "1.4.1" }, "x"),
      { release: "0.7.3", from: "status.resolvedDistribution.release" },
    ],
    [
      "a status release no longer shipped still counts (to say so)",
      "starter",
      starter("0.5.0"),
      undefined,
      { release: "0.5.0", from: "status.resolvedDistribution.release" },
    ],
    [
      "a status value not shaped like a release does not count",
      "starter",
      starter("0.7.3; rm -rf"),
      undefined,
      undefined,
    ],
    [
      "another distribution's status does not count",
      "starter",
      {
        resolvedDistribution: {
          name: "other",
          release: "0.7.3",
          image: "i",
          configSource: "generated",
        },
      },
      undefined,
      undefined,
    ],
    [
      "then the Deployment's label, if it names a release of the distribution",
      "starter",
      {},
      dep({ "llamastack.io/release": "1.4.1" }, "x"),
      { release: "1.4.1", from: "the Deployment's llamastack.io/release label" },
    ],
    [
      "a label naming no release of it does not count",
      "starter",
      {},
      dep({ "llamastack.io/release": "9.9.9" }, "x"),
      undefined,
    ],
    [
      "then the running image",
      "starter",
      {},
      dep({}, "docker.io/llamastack/distribution-starter:0.6.1"),
      {
        release: "0.6.1",
        from: "the running image docker.io/llamastack/distribution-starter:0.6.1",
      },
    ],
  ];
  for (const [what, name, status, deployment, want] of rows)
    it(what, () =>
      expect(recordedRelease(name, releaseHistory({ status, deployment }), catalog)).to.deep.equal(
        want,
      ),
    );
});

describe("parseSpec", () => {
  it("names the field of a spec too deep to validate, before validating", () => {
    let deep: unknown = "x";
    for (let i = 0; i < 100; i++) deep = { a: deep };
    const result = parseSpec({ distribution: { name: "starter" }, settings: deep }, "x");
    expect(result.ok).to.equal(false);
    if (!result.ok) expect(result.problems[0]?.path).to.match(/^spec\.settings(\.a)+$/);
  });
  it("names the field zod refuses", () => {
    const result = parseSpec({ distribution: { name: 3 } }, "x");
    expect(result.ok).to.equal(false);
    if (!result.ok) expect(result.problems[0]?.path).to.equal("spec.distribution.name");
  });
  it("gives the parsed spec with its defaults", () => {
    const result = parseSpec({ distribution: { name: "starter" } }, "x");
    expect(result.ok && result.value.distribution.name).to.equal("starter");
  });
});
