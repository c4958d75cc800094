// v1alpha1 through the conversion webhook on a real kube-apiserver: the CRD
// with the v1alpha1 component's version and a Webhook conversion pointing at a
// hook this test starts over HTTPS (its CA and certificate made with openssl
// in a temp dir, never committed), with HOOK_TOKEN_FILE set — the API server
// sends no token, and /convert needs none. Objects created at one version are
// read at the other (the API server calls the hook), and a v1alpha1 object
// comes back from storage with the spec it was created with.
import { expect } from "chai";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import type { KubeObject } from "../../src/api/hook.js";
import { CONVERSION_PATCH_FILE, CRD_FILE } from "../../src/api/crd-file.js";
import { freePort } from "../net.js";
import { waitFor } from "./kube.js";
import { cluster } from "./setup.js";

const root = join(import.meta.dirname, "..", "..");
const NS = "llsd-convert";
const RESOURCE = "llamastackdistributions";
const CRD_API = "apiextensions.k8s.io/v1";
const CRDS = "customresourcedefinitions";
const V1 = "llamastack.io/v1alpha1";
const V2 = "llamastack.io/v1alpha2";

type Crd = KubeObject & { spec: Record<string, unknown> };

function openssl(args: string[]): void {
  execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
}

/** A CA and a serving certificate for 127.0.0.1, in `dir`. */
function makeCertificates(dir: string): void {
  const p = (f: string) => join(dir, f);
  const days = ["-days", "1"];
  openssl(
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      ...days,
      "-subj",
      "/CN=llsd-convert-ca",
    ].concat(["-keyout", p("ca.key"), "-out", p("ca.crt")]),
  );
  openssl(
    ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=llsd-hook"].concat([
      "-keyout",
      p("tls.key"),
      "-out",
      p("tls.csr"),
    ]),
  );
  writeFileSync(p("tls.ext"), "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
  openssl(
    ["x509", "-req", "-in", p("tls.csr"), "-CA", p("ca.crt"), "-CAkey", p("ca.key")].concat([
      "-CAcreateserial",
      ...days,
      "-extfile",
      p("tls.ext"),
      "-out",
      p("tls.crt"),
    ]),
  );
}

/** The hook as it runs in a cluster (src/server/main.ts), over HTTPS, with a bearer token. */
function startHook(
  dir: string,
  port: number,
  metricsPort: number,
): { proc: ChildProcess; log: () => string } {
  writeFileSync(join(dir, "token"), "a-token-the-api-server-does-not-send\n");
  let out = "";
  const proc = spawn(process.execPath, ["--import", "tsx", "src/server/main.ts"], {
    cwd: root,
    env: {
      PATH: process.env["PATH"] ?? "",
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      TLS_CERT_FILE: join(dir, "tls.crt"),
      TLS_KEY_FILE: join(dir, "tls.key"),
      HOOK_TOKEN_FILE: join(dir, "token"),
    },
  });
  proc.stdout?.on("data", (b: Buffer) => (out += b.toString()));
  proc.stderr?.on("data", (b: Buffer) => (out += b.toString()));
  return { proc, log: () => out };
}

/** The base CRD plus the component's v1alpha1 version, converted by the hook at `url`. */
function crdWithConversion(base: Crd, url: string, ca: Buffer): Crd {
  const patch = parse(readFileSync(join(root, CONVERSION_PATCH_FILE), "utf8")) as {
    path: string;
    value: unknown;
  }[];
  const version = patch.find((op) => op.path === "/spec/versions/-")?.value;
  const conversion = patch.find((op) => op.path === "/spec/conversion")?.value as {
    webhook: { conversionReviewVersions: string[] };
  };
  return {
    ...base,
    spec: {
      ...base.spec,
      versions: [...(base.spec["versions"] as unknown[]), version],
      conversion: {
        strategy: "Webhook",
        webhook: {
          conversionReviewVersions: conversion.webhook.conversionReviewVersions,
          clientConfig: { url, caBundle: ca.toString("base64") },
        },
      },
    },
  };
}

async function putCrd(spec: Record<string, unknown>): Promise<void> {
  const kube = cluster().kube;
  const base = parse(readFileSync(join(root, CRD_FILE), "utf8")) as Crd;
  const current = (await kube.get(CRD_API, CRDS, undefined, base.metadata.name)) as Crd;
  await kube.replace(CRD_API, CRDS, { ...current, spec });
}

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
