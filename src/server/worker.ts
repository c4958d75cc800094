// One worker of the pool (src/server/pool/): reads and answers requests the
// main thread hands it, one at a time, with the pure core. It holds its own
// generation cache; the catalog comes from the main thread, serialized once,
// so every worker answers from the same catalog as the process started with.
// The messages it exchanges with the main thread: ./pool/protocol.ts.
import { deserialize } from "node:v8";
import { parentPort, workerData } from "node:worker_threads";
import type { Catalog } from "../config/catalog.js";
import { generateConfig } from "../config/generate.js";
import { planSpec } from "../return-children.js";
import type { Answer } from "./answer.js";
import { answer, identify, internalError, read, textOf, type Identity } from "./handle.js";
import { byteCache, memoize, memoizePlans } from "./memo.js";
import { ownCpuMs, ownThreadId } from "./pool/cpu.js";
import type { JobMessage, VerdictMessage, WorkerData, WorkerMessage } from "./pool/protocol.js";
import { moving, owned } from "./transfer.js";
import { warmUpJobs } from "./warm-up.js";

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
const fixed = {
  catalog,
  generate,
  ...(data.fieldManager === undefined ? {} : { fieldManager: data.fieldManager }),
  ...(data.allowedPodFields === undefined
    ? {}
    : { allowedPodFields: new Set(data.allowedPodFields) }),
};
const ctx = {
  ...fixed,
  planSpec: memoizePlans((inputs) => planSpec(inputs, fixed), cache),
};

const post = (message: WorkerMessage, transfer: ArrayBuffer[] = []) =>
  port.postMessage(message, transfer);

/** The answer's bytes go to the main thread without a copy (they are this worker's own buffer). */
function send(id: number, out: Answer): void {
  const body = owned(out.body);
  const answer = { ...out, body };
  post({ type: "answer", id, answer, tiers: cache.tierStats(), cpuMs: ownCpuMs() }, moving(body));
}

let waiting: { id: number; resolve: (go: boolean) => void } | undefined;

const label = (who: Identity) =>
  who.parent === undefined ? undefined : `${who.parent.namespace}/${who.parent.name}`;

/** Tells the main thread whom the request is for; whether it may go on (asking when told to). */
function mayGoOn(message: JobMessage, who: Identity): Promise<boolean> | boolean {
  const { id, known, handBack } = message;
  const ask = !known && Atomics.load(data.ask, 0) === 1;
  const parent = label(who);
  post({ type: "read", id, tenant: who.tenant, ask, ...(parent === undefined ? {} : { parent }) });
  if (known) return true;
  if (!ask) return !handBack.includes(who.tenant);
  return new Promise((resolve) => (waiting = { id, resolve }));
}

async function run(message: JobMessage): Promise<void> {
  const { id, job } = message;
  const text = textOf(job);
  const who = identify(job.route, text);
  if (!(await mayGoOn(message, who))) {
    // Its tenant holds its share: the body is handed back, unparsed, to wait for its turn.
    const body = job.body === null ? null : owned(job.body);
    post({ type: "handedBack", id, body, cpuMs: ownCpuMs() }, moving(body));
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

/**
 * The usual requests once before the first real one (./warm-up.ts), answered
 * without the caches so that they start empty.
 */
function warmUp(): void {
  const plain = { ...fixed, generate: generateConfig };
  for (const job of warmUpJobs()) {
    const got = read(job.route, textOf(job));
    if (got.ok) answer(job, got, plain);
  }
}

warmUp();
const tid = ownThreadId();
post({ type: "ready", ...(tid === undefined ? {} : { tid }), cpuMs: ownCpuMs() });
