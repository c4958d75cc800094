// What the node tests read off real pods: the Deployment's own status (no
// markPodsReady here: the kubelet reports), the serving pod's address, its
// log with the kubelet's timestamps, the server's command line and the pod's
// memory as the kernel counts it.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeObject } from "../../src/api/hook.js";
import { waitFor, type Kube } from "../k8s/kube.js";
import { rolledOutReplicas, type ObservedDeployment } from "../support/rollout.js";

export interface PodView {
  name: string;
  uid: string;
  ip: string;
  ready: boolean;
  phase: string;
  /** RFC 3339 times: the container's start, and the pod's Ready condition turning true. */
  startedAt?: string;
  readyAt?: string;
  restarts: number;
  deleting: boolean;
}

type RawPod = KubeObject & {
  metadata: { uid: string; deletionTimestamp?: string };
  status?: {
    phase?: string;
    podIP?: string;
    conditions?: { type: string; status: string; lastTransitionTime?: string }[];
    containerStatuses?: {
      restartCount?: number;
      state?: { running?: { startedAt?: string } };
    }[];
  };
};

export async function podsOf(kube: Kube, namespace: string, instance: string): Promise<PodView[]> {
  return podsBySelector(kube, namespace, `app.kubernetes.io/instance=${instance}`);
}

/** The pods a label selector picks, as the kubelet reports them. */
export async function podsBySelector(
  kube: Kube,
  namespace: string,
  selector: string,
): Promise<PodView[]> {
  const pods = (await kube.list("v1", "pods", namespace, selector)) as RawPod[];
  return pods.map((p) => {
    const ready = p.status?.conditions?.find((c) => c.type === "Ready");
    const c = p.status?.containerStatuses?.[0];
    return {
      name: p.metadata.name,
      uid: p.metadata.uid,
      ip: p.status?.podIP ?? "",
      ready: ready?.status === "True",
      phase: p.status?.phase ?? "",
      ...(c?.state?.running?.startedAt === undefined
        ? {}
        : { startedAt: c.state.running.startedAt }),
      ...(ready?.status === "True" && ready.lastTransitionTime !== undefined
        ? { readyAt: ready.lastTransitionTime }
        : {}),
      restarts: c?.restartCount ?? 0,
      deleting: p.metadata.deletionTimestamp !== undefined,
    };
  });
}

/**
 * Waits until the Deployment's current template is rolled out and available
 * as the Deployment controller reports it from the kubelet's pod status, with
 * no other pod left; returns the serving pod.
 */
export async function waitServing(
  kube: Kube,
  namespace: string,
  name: string,
  timeoutMs = 180_000,
): Promise<PodView> {
  return waitFor(
    `the Deployment ${namespace}/${name} to roll out on the node`,
    async () => {
      const d = (await kube.get("apps/v1", "deployments", namespace, name)) as
        ObservedDeployment | undefined;
      if (rolledOutReplicas(d) === undefined) return undefined;
      const pods = await podsOf(kube, namespace, name);
      const serving = pods.filter((p) => p.ready && !p.deleting);
      return pods.length === 1 && serving.length === 1 ? serving[0] : undefined;
    },
    timeoutMs,
    500,
  );
}

/** The container's log with the kubelet's RFC 3339 timestamps, one entry per line. */
export async function podLog(
  kube: Kube,
  namespace: string,
  pod: string,
): Promise<{ at: string; line: string }[]> {
  const res = await kube.request<string>({
    method: "GET",
    path: `/api/v1/namespaces/${namespace}/pods/${pod}/log`,
    query: { timestamps: "true" },
  });
  if (res.status !== 200) throw new Error(`reading the log of ${pod}: HTTP ${res.status}`);
  const text = typeof res.body === "string" ? res.body : JSON.stringify(res.body);
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => {
      const i = l.indexOf(" ");
      return { at: l.slice(0, i), line: l.slice(i + 1) };
    });
}

/** The processes of a pod's containers (the pause process left out), from /proc. */
export function podProcesses(podUid: string): number[] {
  const marker = `pod${podUid}`;
  const marker2 = `pod${podUid.replaceAll("-", "_")}`;
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .map(Number)
    .filter((pid) => {
      try {
        const cg = readFileSync(`/proc/${pid}/cgroup`, "utf8");
        const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        return (cg.includes(marker) || cg.includes(marker2)) && !cmd.startsWith("/pause");
      } catch {
        return false;
      }
    });
}

/** The command lines of a pod's container processes, as the kernel has them (argv joined by spaces). */
export function commandLines(podUid: string): string[] {
  return podProcesses(podUid).map((pid) =>
    readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" "),
  );
}

/** The pod's memory cgroup (cgroup v1): usage now and its peak, in MiB. */
export function podMemory(podUid: string): { usageMiB: number; peakMiB: number } {
  const root = "/sys/fs/cgroup/memory/kubepods";
  const dirs = ["", "burstable", "besteffort"].map((q) => join(root, q, `pod${podUid}`));
  const dir = dirs.find((d) => existsSync(d));
  if (dir === undefined) throw new Error(`no memory cgroup for pod ${podUid}`);
  const read = (f: string) => Number(readFileSync(join(dir, f), "utf8").trim()) / 2 ** 20;
  return { usageMiB: read("memory.usage_in_bytes"), peakMiB: read("memory.max_usage_in_bytes") };
}
