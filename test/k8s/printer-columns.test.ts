// The CRD's printer columns as a user sees them: `kubectl get llsd` and
// `kubectl get llsd -o wide` (the suite's kubectl, of the control plane's
// release) against the real API server, on a resource whose status the hook
// wrote (a golden case's answer, stored through the status subresource).
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { API_VERSION, KIND } from "../../src/api/schema.js";
import { kubectl, root } from "../support/tools.js";
import { restrictedNamespace } from "./kube.js";
import { cluster } from "./setup.js";

const NS = "llsd-printer-columns";
const RESOURCE = "llamastackdistributions";

/** The header and the row of `kubectl get llsd llama`, split on runs of spaces. */
function table(wide: boolean): { header: string[]; row: string[] } {
  const out = execFileSync(
    kubectl(),
    ["get", "llsd", "llama", "-n", NS, ...(wide ? ["-o", "wide"] : [])],
    { encoding: "utf8", env: { ...process.env, KUBECONFIG: cluster().kubeconfig } },
  );
  const [header = "", row = ""] = out.trimEnd().split("\n");
  return { header: header.trim().split(/\s{2,}/), row: row.trim().split(/\s{2,}/) };
}

describe("the printer columns, through kubectl and the real API server", function () {
  this.timeout(60_000);

  before(async () => {
    const kube = cluster().kube;
    await kube.mustCreate("v1", "namespaces", restrictedNamespace(NS));
    const parent = await kube.mustCreate(API_VERSION, RESOURCE, {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: { name: "llama", namespace: NS },
      spec: { distribution: { name: "starter" } },
    });
    const answer = parse(
      readFileSync(join(root, "test/golden/cases/hook-steady-state-ready/response.yaml"), "utf8"),
    ) as { status: Record<string, unknown> };
    await kube.replaceStatus(API_VERSION, RESOURCE, {
      ...parent,
      status: { ...answer.status, observedGeneration: parent.metadata.generation },
    });
  });

  // The stored-versions test deletes the CRD last and needs every other test's objects gone.
  after(async () => {
    await cluster().kube.remove(API_VERSION, RESOURCE, NS, "llama");
    await cluster().kube.remove("v1", "namespaces", undefined, NS);
  });

  it("kubectl get llsd: phase, distribution, release, Ready and its reason, age", () => {
    const { header, row } = table(false);
    expect(header).to.deep.equal([
      "NAME",
      "PHASE",
      "DISTRIBUTION",
      "RELEASE",
      "READY",
      "REASON",
      "AGE",
    ]);
    expect(row.slice(0, 6)).to.deep.equal(["llama", "Ready", "starter", "0.7.3", "True", "Ready"]);
  });

  it("kubectl get llsd -o wide adds the image and the URL", () => {
    const { header, row } = table(true);
    expect(header.slice(-2)).to.deep.equal(["IMAGE", "URL"]);
    expect(row.slice(-2)).to.deep.equal([
      "docker.io/llamastack/distribution-starter:0.7.3",
      "http://llama-service.default.svc.cluster.local:8321",
    ]);
  });
});
