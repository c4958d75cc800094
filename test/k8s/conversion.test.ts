// v1alpha1 through the conversion webhook on a real kube-apiserver: the CRD
// with the v1alpha1 component's version and a Webhook conversion pointing at a
// hook this test starts over HTTPS (its CA and certificate made with openssl
// in a temp dir, never committed), with HOOK_TOKEN_FILE set — the API server
// sends no token, and /convert needs none. Objects created at one version are
// read at the other (the API server calls the hook), and a v1alpha1 object
// comes back from storage with the spec it was created with.
import { expect } from "chai";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { CRD_FILE } from "../../src/api/crd-file.js";
import { freePort } from "../net.js";
import { waitFor } from "./kube.js";
import { cluster } from "./setup.js";
import {
  crdWithConversion,
  makeCertificates,
  putCrd,
  root,
  startHook,
  type Crd,
} from "./conversion-webhook.js";

const NS = "llsd-convert";
const RESOURCE = "llamastackdistributions";
const V1 = "llamastack.io/v1alpha1";
const V2 = "llamastack.io/v1alpha2";

const V1_SPEC = {
  replicas: 1,
  server: {
    distribution: { name: "starter" },
    containerSpec: {
      name: "llama-stack",
      port: 8321,
      env: [{ name: "INFERENCE_MODEL", value: "llama3.2:1b" }],
    },
    userConfig: { configMapName: "run-config", configMapNamespace: "shared-configs" },
    // mountPath given: v1alpha2's schema defaults it when the stored object is
    // read, and a default added there comes back as a new field (docs/conversion.md).
    storage: { size: "20Gi", mountPath: "/.llama" },
    // A fork's own field: the v1alpha1 schema keeps it, the annotation carries it.
    forkExtension: { enabled: true, level: 3 },
  },
  network: { exposeRoute: false, allowedFrom: { namespaces: ["clients"] } },
};

describe("v1alpha1 through the conversion webhook on a real kube-apiserver", function () {
  this.timeout(120_000);
  let dir = "";
  let hook: { proc: ChildProcess; log: () => string } | undefined;
  let baseSpec: Record<string, unknown> = {};

  before(async () => {
    const kube = cluster().kube;
    dir = mkdtempSync(join(tmpdir(), "llsd-convert-"));
    makeCertificates(dir);
    const port = await freePort();
    hook = startHook(dir, port, await freePort());
    const started = hook;
    await waitFor(
      "the hook to listen",
      async () => (started.log().includes("llsd-hook listening") ? true : undefined),
      60_000,
    );
    const base = parse(readFileSync(join(root, CRD_FILE), "utf8")) as Crd;
    baseSpec = base.spec;
    const ca = readFileSync(join(dir, "ca.crt"));
    await putCrd(crdWithConversion(base, `https://127.0.0.1:${port}/convert`, ca).spec);
    await kube.mustCreate("v1", "namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: NS },
    });
    // The new version is served once discovery and the handler are updated.
    await waitFor(
      "v1alpha1 to be served",
      async () => {
        const res = await kube.create(
          V1,
          RESOURCE,
          {
            apiVersion: V1,
            kind: "LlamaStackDistribution",
            metadata: { name: "probe", namespace: NS },
            spec: { server: { distribution: { name: "starter" } } },
          },
          { dryRun: "All" },
        );
        return res.status === 201 ? true : undefined;
      },
      60_000,
    );
  });

  after(async () => {
    const kube = cluster().kube;
    for (const name of ["from-v1alpha1", "from-v1alpha2"])
      await kube.remove(V2, RESOURCE, NS, name);
    await putCrd({ ...baseSpec, conversion: { strategy: "None" } });
    hook?.proc.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  it("a v1alpha1 object created through the API reads back as v1alpha2, converted by the hook", async () => {
    const kube = cluster().kube;
    const obj = {
      apiVersion: V1,
      kind: "LlamaStackDistribution",
      metadata: { name: "from-v1alpha1", namespace: NS },
      spec: V1_SPEC,
    };
    const res = await kube.create(V1, RESOURCE, obj);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const v2 = (await kube.get(V2, RESOURCE, NS, "from-v1alpha1")) as Crd;
    expect(v2.apiVersion).to.equal(V2);
    expect(v2.spec["distribution"]).to.deep.include({ name: "starter", release: "0.7.3" });
    expect(v2.spec["workload"]).to.deep.include({ replicas: 1 });
    // No overrideConfig: the ConfigMap is in another namespace (status says so).
    expect(v2.spec["overrideConfig"]).to.equal(undefined);
    const kept = v2.metadata.annotations?.["llamastack.io/v1alpha1-fields"] ?? "";
    expect(kept).to.include("forkExtension").and.include("configMapNamespace");
    expect(hook?.log()).to.match(/"path":"\/convert","status":200/);
  });

  it("and reads back as v1alpha1 with the very spec it was created with", async () => {
    const v1 = (await cluster().kube.get(V1, RESOURCE, NS, "from-v1alpha1")) as Crd;
    expect(v1.apiVersion).to.equal(V1);
    expect(v1.spec).to.deep.equal(V1_SPEC);
  });

  it("a v1alpha2 object reads back as v1alpha1, and as v1alpha2 again unchanged", async () => {
    const kube = cluster().kube;
    const spec = {
      distribution: { name: "starter", release: "0.7.3" },
      workload: { replicas: 1, workers: 2 },
    };
    const created = await kube.mustCreate(V2, RESOURCE, {
      apiVersion: V2,
      kind: "LlamaStackDistribution",
      metadata: { name: "from-v1alpha2", namespace: NS },
      spec,
    });
    const v1 = (await kube.get(V1, RESOURCE, NS, "from-v1alpha2")) as Crd;
    expect(v1.apiVersion).to.equal(V1);
    expect(v1.spec).to.deep.include({ replicas: 1 });
    expect(v1.spec["server"]).to.deep.include({ distribution: { name: "starter" }, workers: 2 });
    const again = (await kube.get(V2, RESOURCE, NS, "from-v1alpha2")) as Crd;
    expect(again.spec).to.deep.equal((created as Crd).spec);
  });
});
