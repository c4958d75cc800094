// npm run bench -- 8: a rolling restart of the hook as the cluster runs it,
// under steady syncs. Needs root and the real node (test/node/README.md; the
// node's lock, /run/llsd-hook-node.lock, free): starts the node, installs the
// hook's image with the HTTPS overlay (test/node/hook.ts), makes five
// resources from examples/minimal.yaml with no server pods (replicas: 0), syncs
// each back to back through the Service's ready endpoints as kube-proxy would
// (Metacontroller's five workers), runs `kubectl rollout restart` and counts
// failed syncs; per replaced pod, SIGTERM → exit and the requests it finished.
// The same run is a test in test/node/pods.test.ts (failed syncs must be 0).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import type { KubeObject } from "../src/api/hook.js";
import { API_VERSION } from "../src/api/schema.js";
import { restrictedNamespace } from "../test/k8s/kube.js";
import {
  describeRestart,
  describeStart,
  installHook,
  restartUnderSyncs,
} from "../test/node/hook.js";
import { nodeUnavailable, startNode } from "../test/node/node.js";

const NS = "llsd-bench";
const PARENTS = 5;

export async function benchRestart(): Promise<void> {
  console.log(
    "\n8. rolling restart of the hook in the cluster under steady syncs (root, the node)",
  );
  const why = nodeUnavailable();
  if (why !== undefined) {
    console.log(`   SKIPPED: ${why}`);
    return;
  }
  let node;
  try {
    node = await startNode();
  } catch (err) {
    console.log(`   SKIPPED: ${(err as Error).message}`);
    return;
  }
  const work = mkdtempSync(join(tmpdir(), "llsd-bench-restart-"));
  let hook;
  try {
    hook = await installHook(node, work);
    const kube = node.cp.kube;
    await kube.mustCreate("v1", "namespaces", restrictedNamespace(NS));
    await kube.mustCreate("v1", "secrets", {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "vllm-creds", namespace: NS },
      stringData: { token: "bench" },
    });
    const minimal = parse(
      readFileSync(join(import.meta.dirname, "..", "examples", "minimal.yaml"), "utf8"),
    ) as KubeObject & { spec: Record<string, unknown> };
    const mc = hook.metacontroller();
    const parents = Array.from({ length: PARENTS }, (_, i) => ({
      namespace: NS,
      name: `bench-${i + 1}`,
    }));
    for (const p of parents) {
      await kube.mustCreate(API_VERSION, "llamastackdistributions", {
        ...minimal,
        metadata: { name: p.name, namespace: NS },
        spec: { ...minimal.spec, workload: { replicas: 0 } },
      });
      await mc.reconcile(NS, p.name);
    }
    const f = await restartUnderSyncs(hook, kube, mc, parents);
    console.log(
      `   the hook's pods at install: ${hook.timings.pods.map(describeStart).join("; ")}`,
    );
    for (const line of describeRestart(f)) console.log(`   ${line}`);
  } finally {
    hook?.close();
    await node.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
