// One budget of request-body bytes for the whole process, across every
// endpoint (/convert included, which needs no token): a request reserves what
// its body may take before a byte of it is read, and gives it back when its
// response is done or its connection closes. A request that does not fit is
// answered 503 at once and its connection closed, so stalled uploads hold at
// most the budget, however many connections there are (docs/adr/0010-request-body-limits.md).
import type { NextFunction, Request, Response } from "express";
import { serverMsg } from "../server-messages.js";

/** Bytes of request bodies the process holds at once by default (BODY_BUDGET_MIB, README "Operations"). */
export const BODY_BUDGET_BYTES = 16 * 1024 * 1024;

export interface BodyBudget {
  (req: Request, res: Response, next: NextFunction): void;
  /** Bytes reserved now (for tests and metrics). */
  held(): number;
}

/**
 * What a body may take: its Content-Length when it is sent as is, else (a
 * compressed or chunked body) the most the parser reads, `perRequest`.
 */
function reservation(req: Request, perRequest: number): number {
  const declared = req.headers["content-length"];
  const chunked = req.headers["transfer-encoding"] !== undefined;
  if (declared === undefined && !chunked) return 0;
  const encoding = (req.headers["content-encoding"] ?? "identity").trim().toLowerCase();
  const length = Number(declared);
  if (encoding !== "identity" || chunked || !Number.isSafeInteger(length) || length < 0)
    return perRequest;
  return Math.min(length, perRequest);
}

/**
 * The middleware, with `refuse` writing the 503 in the endpoint's own shape
 * (a ConversionReview for /convert).
 */
export function bodyBudget(
  budget: number,
  perRequest: number,
  refuse: (req: Request, res: Response, message: string) => void,
): BodyBudget {
  let held = 0;
  const middleware = (req: Request, res: Response, next: NextFunction): void => {
    const bytes = reservation(req, perRequest);
    if (bytes === 0) return next();
    if (held + bytes > budget) {
      // Not read: the connection closes after the answer instead of draining the body.
      res.set({ "retry-after": "1", connection: "close" });
      refuse(req, res, serverMsg.budgetFull(budget));
      return;
    }
    held += bytes;
    let done = false;
    res.on("close", () => {
      if (done) return;
      done = true;
      held -= bytes;
    });
    next();
  };
  return Object.assign(middleware, { held: () => held });
}
