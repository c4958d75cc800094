// The global budget of request-body bytes and the client timeouts, over real
// sockets: stalled uploads on any endpoint (/convert needs no token) hold at
// most the budget; what does not fit gets a 503 at once, /healthz keeps
// answering, and a stalled client is cut within a second of its limit.
import { expect } from "chai";
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { once } from "node:events";
import { pino } from "pino";
import { createMetrics } from "../../../src/server/metrics.js";
import { createApp } from "../../../src/server/app.js";
import { testPool } from "../../support/pool.js";
import { loadCatalog } from "../../../src/edge/load-catalog.js";
import { timeoutOptions } from "../../../src/server/timeouts.js";

const catalog = loadCatalog();
const KiB = 1024;

async function serve(server: http.Server): Promise<number> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return (server.address() as AddressInfo).port;
}

/** A socket that sends headers and the first bytes of a `length`-byte body, then stalls. */
async function stalled(port: number, path: string, length: number): Promise<net.Socket> {
  const socket = net.connect(port, "127.0.0.1");
  await once(socket, "connect");
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{"a":"`,
  );
  return socket;
}

/** Status and JSON body of a request over a fresh connection. */
function call(port: number, method: string, path: string, body?: string) {
  return new Promise<{ status: number; body: unknown; ms: number }>((resolve, reject) => {
    const started = performance.now();
    const req = http.request(
      {
        port,
        host: "127.0.0.1",
        method,
        path,
        headers: { "content-type": "application/json" },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString()) as unknown,
            ms: performance.now() - started,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const settle = () => new Promise((r) => setTimeout(r, 100));

describe("the global body budget", () => {
  const metrics = createMetrics();
  const app = createApp({
    pool: testPool(),
    catalog,
    metrics,
    logger: pino({ level: "silent" }),
    bodyLimitBytes: 256 * KiB,
    bodyBudgetBytes: 512 * KiB,
  });
  const server = http.createServer(timeoutOptions(), app);
  let port = 0;
  before(async () => {
    port = await serve(server);
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it("answers 503 at once when stalled bodies hold the budget, on every endpoint, and serves /healthz", async () => {
    const sockets = [
      await stalled(port, "/convert", 256 * KiB),
      await stalled(port, "/convert", 256 * KiB),
    ];
    await settle();
    const sync = await call(port, "POST", "/sync", "{}");
    expect([sync.status, sync.body]).to.deep.equal([
      503,
      {
        error:
          "llsd-hook is reading as many request bodies as it holds at once (0.5 MiB in all, BODY_BUDGET_MIB); retry shortly",
      },
    ]);
    const convert = await call(port, "POST", "/convert", "{}");
    expect(convert.status).to.equal(503);
    expect(convert.body).to.have.nested.property("response.result.status", "Failure");
    const health = await call(port, "GET", "/healthz");
    expect([health.status, health.ms < 1000]).to.deep.equal([200, true]);
    // Given back when the connections close.
    for (const s of sockets) s.destroy();
    await settle();
    const after = await call(port, "POST", "/sync", "{}");
    expect(after.status).to.equal(400); // read and refused as a hook request, no longer 503
    // Each refusal counted by route (docs/operations/metrics.md).
    const refusals = (await metrics.registry.getMetricsAsJSON()).find(
      (m) => m.name === "llsd_hook_body_budget_refusals_total",
    );
    const byRoute = Object.fromEntries(
      (refusals?.values ?? []).map((v) => [String(v.labels["route"]), v.value]),
    );
    expect(byRoute).to.deep.equal({ sync: 1, convert: 1 });
  });

  it("reserves the per-request limit for a chunked or compressed body", async () => {
    const socket = net.connect(port, "127.0.0.1");
    await once(socket, "connect");
    socket.write(
      "POST /convert HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n",
    );
    const small = await stalled(port, "/customize", 200 * KiB);
    await settle();
    // 256 KiB (chunked) + 200 KiB held: 100 KiB more does not fit in 512 KiB.
    const more = await stalled(port, "/sync", 100 * KiB);
    const [answer] = (await once(more, "data")) as [Buffer];
    expect(answer.toString()).to.match(/^HTTP\/1\.1 503 /);
    for (const s of [socket, small, more]) s.destroy();
    await settle();
  });

  it("refuses a budget smaller than the per-request limit", () => {
    expect(() =>
      createApp({
        pool: testPool(),
        catalog,
        logger: pino({ level: "silent" }),
        bodyLimitBytes: 2 ** 20,
        bodyBudgetBytes: 2 ** 19,
      }),
    ).to.throw(
      "BODY_BUDGET_MIB (0.5) must be at least BODY_LIMIT_MIB (1): a body at the limit would never fit",
    );
  });
});

describe("client timeouts, measured on a raw socket", function () {
  this.timeout(10_000);
  // Scaled down (the defaults, 10 s and 30 s, are measured in test/install/timeouts.test.ts):
  // what broke them was Node checking only every 30 s, which these would show just the same.
  const server = http.createServer(
    timeoutOptions(500, 1500),
    createApp({ pool: testPool(), catalog, logger: pino({ level: "silent" }) }),
  );
  let port = 0;
  before(async () => {
    port = await serve(server);
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  /** Seconds from connecting until the server closes a socket that sent `text`. */
  async function cutAfter(text: string): Promise<number> {
    const socket = net.connect(port, "127.0.0.1");
    await once(socket, "connect");
    const started = performance.now();
    socket.on("data", () => undefined);
    socket.write(text);
    await once(socket, "close");
    return (performance.now() - started) / 1000;
  }

  it("cuts a client that stalls in its headers, and one that stalls in its body, within a second of the limit (a second more allowed on a busy machine)", async () => {
    const [headers, body] = await Promise.all([
      cutAfter("POST /sync HTTP/1.1\r\nHost: x\r\n"),
      cutAfter(
        "POST /convert HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
      ),
    ]);
    expect(headers).to.be.within(0.5, 2.5);
    expect(body).to.be.within(1.5, 3.5);
  });
});
