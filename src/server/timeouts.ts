// How long a client may take to send a request (README "Operations"). Node
// checks both limits only every connectionsCheckingInterval (30 s by
// default), so a stalled client stayed up to 30 s past each; checked every
// second, a limit holds to within a second.
import type { ServerOptions } from "node:http";

/** The whole header block (Metacontroller's own hook timeout is 10 s). */
const HEADERS_TIMEOUT_MS = 10_000;
/** The whole request, headers and body. */
const REQUEST_TIMEOUT_MS = 30_000;
const CHECK_INTERVAL_MS = 1_000;

/** Options for http.createServer and https.createServer. */
export function timeoutOptions(
  headersTimeout = HEADERS_TIMEOUT_MS,
  requestTimeout = REQUEST_TIMEOUT_MS,
): ServerOptions {
  return { headersTimeout, requestTimeout, connectionsCheckingInterval: CHECK_INTERVAL_MS };
}
