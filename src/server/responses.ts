// Whole sync responses, cached by the request's bytes. A steady parent is
// re-synced with the very same request (Metacontroller's resync, or a watch
// event that changed nothing we read), and its answer is then served without
// validating the request, running sync or serializing the answer again.
//
// Why the bytes are a sound key: sync is a pure function of the request and
// `now`; the catalog and the app's options are fixed per process. The key is a
// sha256 of the body as decoded (after Content-Encoding) and its charset, so
// equal keys mean equal parsed requests.
//
// Why a cached answer stays right at a later `now`: the clock's only use in
// sync is `now` copied into a condition's lastTransitionTime when the condition
// changes, and into configGeneration.generatedAt when a config is named for the
// first time; otherwise both keep the time the request carries
// (src/compute-status.ts). So an answer that does not contain the text of
// `now` has nothing that took it, and is the answer at any `now`. One
// that contains it (a first sync, a transition, or a time that merely happens
// to appear in the request) is not cached. Conflicts (409) and refused requests
// are never cached: they are computed every time, as before.
import { createHash } from "node:crypto";
import type { Parent } from "./answer.js";
import type { ParentView } from "./condition-metrics.js";
import type { CacheTier } from "./memo.js";
import type { OutcomeLabels } from "./metrics.js";

/** What the answer to one request was: its bytes, its log fields and what the metrics count. */
export interface CachedResponse {
  body: Buffer;
  log: Readonly<Record<string, unknown>>;
  outcome: OutcomeLabels;
  parent: Parent;
  /** What the parent's series say (./condition-metrics.ts). */
  view: ParentView | undefined;
}

/** A fixed overhead per entry beside the body (key, log fields, map entry). */
const ENTRY_BYTES = 512;

/** The key of a request body: its decoded bytes and the charset they are read in. */
export function requestKey(body: Buffer, charset: string | null): string {
  return createHash("sha256")
    .update(charset ?? "")
    .update("\0")
    .update(body)
    .digest("base64");
}

/** Whether an answer holds the time it was computed at, and so is not for another time. */
export function dependsOnNow(answer: string, now: string): boolean {
  return answer.includes(now);
}

/** Keeps an answer for its request: one that does not hold `now` (dependsOnNow, checked where it is made). */
export function keepResponse(
  tier: CacheTier<CachedResponse>,
  key: string,
  answer: CachedResponse,
): void {
  tier.set(key, answer, answer.body.length + ENTRY_BYTES);
}
