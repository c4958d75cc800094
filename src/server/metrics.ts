// The hook's own metrics (docs/operations/metrics.md), in Prometheus text format
// from prom-client, on a port of their own (METRICS_PORT) so that the
// NetworkPolicy can let Prometheus scrape without letting it call /sync.
// One Registry per app, never prom-client's global one. No label takes a value
// from a request: the outcome and reason come from fixed sets (an unknown
// reason counts as "other"); the parent's namespace and name are labels of the
// per-parent series (./condition-metrics.ts; METRICS_PARENTS_MAX, 0 turns them
// off), and of the sync outcomes only when the operator opts in
// (METRICS_PARENT_LABELS), each only when Kubernetes would accept it (./labels.ts).
import express from "express";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { ConditionReason } from "../reasons.js";
import { serverMsg } from "../server-messages.js";
import type { Parent, RefusalReason, Route, StatusSummary } from "./answer.js";
import { DEFAULT_PARENTS_MAX, parentMetrics, type ParentView } from "./condition-metrics.js";
import { boundedReason, isNamespaceName, isObjectName } from "./labels.js";
import type { ConnectionCounts } from "./connections.js";
import type { TierStats } from "./memo.js";

/** What a sync request came to: the `outcome` label of llsd_hook_sync_outcomes_total. */
const Outcome = {
  /** Phase Ready. */
  Ready: "ready",
  /** Phase Pending or Initializing: created or rolling out. */
  Progressing: "progressing",
  /** Phase Failed with nothing applied yet. */
  Failed: "failed",
  /** Phase Failed with the last applied children kept (docs/adr/0002). */
  Kept: "kept",
  /** A 409: a child is owned by something else. */
  Conflict: "conflict",
  /** A 4xx before sync ran: bad JSON, not a hook request, too large, wrong type, no token. */
  InvalidRequest: "invalid_request",
  /** A 500. */
  Error: "error",
  /** A 503: not answered in time or within memory (docs/adr/0017), or no room in the body budget. */
  Unavailable: "unavailable",
} as const;
type Outcome = (typeof Outcome)[keyof typeof Outcome];

export interface OutcomeLabels {
  outcome: Outcome;
  /** One of ALL_REASONS (src/reasons.ts), "other", or "none" (conflicts and refused requests). */
  reason: string;
}

/** The reason label of outcomes that have none (conflict, invalid_request, error). */
const NO_REASON = "none";

/** The outcome of a sync answered 200, from the status it returned. */
export function outcomeOf(status: StatusSummary): OutcomeLabels {
  const { phase, conditions = [] } = status;
  const conditionReason = (type: string) => conditions.find((c) => c.type === type)?.reason;
  if (phase === "Ready") return { outcome: Outcome.Ready, reason: ConditionReason.Ready };
  if (phase === "Failed") {
    const kept = conditionReason("DeploymentUpdated") === ConditionReason.KeptLastApplied;
    return {
      outcome: kept ? Outcome.Kept : Outcome.Failed,
      reason: boundedReason(conditionReason("Stalled")),
    };
  }
  return {
    outcome: Outcome.Progressing,
    reason: boundedReason(conditionReason("Ready")),
  };
}

/** The outcome of a sync request that did not get a status: by its HTTP status. */
export function outcomeOfStatusCode(code: number): OutcomeLabels {
  if (code === 409) return { outcome: Outcome.Conflict, reason: NO_REASON };
  if (code === 503) return { outcome: Outcome.Unavailable, reason: NO_REASON };
  if (code >= 500) return { outcome: Outcome.Error, reason: NO_REASON };
  return { outcome: Outcome.InvalidRequest, reason: NO_REASON };
}

/** Where the pool's figures come from (src/server/pool/). */
interface PoolFigures {
  busy: number;
  queued: number;
}

/** Caches whose tiers the metrics report. */
interface WatchedCache {
  tierStats(): Record<string, TierStats>;
}

export interface MetricsOptions {
  /** Label sync outcomes with the parent's namespace and name (one series per parent; default false). */
  parentLabels?: boolean;
  /** prom-client's default process and Node.js metrics, prefixed llsd_hook_ (default false). */
  processMetrics?: boolean;
  /** llsd-hook's version: llsd_hook_build_info{version} 1 (none without it). */
  version?: string;
  /** The most parents with series of their own (default DEFAULT_PARENTS_MAX; 0: none). */
  parentsMax?: number;
  /** The memory limit of the hook's container in bytes: llsd_hook_memory_limit_bytes (none without it). */
  memoryLimitBytes?: number;
  /** The clock that expires parents' series at a scrape; injectable for tests. */
  now?: () => Date;
}

export interface HookMetrics {
  readonly registry: Registry;
  /** A request to /sync, /customize or /convert took `seconds`; `cached`: answered from the response cache. */
  observeRequest(route: Route, seconds: number, cached: boolean): void;
  /** A request body of `bytes` (decoded) was read. */
  observeBody(route: Route, bytes: number): void;
  /** A sync request came to `labels`; `parent` when it was known. */
  countSync(labels: OutcomeLabels, parent: Parent | undefined): void;
  /** A sync of `parent` answered at `at` returned a status that says `view` (./condition-metrics.ts). */
  recordParent(parent: Parent, view: ParentView, at: Date): void;
  /** What GET /metrics serves: the registry's families and the per-parent ones. */
  exposition(): Promise<string>;
  /** Report the figures of the app's caches at each scrape. */
  watchCache(cache: WatchedCache, maxBytes: number): void;
  /** Report the worker pool's figures at each scrape. */
  watchPool(stats: () => PoolFigures, workers: number): void;
  /** Report a class's body bytes held now at each scrape (./body-budget.ts). */
  watchBudget(endpointClass: string, held: () => number): void;
  /** Report a class's port's connections at each scrape (./connections.ts). */
  watchConnections(endpointClass: string, counts: () => ConnectionCounts): void;
  /** A request was answered 503 before it was read: the body budget was full. */
  countBudgetRefusal(route: Route | "other"): void;
  /** A request ran past the worker deadline (its worker was replaced). */
  countWorkerTimeout(route: Route): void;
  /** A worker stopped while answering, out of heap or otherwise (it was replaced). */
  countWorkerCrash(route: Route): void;
  /** A request was answered 503 by the pool without running (RefusalReason, src/server/answer.ts). */
  countWorkerRefusal(route: Route, why: RefusalReason): void;
}

/** 0.1 ms to 2.5 s: a cached answer is well under a millisecond, a large sync tens of ms. */
const DURATION_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
];
/** 1 KiB to 16 MiB, by fours (the default body limit is 4 MiB). */
const BODY_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384].map((k) => k * 1024);

function requestMetrics(registers: Registry[]) {
  const duration = (route: Route, labelNames: string[]) =>
    new Histogram({
      name: `llsd_hook_${route}_duration_seconds`,
      help: `Time from receiving a /${route} request to sending the whole answer, parsing included.`,
      labelNames,
      buckets: DURATION_BUCKETS,
      registers,
    });
  return {
    sync: duration("sync", ["cached"]),
    customize: duration("customize", []),
    convert: duration("convert", []),
    validate: duration("validate", []),
    body: new Histogram({
      name: "llsd_hook_request_body_bytes",
      help: "Size of request bodies read (after Content-Encoding), by route.",
      labelNames: ["route"],
      buckets: BODY_BUCKETS,
      registers,
    }),
  };
}

function cacheMetrics(registers: Registry[], caches: { cache: WatchedCache; maxBytes: number }[]) {
  const tiers = () => caches.flatMap(({ cache }) => Object.entries(cache.tierStats()));
  const figure = (name: string, help: string, read: (s: TierStats) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ["cache"],
      registers,
      collect() {
        this.reset();
        for (const [cache, stats] of tiers()) this.set({ cache }, read(stats));
      },
    });
  const count = (name: string, help: string, read: (s: TierStats) => number) =>
    new Counter({
      name,
      help,
      labelNames: ["cache"],
      registers,
      collect() {
        this.reset();
        for (const [cache, stats] of tiers()) this.inc({ cache }, read(stats));
      },
    });
  count("llsd_hook_cache_hits_total", "Lookups answered from the cache, by tier.", (s) => s.hits);
  count("llsd_hook_cache_misses_total", "Lookups the cache could not answer.", (s) => s.misses);
  figure("llsd_hook_cache_bytes", "Bytes held by the tier now (estimated).", (s) => s.bytes);
  figure("llsd_hook_cache_entries", "Entries held by the tier now.", (s) => s.entries);
  new Gauge({
    name: "llsd_hook_cache_max_bytes",
    help: "Bytes the tiers may hold together (CACHE_MIB).",
    registers,
    collect() {
      this.set(caches.reduce((sum, c) => sum + c.maxBytes, 0));
    },
  });
}

/** What each class's port holds (docs/adr/0018): body bytes and connections, read at each scrape. */
interface EdgeWatch {
  budgets: { endpointClass: string; held: () => number }[];
  ports: { endpointClass: string; counts: () => ConnectionCounts }[];
}

function edgeMetrics(registers: Registry[]): Pick<HookMetrics, "watchBudget" | "watchConnections"> {
  const edge: EdgeWatch = { budgets: [], ports: [] };
  new Gauge({
    name: "llsd_hook_body_budget_held_bytes",
    help: "Request-body bytes held now by the class's requests (BODY_BUDGET_MIB, API_SERVER_BODY_BUDGET_MIB).",
    labelNames: ["class"],
    registers,
    collect() {
      this.reset();
      for (const { endpointClass, held } of edge.budgets)
        this.set({ class: endpointClass }, held());
    },
  });
  new Gauge({
    name: "llsd_hook_connections",
    help: "Connections open now on the class's port (MAX_CONNECTIONS, API_SERVER_MAX_CONNECTIONS).",
    labelNames: ["class"],
    registers,
    collect() {
      this.reset();
      for (const { endpointClass, counts } of edge.ports)
        this.set({ class: endpointClass }, counts().open);
    },
  });
  const count = (name: string, help: string, read: (c: ConnectionCounts) => number) =>
    new Counter({
      name,
      help,
      labelNames: ["class"],
      registers,
      collect() {
        this.reset();
        for (const { endpointClass, counts } of edge.ports)
          this.inc({ class: endpointClass }, read(counts()));
      },
    });
  count(
    "llsd_hook_connections_cut_total",
    "Idle connections cut to let a new one in: the port was at its connection limit.",
    (c) => c.cut,
  );
  count(
    "llsd_hook_connections_refused_total",
    "New connections closed unread: the port was at its limit with a request in progress on every connection.",
    (c) => c.refused,
  );
  return {
    watchBudget: (endpointClass, held) => edge.budgets.push({ endpointClass, held }),
    watchConnections: (endpointClass, counts) => edge.ports.push({ endpointClass, counts }),
  };
}

/** The worker pool's figures at each scrape (docs/adr/0017). */
function poolGauges(registers: Registry[], pools: { stats: () => PoolFigures; workers: number }[]) {
  const sum = (read: (s: PoolFigures) => number) => pools.reduce((n, p) => n + read(p.stats()), 0);
  new Gauge({
    name: "llsd_hook_workers",
    help: "Worker threads that read and answer requests (HOOK_WORKERS).",
    registers,
    collect() {
      this.set(pools.reduce((n, p) => n + p.workers, 0));
    },
  });
  new Gauge({
    name: "llsd_hook_workers_busy",
    help: "Workers answering a request now.",
    registers,
    collect() {
      this.set(sum((s) => s.busy));
    },
  });
  new Gauge({
    name: "llsd_hook_worker_queue_length",
    help: "Requests waiting for a worker now.",
    registers,
    collect() {
      this.set(sum((s) => s.queued));
    },
  });
}

/** The body budget's refusals and the worker pool's counts and figures (docs/adr/0010, docs/adr/0017). */
function poolMetrics(
  registers: Registry[],
  pools: { stats: () => PoolFigures; workers: number }[],
) {
  poolGauges(registers, pools);
  const budgetRefusals = new Counter({
    name: "llsd_hook_body_budget_refusals_total",
    help: "Requests answered 503 before their body was read: the body budget (BODY_BUDGET_MIB), or its large bodies' share, was full.",
    labelNames: ["route"],
    registers,
  });
  const timeouts = new Counter({
    name: "llsd_hook_worker_timeouts_total",
    help: "Requests stopped at the worker deadline (WORKER_DEADLINE_MS); each worker was replaced.",
    labelNames: ["route"],
    registers,
  });
  const crashes = new Counter({
    name: "llsd_hook_worker_crashes_total",
    help: "Workers that stopped while answering, out of heap (WORKER_HEAP_MIB) or otherwise; each was replaced.",
    labelNames: ["route"],
    registers,
  });
  const refusals = new Counter({
    name: "llsd_hook_worker_refusals_total",
    help: "Requests the pool answered 503 without running: why=queue waited too long for a worker, why=repeat repeats bytes that ran past a limit, why=share its namespace took more than its share of worker time (beside other namespaces, or with a request stopped at a limit) and waits to make it up.",
    labelNames: ["route", "why"],
    registers,
  });
  return {
    countBudgetRefusal: (route: Route | "other") => budgetRefusals.inc({ route }),
    countWorkerTimeout: (route: Route) => timeouts.inc({ route }),
    countWorkerCrash: (route: Route) => crashes.inc({ route }),
    countWorkerRefusal: (route: Route, why: RefusalReason) => refusals.inc({ route, why }),
  };
}

/** Figures fixed at start: the version, the memory limit (each only when given). */
function facts(registers: Registry[], options: MetricsOptions): void {
  if (options.version !== undefined)
    new Gauge({
      name: "llsd_hook_build_info",
      help: "Always 1; the version label is llsd-hook's version (package.json).",
      labelNames: ["version"],
      registers,
    }).set({ version: options.version }, 1);
  if (options.memoryLimitBytes !== undefined)
    new Gauge({
      name: "llsd_hook_memory_limit_bytes",
      help: "The memory limit of the hook's container (MEMORY_LIMIT_MIB, from the Deployment's limits.memory).",
      registers,
    }).set(options.memoryLimitBytes);
}

export function createMetrics(options: MetricsOptions = {}): HookMetrics {
  const registry = new Registry();
  const registers = [registry];
  const parentLabels = options.parentLabels ?? false;
  if (options.processMetrics === true)
    collectDefaultMetrics({ register: registry, prefix: "llsd_hook_" });
  const requests = requestMetrics(registers);
  const outcomes = new Counter({
    name: "llsd_hook_sync_outcomes_total",
    help: "Sync requests by outcome and reason (Ready, the Stalled or Ready condition's reason).",
    labelNames: parentLabels ? ["outcome", "reason", "namespace", "name"] : ["outcome", "reason"],
    registers,
  });
  const caches: { cache: WatchedCache; maxBytes: number }[] = [];
  cacheMetrics(registers, caches);
  const pools: { stats: () => PoolFigures; workers: number }[] = [];
  const pool = poolMetrics(registers, pools);
  const edge = edgeMetrics(registers);
  facts(registers, options);
  const parents = parentMetrics(
    registers,
    options.parentsMax ?? DEFAULT_PARENTS_MAX,
    options.now ?? (() => new Date()),
  );
  return {
    recordParent: parents.record,
    exposition: async () => `${await registry.metrics()}\n${parents.exposition()}`,
    registry,
    observeRequest(route, seconds, cached) {
      if (route === "sync") requests.sync.observe({ cached: String(cached) }, seconds);
      else requests[route].observe(seconds);
    },
    observeBody(route, bytes) {
      requests.body.observe({ route }, bytes);
    },
    countSync(labels, parent) {
      const { outcome, reason } = labels;
      if (!parentLabels) return outcomes.inc({ outcome, reason });
      outcomes.inc({
        outcome,
        reason,
        namespace: labelOf(parent?.namespace, isNamespaceName),
        name: labelOf(parent?.name, isObjectName),
      });
    },
    watchCache(cache, maxBytes) {
      caches.push({ cache, maxBytes });
    },
    watchPool(stats, workers) {
      pools.push({ stats, workers });
    },
    ...pool,
    ...edge,
  };
}

/** What no Kubernetes name can be: the label of a name that failed validation. */
const INVALID_NAME = "(invalid)";

/**
 * A parent's namespace or name as a label value: only one Kubernetes accepts
 * (a request's name is whatever its sender wrote), so no label holds text a
 * real parent cannot have, and every invalid name is one series.
 */
function labelOf(value: string | undefined, valid: (value: string) => boolean): string {
  if (value === undefined) return "";
  return valid(value) ? value : INVALID_NAME;
}

/** The metrics port's app: GET /metrics, and nothing else. */
export function createMetricsApp(metrics: HookMetrics): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.get("/metrics", (_req, res, next) => {
    metrics.exposition().then((text) => {
      res.status(200).set("content-type", metrics.registry.contentType).send(text);
    }, next);
  });
  app.use((_req, res) => {
    res.status(404).json({ error: serverMsg.metricsNotFound });
  });
  app.use(
    (_err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      void _next;
      res.status(500).json({ error: serverMsg.metricsInternalError });
    },
  );
  return app;
}
