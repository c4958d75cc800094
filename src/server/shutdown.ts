// Stopping without losing a request (docs/operations/hook-server.md, "Shutdown").
// When a hook pod is deleted, its endpoint leaves the Service while the
// kubelet sends SIGTERM, and Metacontroller's client keeps its connections
// open (keep-alive) whatever the endpoints say. Node's server.close() stops
// listening at once and closes every connection with no request in progress,
// including one whose next request is already on its way: seen in a rolling
// restart as ECONNRESET, a failed sync. So on SIGTERM the hook keeps serving
// for a delay, answering every request with `Connection: close`, which makes
// the client open its next connection, to a ready pod; then it stops
// listening, closes the connections left idle, lets the requests in progress
// finish, and exits.
//
// Node's http server.close() also stops the timer that applies headersTimeout
// and requestTimeout (./timeouts.ts): a client still sending its headers or
// body slowly was cut no more, and held the stop until forceAfterMs. So the
// ports stop listening with net.Server's close, which leaves that timer
// running (unref'd: it keeps nothing alive), and the idle connections are
// closed as http's close would.
import type { Server, ServerResponse } from "node:http";
import { Server as NetServer } from "node:net";
import type { Logger } from "pino";

export interface ShutdownOptions {
  /** How long to keep serving after the signal (SHUTDOWN_DELAY_SECONDS; none for SIGINT). */
  delayMs: number;
  /** How long requests in progress may take after that before the process exits anyway. */
  forceAfterMs: number;
  logger: Logger;
  exit: (code: number) => void;
}

/**
 * Prepares `servers` (the ports of the endpoint classes) and `others` (the
 * metrics port) for a graceful stop; returns what to call on a signal.
 */
export function gracefulShutdown(
  servers: readonly Server[],
  others: readonly Server[],
  options: ShutdownOptions,
): (signal: string, delayMs?: number) => void {
  let since: number | undefined;
  const inProgress = new Set<ServerResponse>();
  let answered = 0;
  // Before the app's own listener, so that the header is set before any answer.
  for (const server of servers)
    server.prependListener("request", (_req, res: ServerResponse) => {
      if (since !== undefined) res.setHeader("connection", "close");
      inProgress.add(res);
      res.once("close", () => {
        inProgress.delete(res);
        if (since !== undefined) answered++;
      });
    });
  return (signal, delayMs = options.delayMs) => {
    if (since !== undefined) return;
    const start = Date.now();
    since = start;
    options.logger.info({ signal, delayMs, inProgress: inProgress.size }, "shutting down");
    for (const res of inProgress) if (!res.headersSent) res.setHeader("connection", "close");
    setTimeout(() => {
      for (const o of others) o.close();
      let open = servers.length;
      for (const server of servers) {
        NetServer.prototype.close.call(server, () => {
          if (--open > 0) return;
          options.logger.info({ ms: Date.now() - start, answered }, "stopped");
          options.exit(0);
        });
        server.closeIdleConnections();
      }
      setTimeout(() => {
        options.logger.warn(
          { ms: Date.now() - start, answered, inProgress: inProgress.size },
          "stopping with requests in progress",
        );
        options.exit(0);
      }, options.forceAfterMs).unref();
    }, delayMs);
  };
}
