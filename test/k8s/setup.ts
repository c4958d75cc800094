// Mocha global fixtures for the real peers' tests (test/mocharc.peers.json): a
// control plane at each end of the Kubernetes range the suite keeps, with the
// CRD installed, stopped afterwards, also when a test fails. Every Kubernetes
// test runs on the newest; the CRD, install, admission and children tests
// run on the oldest too (ADR 21). The unit suite never loads this.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import type { KubeObject } from "../../src/api/hook.js";
import { CRD_FILE } from "../../src/api/crd-file.js";
import { loadPeers } from "../peers.js";
import { startControlPlane, type Binaries, type ControlPlane } from "./cluster.js";
import { waitFor } from "./kube.js";

/** The ends of the Kubernetes range: the release every test runs on, and the oldest kept. */
export const ENDS = ["newest", "oldest"] as const;
export type End = (typeof ENDS)[number];

const VERSION_FILES: Record<End, string> = {
  newest: join(import.meta.dirname, "KUBERNETES_VERSION"),
  oldest: join(import.meta.dirname, "oldest", "KUBERNETES_VERSION"),
};

/** The end's Kubernetes release as its build pins it, e.g. "v1.30.14". */
export function kubernetesVersion(end: End): string {
  return readFileSync(VERSION_FILES[end], "utf8").trim();
}

/** "Kubernetes 1.30": how a test at that end names it. */
export function endTitle(end: End): string {
  return `Kubernetes ${kubernetesVersion(end).replace(/^v(\d+\.\d+)\..*$/, "$1")}`;
}

const current: Partial<Record<End, ControlPlane>> = {};

/** The running control plane of an end (the newest unless named); only inside the full suite. */
export function cluster(end: End = "newest"): ControlPlane {
  const cp = current[end];
  if (cp === undefined)
    throw new Error(
      "no control plane: run the Kubernetes tests through npm test (test/mocharc.peers.json)",
    );
  return cp;
}

function binariesOf(end: End): Binaries {
  const peers = loadPeers();
  const label = endTitle(end);
  if (end === "newest") return { kube: peers.k8sBinDir, etcd: peers.k8sBinDir, label };
  if (peers.k8sOldestBinDir === undefined)
    throw new Error(
      `peers.json names no Kubernetes ${kubernetesVersion("oldest")} (k8sOldestBinDir): run "npm run peers"`,
    );
  return { kube: peers.k8sOldestBinDir, etcd: peers.k8sBinDir, label };
}

/** Applies the generated CRD as the suite installs it, and waits until it is established. */
export async function installCrd(cp: ControlPlane): Promise<void> {
  const crd = parse(
    readFileSync(join(import.meta.dirname, "..", "..", CRD_FILE), "utf8"),
  ) as KubeObject;
  const res = await cp.kube.apply("apiextensions.k8s.io/v1", "customresourcedefinitions", crd, {
    fieldManager: "llsd-test",
    force: true,
  });
  if (res.status >= 300) throw new Error(`the CRD was refused: ${JSON.stringify(res.body)}`);
  await waitFor(
    "the CRD to be established",
    async () => {
      const got = (await cp.kube.get(
        "apiextensions.k8s.io/v1",
        "customresourcedefinitions",
        undefined,
        crd.metadata.name,
      )) as
        (KubeObject & { status?: { conditions?: { type: string; status: string }[] } }) | undefined;
      return got?.status?.conditions?.some(
        (c) => c.type === "Established" && c.status === "True",
      ) === true
        ? true
        : undefined;
    },
    60_000,
  );
}

/**
 * Starts an end's control plane, once more on fresh ports when one was taken
 * between freePort() and the bind (two control planes start at once, on a
 * machine where other suites run too).
 */
async function startEnd(end: End): Promise<ControlPlane> {
  try {
    return await startControlPlane(undefined, binariesOf(end));
  } catch (err) {
    if (!/address already in use/.test(String(err))) throw err;
    process.stderr.write(`[k8s ${endTitle(end)}] a port was taken meanwhile; starting again\n`);
    return await startControlPlane(undefined, binariesOf(end));
  }
}

export async function mochaGlobalSetup(): Promise<void> {
  // Both ends at once; one that fails to start stops the other.
  const started = await Promise.allSettled(
    ENDS.map(async (end) => {
      const cp = await startEnd(end);
      current[end] = cp;
      await installCrd(cp);
    }),
  );
  const failed = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed !== undefined) {
    await mochaGlobalTeardown();
    throw failed.reason;
  }
}

export async function mochaGlobalTeardown(): Promise<void> {
  for (const end of ENDS) {
    await current[end]?.stop();
    delete current[end];
  }
}
