// The HTTP edge: express routes around the pure core. Receives request bodies
// (within the body budget and limit), passes them with the clock to the worker
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
import { BODY_BUDGET_BYTES, bodyBudget } from "./body-budget.js";
import {
  API_SERVER_ROUTES,
  errorBody,
  HOOK_ROUTES,
  READABLE_CHARSETS,
  type Answer,
  type Parent,
  type Route,
} from "./answer.js";
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
  /** Request-body bytes held at once across all requests (default BODY_BUDGET_BYTES); at least bodyLimitBytes. */
  bodyBudgetBytes?: number;
  /**
   * When set, /sync and /customize require "Authorization: Bearer <token>" (Metacontroller ≥ 4.16).
   * /convert and /validate never do: the API server sends no token to a webhook.
   */
  bearerToken?: string;
  /** Where the app records its metrics (default: a registry of its own); served by createMetricsApp. */
  metrics?: HookMetrics;
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

/** Each route by its path: POST /sync is "sync". */
const ROUTES: Readonly<Record<string, Route>> = Object.fromEntries(
  [...HOOK_ROUTES, ...API_SERVER_ROUTES].map((route) => [`/${route}`, route]),
);

const routeOf = (req: Request): Route | undefined =>
  req.method === "POST" ? own(ROUTES, req.path) : undefined;

/** Records a finished request on a route; other paths are not measured. */
function record(metrics: HookMetrics, req: Request, res: Response, seconds: number): void {
  const route = routeOf(req);
  if (route === undefined) return;
  const m = measured(res);
  metrics.observeRequest(route, seconds, m.cached === true);
  if (route === "sync")
    metrics.countSync(m.outcome ?? outcomeOfStatusCode(res.statusCode), m.parent);
}

/** Error codes of Node's zlib (Z_DATA_ERROR, …) and brotli decoders (ERR__ERROR_FORMAT_…, ERR_BROTLI_…). */
const DECOMPRESSION_ERROR = /^(?:Z_|ERR__ERROR_|ERR_BROTLI)/;

/** A 200 with JSON already serialized, with the headers res.json gives. */
function sendJson(res: Response, status: number, body: Buffer): void {
  res.status(status).set("content-type", "application/json; charset=utf-8").send(body);
}

type Handler = (req: Request, res: Response, next: NextFunction) => void;

/** One structured log line per request (never a body), and its metrics. */
function logRequests(logger: Logger, metrics: HookMetrics): Handler {
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    res.on("finish", () => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      record(metrics, req, res, ms / 1e3);
      const fields = {
        method: req.method,
        path: req.path,
        status: res.statusCode,
        ms: Math.round(ms * 100) / 100,
        ...(res.locals["log"] ?? {}),
      };
      if (req.path === "/healthz" || req.path === "/readyz") logger.debug(fields, "request");
      else logger.info(fields, "request");
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
 * The body reader: bytes only, decoded from their Content-Encoding, never
 * parsed here. Each body's key (the sha256 of its bytes and charset) is made
 * as it is read: it finds a whole cached answer, and joins equal requests in the pool.
 */
function bodyReader(bodyLimit: number, metrics: HookMetrics) {
  const requestKeys = new WeakMap<IncomingMessage, string>();
  const raw = express.raw({
    type: "application/json",
    limit: bodyLimit,
    verify: (req, _res, body) => {
      const path = (req.url ?? "").split("?")[0] ?? "";
      metrics.observeBody(own(ROUTES, path) ?? "customize", body.length);
      requestKeys.set(req, requestKey(body, charsetOf(req as Request)));
    },
  });
  return { raw, requestKeys };
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
  // Not to the API server (/validate): its client would wait and retry within the webhook's
  // timeout, and a timeout would then answer in place of this message.
  if (answer.retryAfter !== undefined && route !== "validate")
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
  type?: string;
  code?: string;
  status?: number;
  message?: string;
  stack?: string;
}

/** The HTTP status and fixed text for a body-reading or client error; undefined for a server error. */
function clientError(
  e: ErrorShape,
  bodyLimit: number,
): { status: number; error: string } | undefined {
  if (e.type === "entity.too.large")
    return { status: 413, error: serverMsg.bodyTooLarge(bodyLimit) };
  const known =
    own(serverMsg.bodyErrors, e.type ?? "") ??
    (DECOMPRESSION_ERROR.test(e.code ?? "") ? serverMsg.undecodable : undefined);
  if (known !== undefined)
    return { status: typeof e.status === "number" ? e.status : 400, error: known };
  if (typeof e.status === "number" && e.status >= 400 && e.status < 500)
    return { status: e.status, error: serverMsg.badRequest };
  return undefined;
}

/**
 * Body-reader and handler errors. A reader's message can quote the body, which may
 * hold Secret data, so only a fixed text goes out.
 * /convert answers each as a Failure ConversionReview, the shape the API server reads.
 */
function handleErrors(logger: Logger, bodyLimit: number) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    void _next;
    const e = err as ErrorShape;
    const known = clientError(e, bodyLimit);
    if (known === undefined)
      logger.error({ err: { message: e.message, stack: e.stack } }, "internal error");
    const { status, error } = known ?? { status: 500, error: serverMsg.internalError };
    res.status(status).json(errorBodyOf(req, status, error));
  };
}

/** The caches' and the pool's figures for the metrics: the response tier here, the generation tiers in the workers. */
function watch(metrics: HookMetrics, pool: Pool, cache: ByteCache, cacheBytes: number): void {
  metrics.watchCache(
    {
      tierStats: (): Record<string, TierStats> => ({
        ...cache.tierStats(),
        generation: pool.stats().generation,
      }),
    },
    cacheBytes,
  );
  metrics.watchPool(() => pool.stats(), pool.limits.workers);
}

export function createApp(options: AppOptions): express.Express {
  const { catalog, logger, pool } = options;
  const cacheBytes = options.cacheBytes ?? CACHE_BYTES;
  const cache = byteCache(cacheBytes - generationCacheBytes(cacheBytes));
  const metrics = options.metrics ?? createMetrics();
  const bodyLimit = options.bodyLimitBytes ?? BODY_LIMIT_BYTES;
  const budgetBytes = options.bodyBudgetBytes ?? BODY_BUDGET_BYTES;
  if (budgetBytes < bodyLimit) throw new Error(serverMsg.budgetBelowLimit(budgetBytes, bodyLimit));
  watch(metrics, pool, cache, cacheBytes);
  const reader = bodyReader(bodyLimit, metrics);
  const authorize = authorizer(options.bearerToken);
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(logRequests(logger, metrics));
  app.use(
    bodyBudget(budgetBytes, bodyLimit, (req, res, error) => {
      metrics.countBudgetRefusal(routeOf(req) ?? "other");
      res.status(503).json(errorBodyOf(req, 503, error));
    }),
  );
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
      options.cacheResponses === false ? undefined : cache.tier<CachedResponse>("response"),
    requestKeys: reader.requestKeys,
  };
  const read = [requireJson, requireCharset, reader.raw];
  for (const route of HOOK_ROUTES)
    app.post(`/${route}`, authorize, ...read, poolHandler(route, deps));
  // No authorize: the API server sends no token to a conversion or admission webhook
  // (docs/operations/v1alpha1.md, docs/operations/admission.md).
  for (const route of API_SERVER_ROUTES) app.post(`/${route}`, ...read, poolHandler(route, deps));
  app.use((_req, res) => {
    res.status(404).json({ error: serverMsg.notFound });
  });
  app.use(handleErrors(logger, bodyLimit));
  return app;
}
