// A client that stalls: it sends part of a request over a raw socket, then
// nothing, and waits for the server to cut it (the hook's client timeouts,
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

/** Connects to 127.0.0.1:`port`, sends `text` and nothing more, and waits until the server closes. */
export async function stallUntilCut(port: number, text: string): Promise<Cut> {
  const socket = net.connect(port, "127.0.0.1");
  await once(socket, "connect");
  const chunks: Buffer[] = [];
  let endedByServer = false;
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  socket.on("end", () => (endedByServer = true));
  socket.on("error", () => undefined); // a reset: endedByServer stays false
  socket.write(text);
  await once(socket, "close");
  return { answer: Buffer.concat(chunks).toString(), endedByServer };
}

/** The request line and part of the headers: cut by the header timeout, the shorter. */
export const STALLED_HEADERS = "POST /sync HTTP/1.1\r\nHost: x\r\n";
/** Whole headers and one byte of a 100-byte body: cut by the request timeout. */
export const STALLED_BODY =
  "POST /convert HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{";
/** How a client cut by either timeout ends: Node's 408, then the server closes. */
export const CUT_BY_TIMEOUT: Cut = {
  answer: "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n",
  endedByServer: true,
};

/** A client stalled in its headers and one stalled in its body, at once: how each was cut. */
export function stallBoth(port: number): Promise<Cut[]> {
  return Promise.all([stallUntilCut(port, STALLED_HEADERS), stallUntilCut(port, STALLED_BODY)]);
}
