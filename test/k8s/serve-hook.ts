// The hook as the Kubernetes tests run it: createApp on a loopback port, with
// the shared test pool (test/support/pool.ts) and a silent logger.
import type { Server } from "node:http";
import { pino } from "pino";
import { loadCatalog } from "../../src/edge/load-catalog.js";
import { createApp } from "../../src/server/app.js";
import { testPool } from "../support/pool.js";

/** The hook on a loopback port; `fieldManager` undefined leaves createApp's default. */
export async function serveHook(fieldManager?: string): Promise<{ server: Server; url: string }> {
  const app = createApp({
    pool: testPool(fieldManager === undefined ? {} : { fieldManager }),
    catalog: loadCatalog(),
    logger: pino({ level: "silent" }),
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const addr = server.address();
  if (addr === null || typeof addr === "string") throw new Error("no hook address");
  return { server, url: `http://127.0.0.1:${addr.port}` };
}
