// What a worker does with one request (src/server/worker.ts): its body's bytes
// in, the HTTP answer out, as a value the main thread sends unchanged. The
// body is read here, not in the main thread, because reading JSON is the one
// cost of every request that grows with what its sender wrote (up to about
// 30× the body in memory): the main thread only hashes the bytes and answers
// from its caches (docs/adr/0017-worker-pool.md).
//
// Two steps, so that the pool can keep one tenant to its share of workers:
// read (decode and parse the body, name its parent and tenant), then answer
// (validate, sync, serialize). Neither step throws: a fault is a 500 without a
// stack trace, its message kept for the main thread's log.
import { DNS1123_SUBDOMAIN } from "../api/names.js";
import {
  CustomizeRequest,
  SyncRequest,
  type CustomizeResponse,
  type SyncResponse,
} from "../api/hook.js";
import type { Catalog } from "../config/catalog.js";
import { admit } from "../admit.js";
import { convertReview } from "../convert/review.js";
import { customize } from "../customize.js";
import { formatPath, isObject, own, rewritten, scanJson } from "../lib/json.js";
import { sync, type SyncContext } from "../sync.js";
import { serverMsg } from "../server-messages.js";
import { dependsOnNow } from "./responses.js";
import {
  API_SERVER_TENANT,
  errorAnswer,
  json,
  type Answer,
  type Job,
  type Parent,
  type Route,
} from "./answer.js";
import { fromApiServer } from "./classes.js";
import type { z } from "zod";

/** What reading a request learned: its value, or the answer already given. */
export type Read =
  | { ok: true; value: unknown; tenant: string; parent: Parent | undefined }
  | { ok: false; answer: Answer };

/** Whom a request is for: its tenant, and its parent when the request names a valid one. */
export interface Identity {
  tenant: string;
  parent: Parent | undefined;
}

export interface HandleContext extends SyncContext {
  catalog: Catalog;
}

const encoder = new TextEncoder();

/**
 * JSON values one request body may hold, counted before it is parsed: what a
 * worker's heap must hold for it is bounded by this, whatever its shape (4 MiB
 * of empty objects took 88 MiB; this many, 15 MiB). A real request has far
 * fewer: the spec at most 50,000 (src/api/bounds.ts), each child and related
 * object a few thousand.
 */
export const MAX_JSON_VALUES = 250_000;

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** A namespace and name Kubernetes accepts: never text of another form. */
function validParent(namespace: unknown, name: unknown): Parent | undefined {
  if (typeof namespace !== "string" || namespace.length > 63 || !DNS1123_LABEL.test(namespace))
    return undefined;
  if (typeof name !== "string" || name.length > 253 || !DNS1123_SUBDOMAIN.test(name))
    return undefined;
  return { namespace, name };
}

/** The parent of a parsed request, when valid. */
function parentOf(value: unknown): Parent | undefined {
  const parent = isObject(value) ? own(value, "parent") : undefined;
  const metadata = isObject(parent) ? own(parent, "metadata") : undefined;
  if (!isObject(metadata)) return undefined;
  return validParent(own(metadata, "namespace"), own(metadata, "name"));
}

const PARENT_PATHS = [
  ["parent", "metadata", "namespace"],
  ["parent", "metadata", "name"],
] as const;

/**
 * Who a request is for, as the pool shares its workers out: the parent's
 * namespace for /sync and /customize (a tenant), one tenant for all of /convert
 * and /validate (the API server calls them without a token), and one for
 * requests that name no valid parent (they are refused after this step).
 */
function tenantOf(route: Route, parent: Parent | undefined): string {
  if (fromApiServer(route)) return API_SERVER_TENANT;
  return parent === undefined ? "/unnamed" : parent.namespace;
}

function decode(body: Uint8Array, charset: string): string {
  if (charset === "utf-8") return Buffer.from(body.buffer, body.byteOffset, body.length).toString();
  // TextDecoder reads "utf-16" as little-endian, as body-parser did; a BOM is dropped.
  return new TextDecoder(charset).decode(body);
}

const tooManyValues = (route: Route): Answer =>
  errorAnswer(route, 413, serverMsg.tooManyValues(MAX_JSON_VALUES));

/** The body's JSON value, or the answer to a body that is not JSON. */
function parseBody(route: Route, text: string): { value: unknown } | { answer: Answer } {
  // An empty body is an empty object, as body-parser read it: sync then names the missing field.
  if (text.length === 0) return { value: {} };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (err) {
    // JSON.parse's message can quote the body (which may hold Secret data): only the position goes out.
    const at = /position (\d+)/.exec((err as Error).message)?.[1];
    return { answer: errorAnswer(route, 400, serverMsg.invalidJson(at)) };
  }
}

/** The body as text; undefined when the request had none. */
export function textOf(job: Job): string | undefined {
  return job.body === null ? undefined : decode(job.body, job.charset);
}

/**
 * Step one: whom a request is for, before its body is parsed: the API
 * server's routes are one tenant (their bodies name no parent); a hook request's parent is read from the text up to the end of its
 * "parent" (Metacontroller sends the controller, then the parent, then the
 * children and related objects), without building anything.
 */
export function identify(route: Route, text: string | undefined): Identity {
  if (fromApiServer(route) || text === undefined)
    return { tenant: tenantOf(route, undefined), parent: undefined };
  const { found } = scanJson(text, { paths: PARENT_PATHS, stopAfter: "parent" });
  const parent = validParent(found[0], found[1]);
  return { tenant: tenantOf(route, parent), parent };
}

/**
 * Step two: the body parsed. A large body is first walked and refused past
 * MAX_JSON_VALUES, before a tree is built. Whom the parsed request is for is
 * told again (a body with a second "parent" key is read by its last one).
 */
export function read(route: Route, text: string | undefined): Read {
  // Each value takes two characters at least ("0,"): shorter text needs no walk.
  if (
    text !== undefined &&
    text.length > 2 * MAX_JSON_VALUES &&
    scanJson(text, { maxValues: MAX_JSON_VALUES }).tooMany
  )
    return { ok: false, answer: tooManyValues(route) };
  let value: unknown;
  if (text !== undefined) {
    const parsed = parseBody(route, text);
    if ("answer" in parsed) return { ok: false, answer: parsed.answer };
    value = parsed.value;
  }
  if (!fromApiServer(route) && !isObject(value)) {
    const found = value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
    return { ok: false, answer: errorAnswer(route, 400, serverMsg.notAnObject(found)) };
  }
  const parent = fromApiServer(route) ? undefined : parentOf(value);
  return { ok: true, value, tenant: tenantOf(route, parent), parent };
}

function badRequest(error: z.ZodError): Answer {
  const issues = error.issues
    .slice(0, 10)
    .map((i) => ({ path: formatPath(["$", ...i.path]), message: i.message }));
  const first = issues[0];
  return json(400, {
    error: serverMsg.invalidHookRequest(first?.path ?? "$", first?.message ?? "invalid"),
    issues,
  });
}

/** The JSON text of each frozen child met (children/canonical.ts), kept while it lives. */
const childTexts = new WeakMap<object, string | undefined>();

/** JSON.stringify(child), worked out once for a frozen child, which cannot change. */
function childText(child: unknown): string | undefined {
  if (typeof child !== "object" || child === null || !Object.isFrozen(child))
    return JSON.stringify(child);
  if (childTexts.has(child)) return childTexts.get(child);
  const text = JSON.stringify(child);
  childTexts.set(child, text);
  return text;
}

/**
 * The bytes res.json would send for a sync response (JSON.stringify: no
 * replacer, no spaces), written a member and a child at a time: the same text,
 * which V8 writes about a quarter faster in these parts than in one piece.
 */
export function syncResponseText(response: SyncResponse): string {
  const { status, children } = response;
  const keys = Object.keys(response);
  // JSON.stringify's type says string; for undefined (or a function) it gives undefined.
  const statusText = JSON.stringify(status) as string | undefined;
  // Only the shape sync makes is written by parts; anything else as a whole.
  if (
    keys.length !== 2 ||
    keys[0] !== "status" ||
    keys[1] !== "children" ||
    statusText === undefined ||
    !Array.isArray(children) ||
    rewritten(children)
  )
    return JSON.stringify(response);
  const items: string[] = [];
  // An item JSON leaves out (or a hole) is written as null, as in an array.
  for (let i = 0; i < children.length; i++) items.push(childText(children[i]) ?? "null");
  return `{"status":${statusText},"children":[${items.join(",")}]}`;
}

function answerSync(value: unknown, at: string, ctx: HandleContext): Answer {
  const parsed = SyncRequest.safeParse(value);
  if (!parsed.success) return badRequest(parsed.error);
  const { namespace, name, generation } = parsed.data.parent.metadata;
  const log: Record<string, unknown> = { parent: `${namespace}/${name}`, generation };
  const outcome = sync(parsed.data, at, ctx);
  if (outcome.kind === "conflict")
    return {
      ...json(409, { error: outcome.message }, { ...log, conflict: outcome.message }),
      parent: { namespace, name },
    };
  const { status, children } = outcome.response;
  const text = syncResponseText(outcome.response);
  return {
    status: 200,
    body: encoder.encode(text),
    log: { ...log, phase: status.phase, children: children.length },
    summary: {
      ...(status.phase === undefined ? {} : { phase: status.phase }),
      conditions: (status.conditions ?? []).map((c) => ({
        type: c.type,
        status: c.status,
        reason: c.reason,
      })),
    },
    // An answer that does not contain the text of `now` is the answer at any time (ADR 0008).
    timeless: !dependsOnNow(text, at),
    parent: { namespace, name },
  };
}

function answerCustomize(value: unknown): Answer {
  const parsed = CustomizeRequest.safeParse(value);
  if (!parsed.success) return badRequest(parsed.error);
  const { parent } = parsed.data;
  const log: Record<string, unknown> = {
    parent: `${parent.metadata.namespace}/${parent.metadata.name}`,
  };
  try {
    return json(200, customize(parsed.data), log);
  } catch (err) {
    // /customize always answers 200: without related objects, sync reports what is missing.
    const none: CustomizeResponse = { relatedResources: [] };
    return {
      ...json(200, none, log),
      fault: {
        note: "customize failed; answered no related objects",
        message: String((err as Error)?.message),
      },
    };
  }
}

/**
 * POST /convert: the CRD's conversion webhook. Always a ConversionReview, with
 * the result Success or Failure; the Failure message names the object and the
 * field, never a value (src/convert/review.ts).
 */
function answerConvert(value: unknown): Answer {
  const answer = convertReview(value);
  const { uid, convertedObjects, result } = answer.response;
  return json(200, answer, {
    uid: uid.slice(0, 64),
    converted: convertedObjects.length,
    result: result.status,
  });
}

/**
 * POST /validate: the admission webhook. Always an AdmissionReview, allowed or
 * refused with the fields and the fix (src/admit.ts); the log names the object.
 */
function answerValidate(value: unknown, ctx: HandleContext): Answer {
  const answer = admit(value, ctx);
  const { uid, allowed, status, warnings } = answer.response;
  const request = isObject(value) ? own(value, "request") : undefined;
  const field = (key: string) => {
    const v = isObject(request) ? own(request, key) : undefined;
    return typeof v === "string" ? v.slice(0, 253) : undefined;
  };
  return json(200, answer, {
    uid: uid.slice(0, 64),
    operation: field("operation"),
    object: `${field("namespace") ?? ""}/${field("name") ?? ""}`,
    allowed,
    ...(status === undefined ? {} : { problems: status.details?.causes.length ?? 1 }),
    ...(warnings === undefined ? {} : { warnings: warnings.length }),
  });
}

/** A fault in the hook: a 500 with a fixed text; the error is for the log. */
export function internalError(route: Route, err: unknown): Answer {
  const e = err as Error | undefined;
  return {
    ...errorAnswer(route, 500, serverMsg.internalError),
    fault: {
      note: "internal error",
      message: String(e?.message),
      ...(typeof e?.stack === "string" ? { stack: e.stack } : {}),
    },
  };
}

/** Step two: the answer to a request read by step one. */
export function answer(job: Job, read: Extract<Read, { ok: true }>, ctx: HandleContext): Answer {
  try {
    if (job.route === "sync") return answerSync(read.value, job.at, ctx);
    if (job.route === "customize") return answerCustomize(read.value);
    if (job.route === "validate") return answerValidate(read.value, ctx);
    return answerConvert(read.value);
  } catch (err) {
    return internalError(job.route, err);
  }
}
