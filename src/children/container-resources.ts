// The server container's resource requests (docs/guide/workload.md):
// what the user wrote in spec.workload.resources, with a default request for
// CPU and memory where the user left that resource unsaid. Requests are what
// the scheduler places a pod by and what a CPU or memory utilization target of
// a HorizontalPodAutoscaler is measured against; without one the autoscaler
// cannot compute utilization and never scales. No default limits: a CPU limit
// throttles a server that streams, and a memory limit picked for all
// distributions would kill the ones that load a model in process.
import type { ResourceRequirements } from "kubernetes-types/core/v1.js";
import { canonicalQuantities } from "./quantity.js";

/** Default requests: CPU per server worker process, memory for the first worker and each further one. */
const DEFAULT_REQUESTS = {
  cpuMilliPerWorker: 250,
  memoryMiFirstWorker: 512,
  memoryMiPerFurtherWorker: 256,
} as const;

const DEFAULTED = ["cpu", "memory"] as const;

/** The default request of each resource for a server with `workers` worker processes. */
export function defaultRequests(workers: number): Record<(typeof DEFAULTED)[number], string> {
  const memoryMi =
    DEFAULT_REQUESTS.memoryMiFirstWorker +
    DEFAULT_REQUESTS.memoryMiPerFurtherWorker * (workers - 1);
  return {
    cpu: `${DEFAULT_REQUESTS.cpuMilliPerWorker * workers}m`,
    memory: `${memoryMi}Mi`,
  };
}

/**
 * The container's resources: the user's requests and limits as the API server
 * stores them, plus a default request for each of CPU and memory the user set
 * neither a request nor a limit for. A limit without a request gets no default:
 * Kubernetes then takes the limit as the request, and a default could exceed it.
 */
export function containerResources(
  user: ResourceRequirements | undefined,
  workers: number,
): ResourceRequirements {
  const requests = { ...(user?.requests ?? {}) };
  const limits = user?.limits ?? {};
  const defaults = defaultRequests(workers);
  for (const name of DEFAULTED) {
    if (requests[name] === undefined && limits[name] === undefined) requests[name] = defaults[name];
  }
  const out: ResourceRequirements = { ...user, requests: canonicalQuantities(requests) };
  if (user?.limits !== undefined) out.limits = canonicalQuantities(user.limits);
  return out;
}
