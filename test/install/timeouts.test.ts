// The hook as it starts (src/server/main.ts, default settings) cuts a client
// that stalls in its headers (10 s) and one that trickles its body (above the
// progress floor of src/server/body-budget.ts) past the request limit (30 s),
// as README "Operations" says: each gets Node's 408 and the server closes the
// connection, on raw sockets. A body that stalls is answered 408 by the
// progress floor, on both ports. How soon after its limit each is cut (Node
// checks only every 30 s by default; they were cut at ~19.5 s and ~58 s) is
// measured by npm run bench -- 12, not asserted here. And it holds each port
// to its own connection limit (src/server/connections.ts): with the hook's
// port full of idle connections, a /sync on a new one is answered and the
// connection idle the longest is cut; filling the API server's port cuts only
// the API server's (those left open are shown open by a request answered on
// each); the metrics port is held to METRICS_MAX_CONNECTIONS the same way.
import { expect } from "chai";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { API_SERVER_CLASS, HOOK_CLASS } from "../../src/server/classes.js";
import { METRICS_MAX_CONNECTIONS } from "../../src/server/connections.js";
import { freePort, waitForPort } from "../net.js";
import { CUT_BY_TIMEOUT, stallBoth, stalledBodyStatus } from "../support/stall.js";

const root = join(import.meta.dirname, "..", "..");
const main = join(root, "src", "server", "main.ts");
const syncBody = readFileSync(join(root, "examples", "sync-request.json"));

interface Client {
  socket: net.Socket;
  closed: Promise<unknown>;
  /** The answer's status line, once one came. */
  status: () => string | undefined;
}

async function connect(port: number): Promise<Client> {
  const socket = net.connect(port, "127.0.0.1");
  const chunks: Buffer[] = [];
  socket.on("data", (c: Buffer) => chunks.push(c));
  socket.on("error", () => undefined);
  const closed = once(socket, "close");
  await once(socket, "connect");
  const status = () => {
    const text = Buffer.concat(chunks).toString();
    return text.includes("\r\n") ? text.split("\r\n")[0] : undefined;
  };
  return { socket, closed, status };
}

/** Resolves once `done` holds, looking every few milliseconds (bounded by the test's timeout). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 10));
}

/** Sends `request` on each client and waits for every answer's status line. */
async function statuses(clients: Client[], request: string | Buffer): Promise<string[]> {
  for (const c of clients) c.socket.write(request);
  await until(() => clients.every((c) => c.status() !== undefined));
  return [...new Set(clients.map((c) => c.status() ?? ""))];
}

describe("the hook's client timeouts and connection limits (defaults, raw sockets)", function () {
  this.timeout(90_000);
  let hook: ChildProcess | undefined;
  let port = 0;
  let apiServerPort = 0;
  let metricsPort = 0;
  before(async () => {
    port = await freePort();
    apiServerPort = await freePort();
    metricsPort = await freePort();
    hook = spawn(process.execPath, ["--import", "tsx", main], {
      env: {
        ...process.env,
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
        API_SERVER_PORT: String(apiServerPort),
        LOG_LEVEL: "warn",
      },
      stdio: "ignore",
    });
    await waitForPort(port);
    await waitForPort(apiServerPort);
    await waitForPort(metricsPort);
  });
  const clients: Client[] = [];
  after(() => {
    for (const c of clients) c.socket.destroy();
    hook?.kill();
  });

  it("cuts a client stalled in its headers and one trickling its body to the API server's port, each with Node's 408", async () => {
    expect(await stallBoth(port, apiServerPort, "/convert")).to.deep.equal([
      CUT_BY_TIMEOUT,
      CUT_BY_TIMEOUT,
    ]);
  });

  it("a body that stalls is answered 408 by the progress floor, on the hook's port and the API server's", async () => {
    const answers = await Promise.all([
      stalledBodyStatus(port, "/sync"),
      stalledBodyStatus(apiServerPort, "/convert"),
    ]);
    expect(answers).to.deep.equal(["HTTP/1.1 408 Request Timeout", "HTTP/1.1 408 Request Timeout"]);
  });

  it("answers a /sync on a new connection with the hook's port full of idle ones, and cuts the oldest; the API server's port is cut on its own", async () => {
    // One at a time, so that the server accepts them in this order.
    const open = async (p: number, n: number) => {
      const out: Client[] = [];
      for (let i = 0; i < n; i++) out.push(await connect(p));
      clients.push(...out);
      return out;
    };
    const hookIdle = await open(port, HOOK_CLASS.defaultConnections);
    const apiIdle = await open(apiServerPort, API_SERVER_CLASS.defaultConnections);
    // One more on the API server's port cuts its oldest, not one of the hook's.
    const [apiNew] = await open(apiServerPort, 1);
    await apiIdle[0]?.closed;
    // A /sync on a new connection to the full hook port: answered, the oldest idle cut.
    const [syncer] = await open(port, 1);
    const sync = Buffer.concat([
      Buffer.from(
        `POST /sync HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${syncBody.length}\r\n\r\n`,
      ),
      syncBody,
    ]);
    expect(await statuses(syncer ? [syncer] : [], sync)).to.deep.equal(["HTTP/1.1 200 OK"]);
    await hookIdle[0]?.closed;
    // Every other connection is still open: a /healthz is answered on each.
    const healthz = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
    expect(await statuses([...hookIdle.slice(1), ...apiIdle.slice(1)], healthz)).to.deep.equal([
      "HTTP/1.1 200 OK",
    ]);
    expect(await statuses(apiNew ? [apiNew] : [], healthz)).to.deep.equal(["HTTP/1.1 200 OK"]);
  });

  it("holds the metrics port to its limit the same way: a scrape on a new connection is answered, the oldest idle one cut", async () => {
    const idle: Client[] = [];
    for (let i = 0; i < METRICS_MAX_CONNECTIONS; i++) idle.push(await connect(metricsPort));
    clients.push(...idle);
    const scraper = await connect(metricsPort);
    clients.push(scraper);
    const scrape = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
    expect(await statuses([scraper], scrape)).to.deep.equal(["HTTP/1.1 200 OK"]);
    await idle[0]?.closed;
    expect(await statuses(idle.slice(1), scrape)).to.deep.equal(["HTTP/1.1 200 OK"]);
  });
});
