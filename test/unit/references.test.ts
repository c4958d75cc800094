// Table tests of the references a spec makes: what /customize asks Metacontroller
// for and what sync checks exists, for valid specs and (best effort) invalid ones.
import { specBindings } from "../../src/config/bindings.js";
import { expect } from "chai";
import { LlamaStackDistributionSpec } from "../../src/api/schema.js";
import { collectReferences, namesOf, scanReferences } from "../../src/references.js";

const spec = (extra: object) =>
  LlamaStackDistributionSpec.parse({ distribution: { name: "starter" }, ...extra });
const show = (refs: ReturnType<typeof collectReferences>) =>
  refs.map((r) => `${r.kind} ${r.name} [${r.keys.join(",")}] ${r.path}`);

describe("collectReferences", () => {
  const rows: [string, object, string[]][] = [
    ["nothing referenced", {}, []],
    [
      "a provider's apiKey and secretRefs",
      {
        providers: {
          inference: [
            {
              provider: "vllm",
              apiKey: { secretKeyRef: { name: "k", key: "token" } },
              secretRefs: { password: { secretKeyRef: { name: "p", key: "pw" } } },
            },
          ],
        },
      },
      [
        "Secret k [token] spec.providers.inference[0].apiKey.secretKeyRef",
        "Secret p [pw] spec.providers.inference[0].secretRefs.password.secretKeyRef",
      ],
    ],
    [
      "a postgres Secret needs every connection key",
      { storage: { sql: { type: "postgres", secretName: "pg" } } },
      ["Secret pg [dbname,host,password,port,user] spec.storage.sql.secretName"],
    ],
    [
      "server TLS, with the client CA when mutual",
      { networking: { tls: { enabled: true, secretName: "t", requireClientCertificate: true } } },
      ["Secret t [ca.crt,tls.crt,tls.key] spec.networking.tls.secretName"],
    ],
    [
      "the override ConfigMap needs config.yaml",
      { overrideConfig: { configMapName: "cfg" } },
      ["ConfigMap cfg [config.yaml] spec.overrideConfig.configMapName"],
    ],
    [
      "a custom image's base config needs its key (config.yaml by default)",
      {
        distribution: {
          image: "reg.example.com/acme:1",
          release: "1.5.0",
          baseConfig: { configMapName: "acme-base" },
        },
      },
      ["ConfigMap acme-base [config.yaml] spec.distribution.baseConfig.configMapName"],
    ],
    [
      "a custom image's base config under a key of its own",
      {
        distribution: {
          image: "reg.example.com/acme:1",
          release: "0.7.3",
          baseConfig: { configMapName: "acme-base", key: "run.yaml" },
        },
      },
      ["ConfigMap acme-base [run.yaml] spec.distribution.baseConfig.configMapName"],
    ],
    [
      "optional override references are not required",
      {
        workload: {
          overrides: {
            env: [
              { name: "A", valueFrom: { secretKeyRef: { name: "s", key: "a", optional: true } } },
              { name: "B", valueFrom: { configMapKeyRef: { name: "c", key: "b" } } },
            ],
          },
        },
      },
      ["ConfigMap c [b] spec.workload.overrides.env[1].valueFrom.configMapKeyRef"],
    ],
  ];
  for (const [what, extra, want] of rows)
    it(what, () => {
      const s = spec(extra);
      expect(show(collectReferences(s, specBindings(s)))).to.deep.equal(want);
    });
});

describe("scanReferences (a spec that does not parse)", () => {
  const rows: [string, unknown, string[]][] = [
    ["null", null, []],
    ["a string", "spec", []],
    [
      "names found anywhere, in document order",
      {
        distribution: 3,
        providers: { inference: [{ apiKey: { secretKeyRef: { name: "k" } } }] },
        overrideConfig: { configMapName: "cfg" },
        networking: { expose: { tlsSecretName: "web" } },
      },
      [
        "Secret k [] spec.providers.inference[0].apiKey.secretKeyRef",
        "ConfigMap cfg [] spec.overrideConfig.configMapName",
        "Secret web [] spec.networking.expose.tlsSecretName",
      ],
    ],
    ["a secretKeyRef without a name is not a reference", { x: { secretKeyRef: { key: "a" } } }, []],
  ];
  for (const [what, raw, want] of rows)
    it(what, () => expect(show(scanReferences(raw))).to.deep.equal(want));

  it("is bounded in depth and count, whatever the spec", () => {
    let deep: unknown = { secretName: "deepest" };
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    expect(scanReferences(deep)).to.deep.equal([]);
    const wide = Object.fromEntries(
      Array.from({ length: 1000 }, (_, i) => [`k${i}`, { secretName: `s${i}` }]),
    );
    expect(scanReferences(wide)).to.have.length(256);
  });
});

describe("namesOf", () => {
  it("gives the names of one kind, sorted and unique", () => {
    const refs = scanReferences({
      a: { secretName: "b" },
      c: { secretName: "a" },
      d: { secretName: "b" },
    });
    expect(namesOf(refs, "Secret")).to.deep.equal(["a", "b"]);
    expect(namesOf(refs, "ConfigMap")).to.deep.equal([]);
  });
});
