// What the pool answers itself, when a worker did not or could not: a 503 with
// Retry-After (Metacontroller retries; the API server does not, and the text says so), or a 500 while the workers cannot
// start. Each names the request by its parent when it was read (the texts are
// in src/server-messages.ts).
import { serverMsg } from "../../server-messages.js";
import { API_SERVER_TENANT, errorAnswer, type Answer, type Route } from "../answer.js";
import { fromApiServer } from "../classes.js";
import type { Pending } from "./pending.js";

/** An answer saying to retry: a 503 with Retry-After; its log line names the parent when it was read. */
const unavailable = (route: Route, message: string, parent?: string): Answer => ({
  ...errorAnswer(route, 503, message),
  retryAfter: 1,
  log: parent === undefined ? {} : { parent },
});

/** A 503 for `job`, in its route's shape, naming its parent in the log. */
const refuse = (job: Pending, message: string): Answer =>
  unavailable(job.request.route, message, job.parent);

/** What a request is, in a message: the parent when it was read, else the route. */
function subject(job: Pending): string {
  const { route } = job.request;
  if (job.parent !== undefined)
    return route === "customize" ? serverMsg.customizeOf(job.parent) : serverMsg.syncOf(job.parent);
  return fromApiServer(route) ? serverMsg.apiServerRequest(route) : serverMsg.unreadRequest(route);
}

const tenantName = (tenant: string) => serverMsg.tenant(tenant, tenant === API_SERVER_TENANT);

/** The figures the answers name. */
export interface Figures {
  workers: number;
  /** Workers one tenant may hold. */
  share: number;
  /** Workers the busy tenants may hold together. */
  busyShare: number;
  heapMib: number;
  deadlineMs: number;
  wallMs: number;
  waitMs: number;
}

export const poolAnswers = {
  shuttingDown: (route: Route): Answer => unavailable(route, serverMsg.shuttingDown),

  /**
   * It waited its whole time for a worker: because its tenant holds `share`
   * workers, the most it may, or it is busy and the busy tenants hold
   * `busyShare` together, when `held` says so; else because every worker was
   * busy with others.
   */
  noFreeWorker(job: Pending, f: Figures, held?: { share: number } | { busyShare: number }): Answer {
    const { route } = job.request;
    if (job.tenant === undefined || held === undefined)
      return refuse(job, serverMsg.noFreeWorker(subject(job), f.waitMs, f.workers, route));
    const tenant = tenantName(job.tenant);
    const text =
      "share" in held
        ? serverMsg.tenantHoldsItsShare(
            subject(job),
            f.waitMs,
            tenant,
            held.share,
            f.workers,
            route,
          )
        : serverMsg.busyTenantsHoldTheirShare(
            subject(job),
            f.waitMs,
            tenant,
            held.busyShare,
            f.workers,
            route,
          );
    return refuse(job, text);
  },

  /** Its tenant waits `seconds` for its time, longer than it may wait for a worker. */
  waitsForTime(job: Pending, tenant: string, seconds: number, stopped: boolean): Answer {
    const text = serverMsg.waitsForItsTime(
      subject(job),
      seconds,
      tenantName(tenant),
      stopped,
      job.request.route,
    );
    return refuse(job, text);
  },

  /** It ran past its CPU deadline, or its wall limit. */
  stopped(job: Pending, by: "cpu" | "wall", f: Figures): Answer {
    const text =
      by === "cpu"
        ? serverMsg.stoppedAtDeadline(subject(job), f.deadlineMs, job.request.route)
        : serverMsg.stoppedAtWallLimit(subject(job), f.wallMs, f.deadlineMs, job.request.route);
    return refuse(job, text);
  },

  /** Its worker stopped while answering it: out of heap, or another fault. */
  crashed(job: Pending, outOfHeap: boolean, f: Figures): Answer {
    const text = outOfHeap
      ? serverMsg.outOfHeap(subject(job), f.heapMib, job.request.route)
      : serverMsg.workerStopped(subject(job));
    return refuse(job, text);
  },

  /** While the workers cannot start: a 500, the reason for the log. */
  broken: (route: Route, why: string): Answer => ({
    ...errorAnswer(route, 500, serverMsg.internalError),
    fault: { note: "llsd-hook's workers do not start", message: why },
  }),
};
