import { spawnSync } from "node:child_process";
import { startControlPlane } from "../test/k8s/cluster.ts";
const bins = { kube: process.argv[2]!, etcd: process.argv[3]!, label: "probe" };
const cp = await startControlPlane(undefined, bins);
const k = (...a: string[]) => { const r = spawnSync(`${bins.kube}/kubectl`, ["--kubeconfig", cp.kubeconfig, ...a], { encoding: "utf8" }); console.log(`$ kubectl ${a.join(" ")} → ${r.status}\n${r.stdout.slice(0, 1500)}${r.stderr.slice(0, 1500)}`); };
try {
  k("apply", "--server-side", "-f", "/tmp/k8s-range/cache/crds/821cb493c4d4/gitops");
  k("wait", "--for=condition=Established", "--timeout=60s", "crd/kustomizations.kustomize.toolkit.fluxcd.io");
  k("delete", "crd", "kustomizations.kustomize.toolkit.fluxcd.io", "--wait=false");
  await new Promise((r) => setTimeout(r, 5000));
  k("get", "crd", "kustomizations.kustomize.toolkit.fluxcd.io", "-o", "jsonpath={.metadata.finalizers} {.status.conditions}");
  k("apply", "--dry-run=server", "-k", process.argv[4]!);
} finally { await cp.stop(); }
