// A Kubernetes watch read as it streams: one JSON event a line
// (test/k8s/kube.ts's watches, test/node/hook.ts's EndpointSlice watch).
import type { Readable } from "node:stream";

export interface WatchEvent<T> {
  /** ADDED, MODIFIED, DELETED, BOOKMARK or ERROR. */
  type: string;
  object: T;
}

/**
 * Calls `onEvent` with each event of a watch response as its line arrives,
 * until it returns true (stop reading) or the stream ends.
 */
export function readWatch<T>(stream: Readable, onEvent: (event: WatchEvent<T>) => boolean): void {
  let buffer = "";
  let stopped = false;
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf("\n"); nl >= 0 && !stopped; nl = buffer.indexOf("\n")) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (line !== "") stopped = onEvent(JSON.parse(line) as WatchEvent<T>);
    }
  });
}
