// What passes between the pool's shell (./index.ts) and a worker
// (../worker.ts): six kinds of message and one shared flag, all for one
// request at a time per worker.
//   main → worker: job (a request to read and answer), verdict (whether a
//     request that asked may go on);
//   worker → main: ready, read (whom the request is for), handedBack (its
//     tenant holds its share: the body comes back unparsed to wait in the
//     queue), answer.
// The flag (WorkerData.ask) serves one purpose: a body whose tenant holds its
// share is never parsed, even when two requests of one tenant are read side
// by side (docs/adr/0017-worker-pool.md).
import type { Answer, Job } from "../answer.js";
import type { TierStats } from "../memo.js";

/** What the pool passes each worker it starts. */
export interface WorkerData {
  /** The catalog, v8-serialized once by the main thread (shared memory, not copied per worker). */
  catalog: Uint8Array;
  /** Bytes this worker's generation cache may hold. */
  cacheBytes: number;
  fieldManager?: string;
  /** ALLOWED_POD_FIELDS, as src/server/settings.ts parsed it (the confused-deputy rule). */
  allowedPodFields?: string[];
  /**
   * Shared with the main thread: 1 when it started another request while this
   * one's tenant was not known yet, so this one asks before it goes on.
   */
  ask: Int32Array;
}

/** From the main thread: a request to read and answer. */
export interface JobMessage {
  type: "job";
  id: number;
  job: Job;
  /**
   * Tenants that may not start a request now: one found to be for one of them
   * is handed back before it is parsed (unless `known`: the pool knew its
   * tenant when it chose it).
   */
  handBack: string[];
  known: boolean;
}

/** From the main thread: whether a request that asked may go on. */
export interface VerdictMessage {
  type: "verdict";
  id: number;
  go: boolean;
}

/**
 * To the main thread. `cpuMs`: the CPU time the worker's thread has taken in
 * all, when it posts (what a request took is the difference from the last).
 */
export type WorkerMessage =
  | { type: "ready"; tid?: number; cpuMs: number }
  | { type: "read"; id: number; tenant: string; parent?: string; ask: boolean }
  | { type: "handedBack"; id: number; body: Uint8Array | null; cpuMs: number }
  | {
      type: "answer";
      id: number;
      answer: Answer;
      /** The worker's cache tiers by name. */
      tiers: Record<string, TierStats>;
      cpuMs: number;
    };
