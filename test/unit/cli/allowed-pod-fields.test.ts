// render reads ALLOWED_POD_FIELDS as the hook does (the confused-deputy rule,
// src/children/pod-policy.ts): without it an nfs volume is a RestrictedPodField
// warning, with `nfs` it passes silently, and a name that is neither a
// PodSecurity check nor a volume type stops render with exit 2.
import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ALLOWABLE_NAMES } from "../../../src/api/pod-security.js";
import { msg } from "../../../src/messages.js";

const root = join(import.meta.dirname, "..", "..", "..");

const RESOURCE = `apiVersion: llamastack.io/v1alpha2
kind: LlamaStackDistribution
metadata: {name: llama}
spec:
  distribution: {name: starter}
  providers:
    inference: [{provider: vllm, endpoint: "http://vllm:8000/v1"}]
  workload:
    overrides:
      volumes: [{name: models, nfs: {server: nas, path: /models}}]
      volumeMounts: [{name: models, mountPath: /models, readOnly: true}]
`;

function render(allowed: string | undefined) {
  const env = { ...process.env };
  delete env["ALLOWED_POD_FIELDS"];
  if (allowed !== undefined) env["ALLOWED_POD_FIELDS"] = allowed;
  return spawnSync(
    "node",
    ["--import", "tsx", join(root, "src", "cli", "main.ts"), "render", "-"],
    {
      cwd: root,
      encoding: "utf8",
      input: RESOURCE,
      env,
    },
  );
}

describe("render and ALLOWED_POD_FIELDS", function () {
  this.timeout(60_000);

  it("unset: the nfs volume is a RestrictedPodField warning, exit 0", () => {
    const run = render(undefined);
    expect(run.status, run.stderr).to.equal(0);
    expect(run.stderr).to.include(
      "warning: RestrictedPodField: spec.workload.overrides.volumes[0]: volume models uses volume type nfs",
    );
  });

  it("nfs: no warning", () => {
    const run = render("nfs");
    expect(run.status, run.stderr).to.equal(0);
    expect(run.stderr).to.not.include("RestrictedPodField");
    expect(run.stdout).to.include("nfs:");
  });

  it("an unknown name: exit 2, naming it and what is known", () => {
    const run = render("nfs,NFSv4");
    expect(run.status).to.equal(2);
    expect(run.stderr).to.equal(
      `llsd-hook: ${msg.unknownAllowedPodFields(["NFSv4"], ALLOWABLE_NAMES)}\n`,
    );
  });
});
