// The server section: port, TLS files, workers and, on strict-TLS releases,
// insecure; and the warning for an override config that would not start.
import { expect } from "chai";
import type { KubeObject } from "../../../src/api/hook.js";
import { checkOverrideTls, hasStrictTls, withServer } from "../../../src/config/server-section.js";
import { base, releaseData } from "./fixtures.js";

describe("withServer", () => {
  const tls = { tls_certfile: "/c", tls_keyfile: "/k" };
  const rows: [
    string,
    string,
    number | undefined,
    Record<string, string | number> | undefined,
    unknown,
  ][] = [
    ["0.7.3, a port", "0.7.3", 9000, {}, { port: 9000 }],
    [
      "0.7.3, TLS and workers",
      "0.7.3",
      8321,
      { ...tls, workers: 2 },
      { port: 8321, ...tls, workers: 2 },
    ],
    ["1.5.0 without TLS: insecure", "1.5.0", 8321, {}, { port: 8321, insecure: true }],
    ["1.5.0 with TLS: no insecure", "1.5.0", 8321, tls, { port: 8321, ...tls }],
    [
      "1.5.0, nothing given: still insecure",
      "1.5.0",
      undefined,
      undefined,
      { port: 8321, insecure: true },
    ],
    ["settings win over the port", "0.7.3", 1, { port: 2 }, { port: 2 }],
  ];
  for (const [what, release, port, settings, want] of rows)
    it(what, () => expect(withServer(base(release), port, settings).server).to.deep.equal(want));

  it("0.7.3, nothing given: the same config", () => {
    const b = base("0.7.3");
    expect(withServer(b, undefined, undefined)).to.equal(b);
  });
});

describe("checkOverrideTls", () => {
  const strict = releaseData("1.5.0");
  const cm = (data: unknown): KubeObject => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cfg" },
    data,
  });
  const rows: [string, unknown, boolean][] = [
    ["no TLS, no insecure", { "config.yaml": "server:\n  port: 8321\n" }, true],
    ["TLS files", { "config.yaml": "server:\n  tls_certfile: a\n  tls_keyfile: b\n" }, false],
    ["insecure", { "config.yaml": "server:\n  insecure: true\n" }, false],
    ["hostile: insecure as a string", { "config.yaml": 'server:\n  insecure: "true"\n' }, true],
    ["hostile: server a list", { "config.yaml": "server: [a]\n" }, true],
    ["hostile: a YAML list", { "config.yaml": "- a\n" }, true],
    ["hostile: not YAML (the server says so itself)", { "config.yaml": "a: [" }, false],
    ["hostile: no config.yaml key", { other: "x" }, false],
    ["hostile: data a string", "config.yaml", false],
    ["hostile: a key inherited by every object", { constructor: "x" }, false],
  ];
  for (const [what, data, warns] of rows)
    it(what, () => expect(checkOverrideTls(cm(data), strict) !== undefined).to.equal(warns));

  it("says which bound an override too large to check breaks, naming the ConfigMap", () => {
    const data = { "config.yaml": `server:\n  insecure: true\nx: [${"a,".repeat(30_000)}]\n` };
    const warning = checkOverrideTls(cm(data), strict);
    expect(warning && `${warning.reason} ${warning.path}: ${warning.detail}`).to.equal(
      "OverrideNotChecked spec.overrideConfig.configMapName: ConfigMap cfg's config.yaml was not checked for the server's TLS settings: it holds more than 20000 YAML nodes (scalars, aliases and collections); shorten it",
    );
  });

  it("reads the override as the server's YAML 1.1 does: `insecure: yes` is true", () => {
    expect(checkOverrideTls(cm({ "config.yaml": "server:\n  insecure: yes\n" }), strict)).to.equal(
      undefined,
    );
  });

  it("never on a release without strict TLS, or an unknown one", () => {
    const data = { "config.yaml": "server: {}\n" };
    expect(checkOverrideTls(cm(data), releaseData("0.7.3"))).to.equal(undefined);
    expect(checkOverrideTls(cm(data), undefined)).to.equal(undefined);
    expect([
      hasStrictTls(strict),
      hasStrictTls(releaseData("0.7.3")),
      hasStrictTls(undefined),
    ]).to.deep.equal([true, false, false]);
  });
});
