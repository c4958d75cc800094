// Mocha global fixtures for the real peers' tests (test/mocharc.peers.json): one
// control plane for every Kubernetes test, with the CRD installed; stopped
// afterwards, also when a test fails. The unit suite never loads this.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import type { KubeObject } from "../../src/api/hook.js";
import { CRD_FILE } from "../../src/api/crd-file.js";
import { startControlPlane, type ControlPlane } from "./cluster.js";
import { waitFor } from "./kube.js";

let current: ControlPlane | undefined;

/** The running control plane; only inside the full suite. */
export function cluster(): ControlPlane {
  if (current === undefined)
    throw new Error(
      "no control plane: run the Kubernetes tests through npm test (test/mocharc.peers.json)",
    );
  return current;
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

export async function mochaGlobalSetup(): Promise<void> {
  current = await startControlPlane();
  await installCrd(current);
}

export async function mochaGlobalTeardown(): Promise<void> {
  await current?.stop();
  current = undefined;
}
