// How many connections a port keeps open (MAX_CONNECTIONS,
// API_SERVER_MAX_CONNECTIONS; docs/adr/0018-endpoint-classes.md). Each open
// connection costs memory (its socket, Node's parser, TLS's buffers), and
// without a limit a client that reconnects as fast as it is cut keeps
// thousands open: they are cut only at the header timeout (10 s) or
// the keep-alive timeout (5 s). Node's own server.maxConnections refuses the
// newest connection at the limit, which lets idle strangers starve
// Metacontroller of its next one. So at the limit a new connection is let in
// and the connection idle the longest is cut instead:
//   - idle: no request in progress on it (connected and not yet sent whole
//     headers, or kept alive between requests); idle since it connected or
//     its last answer was done;
//   - a connection with a request in progress is never cut for another (what
//     its body holds is bounded by the body budget and its progress floor);
//   - only when every connection has a request in progress is the new one
//     closed at once, unread.
// So a caller that sends its request when it connects (Metacontroller, the API
// server, a probe) always gets it read, unless `max` connections are opened
// between its connect and its request or all of them are busy.
import type { Server } from "node:http";
import type { Socket } from "node:net";

/**
 * The metrics port's limit: Prometheus keeps one connection per scraping
 * replica; the rest is room for a person's curl. Not a setting.
 */
export const METRICS_MAX_CONNECTIONS = 8;

/** What a port's connections are now, and what the limit did (for the metrics and tests). */
export interface ConnectionCounts {
  open: number;
  /** With a request in progress. */
  busy: number;
  /** Idle connections cut to let a new one in, since the start. */
  cut: number;
  /** New connections closed at once because every one was busy. */
  refused: number;
}

export interface ConnectionLimit {
  readonly max: number;
  counts(): ConnectionCounts;
}

interface Entry {
  socket: Socket;
  requests: number;
}

/**
 * A connection's key, the same for the TCP socket (the server's "connection")
 * and the TLS socket over it (a request's socket on an HTTPS port).
 */
const keyOf = (socket: Socket): string => `${socket.remoteAddress}|${socket.remotePort}`;

/** Holds `server` to `max` open connections, cutting the one idle the longest to let a new one in. */
export function limitConnections(server: Server, max: number): ConnectionLimit {
  const open = new Map<string, Entry>();
  // Insertion order is the order they became idle: the first is idle the longest.
  const idle = new Map<string, Entry>();
  let cut = 0;
  let refused = 0;
  server.on("connection", (socket: Socket) => {
    if (open.size >= max) {
      const [oldest] = idle.values();
      if (oldest === undefined) {
        refused++;
        socket.destroy();
        return;
      }
      cut++;
      forget(keyOf(oldest.socket));
      oldest.socket.destroy();
    }
    const key = keyOf(socket);
    const entry: Entry = { socket, requests: 0 };
    open.set(key, entry);
    idle.set(key, entry);
    socket.once("close", () => {
      if (open.get(key) === entry) forget(key);
    });
  });
  server.on("request", (req, res) => {
    const key = keyOf(req.socket);
    const entry = open.get(key);
    if (entry === undefined) return;
    entry.requests++;
    idle.delete(key);
    res.once("close", () => {
      entry.requests--;
      if (entry.requests === 0 && open.get(key) === entry) idle.set(key, entry);
    });
  });
  function forget(key: string): void {
    open.delete(key);
    idle.delete(key);
  }
  return {
    max,
    counts: () => ({ open: open.size, busy: open.size - idle.size, cut, refused }),
  };
}
