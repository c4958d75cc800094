import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { startControlPlane } from "/work/wt/k8s-range/test/k8s/cluster.ts";
const bins = { kube: process.argv[2]!, etcd: process.argv[3]!, label: "probe" };
const cp = await startControlPlane(undefined, bins);
try {
  const crd = parse(readFileSync("/work/wt/k8s-range/manifests/crd/llamastackdistributions.llamastack.io.yaml", "utf8"));
  const res = await cp.kube.apply("apiextensions.k8s.io/v1", "customresourcedefinitions", crd, { fieldManager: "probe", force: true });
  console.log("status", res.status, "warnings", JSON.stringify(res.warnings));
  // client-side apply of the CRD, as kubectl apply without --server-side
  const { spawnSync } = await import("node:child_process");
  for (const args of [["apply", "-f", "/work/wt/k8s-range/manifests/crd/llamastackdistributions.llamastack.io.yaml"], ["apply", "-f", "/work/wt/k8s-range/manifests/install.yaml", "--dry-run=server"]]) {
    const r = spawnSync(`${bins.kube}/kubectl`, ["--kubeconfig", cp.kubeconfig, ...args], { encoding: "utf8" });
    console.log(args.join(" "), "→ exit", r.status, r.stdout.slice(0, 300), r.stderr.slice(0, 600));
  }
} finally { await cp.stop(); }
