// Request bodies, read on the main thread as bytes (never parsed here) and
// charged to a budget as they arrive (docs/adr/0010-request-body-limits.md,
// docs/adr/0018-endpoint-classes.md). Each class of endpoints (./classes.ts)
// has a budget of its own, so callers of one class can never hold the bytes
// of another. A request holds only the bytes it has sent: one that declares
// 4 MiB and sends nothing holds nothing. What is refused, and when:
//   - a declared Content-Length over the limit: 413 at once, unread;
//   - a body past the limit as it is decoded: 413;
//   - a chunk that does not fit in the budget: 503 with Retry-After: 1;
//   - a chunk of a large body (declared or grown past a quarter of the limit)
//     that does not fit in the large bodies' share (three quarters of the
//     budget, never less than the limit): 503 with Retry-After: 1, so large
//     bodies never take the last quarter, which stays for the typical small
//     ones (a tenant is only known once its body is parsed: ADR 18);
//   - a body that makes no progress (less than PROGRESS_FLOOR_BYTES in a
//     PROGRESS_WINDOW_MS, unless the rest of it is smaller): 408.
// Each closes the connection, so an unread body is never drained, and gives
// back what the request held; the rest give it back when the response is
// done or the connection closes.
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { Transform } from "node:stream";
import type { NextFunction, Request, Response } from "express";
import { serverMsg } from "../server-messages.js";

/** How often a body's progress is checked, ms. */
export const PROGRESS_WINDOW_MS = 2000;
/**
 * The least a body must send in each window (or all that is left of it): a
 * client sends its whole body at once, so 8 KiB/s only cuts a stalled upload.
 */
export const PROGRESS_FLOOR_BYTES = 16 * 1024;

/**
 * Bytes held across the requests of one class. Large bodies (past
 * `largeFrom` bytes, declared or sent) hold at most `largeBytes` of them
 * together; the rest is kept for the others.
 */
export interface BodyBudget {
  readonly bytes: number;
  /** Its setting, named in a refusal (BODY_BUDGET_MIB, API_SERVER_BODY_BUDGET_MIB). */
  readonly variable: string;
  /** A body is large from this many bytes on. */
  readonly largeFrom: number;
  /** What large bodies may hold together. */
  readonly largeBytes: number;
  /**
   * Takes `n` bytes for a body, large or not; when they do not fit, nothing is
   * taken and it says which limit refused them: the whole budget, or the large bodies' share.
   */
  take(n: number, large: boolean): "budget" | "large" | undefined;
  /** Counts `n` bytes a body already holds as a large body's; false (and nothing moved) when they do not fit. */
  grow(n: number): boolean;
  give(n: number, large: boolean): void;
  /** Bytes held now (for tests and metrics). */
  held(): number;
}

/**
 * The budget of a class whose bodies are at most `limit` bytes: a body is
 * large past a quarter of the limit, and large bodies hold at most three
 * quarters of the budget (never less than the limit, so a body at the limit
 * always fits once the others are done).
 */
export function createBodyBudget(bytes: number, variable: string, limit: number): BodyBudget {
  const largeBytes = Math.min(bytes, Math.max(limit, bytes - Math.floor(bytes / 4)));
  let held = 0;
  let largeHeld = 0;
  return {
    bytes,
    variable,
    largeFrom: Math.floor(limit / 4),
    largeBytes,
    take(n, large) {
      if (held + n > bytes) return "budget";
      if (large && largeHeld + n > largeBytes) return "large";
      held += n;
      if (large) largeHeld += n;
      return undefined;
    },
    grow(n) {
      if (largeHeld + n > largeBytes) return false;
      largeHeld += n;
      return true;
    },
    give(n, large) {
      held -= n;
      if (large) largeHeld -= n;
    },
    held: () => held,
  };
}

/** Why a body was not read: the status and a fixed text (never a byte of the body). */
export interface BodyRefusal {
  status: number;
  error: string;
  /** The budget was full (counted by route in llsd_hook_body_budget_refusals_total). */
  budget?: boolean;
}

export interface BodyReaderOptions {
  budget: BodyBudget;
  /** The largest body accepted, decoded. */
  limit: number;
  /** Called with each whole body before the next handler (its key, its size for the metrics). */
  read: (req: Request, body: Buffer) => void;
  /** Writes a refusal in the endpoint's shape (a ConversionReview for /convert); the connection closes after it. */
  refuse: (req: Request, res: Response, refusal: BodyRefusal) => void;
}

/** The decoder for a Content-Encoding; null for none; undefined when it is not one we read. */
function decoderOf(encoding: string): Transform | null | undefined {
  if (encoding === "identity") return null;
  if (encoding === "gzip") return createGunzip();
  if (encoding === "deflate") return createInflate();
  if (encoding === "br") return createBrotliDecompress();
  return undefined;
}

/** Error codes of Node's zlib (Z_DATA_ERROR, …) and brotli decoders (ERR__ERROR_FORMAT_…, ERR_BROTLI_…). */
const DECOMPRESSION_ERROR = /^(?:Z_|ERR__ERROR_|ERR_BROTLI)/;

const TOO_SLOW: BodyRefusal = {
  status: 408,
  error: serverMsg.bodyTooSlow(PROGRESS_FLOOR_BYTES, PROGRESS_WINDOW_MS),
};

/**
 * A watch on a body's progress: refuses it when less than the floor (or all
 * that is left of it) arrived in a window. `count` each byte sent; `stop` at the end.
 */
function watchProgress(length: number | undefined, cut: () => void) {
  let sent = 0;
  let sentAtCheck = 0;
  const check = (): void => {
    const rest = length === undefined ? PROGRESS_FLOOR_BYTES : length - sent;
    if (sent - sentAtCheck < Math.min(PROGRESS_FLOOR_BYTES, rest)) return cut();
    sentAtCheck = sent;
    timer = setTimeout(check, PROGRESS_WINDOW_MS);
  };
  let timer = setTimeout(check, PROGRESS_WINDOW_MS);
  return {
    count: (n: number) => {
      sent += n;
    },
    stop: () => clearTimeout(timer),
  };
}

/**
 * One body being read: what it holds of the budget, until it is refused or
 * its response is done. `declared`: its Content-Length when it is sent as is
 * (a body declared large is large from its first byte).
 */
function reading(
  budget: BodyBudget,
  limit: number,
  declared: number | undefined,
  refuse: (refusal: BodyRefusal) => void,
) {
  const chunks: Buffer[] = [];
  let held = 0;
  let large = declared !== undefined && declared > budget.largeFrom;
  let ended = false;
  const full = (error: string) => refuse({ status: 503, error, budget: true });
  return {
    get ended() {
      return ended;
    },
    /** Gives back what it holds (idempotent). */
    end(): void {
      if (ended) return;
      ended = true;
      budget.give(held, large);
      held = 0;
    },
    keep(chunk: Buffer): void {
      if (ended) return;
      if (held + chunk.length > limit)
        return refuse({ status: 413, error: serverMsg.bodyTooLarge(limit) });
      if (!large && held + chunk.length > budget.largeFrom) {
        if (!budget.grow(held)) return full(serverMsg.largeBudgetFull(budget));
        large = true;
      }
      const refused = budget.take(chunk.length, large);
      if (refused !== undefined)
        return full(
          refused === "large"
            ? serverMsg.largeBudgetFull(budget)
            : serverMsg.budgetFull(budget.bytes, budget.variable),
        );
      held += chunk.length;
      chunks.push(chunk);
    },
    body: (): Buffer => Buffer.concat(chunks, held),
  };
}

/**
 * The body reader: sets req.body to the body's decoded bytes (a Buffer), or
 * leaves it unset when the request has none. Express middleware.
 */
export function bodyReader(options: BodyReaderOptions) {
  const { budget, limit } = options;
  return (req: Request, res: Response, next: NextFunction): void => {
    const declared = req.headers["content-length"];
    if (declared === undefined && req.headers["transfer-encoding"] === undefined) return next();
    const length = declared === undefined ? undefined : Number(declared);
    const decoder = decoderOf((req.headers["content-encoding"] ?? "identity").trim().toLowerCase());
    // Not read: the connection closes after the answer instead of draining the body.
    const answer = (refusal: BodyRefusal): void => {
      res.set("connection", "close");
      if (refusal.budget === true) res.set("retry-after", "1");
      options.refuse(req, res, refusal);
    };
    if (decoder === undefined) return answer({ status: 415, error: serverMsg.unsupportedEncoding });
    // Sent as is and declared too large: refused before a byte of it is read.
    if (decoder === null && length !== undefined && length > limit)
      return answer({ status: 413, error: serverMsg.bodyTooLarge(limit) });
    const refuse = (refusal: BodyRefusal): void => {
      if (body.ended) return;
      body.end();
      progress.stop();
      req.unpipe();
      decoder?.destroy();
      answer(refusal);
    };
    const body = reading(budget, limit, decoder === null ? length : undefined, refuse);
    const progress = watchProgress(length, () => refuse(TOO_SLOW));
    const { count, stop } = progress;
    // The response done, or the connection closed (a client gone mid-body too).
    res.once("close", () => {
      stop();
      body.end();
    });
    const done = (): void => {
      if (body.ended) return;
      stop();
      const bytes = body.body();
      options.read(req, bytes);
      req.body = bytes;
      next();
    };
    req.on("data", (chunk: Buffer) => count(chunk.length));
    const source = decoder ?? req;
    source.on("data", body.keep);
    source.once("end", done);
    if (decoder === null) return;
    decoder.once("error", (err: NodeJS.ErrnoException) =>
      refuse({
        status: 400,
        error: DECOMPRESSION_ERROR.test(err.code ?? "")
          ? serverMsg.undecodable
          : serverMsg.badRequest,
      }),
    );
    req.pipe(decoder);
  };
}
