// Every text the hook's server sends or stops with (src/server/), in one place
// so tests can assert exact text, as messages.ts holds the resource's: what
// failed, for which request or setting, and what to do. None quotes a request
// body (it may hold Secret data), only names and figures the server made.

const mib = (bytes: number): number => +(bytes / 2 ** 20).toFixed(2);
const cap = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** Who calls a route: "convert" and "validate" (the API server), or any other (Metacontroller). */
type Caller = "convert" | "validate" | "sync" | "customize";

/** What happens after a 503, by who called: the API server does not retry a webhook call. */
const retries = (caller: Caller): string =>
  caller === "convert"
    ? "the API server does not retry: the read or write that needed the conversion fails, and its client retries it"
    : caller === "validate"
      ? "the API server does not retry: it refuses the create or update (failurePolicy Fail), and kubectl or the GitOps tool applies it again"
      : "Metacontroller retries";

/** What to do about a request past a worker's limits. */
const tooLarge = (caller: Caller): string =>
  caller === "convert"
    ? `${retries(caller)}; if it keeps failing, the objects converted at once take more than the hook allows: list them in smaller pages (docs/conversion.md)`
    : `${retries(caller)}; if it keeps failing, the resource or its related objects take more than the hook allows: make them smaller (docs/operations/hook-server.md)`;

const UNSUPPORTED_CHARSET = "unsupported charset: send the body as JSON in UTF-8";
const UNDECODABLE = "the compressed body could not be decompressed; check its Content-Encoding";

export const serverMsg = {
  // answers of the HTTP edge (src/server/app.ts, src/server/body-budget.ts)
  internalError: "internal error in llsd-hook; see the hook's log",
  metricsInternalError: "internal error in llsd-hook's metrics",
  notJson: "content-type must be application/json",
  badToken: "missing or wrong bearer token",
  badRequest: "bad request",
  notFound: (paths: readonly string[]) =>
    `not found: this port serves ${paths.map((p) => `POST ${p}`).join(", ")}, GET /healthz and GET /readyz`,
  metricsNotFound: "not found: the metrics port serves GET /metrics",
  bodyTooLarge: (limitBytes: number) =>
    `request body larger than ${mib(limitBytes)} MiB, the most llsd-hook accepts (BODY_LIMIT_MIB); see docs/operations/hook-server.md`,
  budgetFull: (budgetBytes: number, variable: string) =>
    `llsd-hook is reading as many request bodies as it holds at once (${mib(budgetBytes)} MiB in all, ${variable}); retry shortly`,
  largeBudgetFull: (budget: {
    bytes: number;
    largeFrom: number;
    largeBytes: number;
    variable: string;
  }) =>
    `llsd-hook is reading as many large request bodies as it holds at once (bodies over ${mib(budget.largeFrom)} MiB hold at most ${mib(budget.largeBytes)} of the ${mib(budget.bytes)} MiB of ${budget.variable}, the rest kept for smaller ones); retry shortly`,
  unsupportedCharset: UNSUPPORTED_CHARSET,
  /** A body whose compression Node's zlib or brotli decoder refused. */
  undecodable: UNDECODABLE,
  unsupportedEncoding:
    "unsupported Content-Encoding: send the body uncompressed, or with gzip, deflate or br",
  bodyTooSlow: (floorBytes: number, windowMs: number) =>
    `the request body arrived slower than ${floorBytes / 1024} KiB in ${windowMs / 1000} s, the least llsd-hook waits for; send the body with its headers`,

  // answers of a worker (src/server/handle.ts)
  tooManyValues: (max: number) =>
    `request body of more than ${max} JSON values, the most llsd-hook reads (a real hook request has far fewer); see docs/operations/hook-server.md`,
  invalidJson: (position: string | undefined) =>
    `invalid JSON body${position === undefined ? "" : ` at position ${position}`}`,
  notAnObject: (found: string) =>
    `the request body must be a JSON object (a Metacontroller hook request), not ${found}`,
  invalidHookRequest: (path: string, message: string) =>
    `invalid hook request: ${path}: ${message}`,

  // answers of the worker pool (src/server/pool/): a 503 with Retry-After, named by what it was for
  syncOf: (parent: string) => `the sync of ${parent}`,
  customizeOf: (parent: string) => `the /customize request of ${parent}`,
  apiServerRequest: (route: string) => `a /${route} request`,
  unreadRequest: (route: string) => `a /${route} request (its parent not read yet)`,
  /** A tenant in a message: "namespace a", or /convert (all the API server's requests). */
  tenant: (tenant: string, convert: boolean) => (convert ? "/convert" : `namespace ${tenant}`),
  shuttingDown: "llsd-hook is shutting down; retry",
  stoppedAtDeadline: (subject: string, deadlineMs: number, caller: Caller) =>
    `llsd-hook stopped ${subject} after ${deadlineMs} ms of processing, the most one request may take (WORKER_DEADLINE_MS), and replaced its worker. ${cap(tooLarge(caller))}`,
  stoppedAtWallLimit: (subject: string, wallMs: number, deadlineMs: number, caller: Caller) =>
    `llsd-hook stopped ${subject} after ${wallMs} ms in all, on a node too busy to give it the ${deadlineMs} ms of processing one request may take (WORKER_DEADLINE_MS), and replaced its worker. ${cap(tooLarge(caller))}`,
  outOfHeap: (subject: string, heapMib: number, caller: Caller) =>
    `llsd-hook's worker ran out of memory on ${subject}: its heap is bounded at ${heapMib} MiB (WORKER_HEAP_MIB); the worker was replaced. ${cap(tooLarge(caller))}, or raise WORKER_HEAP_MIB with the memory limit`,
  workerStopped: (subject: string) =>
    `llsd-hook's worker stopped on ${subject} and was replaced; see the hook's log`,
  noFreeWorker: (subject: string, waitMs: number, workers: number, caller: Caller) =>
    `llsd-hook had no free worker for ${subject} within ${waitMs} ms (HOOK_WORKERS: all ${workers} busy); ${retries(caller)}`,
  tenantHoldsItsShare: (
    subject: string,
    waitMs: number,
    tenant: string,
    share: number,
    workers: number,
    caller: Caller,
  ) =>
    `llsd-hook had no free worker for ${subject} within ${waitMs} ms (HOOK_WORKERS: ${tenant} holds ${share} of the ${workers} at most); ${retries(caller)}`,
  busyTenantsHoldTheirShare: (
    subject: string,
    waitMs: number,
    tenant: string,
    busyShare: number,
    workers: number,
    caller: Caller,
  ) =>
    `llsd-hook had no free worker for ${subject} within ${waitMs} ms (HOOK_WORKERS: ${tenant} took more than half its worker time lately, and such namespaces hold ${busyShare} of the ${workers} at most together, the rest kept for the others); ${retries(caller)}`,
  waitsForItsTime: (
    subject: string,
    seconds: number,
    tenant: string,
    stopped: boolean,
    caller: Caller,
  ) =>
    `llsd-hook holds back ${subject} for ${seconds} s more: ${stopped ? `a request of ${tenant} was stopped at a worker's limits lately (WORKER_DEADLINE_MS, WORKER_HEAP_MIB)` : `the requests of ${tenant} took more worker time lately than its share beside the other namespaces`}, and its requests wait until that time is made up at a quarter of a worker; ${retries(caller)}`,
  workersDoNotStart: (why: string) => `llsd-hook's workers do not start: ${why}`,
  workersDidNotStart: (seconds: number) => `llsd-hook's workers did not start within ${seconds} s`,

  // settings, at start (src/server/settings.ts, src/server/main.ts)
  notWhole: (variable: string, text: string, min: number, max: number) =>
    `${variable}=${text} must be a whole number from ${min} to ${max}`,
  notCount: (variable: string, text: string) =>
    `${variable}=${text} is not a whole number (0 or more)`,
  notMebibytes: (variable: string, text: string) =>
    `${variable}=${text} is not a positive number of MiB`,
  notSeconds: (variable: string, text: string) =>
    `${variable}=${text} is not a number of seconds (0 or more)`,
  notFlag: (variable: string, text: string) => `${variable}=${text} is neither true nor false`,
  emptyTokenFile: (file: string) => `HOOK_TOKEN_FILE=${file} is empty`,
  tlsHalf: "set both TLS_CERT_FILE and TLS_KEY_FILE, or neither",
  samePorts: (variable: string, other: string, port: number) =>
    `${variable} must differ from ${other} (${port}): each port serves its own callers`,
  cannotListen: (variable: string, port: number, why: string) =>
    `llsd-hook could not listen on ${variable} ${port} (${why}); set ${variable} to a free port`,
  budgetBelowLimit: (variable: string, budgetBytes: number, limitBytes: number) =>
    `${variable} (${mib(budgetBytes)}) must be at least BODY_LIMIT_MIB (${mib(limitBytes)}): a body at the limit would never fit`,
  tooFewWorkers: (workers: number) =>
    `HOOK_WORKERS must be a whole number of at least 1, not ${workers}`,
};
