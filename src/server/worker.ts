// One worker of the pool (src/server/pool.ts): reads and answers requests the
// main thread hands it, one at a time, with the pure core. It holds its own
// generation cache; the catalog comes from the main thread, serialized once,
// so every worker answers from the same catalog as the process started with.
import { readFileSync, readlinkSync } from "node:fs";
import { deserialize } from "node:v8";
import { parentPort, workerData } from "node:worker_threads";
import type { Catalog } from "../config/catalog.js";
import { generateConfig } from "../config/generate.js";
import { parse } from "yaml";
import { WARM_UPS } from "../cli/warm-up.js";
import type { Answer, Job } from "./answer.js";
import { answer, identify, internalError, read, textOf, type Identity } from "./handle.js";
import { byteCache, memoize, type TierStats } from "./memo.js";
import { moving, owned } from "./transfer.js";

/** What the pool passes each worker it starts. */
export interface WorkerData {
  /** The catalog, v8-serialized once by the main thread (shared memory, not copied per worker). */
  catalog: Uint8Array;
  /** Bytes this worker's generation cache may hold. */
  cacheBytes: number;
  fieldManager?: string;
  /** ALLOWED_POD_FIELDS, as main.ts parsed it. */
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
   * Tenants already holding their share of the workers: a request found to be
   * for one of them is handed back before it is parsed (unless `known`: the
   * pool already knew its tenant when it chose it).
   */
  defer: string[];
  known: boolean;
}

/** From the main thread: whether a request that asked may go on. */
export interface VerdictMessage {
  type: "verdict";
  id: number;
  go: boolean;
}

/** To the main thread. */
export type WorkerMessage =
  | { type: "ready"; tid?: number; startMs?: number }
  | { type: "read"; id: number; tenant: string; parent?: string; ask: boolean }
  | { type: "deferred"; id: number; body: Uint8Array | null }
  | { type: "answer"; id: number; answer: Answer; generation: TierStats };

const port = parentPort;
if (port === null) throw new Error("src/server/worker.ts runs as a worker thread of the pool");
const data = workerData as WorkerData;
const catalog = deserialize(data.catalog) as Catalog;
const cache = byteCache(data.cacheBytes);
const generate = memoize(generateConfig, {
  cache,
  // Strings may be held two bytes a character; a fixed overhead per entry.
  sizeOf: (result) => 1024 + 2 * JSON.stringify(result).length,
});
const ctx = {
  catalog,
  generate,
  ...(data.fieldManager === undefined ? {} : { fieldManager: data.fieldManager }),
  ...(data.allowedPodFields === undefined
    ? {}
    : { allowedPodFields: new Set(data.allowedPodFields) }),
};

const post = (message: WorkerMessage, transfer: ArrayBuffer[] = []) =>
  port.postMessage(message, transfer);

/** The answer's bytes go to the main thread without a copy (they are this worker's own buffer). */
function send(id: number, out: Answer): void {
  const generation = cache.tierStats()["generation"] ?? {
    entries: 0,
    bytes: 0,
    hits: 0,
    misses: 0,
  };
  const body = owned(out.body);
  post({ type: "answer", id, answer: { ...out, body }, generation }, moving(body));
}

let waiting: { id: number; resolve: (go: boolean) => void } | undefined;

const label = (who: Identity) =>
  who.parent === undefined ? undefined : `${who.parent.namespace}/${who.parent.name}`;

/** Tells the main thread whom the request is for; whether it may go on (asking when told to). */
function mayGoOn(message: JobMessage, who: Identity): Promise<boolean> | boolean {
  const { id, known, defer } = message;
  const ask = !known && Atomics.load(data.ask, 0) === 1;
  const parent = label(who);
  post({ type: "read", id, tenant: who.tenant, ask, ...(parent === undefined ? {} : { parent }) });
  if (known) return true;
  if (!ask) return !defer.includes(who.tenant);
  return new Promise((resolve) => (waiting = { id, resolve }));
}

async function run(message: JobMessage): Promise<void> {
  const { id, job } = message;
  const text = textOf(job);
  const who = identify(job.route, text);
  if (!(await mayGoOn(message, who))) {
    // Its tenant already holds its share: the body goes back, unparsed, to wait for its turn.
    const body = job.body === null ? null : owned(job.body);
    post({ type: "deferred", id, body }, moving(body));
    return;
  }
  const got = read(job.route, text);
  if (!got.ok) return send(id, got.answer);
  const parsed = label(got);
  if (got.tenant !== who.tenant || parsed !== label(who))
    post({
      type: "read",
      id,
      tenant: got.tenant,
      ask: false,
      ...(parsed === undefined ? {} : { parent: parsed }),
    });
  send(id, answer(job, got, ctx));
}

port.on("message", (message: JobMessage | VerdictMessage) => {
  if (message.type === "verdict") {
    if (waiting?.id === message.id) waiting.resolve(message.go);
    waiting = undefined;
    return;
  }
  run(message).catch((err: unknown) => send(message.id, internalError(message.job.route, err)));
});

/** This thread's id, for the pool to read its CPU time in /proc (Linux). */
function threadId(): number | undefined {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    return Number.isInteger(tid) ? tid : undefined;
  } catch {
    return undefined;
  }
}

/** The CPU time this thread has taken, ms (what starting it cost); undefined where /proc cannot tell. */
function ownCpuMs(): number | undefined {
  try {
    const stat = readFileSync("/proc/thread-self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The usual requests once before the first real one (the CLI's warm-up
 * resources, src/cli/warm-up.ts, as /sync, /customize and /convert requests):
 * the schemas, generation and child builders are compiled before this worker
 * takes traffic, so a replaced worker's first answers are not the slow ones.
 */
function warmUp(): void {
  const plain = { ...ctx, generate: generateConfig };
  const encoder = new TextEncoder();
  for (const text of WARM_UPS) {
    const parent = { ...(parse(text) as object), status: {} } as Record<string, unknown>;
    const metadata = { ...(parent["metadata"] as object), uid: "warm-up", generation: 1 };
    const object = { ...parent, metadata };
    const bodies = {
      sync: { parent: object, children: {}, related: {} },
      customize: { parent: object },
      convert: {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "ConversionReview",
        request: { uid: "warm-up", desiredAPIVersion: "llamastack.io/v1alpha1", objects: [object] },
      },
    };
    for (const [route, body] of Object.entries(bodies)) {
      const job: Job = {
        route: route as Job["route"],
        body: encoder.encode(JSON.stringify(body)),
        charset: "utf-8",
        at: "2026-01-01T00:00:00Z",
      };
      const got = read(job.route, textOf(job));
      if (got.ok) answer(job, got, plain);
    }
  }
}

warmUp();
const tid = threadId();
const startMs = ownCpuMs();
post({
  type: "ready",
  ...(tid === undefined ? {} : { tid }),
  ...(startMs === undefined ? {} : { startMs }),
});
