// Table tests for the Service, the ServiceAccount and the server's URL.
import { expect } from "chai";
import { buildServiceAccount } from "../../../src/children/service-account.js";
import { buildService, serviceUrl } from "../../../src/children/service.js";

const owner = { llsd: "llama", namespace: "team-a" };

describe("buildService", () => {
  const rows: [port: number][] = [[8321], [1024], [65535]];
  for (const [port] of rows)
    it(`port ${port}: the named container port behind it`, () => {
      const service = buildService({ ...owner, port });
      expect(service.metadata.name).to.equal("llama-service");
      expect(service.metadata.namespace).to.equal("team-a");
      expect(service.spec).to.deep.equal({
        type: "ClusterIP",
        selector: {
          "app.kubernetes.io/name": "llama-stack",
          "app.kubernetes.io/instance": "llama",
        },
        ports: [{ name: "http", port, targetPort: "http", protocol: "TCP" }],
      });
    });
});

describe("buildService with spec.monitoring.metrics", () => {
  it("adds the port metrics behind the container port of that name", () =>
    expect(buildService({ ...owner, port: 8321, metricsPort: 9464 }).spec?.ports).to.deep.equal([
      { name: "http", port: 8321, targetPort: "http", protocol: "TCP" },
      { name: "metrics", port: 9464, targetPort: "metrics", protocol: "TCP" },
    ]));
  it("without it, the server port only", () =>
    expect(
      buildService({ ...owner, port: 8321, metricsPort: undefined }).spec?.ports,
    ).to.have.length(1));
});

describe("serviceUrl", () => {
  const rows: [port: number, tls: boolean, url: string][] = [
    [8321, false, "http://llama-service.team-a.svc.cluster.local:8321"],
    [8443, true, "https://llama-service.team-a.svc.cluster.local:8443"],
  ];
  for (const [port, tls, url] of rows)
    it(url, () => expect(serviceUrl({ ...owner, port, tls })).to.equal(url));
});

describe("buildServiceAccount", () => {
  it("mounts no API token", () =>
    expect(buildServiceAccount(owner)).to.deep.include({
      apiVersion: "v1",
      kind: "ServiceAccount",
      automountServiceAccountToken: false,
    }));
  it("is named <name>-sa", () =>
    expect(buildServiceAccount(owner).metadata.name).to.equal("llama-sa"));
});
