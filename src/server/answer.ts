// What passes between the main thread and a worker of the pool, and the
// error answers both give: a module of its own so that the main thread
// never loads the core to answer (src/server/handle.ts is the worker's).
import type { Phase } from "../api/status.js";
import { failureStatus } from "../api/admission.js";
import { conversionFailure } from "../convert/failure.js";

export type Route = "sync" | "customize" | "convert" | "validate";

/**
 * Why the pool answered a request 503 without running it: it waited too long
 * for a worker, it is bytes that ran past a limit lately, or its tenant took
 * more than its share of worker time and waits to make it up.
 */
export type RefusalReason = "queue" | "repeat" | "share";

/**
 * The tenant of every request of the API server's class (./classes.ts: /convert
 * and /validate). Its text, "/convert", is older than /validate and kept.
 */
export const API_SERVER_TENANT = "/convert";

/** One request as the main thread hands it over. */
export interface Job {
  route: Route;
  /** The body as decoded from its Content-Encoding; null when the request had none. */
  body: Uint8Array | null;
  /** Its charset, lower-case (one of READABLE_CHARSETS). */
  charset: string;
  /** The clock, as sync takes it (the time the request arrived). */
  at: string;
}

/** The charsets a body may be sent in (JSON is UTF-8, RFC 8259; UTF-16 is read too). */
export const READABLE_CHARSETS: ReadonlySet<string> = new Set([
  "utf-8",
  "utf-16",
  "utf-16le",
  "utf-16be",
]);

/** What a /sync answer's status says, for the outcome and per-parent metrics (./metrics.ts, ./condition-metrics.ts). */
export interface StatusSummary {
  phase?: Phase | undefined;
  conditions?: readonly { type: string; status: string; reason: string }[] | undefined;
}

/** The answer to one request: what the main thread sends, logs and counts. */
export interface Answer {
  status: number;
  /** The JSON body, as UTF-8 bytes. */
  body: Uint8Array;
  /** Fields of the request's log line. */
  log: Record<string, unknown>;
  /** /sync answered 200: what its status says. */
  summary?: StatusSummary;
  /** /sync answered 200 and the answer does not hold the time it was computed at (ADR 0008). */
  timeless?: boolean;
  /** Seconds for a Retry-After header (the pool's 503s). */
  retryAfter?: number;
  /** The parent's namespace and name as the request wrote them (the metrics check them). */
  parent?: Parent;
  /** A fault in the hook: what the log line says, with the error's message and stack (never sent). */
  fault?: { note: string; message: string; stack?: string };
}

/** A parent's namespace and name, as the request wrote them. */
export interface Parent {
  namespace: string;
  name: string;
}

const encoder = new TextEncoder();

/** A JSON answer. */
export function json(status: number, value: unknown, log: Record<string, unknown> = {}): Answer {
  return { status, body: encoder.encode(JSON.stringify(value)), log };
}

/**
 * An error's body in the route's own shape: a Failure ConversionReview for
 * /convert and a meta/v1 Status for /validate, the shapes the API server
 * reads; `{ error }` for the others and for a path that is no route.
 */
export function errorBody(route: Route | undefined, status: number, error: string): unknown {
  if (route === "convert") return conversionFailure("", error);
  return route === "validate" ? failureStatus(status, error) : { error };
}

/** An error answer in the route's own shape. */
export function errorAnswer(route: Route, status: number, error: string): Answer {
  return json(status, errorBody(route, status, error));
}
