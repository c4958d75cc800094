// The HTTP edge: express routes around the pure core. Parses and checks
// requests (400 with the JSON path of the problem), passes the clock in, logs
// one structured line per request (never a body), and never returns a stack.
// A steady parent's repeated request is answered from a cache of whole
// responses (./responses.ts says when that is sound).
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import express, { type NextFunction, type Request, type Response } from "express";
import type { Logger } from "pino";
import type { z } from "zod";
import { CustomizeRequest, SyncRequest, type CustomizeResponse } from "../api/hook.js";
import type { Catalog } from "../config/catalog.js";
import { generateConfig } from "../config/generate.js";
import { formatPath, own } from "../lib/json.js";
import { conversionFailure, convertReview } from "../convert/review.js";
import { customize } from "../customize.js";
import { isoSeconds } from "../edge/clock.js";
import { sync, type SyncContext } from "../sync.js";
import { byteCache, memoize, type CacheTier } from "./memo.js";
import { BODY_BUDGET_BYTES, bodyBudget } from "./body-budget.js";
import {
  createMetrics,
  outcomeOf,
  outcomeOfStatusCode,
  type HookMetrics,
  type OutcomeLabels,
  type Parent,
  type Route,
} from "./metrics.js";
import { keepResponse, requestKey, type CachedResponse } from "./responses.js";

/**
 * The default limit of a request body (docs/operations/hook-server.md has the sizing): a
 * parent is at most 1.5 MiB (etcd), each child stays under the annotation
 * budget, so a real request is far smaller; parsing costs up to ~30× the body
 * in memory (npm run bench), which must fit the hook's 384 MiB with the cache.
 */
export const BODY_LIMIT_BYTES = 4 * 1024 * 1024;

/** Bytes the edge's caches (generations and whole responses) may hold together (docs/operations/hook-server.md). */
export const CACHE_BYTES = 48 * 1024 * 1024;

export interface AppOptions {
  catalog: Catalog;
  logger: Logger;
  /** The clock; injectable for tests. */
  now?: () => Date;
  /** Bytes the caches may hold together (default CACHE_BYTES). */
  cacheBytes?: number;
  /** Whether whole sync responses are cached (default true; the bench compares without). */
  cacheResponses?: boolean;
  /** The largest request body accepted (default BODY_LIMIT_BYTES). */
  bodyLimitBytes?: number;
  /** Request-body bytes held at once across all requests (default BODY_BUDGET_BYTES); at least bodyLimitBytes. */
  bodyBudgetBytes?: number;
  /** Metacontroller's server-side apply field manager (default "metacontroller"). */
  fieldManager?: string;
  /**
   * When set, /sync and /customize require "Authorization: Bearer <token>" (Metacontroller ≥ 4.16).
   * /convert never does: the API server sends no token to a conversion webhook.
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

const ROUTES: Readonly<Record<string, Route>> = {
  "/sync": "sync",
  "/customize": "customize",
  "/convert": "convert",
};

/** Records a finished /sync, /customize or /convert request; other paths are not measured. */
function record(metrics: HookMetrics, req: Request, res: Response, seconds: number): void {
  const route = req.method === "POST" ? own(ROUTES, req.path) : undefined;
  if (route === undefined) return;
  const m = measured(res);
  metrics.observeRequest(route, seconds, m.cached === true);
  if (route === "sync")
    metrics.countSync(m.outcome ?? outcomeOfStatusCode(res.statusCode), m.parent);
}

function badRequest(res: Response, error: z.ZodError): void {
  const issues = error.issues
    .slice(0, 10)
    .map((i) => ({ path: formatPath(["$", ...i.path]), message: i.message }));
  const first = issues[0];
  res.status(400).json({
    error: `invalid hook request: ${first?.path ?? "$"}: ${first?.message ?? "invalid"}`,
    issues,
  });
}

/** Fixed texts for body-parser's errors (its own messages may quote the request). */
const bodyErrors: Readonly<Record<string, string>> = {
  "charset.unsupported": "unsupported charset: send the body as JSON in UTF-8",
  "encoding.unsupported":
    "unsupported Content-Encoding: send the body uncompressed, or with gzip, deflate or br",
  zlib: "the compressed body could not be decompressed; check its Content-Encoding",
  "request.aborted": "the request was aborted before its body was complete",
  "request.size.invalid": "the request body does not match its Content-Length",
};

/** Error codes of Node's zlib (Z_DATA_ERROR, …) and brotli decoders (ERR__ERROR_FORMAT_…, ERR_BROTLI_…). */
const DECOMPRESSION_ERROR = /^(?:Z_|ERR__ERROR_|ERR_BROTLI)/;

/** A 200 with JSON already serialized, with the headers res.json gives. */
function sendJson(res: Response, body: Buffer): void {
  res.status(200).set("content-type", "application/json; charset=utf-8").send(body);
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

const requireJson: Handler = (req, res, next) => {
  if (!req.is("application/json")) {
    res.status(415).json({ error: "content-type must be application/json" });
    return;
  }
  next();
};

const requireObject: Handler = (req, res, next) => {
  const body: unknown = req.body;
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    res.status(400).json({
      error: `the request body must be a JSON object (a Metacontroller hook request), not ${body === null ? "null" : Array.isArray(body) ? "an array" : typeof body}`,
    });
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
      res.status(401).json({ error: "missing or wrong bearer token" });
      return;
    }
    next();
  };
}

/** The JSON body parsers. Not strict: a body that is JSON but not an object gets its own message. */
function bodyParsers(bodyLimit: number, cacheResponses: boolean, metrics: HookMetrics) {
  const json = express.json({
    limit: bodyLimit,
    strict: false,
    verify: (req, _res, body) => {
      const path = (req.url ?? "").split("?")[0] ?? "";
      metrics.observeBody(own(ROUTES, path) ?? "customize", body.length);
    },
  });
  // /sync's parser also keys the body's bytes, hashed as they are read (nothing else is kept).
  const requestKeys = new WeakMap<IncomingMessage, string>();
  const syncJson = cacheResponses
    ? express.json({
        limit: bodyLimit,
        strict: false,
        verify: (req, _res, body, charset) => {
          metrics.observeBody("sync", body.length);
          requestKeys.set(req, requestKey(body, charset));
        },
      })
    : json;
  return { json, syncJson, requestKeys };
}

interface SyncDeps {
  catalog: Catalog;
  now: () => Date;
  generate: SyncContext["generate"];
  responses: CacheTier<CachedResponse>;
  requestKeys: WeakMap<IncomingMessage, string>;
  fieldManager: string | undefined;
}

function answerFromCache(res: Response, cached: CachedResponse): void {
  res.locals["log"] = { ...cached.log, cached: true };
  Object.assign(measured(res), { outcome: cached.outcome, parent: cached.parent, cached: true });
  sendJson(res, cached.body);
}

function syncHandler(deps: SyncDeps): Handler {
  const { catalog, generate, responses, fieldManager } = deps;
  return (req, res) => {
    const key = deps.requestKeys.get(req);
    const cached = key === undefined ? undefined : responses.get(key);
    if (cached !== undefined) return answerFromCache(res, cached);
    const parsed = SyncRequest.safeParse(req.body);
    if (!parsed.success) return badRequest(res, parsed.error);
    const { namespace, name, generation } = parsed.data.parent.metadata;
    const parent = { namespace, name };
    measured(res).parent = parent;
    res.locals["log"] = { parent: `${namespace}/${name}`, generation };
    const at = isoSeconds(deps.now());
    const outcome = sync(parsed.data, at, {
      catalog,
      generate,
      ...(fieldManager === undefined ? {} : { fieldManager }),
    });
    if (outcome.kind === "conflict") {
      res.locals["log"] = { ...res.locals["log"], conflict: outcome.message };
      res.status(409).json({ error: outcome.message });
      return;
    }
    const log = {
      ...res.locals["log"],
      phase: outcome.response.status.phase,
      children: outcome.response.children.length,
    };
    res.locals["log"] = log;
    const labels = outcomeOf(outcome.response.status);
    measured(res).outcome = labels;
    // The bytes res.json would send (no replacer, no spaces), made once.
    const text = JSON.stringify(outcome.response);
    const body = Buffer.from(text);
    if (key !== undefined)
      keepResponse(responses, key, { text, body, log, outcome: labels, parent }, at);
    sendJson(res, body);
  };
}

function customizeHandler(logger: Logger): Handler {
  return (req, res) => {
    const parsed = CustomizeRequest.safeParse(req.body);
    if (!parsed.success) return badRequest(res, parsed.error);
    const { parent } = parsed.data;
    res.locals["log"] = { parent: `${parent.metadata.namespace}/${parent.metadata.name}` };
    let answer: CustomizeResponse;
    try {
      answer = customize(parsed.data);
    } catch (err) {
      // /customize always answers 200: without related objects, sync reports what is missing.
      logger.error(
        { err: { message: (err as Error).message } },
        "customize failed; answered no related objects",
      );
      answer = { relatedResources: [] };
    }
    res.status(200).json(answer);
  };
}

/**
 * POST /convert: the CRD's conversion webhook. Always a ConversionReview, with
 * the result Success or Failure; the Failure message names the object and the
 * field, never a value (src/convert/review.ts).
 */
const convertHandler: Handler = (req, res) => {
  const answer = convertReview(req.body);
  const { uid, convertedObjects, result } = answer.response;
  res.locals["log"] = {
    uid: uid.slice(0, 64),
    converted: convertedObjects.length,
    result: result.status,
  };
  res.status(200).json(answer);
};

/** /convert's answer to a request it could not read: a Failure ConversionReview. */
const requireJsonReview: Handler = (req, res, next) => {
  if (!req.is("application/json")) {
    res.status(415).json(conversionFailure("", "content-type must be application/json"));
    return;
  }
  next();
};

interface ErrorShape {
  type?: string;
  code?: string;
  status?: number;
  message?: string;
  stack?: string;
}

/** The HTTP status and fixed text for a parser or client error; undefined for a server error. */
function clientError(
  e: ErrorShape,
  bodyLimit: number,
): { status: number; error: string } | undefined {
  if (e.type === "entity.parse.failed") {
    const at = /position (\d+)/.exec(e.message ?? "")?.[1];
    return {
      status: 400,
      error: `invalid JSON body${at === undefined ? "" : ` at position ${at}`}`,
    };
  }
  if (e.type === "entity.too.large")
    return {
      status: 413,
      error: `request body larger than ${+(bodyLimit / 2 ** 20).toFixed(2)} MiB, the most llsd-hook accepts (BODY_LIMIT_MIB); see docs/operations/hook-server.md`,
    };
  const known =
    own(bodyErrors, e.type ?? "") ??
    (DECOMPRESSION_ERROR.test(e.code ?? "") ? bodyErrors["zlib"] : undefined);
  if (known !== undefined)
    return { status: typeof e.status === "number" ? e.status : 400, error: known };
  if (typeof e.status === "number" && e.status >= 400 && e.status < 500)
    return { status: e.status, error: "bad request" };
  return undefined;
}

/**
 * Body-parser and handler errors. Parser messages can quote the body, which may
 * hold Secret data, so only a fixed text (and the error position) goes out.
 * /convert answers each as a Failure ConversionReview, the shape the API server reads.
 */
function handleErrors(logger: Logger, bodyLimit: number) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    void _next;
    const e = err as ErrorShape;
    const known = clientError(e, bodyLimit);
    if (known === undefined)
      logger.error({ err: { message: e.message, stack: e.stack } }, "internal error");
    const { status, error } = known ?? {
      status: 500,
      error: "internal error in llsd-hook; see the hook's log",
    };
    res.status(status).json(req.path === "/convert" ? conversionFailure("", error) : { error });
  };
}

export function createApp(options: AppOptions): express.Express {
  const { catalog, logger } = options;
  const cacheBytes = options.cacheBytes ?? CACHE_BYTES;
  const cache = byteCache(cacheBytes);
  const metrics = options.metrics ?? createMetrics();
  metrics.watchCache(cache, cacheBytes);
  const generate = memoize(generateConfig, {
    cache,
    // Strings may be held two bytes a character; a fixed overhead per entry.
    sizeOf: (result) => 1024 + 2 * JSON.stringify(result).length,
  });
  const bodyLimit = options.bodyLimitBytes ?? BODY_LIMIT_BYTES;
  const budgetBytes = options.bodyBudgetBytes ?? BODY_BUDGET_BYTES;
  if (budgetBytes < bodyLimit)
    throw new Error(
      `BODY_BUDGET_MIB (${+(budgetBytes / 2 ** 20).toFixed(2)}) must be at least BODY_LIMIT_MIB (${+(bodyLimit / 2 ** 20).toFixed(2)}): a body at the limit would never fit`,
    );
  const parsers = bodyParsers(bodyLimit, options.cacheResponses ?? true, metrics);
  const authorize = authorizer(options.bearerToken);
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(logRequests(logger, metrics));
  app.use(
    bodyBudget(budgetBytes, bodyLimit, (req, res, error) => {
      res.status(503).json(req.path === "/convert" ? conversionFailure("", error) : { error });
    }),
  );
  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/readyz", (_req, res) => {
    res.json({ status: "ok", releases: catalog.releases });
  });
  const sync = syncHandler({
    catalog,
    now: options.now ?? (() => new Date()),
    generate,
    responses: cache.tier<CachedResponse>("response"),
    requestKeys: parsers.requestKeys,
    fieldManager: options.fieldManager,
  });
  app.post("/sync", authorize, requireJson, parsers.syncJson, requireObject, sync);
  const customize = customizeHandler(logger);
  app.post("/customize", authorize, requireJson, parsers.json, requireObject, customize);
  // No authorize: the API server calls conversion webhooks without a token (docs/operations/v1alpha1.md).
  app.post("/convert", requireJsonReview, parsers.json, convertHandler);
  app.use((_req, res) => {
    res.status(404).json({
      error:
        "not found: the hook serves POST /sync, POST /customize, POST /convert, GET /healthz and GET /readyz",
    });
  });
  app.use(handleErrors(logger, bodyLimit));
  return app;
}
