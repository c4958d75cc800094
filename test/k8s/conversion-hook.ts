// The conversion webhook as the v1alpha1 component installs it, for the tests
// that need v1alpha1 served: the hook over HTTPS (its CA and certificate made
// with openssl in a temp dir, never committed) with HOOK_TOKEN_FILE set — the
// API server sends no token, and /convert needs none — and the CRD with the
// component's v1alpha1 version and a Webhook conversion pointing at it.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import type { KubeObject } from "../../src/api/hook.js";
import { CONVERSION_PATCH_FILE, CRD_FILE } from "../../src/api/crd-file.js";
import { freePort } from "../net.js";
import { waitFor, type Kube } from "./kube.js";
import { cluster } from "./setup.js";

export const root = join(import.meta.dirname, "..", "..");
export const CRD_API = "apiextensions.k8s.io/v1";
export const CRDS = "customresourcedefinitions";
export const V1 = "llamastack.io/v1alpha1";
export const V2 = "llamastack.io/v1alpha2";
export const RESOURCE = "llamastackdistributions";

export type Crd = KubeObject & { spec: Record<string, unknown> };

function openssl(args: string[]): void {
  execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
}

/** A CA and a serving certificate for 127.0.0.1, in `dir`. */
export function makeCertificates(dir: string): void {
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
export function startHook(
  dir: string,
  ports: { port: number; apiServerPort: number; metricsPort: number },
): { proc: ChildProcess; log: () => string } {
  writeFileSync(join(dir, "token"), "a-token-the-api-server-does-not-send\n");
  let out = "";
  const proc = spawn(process.execPath, ["--import", "tsx", "src/server/main.ts"], {
    cwd: root,
    env: {
      PATH: process.env["PATH"] ?? "",
      PORT: String(ports.port),
      API_SERVER_PORT: String(ports.apiServerPort),
      METRICS_PORT: String(ports.metricsPort),
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
export function crdWithConversion(base: Crd, url: string, ca: Buffer): Crd {
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

/** Replaces the CRD's spec on the control plane of `kube` (the newest end's unless named). */
export async function putCrd(
  spec: Record<string, unknown>,
  kube: Kube = cluster().kube,
): Promise<void> {
  const base = parse(readFileSync(join(root, CRD_FILE), "utf8")) as Crd;
  const current = (await kube.get(CRD_API, CRDS, undefined, base.metadata.name)) as Crd;
  await kube.replace(CRD_API, CRDS, { ...current, spec });
}

export interface ConversionHook {
  log: () => string;
  /** Puts the base CRD back (conversion None), stops the hook, removes its files. */
  stop: () => Promise<void>;
}

/**
 * Starts the hook over HTTPS and serves v1alpha1 through it; resolves once
 * the API server accepts a v1alpha1 object (a dry run in `namespace`, which
 * must exist).
 */
export async function serveV1alpha1(namespace: string): Promise<ConversionHook> {
  const kube = cluster().kube;
  const dir = mkdtempSync(join(tmpdir(), "llsd-convert-"));
  makeCertificates(dir);
  // The API server calls the API server's port (src/server/classes.ts), as the component's CRD says.
  const apiServerPort = await freePort();
  const hook = startHook(dir, {
    port: await freePort(),
    apiServerPort,
    metricsPort: await freePort(),
  });
  await waitFor(
    "the hook to listen",
    async () => (hook.log().includes("llsd-hook listening for the API server") ? true : undefined),
    60_000,
  );
  const base = parse(readFileSync(join(root, CRD_FILE), "utf8")) as Crd;
  const ca = readFileSync(join(dir, "ca.crt"));
  await putCrd(crdWithConversion(base, `https://127.0.0.1:${apiServerPort}/convert`, ca).spec);
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
          metadata: { name: "probe", namespace },
          spec: { server: { distribution: { name: "starter" } } },
        },
        { dryRun: "All" },
      );
      return res.status === 201 ? true : undefined;
    },
    60_000,
  );
  return {
    log: hook.log,
    stop: async () => {
      await putCrd({ ...base.spec, conversion: { strategy: "None" } });
      hook.proc.kill("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
