// The ServiceMonitor children on a real kube-apiserver with prometheus-operator's
// own CRD (from its published module, scripts/third-party-crds.sh): every
// ServiceMonitor the golden corpus returns is accepted with strict field
// validation, so the hand-written type in src/children/service-monitor.ts
// names only fields the CRD has, with their types.
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import type { KubeObject } from "../../src/api/hook.js";
import { SERVICE_MONITOR_TYPE } from "../../src/children/types.js";
import { loadCases, runCase } from "../support/harness.js";
import { thirdPartyCrdDir } from "../support/tools.js";
import { cluster } from "./setup.js";
import { waitFor } from "./kube.js";

const CRD = "servicemonitors.monitoring.coreos.com";

describe("ServiceMonitor children against prometheus-operator's CRD", function () {
  this.timeout(120_000);

  before(async () => {
    const kube = cluster().kube;
    const crd = parse(
      readFileSync(join(thirdPartyCrdDir(), "monitoring.coreos.com_servicemonitors.yaml"), "utf8"),
    ) as KubeObject;
    const res = await kube.apply("apiextensions.k8s.io/v1", "customresourcedefinitions", crd, {
      fieldManager: "llsd-test",
      force: true,
    });
    expect(res.status, JSON.stringify(res.body)).to.be.below(300);
    await waitFor(
      "the ServiceMonitor CRD to be established",
      async () => {
        const got = (await kube.get(
          "apiextensions.k8s.io/v1",
          "customresourcedefinitions",
          undefined,
          CRD,
        )) as
          | (KubeObject & { status?: { conditions?: { type: string; status: string }[] } })
          | undefined;
        return got?.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")
          ? true
          : undefined;
      },
      60_000,
    );
  });

  it("accepts every ServiceMonitor of the golden corpus, strictly", async () => {
    const monitors = loadCases().flatMap((c) => {
      const outcome = runCase(c.file, "v2");
      return outcome.kind === "ok"
        ? outcome.response.children
            .filter((o) => o.kind === SERVICE_MONITOR_TYPE.kind)
            .map((o) => ({ name: c.name, object: o }))
        : [];
    });
    expect(monitors.length, "golden cases with a ServiceMonitor").to.be.greaterThan(1);
    for (const { name, object } of monitors) {
      const res = await cluster().kube.create(
        SERVICE_MONITOR_TYPE.apiVersion,
        SERVICE_MONITOR_TYPE.resource,
        object,
        { dryRun: "All", fieldValidation: "Strict" },
      );
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).to.equal(201);
      expect(res.warnings, name).to.deep.equal([]);
    }
  });

  it("refuses a field the CRD lacks, so the check has teeth", async () => {
    const res = await cluster().kube.create(
      SERVICE_MONITOR_TYPE.apiVersion,
      SERVICE_MONITOR_TYPE.resource,
      {
        apiVersion: SERVICE_MONITOR_TYPE.apiVersion,
        kind: SERVICE_MONITOR_TYPE.kind,
        metadata: { name: "x", namespace: "default" },
        spec: { selector: {}, endpoints: [{ port: "metrics", scrapePath: "/metrics" }] },
      },
      { dryRun: "All", fieldValidation: "Strict" },
    );
    expect(res.status).to.equal(400);
    expect(JSON.stringify(res.body)).to.include('unknown field \\"spec.endpoints[0].scrapePath\\"');
  });
});
