// Table tests for the NetworkPolicy of networking.allowedFrom.
import { expect } from "chai";
import { allowedPeers, buildNetworkPolicy } from "../../../src/children/network-policy.js";

const byName = (values: string[]) => ({
  namespaceSelector: {
    matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values }],
  },
});
const byLabel = (key: string) => ({
  namespaceSelector: { matchExpressions: [{ key, operator: "Exists" }] },
});

describe("allowedPeers", () => {
  const rows: [namespaces: string[], labels: string[], peers: unknown[], why: string][] = [
    [[], [], [], "nothing listed: nothing admitted"],
    [["*"], [], [{ namespaceSelector: {} }], "every namespace"],
    [["a", "*"], [], [{ namespaceSelector: {} }], "* wins over names"],
    [["b", "a"], [], [byName(["a", "b"])], "names, sorted"],
    [["a", "a"], [], [byName(["a", "a"])], "a repeated name is kept (the API server accepts it)"],
    [[], ["team", "env"], [byLabel("env"), byLabel("team")], "one peer per label key, sorted"],
    [["*"], ["env"], [{ namespaceSelector: {} }, byLabel("env")], "labels still listed with *"],
    [["a"], ["env"], [byName(["a"]), byLabel("env")], "names first"],
    [
      ["__proto__"],
      ["constructor"],
      [byName(["__proto__"]), byLabel("constructor")],
      "hostile keys are plain names",
    ],
  ];
  for (const [namespaces, labels, peers, why] of rows)
    it(why, () => expect(allowedPeers(namespaces, labels)).to.deep.equal(peers));

  it("does not sort its inputs in place", () => {
    const namespaces = Object.freeze(["b", "a"]);
    const labels = Object.freeze(["z", "y"]);
    allowedPeers(namespaces, labels);
    expect(namespaces).to.deep.equal(["b", "a"]);
    expect(labels).to.deep.equal(["z", "y"]);
  });
});

describe("buildNetworkPolicy", () => {
  it("admits the peers on the server port only, for this server's pods", () => {
    const policy = buildNetworkPolicy({
      llsd: "llama",
      namespace: "default",
      port: 8443,
      namespaces: ["ui"],
      labels: [],
    });
    expect(policy.metadata.name).to.equal("llama-network-policy");
    expect(policy.spec).to.deep.equal({
      podSelector: {
        matchLabels: {
          "app.kubernetes.io/name": "llama-stack",
          "app.kubernetes.io/instance": "llama",
        },
      },
      policyTypes: ["Ingress"],
      ingress: [{ from: [byName(["ui"])], ports: [{ protocol: "TCP", port: 8443 }] }],
    });
  });

  describe("the metrics port (spec.monitoring.metrics)", () => {
    const policy = (metrics: Parameters<typeof buildNetworkPolicy>[0]["metrics"]) =>
      buildNetworkPolicy({
        llsd: "llama",
        namespace: "default",
        port: 8321,
        namespaces: ["apps"],
        labels: [],
        metrics,
      }).spec?.ingress;
    const rows: [why: string, metrics: Parameters<typeof policy>[0], ingress: unknown[]][] = [
      [
        "without metrics: the server port only",
        undefined,
        [{ from: [byName(["apps"])], ports: [{ protocol: "TCP", port: 8321 }] }],
      ],
      [
        "the same peers: both ports in one rule",
        { port: 9464 },
        [
          {
            from: [byName(["apps"])],
            ports: [
              { protocol: "TCP", port: 8321 },
              { protocol: "TCP", port: 9464 },
            ],
          },
        ],
      ],
      [
        "peers of its own: a second rule, for the metrics port only",
        { port: 9464, from: { namespaces: ["monitoring"], labels: ["prometheus"] } },
        [
          { from: [byName(["apps"])], ports: [{ protocol: "TCP", port: 8321 }] },
          {
            from: [byName(["monitoring"]), byLabel("prometheus")],
            ports: [{ protocol: "TCP", port: 9464 }],
          },
        ],
      ],
      [
        "every namespace may scrape",
        { port: 9464, from: { namespaces: ["*"], labels: [] } },
        [
          { from: [byName(["apps"])], ports: [{ protocol: "TCP", port: 8321 }] },
          { from: [{ namespaceSelector: {} }], ports: [{ protocol: "TCP", port: 9464 }] },
        ],
      ],
    ];
    for (const [why, metrics, ingress] of rows)
      it(why, () => expect(policy(metrics)).to.deep.equal(ingress));
  });

  it("with nothing listed, admits no one (from: [] denies every peer)", () => {
    const policy = buildNetworkPolicy({
      llsd: "llama",
      namespace: "default",
      port: 8321,
      namespaces: [],
      labels: [],
    });
    expect(policy.spec?.ingress?.[0]?.from).to.deep.equal([]);
  });
});
