// The HTTP edge: express routes around the pure core. Parses and checks
// requests (400 with the JSON path of the problem), passes the clock in, logs
// one structured line per request (never a body), and never returns a stack.
import { timingSafeEqual } from "node:crypto";
import express, { type NextFunction, type Request, type Response } from "express";
import type { Logger } from "pino";
import type { z } from "zod";
import { CustomizeRequest, SyncRequest } from "../api/hook.js";
import type { Catalog } from "../config/catalog.js";
import { generateConfig } from "../config/generate.js";
import { customize } from "../customize.js";
import { sync } from "../sync.js";
import { memoize } from "./memo.js";

export const BODY_LIMIT = "32mb";

export interface AppOptions {
  catalog: Catalog;
  logger: Logger;
  /** The clock; injectable for tests. */
  now?: () => Date;
  /** Entries kept by the generation cache. */
  cacheSize?: number;
  /** When set, /sync and /customize require "Authorization: Bearer <token>" (Metacontroller ≥ 4.16). */
  bearerToken?: string;
}

function jsonPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (out, p) => (typeof p === "number" ? `${out}[${p}]` : `${out}.${String(p)}`),
    "$",
  );
}

function badRequest(res: Response, error: z.ZodError): void {
  const issues = error.issues
    .slice(0, 10)
    .map((i) => ({ path: jsonPath(i.path), message: i.message }));
  const first = issues[0];
  res.status(400).json({
    error: `invalid hook request: ${first?.path ?? "$"}: ${first?.message ?? "invalid"}`,
    issues,
  });
}

export function createApp(options: AppOptions): express.Express {
  const { catalog, logger } = options;
  const now = options.now ?? (() => new Date());
  const generate = memoize(generateConfig, options.cacheSize ?? 512);
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);

  app.use((req, res, next) => {
    const start = process.hrtime.bigint();
    res.on("finish", () => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
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
  });

  const requireJson = (req: Request, res: Response, next: NextFunction) => {
    if (!req.is("application/json")) {
      res.status(415).json({ error: "content-type must be application/json" });
      return;
    }
    next();
  };
  const json = express.json({ limit: BODY_LIMIT, strict: true });
  const expected =
    options.bearerToken === undefined ? undefined : Buffer.from(`Bearer ${options.bearerToken}`);
  const authorize = (req: Request, res: Response, next: NextFunction) => {
    if (expected === undefined) return next();
    const got = Buffer.from(req.get("authorization") ?? "");
    if (got.length !== expected.length || !timingSafeEqual(got, expected)) {
      res.status(401).json({ error: "missing or wrong bearer token" });
      return;
    }
    next();
  };

  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/readyz", (_req, res) => {
    res.json({ status: "ok", releases: catalog.releases });
  });

  app.post("/sync", authorize, requireJson, json, (req, res) => {
    const parsed = SyncRequest.safeParse(req.body);
    if (!parsed.success) return badRequest(res, parsed.error);
    const { parent } = parsed.data;
    res.locals["log"] = {
      parent: `${parent.metadata.namespace}/${parent.metadata.name}`,
      generation: parent.metadata.generation,
    };
    const outcome = sync(
      parsed.data,
      now()
        .toISOString()
        .replace(/\.\d{3}Z$/, "Z"),
      { catalog, generate },
    );
    if (outcome.kind === "conflict") {
      res.locals["log"] = { ...res.locals["log"], conflict: outcome.message };
      res.status(409).json({ error: outcome.message });
      return;
    }
    const status = outcome.response.status as { phase?: string };
    res.locals["log"] = {
      ...res.locals["log"],
      phase: status.phase,
      children: outcome.response.children.length,
    };
    res.status(200).json(outcome.response);
  });

  app.post("/customize", authorize, requireJson, json, (req, res) => {
    const parsed = CustomizeRequest.safeParse(req.body);
    if (!parsed.success) return badRequest(res, parsed.error);
    const { parent } = parsed.data;
    res.locals["log"] = { parent: `${parent.metadata.namespace}/${parent.metadata.name}` };
    res.status(200).json(customize(parsed.data));
  });

  app.use((_req, res) => {
    res.status(404).json({
      error: "not found: the hook serves POST /sync, POST /customize, GET /healthz and GET /readyz",
    });
  });

  // Body-parser and handler errors. Parser messages can quote the body, which may
  // hold Secret data, so only a fixed text (and the error position) goes out.
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    void _next;
    const e = err as { type?: string; status?: number; message?: string; stack?: string };
    if (e.type === "entity.parse.failed") {
      const at = /position (\d+)/.exec(e.message ?? "")?.[1];
      res
        .status(400)
        .json({ error: `invalid JSON body${at === undefined ? "" : ` at position ${at}`}` });
      return;
    }
    if (e.type === "entity.too.large") {
      res.status(413).json({ error: `request body larger than ${BODY_LIMIT}` });
      return;
    }
    if (typeof e.status === "number" && e.status >= 400 && e.status < 500) {
      res.status(e.status).json({ error: "bad request" });
      return;
    }
    logger.error({ err: { message: e.message, stack: e.stack } }, "internal error");
    res.status(500).json({ error: "internal error in llsd-hook; see the hook's log" });
  });
  return app;
}
