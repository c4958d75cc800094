// Warnings as a user's tools see them (docs/operations/status.md#warnings):
// the hook's answer for a resource with two warnings, stored through the real
// API server's status subresource (nothing pruned under the CRD's schema),
// then matched by the suite's kubectl: `kubectl wait --for=condition=<reason>`
// returns for each warning that holds and times out for one that does not,
// and a jsonpath filter on the type reads its message.
import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import type { KubeObject } from "../../src/api/hook.js";
import { API_VERSION, KIND } from "../../src/api/schema.js";
import type { Status } from "../../src/api/status.js";
import { kubectl, root } from "../support/tools.js";
import { restrictedNamespace } from "./kube.js";
import { cluster } from "./setup.js";

const NS = "llsd-warning-conditions";
const RESOURCE = "llamastackdistributions";
const CASE = "test/golden/cases/wl-pdb-single-replica-skipped";

function run(args: string[]) {
  return spawnSync(kubectl(), [...args, "-n", NS], {
    encoding: "utf8",
    env: { ...process.env, KUBECONFIG: cluster().kubeconfig },
  });
}

describe("warning conditions, through kubectl and the real API server", function () {
  this.timeout(60_000);
  let answer: Status;

  before(async () => {
    const kube = cluster().kube;
    const request = parse(readFileSync(join(root, CASE, "request.yaml"), "utf8")) as {
      parent: { spec: unknown };
    };
    answer = (parse(readFileSync(join(root, CASE, "response.yaml"), "utf8")) as { status: Status })
      .status;
    await kube.mustCreate("v1", "namespaces", restrictedNamespace(NS));
    const parent = await kube.mustCreate(API_VERSION, RESOURCE, {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: { name: "llama", namespace: NS },
      spec: request.parent.spec,
    });
    await kube.replaceStatus(API_VERSION, RESOURCE, {
      ...parent,
      status: { ...answer, observedGeneration: parent.metadata.generation },
    });
  });

  // The stored-versions test deletes the CRD last and needs every other test's objects gone.
  after(async () => {
    await cluster().kube.remove(API_VERSION, RESOURCE, NS, "llama");
    await cluster().kube.remove("v1", "namespaces", undefined, NS);
  });

  it("the API server keeps every condition the hook wrote, the warnings among them", async () => {
    const stored = (await cluster().kube.get(API_VERSION, RESOURCE, NS, "llama")) as
      (KubeObject & { status?: Status }) | undefined;
    expect(stored?.status?.conditions).to.deep.equal(answer.conditions);
    expect(answer.conditions?.map((c) => c.type)).to.include.members([
      "RetiredImage",
      "PdbSkipped",
    ]);
  });

  it("kubectl wait --for=condition=<reason> returns for each warning that holds, times out for another", () => {
    for (const reason of ["PdbSkipped", "RetiredImage"]) {
      const out = run(["wait", "llsd/llama", `--for=condition=${reason}`, "--timeout=10s"]);
      expect([out.status, out.stdout.trim()], out.stderr).to.deep.equal([
        0,
        `llamastackdistribution.llamastack.io/llama condition met`,
      ]);
    }
    const absent = run(["wait", "llsd/llama", "--for=condition=VolumeKept", "--timeout=2s"]);
    expect(absent.status).to.equal(1);
    expect(absent.stderr).to.include("timed out");
  });

  it("a jsonpath filter on the condition type reads the warning's message", () => {
    const out = run([
      "get",
      "llsd",
      "llama",
      "-o",
      'jsonpath={.status.conditions[?(@.type=="PdbSkipped")].message}',
    ]);
    expect(out.status, out.stderr).to.equal(0);
    expect(out.stdout).to.equal(answer.conditions?.find((c) => c.type === "PdbSkipped")?.message);
    expect(out.stdout).to.match(/^spec\.workload\.podDisruptionBudget: no PodDisruptionBudget/);
  });
});
