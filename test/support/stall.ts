// A client that stalls: it sends part of a request over a raw socket, then
// nothing (or a trickle of its body), and waits for the server to cut it (the
// hook's client timeouts and its body's progress floor,
// test/unit/server/body-budget.test.ts at scale and test/install/timeouts.test.ts
// as the hook starts).
import { once } from "node:events";
import net from "node:net";

export interface Cut {
  /** What the server wrote before it closed the connection. */
  answer: string;
  /** Whether the server ended the connection (its FIN), rather than it breaking. */
  endedByServer: boolean;
}

/** How often a trickling client sends its next piece, ms. */
const TRICKLE_MS = 500;

/**
 * Connects to 127.0.0.1:`port`, sends `text` and nothing more (or, given `trickle`, that
 * at once and every TRICKLE_MS), and waits until the server closes.
 */
export async function stallUntilCut(port: number, text: string, trickle?: string): Promise<Cut> {
  const socket = net.connect(port, "127.0.0.1");
  await once(socket, "connect");
  const chunks: Buffer[] = [];
  let endedByServer = false;
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  socket.on("end", () => (endedByServer = true));
  socket.on("error", () => undefined); // a reset: endedByServer stays false
  socket.write(trickle === undefined ? text : text + trickle);
  const timer =
    trickle === undefined ? undefined : setInterval(() => socket.write(trickle), TRICKLE_MS);
  await once(socket, "close");
  clearInterval(timer);
  return { answer: Buffer.concat(chunks).toString(), endedByServer };
}

/** The request line and part of the headers: cut by the header timeout, the shorter. */
export const STALLED_HEADERS = "POST /sync HTTP/1.1\r\nHost: x\r\n";

/**
 * Whole headers of a 4,000,000-byte body to `path` (under the 4 MiB limit), to be sent as
 * TRICKLE: 32 KiB a second, above the progress floor of src/server/body-budget.ts (16 KiB in
 * 2 s) and too slow to finish for 122 s, so the request timeout cuts it.
 */
export const trickledBody = (path: string) =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4000000\r\n\r\n`;
export const TRICKLE = " ".repeat(16 * 1024);

/** Whole headers and one byte of a 100-byte body to `path`: cut by the progress floor's 408. */
export const stalledBody = (path: string) =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`;

/** How a client cut by either timeout ends: Node's 408, then the server closes. */
export const CUT_BY_TIMEOUT: Cut = {
  answer: "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n",
  endedByServer: true,
};

/**
 * A client stalled in its headers on `port` and one trickling its body to `bodyPort`'s
 * `bodyPath`, at once: how each was cut.
 */
export function stallBoth(port: number, bodyPort: number, bodyPath: string): Promise<Cut[]> {
  return Promise.all([
    stallUntilCut(port, STALLED_HEADERS),
    stallUntilCut(bodyPort, trickledBody(bodyPath), TRICKLE),
  ]);
}

/** The status line a client whose body stalls on `port`'s `path` is answered with. */
export async function stalledBodyStatus(port: number, path: string): Promise<string> {
  return (await stallUntilCut(port, stalledBody(path))).answer.split("\r\n")[0] ?? "";
}
