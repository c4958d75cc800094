// The HTTP edge: express routes around the pure core, one app per class of
// endpoints (./classes.ts: the hook's, the API server's; each on its port).
// Receives request bodies (charged to the class's body budget as they
// arrive, within the limit), passes them with the clock to the worker
// pool (./pool/), which reads, checks and answers them off this thread (400
// with the JSON path of the problem), logs one structured line per request
// (never a body), and never returns a stack. A steady parent's repeated request
// is answered here from a cache of whole responses, without a worker
// (./responses.ts says when that is sound).
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import express, { type NextFunction, type Request, type Response } from "express";
import type { Logger } from "pino";
import type { Catalog } from "../config/catalog.js";
import { own } from "../lib/json.js";
import { isoSeconds } from "../edge/clock.js";
import { serverMsg } from "../server-messages.js";
import { byteCache, type ByteCache, type CacheTier, type TierStats } from "./memo.js";
import { bodyReader, createBodyBudget, type BodyBudget, type BodyRefusal } from "./body-budget.js";
import { ENDPOINT_CLASSES, fromApiServer, HOOK_CLASS, type EndpointClass } from "./classes.js";
import { errorBody, READABLE_CHARSETS, type Answer, type Parent, type Route } from "./answer.js";
import { viewOf } from "./condition-metrics.js";
import {
  createMetrics,
  outcomeOf,
  outcomeOfStatusCode,
  type HookMetrics,
  type OutcomeLabels,
} from "./metrics.js";
import type { Pool, PoolEvents } from "./pool/index.js";
import { keepResponse, requestKey, type CachedResponse } from "./responses.js";

/**
 * The default limit of a request body (docs/operations/hook-server.md has the sizing): a
 * parent is at most 1.5 MiB (etcd), each child stays under the annotation
 * budget, so a real request is far smaller; reading costs up to ~30× the body
 * in memory (npm run bench), which must fit a worker's heap with its cache.
 */
export const BODY_LIMIT_BYTES = 4 * 1024 * 1024;

/**
 * Bytes the caches may hold together (docs/operations/hook-server.md): half for whole
 * responses in the main thread, half for generated configs, shared out among the workers.
 */
export const CACHE_BYTES = 48 * 1024 * 1024;

/** The generated configs' half of the caches' bytes: what the pool is made with (createPool's cacheBytes). */
export function generationCacheBytes(cacheBytes: number): number {
  return cacheBytes / 2;
}

export interface AppOptions {
  /** The worker pool that reads and answers the requests the response cache cannot (createPool). */
  pool: Pool;
  /** The catalog the pool was made with (/readyz names its releases). */
  catalog: Catalog;
  logger: Logger;
  /** The clock; injectable for tests. */
  now?: () => Date;
  /** Bytes the caches may hold together (default CACHE_BYTES): the response cache takes half, the pool's the rest. */
  cacheBytes?: number;
  /** Whether whole sync responses are cached (default true; the bench compares without). */
  cacheResponses?: boolean;
  /** The largest request body accepted (default BODY_LIMIT_BYTES). */
  bodyLimitBytes?: number;
  /** Request-body bytes held at once across the class's requests (default: the class's); at least bodyLimitBytes. */
  bodyBudgetBytes?: number;
  /**
   * When set, the class's routes require "Authorization: Bearer <token>" (Metacontroller ≥ 4.16)
   * if the class takes one: the API server's never does, it sends no token to a webhook.
   */
  bearerToken?: string;
  /** Where the app records its metrics (default: a registry of its own); served by createMetricsApp. */
  metrics?: HookMetrics;
  /**
   * The endpoints this app serves (default HOOK_CLASS). One metrics registry
   * watches the caches and the pool once: through the hook's app.
   */
  endpoints?: EndpointClass;
}

/** What the metrics learn of one request, kept in res.locals until it finishes. */
interface Measured {
  outcome?: OutcomeLabels;
  parent?: Parent;
  cached?: boolean;
}

function measured(res: Response): Measured {
  return (res.locals["metrics"] ??= {}) as Measured;
}

/** Every route of every class, by path: the shape of a request's error. */
const ROUTES: Readonly<Record<string, Route>> = Object.assign(
  {},
  ...ENDPOINT_CLASSES.map((c) => c.routes),
) as Record<string, Route>;

const routeOf = (req: Request, routes: Readonly<Record<string, Route>>): Route | undefined =>
  req.method === "POST" ? own(routes, req.path) : undefined;

/** Records a finished request of the class's routes; other paths are not measured. */
function record(
  metrics: HookMetrics,
  routes: Readonly<Record<string, Route>>,
  req: Request,
  res: Response,
  seconds: number,
): void {
  const route = routeOf(req, routes);
  if (route === undefined) return;
  const m = measured(res);
  metrics.observeRequest(route, seconds, m.cached === true);
  if (route === "sync")
    metrics.countSync(m.outcome ?? outcomeOfStatusCode(res.statusCode), m.parent);
}

/** A 200 with JSON already serialized, with the headers res.json gives. */
function sendJson(res: Response, status: number, body: Buffer): void {
  res.status(status).set("content-type", "application/json; charset=utf-8").send(body);
}

type Handler = (req: Request, res: Response, next: NextFunction) => void;

/** One structured log line per request (never a body), and its metrics. */
function logRequests(
  logger: Logger,
  metrics: HookMetrics,
  routes: Readonly<Record<string, Route>>,
): Handler {
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    res.on("finish", () => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      record(metrics, routes, req, res, ms / 1e3);
      const level = req.path === "/healthz" || req.path === "/readyz" ? "debug" : "info";
      // The line is built only when the logger writes it.
      if (!logger.isLevelEnabled(level)) return;
      const fields = {
        method: req.method,
        path: req.path,
        status: res.statusCode,
        ms: Math.round(ms * 100) / 100,
        ...(res.locals["log"] ?? {}),
      };
      logger[level](fields, "request");
    });
    next();
  };
}

/** The error body of `req`'s path, whatever its method: a Failure ConversionReview for /convert, a Status for /validate. */
const errorBodyOf = (req: Request, status: number, error: string): unknown =>
  errorBody(own(ROUTES, req.path), status, error);

const requireJson: Handler = (req, res, next) => {
  if (!req.is("application/json")) {
    res.status(415).json(errorBodyOf(req, 415, serverMsg.notJson));
    return;
  }
  next();
};

/** The body's charset from Content-Type, lower-case; UTF-8 when none is named. */
function charsetOf(req: Request): string {
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(req.get("content-type") ?? "");
  return (match?.[1] ?? match?.[2] ?? "utf-8").toLowerCase() || "utf-8";
}

/** Refuses a charset the workers do not read before a byte of the body is (body-parser's rule for JSON). */
const requireCharset: Handler = (req, res, next) => {
  if (!READABLE_CHARSETS.has(charsetOf(req))) {
    res.status(415).json(errorBodyOf(req, 415, serverMsg.unsupportedCharset));
    return;
  }
  next();
};

function authorizer(token: string | undefined): Handler {
  const expected = token === undefined ? undefined : Buffer.from(`Bearer ${token}`);
  return (req, res, next) => {
    if (expected === undefined) return next();
    const got = Buffer.from(req.get("authorization") ?? "");
    if (got.length !== expected.length || !timingSafeEqual(got, expected)) {
      res.status(401).json({ error: serverMsg.badToken });
      return;
    }
    next();
  };
}

/**
 * The body reader (./body-budget.ts): bytes only, decoded from their
 * Content-Encoding, never parsed here. Each body's key (the sha256 of its
 * bytes and charset) finds a whole cached answer, and joins equal requests in the pool.
 */
function readBodies(
  limit: number,
  budget: BodyBudget,
  metrics: HookMetrics,
  routes: Readonly<Record<string, Route>>,
) {
  const requestKeys = new WeakMap<IncomingMessage, string>();
  const read = bodyReader({
    budget,
    limit,
    read: (req, body) => {
      metrics.observeBody(own(routes, req.path) ?? "customize", body.length);
      requestKeys.set(req, requestKey(body, charsetOf(req)));
    },
    refuse: (req, res, refusal: BodyRefusal) => {
      if (refusal.budget === true) metrics.countBudgetRefusal(routeOf(req, routes) ?? "other");
      // No Retry-After to the API server (see sendAnswer).
      const route = own(routes, req.path);
      if (route !== undefined && fromApiServer(route)) res.removeHeader("retry-after");
      res.status(refusal.status).json(errorBodyOf(req, refusal.status, refusal.error));
    },
  });
  return { read, requestKeys };
}

interface PoolDeps {
  now: () => Date;
  pool: Pool;
  metrics: HookMetrics;
  logger: Logger;
  responses: CacheTier<CachedResponse> | undefined;
  requestKeys: WeakMap<IncomingMessage, string>;
}

function answerFromCache(deps: PoolDeps, res: Response, cached: CachedResponse): void {
  res.locals["log"] = { ...cached.log, cached: true };
  Object.assign(measured(res), { outcome: cached.outcome, parent: cached.parent, cached: true });
  if (cached.view !== undefined) deps.metrics.recordParent(cached.parent, cached.view, deps.now());
  sendJson(res, 200, cached.body);
}

/** Sends a worker's answer; a 200 sync answer that does not hold `now` is kept for its bytes. */
function sendAnswer(
  deps: PoolDeps,
  res: Response,
  route: Route,
  answer: Answer,
  key: string | undefined,
): void {
  res.locals["log"] = answer.log;
  if (answer.fault !== undefined)
    deps.logger.error(
      { err: { message: answer.fault.message, stack: answer.fault.stack } },
      answer.fault.note,
    );
  const body = Buffer.from(answer.body.buffer, answer.body.byteOffset, answer.body.byteLength);
  if (route === "sync") {
    const m = measured(res);
    if (answer.parent !== undefined) m.parent = answer.parent;
    if (answer.summary !== undefined) {
      const outcome = outcomeOf(answer.summary);
      const view = viewOf(answer.summary);
      m.outcome = outcome;
      if (answer.parent !== undefined && view !== undefined)
        deps.metrics.recordParent(answer.parent, view, deps.now());
      if (answer.timeless === true && key !== undefined && deps.responses !== undefined)
        keepResponse(deps.responses, key, {
          body,
          log: answer.log,
          outcome,
          parent: answer.parent ?? { namespace: "", name: "" },
          view,
        });
    }
  }
  // Not to the API server (/validate, /convert): its webhook client would wait and retry within
  // the webhook's timeout, and a timeout would then answer in place of this message (ADR 20).
  if (answer.retryAfter !== undefined && !fromApiServer(route))
    res.set("retry-after", String(answer.retryAfter));
  sendJson(res, answer.status, body);
}

/** What the app counts and logs of a request the pool could not answer in time. */
function poolEvents(deps: PoolDeps, route: Route): PoolEvents {
  const { metrics, logger } = deps;
  const { limits } = deps.pool;
  return {
    timeout: (parent) => {
      metrics.countWorkerTimeout(route);
      logger.warn(
        { route, parent, deadlineMs: limits.deadlineMs },
        "request past the worker deadline; its worker was replaced",
      );
    },
    crash: (parent, reason) => {
      metrics.countWorkerCrash(route);
      logger.error(
        { route, parent, reason, heapMib: limits.heapMib },
        "a worker stopped while answering; it was replaced",
      );
    },
    refused: (why) => metrics.countWorkerRefusal(route, why),
  };
}

/** /sync, /customize, /convert: the cache (for /sync), else the pool. */
function poolHandler(route: Route, deps: PoolDeps): Handler {
  return (req, res, next) => {
    const key = deps.requestKeys.get(req);
    if (route === "sync" && key !== undefined && deps.responses !== undefined) {
      const cached = deps.responses.get(key);
      if (cached !== undefined) return answerFromCache(deps, res, cached);
    }
    const body = req.body as Buffer | undefined;
    deps.pool
      .run(
        {
          route,
          body: Buffer.isBuffer(body) ? body : null,
          charset: charsetOf(req),
          at: isoSeconds(deps.now()),
          ...(key === undefined ? {} : { key: `${route}\0${key}` }),
        },
        poolEvents(deps, route),
      )
      .then((answer) => sendAnswer(deps, res, route, answer, key), next);
  };
}

interface ErrorShape {
  status?: number;
  message?: string;
  stack?: string;
}

/**
 * Handler errors (the body reader answers its own). An error's message can quote
 * the request, so only a fixed text goes out: "bad request" for a client's error.
 * /convert answers each as a Failure ConversionReview, the shape the API server reads.
 */
function handleErrors(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    void _next;
    const e = err as ErrorShape;
    const client = typeof e.status === "number" && e.status >= 400 && e.status < 500;
    if (!client) logger.error({ err: { message: e.message, stack: e.stack } }, "internal error");
    const { status, error } = client
      ? { status: e.status ?? 400, error: serverMsg.badRequest }
      : { status: 500, error: serverMsg.internalError };
    res.status(status).json(errorBodyOf(req, status, error));
  };
}

/** The caches' and the pool's figures for the metrics: the response tier here, the generation and plan tiers in the workers. */
function watch(metrics: HookMetrics, pool: Pool, cache: ByteCache, cacheBytes: number): void {
  metrics.watchCache(
    {
      tierStats: (): Record<string, TierStats> => ({
        ...cache.tierStats(),
        ...pool.stats().tiers,
      }),
    },
    cacheBytes,
  );
  metrics.watchPool(() => pool.stats(), pool.limits.workers);
}

export function createApp(options: AppOptions): express.Express {
  const { catalog, logger, pool } = options;
  const endpoints = options.endpoints ?? HOOK_CLASS;
  const { routes } = endpoints;
  const cacheBytes = options.cacheBytes ?? CACHE_BYTES;
  const metrics = options.metrics ?? createMetrics();
  const bodyLimit = options.bodyLimitBytes ?? BODY_LIMIT_BYTES;
  const budgetBytes = options.bodyBudgetBytes ?? endpoints.defaultBudgetBytes;
  if (budgetBytes < bodyLimit)
    throw new Error(serverMsg.budgetBelowLimit(endpoints.budgetVariable, budgetBytes, bodyLimit));
  const hook = endpoints.name === "hook";
  // Whole responses are /sync's: the hook's app holds them, and reports the caches and the pool.
  const cache = hook ? byteCache(cacheBytes - generationCacheBytes(cacheBytes)) : undefined;
  if (cache !== undefined) watch(metrics, pool, cache, cacheBytes);
  const budget = createBodyBudget(budgetBytes, endpoints.budgetVariable, bodyLimit);
  metrics.watchBudget(endpoints.name, () => budget.held());
  const reader = readBodies(bodyLimit, budget, metrics, routes);
  const authorize = authorizer(endpoints.token ? options.bearerToken : undefined);
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(logRequests(logger, metrics, routes));
  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/readyz", (_req, res) => {
    res.json({ status: "ok", releases: catalog.releases });
  });
  const deps: PoolDeps = {
    now: options.now ?? (() => new Date()),
    pool,
    metrics,
    logger,
    responses:
      cache === undefined || options.cacheResponses === false
        ? undefined
        : cache.tier<CachedResponse>("response"),
    requestKeys: reader.requestKeys,
  };
  for (const [path, route] of Object.entries(routes))
    app.post(path, authorize, requireJson, requireCharset, reader.read, poolHandler(route, deps));
  app.use((_req, res) => {
    res.status(404).json({ error: serverMsg.notFound(Object.keys(routes)) });
  });
  app.use(handleErrors(logger));
  return app;
}
