// The body budgets of the endpoint classes and the client timeouts, over real
// sockets (issue 34's attack shapes): a request holds only the bytes it has
// sent, so header-only holders hold nothing; what does not fit gets a 503 at
// once; a declared length over the limit a 413 before its body; a body that
// makes no progress a 408; a client stalled in its headers, or trickling its
// body past the request limit, is cut by the server's timeout (how soon after
// its limit: npm run bench -- 12).
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
import { CUT_BY_TIMEOUT, stallBoth } from "../../support/stall.js";
import { API_SERVER_CLASS } from "../../../src/server/classes.js";
import {
  createBodyBudget,
  PROGRESS_FLOOR_BYTES,
  PROGRESS_WINDOW_MS,
} from "../../../src/server/body-budget.js";
import { gzipSync } from "node:zlib";

const catalog = loadCatalog();
const KiB = 1024;

async function serve(server: http.Server): Promise<number> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return (server.address() as AddressInfo).port;
}

/** Status and JSON body of a request over a fresh connection. */
function call(
  port: number,
  method: string,
  path: string,
  body?: string | Buffer,
  headers: Record<string, string> = {},
) {
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const req = http.request(
      {
        port,
        host: "127.0.0.1",
        method,
        path,
        headers: { "content-type": "application/json", ...headers },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString()) as unknown,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** A request with a body sent in `encoding`. */
const compressed = (port: number, path: string, body: Buffer, encoding = "gzip") =>
  call(port, "POST", path, body, { "content-encoding": encoding });

const settle = () => new Promise((r) => setTimeout(r, 100));

/** A socket that sends headers declaring a `length`-byte body and `sent` bytes of it, then stalls. */
async function holder(port: number, path: string, length: number, sent = 0): Promise<net.Socket> {
  const socket = net.connect(port, "127.0.0.1");
  await once(socket, "connect");
  socket.on("data", () => undefined);
  socket.on("error", () => undefined);
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`,
  );
  if (sent > 0) socket.write(`{"a":"${"x".repeat(sent - 6)}`);
  return socket;
}

/** The status line and whether the server closed the connection, for a socket's first answer. */
async function answerOf(socket: net.Socket): Promise<{ status: string; closed: boolean }> {
  const text = await textOf(socket);
  return { status: text.split("\r\n")[0] ?? "", closed: /\r\nConnection: close\r\n/i.test(text) };
}

/** All a socket received until the server closed it. */
async function textOf(socket: net.Socket): Promise<string> {
  const chunks: Buffer[] = [];
  socket.on("data", (c: Buffer) => chunks.push(c));
  await once(socket, "close");
  return Buffer.concat(chunks).toString();
}

/** A socket that sends a chunked body (no Content-Length) of `sent` bytes and stalls before its end. */
async function chunked(port: number, path: string, sent: number): Promise<net.Socket> {
  const socket = net.connect(port, "127.0.0.1");
  await once(socket, "connect");
  socket.on("error", () => undefined);
  const data = `{"a":"${"x".repeat(sent - 6)}`;
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
  );
  socket.write(`${Buffer.byteLength(data).toString(16)}\r\n${data}\r\n`);
  return socket;
}

async function budgetRefusals(metrics: ReturnType<typeof createMetrics>) {
  const refusals = (await metrics.registry.getMetricsAsJSON()).find(
    (m) => m.name === "llsd_hook_body_budget_refusals_total",
  );
  return Object.fromEntries(
    (refusals?.values ?? []).map((v) => [String(v.labels["route"]), v.value]),
  );
}

describe("createBodyBudget: the large bodies' share", () => {
  const MiB = 1024 * KiB;
  for (const [bytes, limit, largeFrom, largeBytes, why] of [
    [16 * MiB, 4 * MiB, 1 * MiB, 12 * MiB, "the hook's port, as shipped: a quarter kept"],
    [
      4 * MiB,
      4 * MiB,
      1 * MiB,
      4 * MiB,
      "the API server's port: a budget of one body keeps nothing back",
    ],
    [5 * MiB, 4 * MiB, 1 * MiB, 4 * MiB, "never less than the limit"],
    [512 * KiB, 256 * KiB, 64 * KiB, 384 * KiB, "the suite's app"],
  ] as const)
    it(`${bytes / KiB} KiB, limit ${limit / KiB} KiB: large from ${largeFrom / KiB} KiB, at most ${largeBytes / KiB} KiB (${why})`, () => {
      const budget = createBodyBudget(bytes, "BODY_BUDGET_MIB", limit);
      expect([budget.largeFrom, budget.largeBytes]).to.deep.equal([largeFrom, largeBytes]);
    });

  it("large bodies stop at their share, small ones go on to the whole budget; grow and give move the same bytes", () => {
    const budget = createBodyBudget(16, "BODY_BUDGET_MIB", 8);
    expect(budget.take(10, true)).to.equal(undefined);
    expect(budget.take(3, true)).to.equal("large"); // 13 > 12
    expect(budget.take(3, false)).to.equal(undefined);
    expect(budget.grow(3)).to.equal(false); // its 3 would make 13 large
    expect(budget.take(4, false)).to.equal("budget"); // 17 > 16
    expect(budget.held()).to.equal(13);
    budget.give(10, true);
    expect(budget.grow(3)).to.equal(true);
    expect(budget.take(9, true)).to.equal(undefined);
    expect(budget.take(1, true)).to.equal("large"); // 13 > 12, within the 16
    budget.give(12, true);
    expect(budget.held()).to.equal(0);
    expect(budget.take(12, true)).to.equal(undefined);
  });
});

describe("the body budgets, charged as bytes arrive", function () {
  this.timeout(20_000);
  const metrics = createMetrics();
  const options = {
    pool: testPool(),
    catalog,
    metrics,
    logger: pino({ level: "silent" }),
    bodyLimitBytes: 256 * KiB,
    bodyBudgetBytes: 512 * KiB,
  };
  const hook = http.createServer(timeoutOptions(), createApp(options));
  const apiServer = http.createServer(
    timeoutOptions(),
    createApp({ ...options, endpoints: API_SERVER_CLASS }),
  );
  let port = 0;
  let apiPort = 0;
  before(async () => {
    port = await serve(hook);
    apiPort = await serve(apiServer);
  });
  after(() => {
    for (const server of [hook, apiServer]) {
      server.closeAllConnections();
      server.close();
    }
  });

  it("header-only holders declaring the limit hold nothing: /sync and /convert are read beside them", async () => {
    // Issue 34's attack: four connections send only a header declaring a body at the limit.
    const holders = [
      ...(await Promise.all([0, 1, 2, 3].map(() => holder(apiPort, "/convert", 256 * KiB)))),
      ...(await Promise.all([0, 1, 2, 3].map(() => holder(port, "/sync", 256 * KiB)))),
    ];
    await settle();
    const sync = await call(port, "POST", "/sync", "{}");
    expect(sync.status).to.equal(400); // read and refused as a hook request, not 503
    // Read and refused as a ConversionReview (the API server reads the Failure in a 200), not 503.
    const convert = await call(apiPort, "POST", "/convert", "{}");
    expect(convert.body).to.have.nested.property("response.result.status", "Failure");
    expect(convert.status).to.equal(200);
    for (const s of holders) s.destroy();
  });

  it("bodies hold what they have sent: a chunk that does not fit is a 503 at once, and the connection closes", async () => {
    const before = await budgetRefusals(metrics);
    // 250 + 130 KiB of large bodies and 2 × 60 KiB of small ones sent of a 512 KiB budget;
    // 60 KiB more does not fit.
    const sending = [
      await holder(port, "/sync", 256 * KiB, 250 * KiB),
      await holder(port, "/customize", 256 * KiB, 130 * KiB),
      await holder(port, "/sync", 60 * KiB, 60 * KiB - 1),
      await holder(port, "/sync", 60 * KiB, 60 * KiB - 1),
    ];
    await settle();
    const more = await holder(port, "/sync", 60 * KiB, 60 * KiB);
    expect(await answerOf(more)).to.deep.equal({
      status: "HTTP/1.1 503 Service Unavailable",
      closed: true,
    });
    // The other class's budget is its own.
    const convert = await call(apiPort, "POST", "/convert", "{}");
    for (const s of sending) s.destroy();
    expect(convert.status).to.equal(200);
    await settle();
    // Given back when the connections close.
    expect((await call(port, "POST", "/sync", "{}")).status).to.equal(400);
    const after = await budgetRefusals(metrics);
    expect((after["sync"] ?? 0) - (before["sync"] ?? 0)).to.equal(1);
  });

  it("large bodies (over a quarter of the limit) hold at most three quarters of the budget: the last quarter stays for small ones", async () => {
    // 250 + 130 KiB of large bodies: 380 of their 384 KiB.
    const sending = [
      await holder(port, "/sync", 256 * KiB, 250 * KiB),
      await holder(port, "/customize", 256 * KiB, 130 * KiB),
    ];
    await settle();
    // Declared large, it is refused at its first chunk, with the text that says why;
    // Sent chunked, it grows large past 64 KiB: refused then.
    for (const refused of [
      await holder(port, "/sync", 100 * KiB, 10 * KiB),
      await chunked(port, "/sync", 100 * KiB),
    ]) {
      const text = await textOf(refused);
      expect(text).to.match(/^HTTP\/1.1 503 Service Unavailable\r\n/);
      expect(JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4))).to.deep.equal({
        error:
          "llsd-hook is reading as many large request bodies as it holds at once (bodies over 0.06 MiB hold at most 0.38 of the 0.5 MiB of BODY_BUDGET_MIB, the rest kept for smaller ones); retry shortly",
      });
    }
    // A small body is read beside them (refused as a hook request: read, not 503).
    const small = await call(port, "POST", "/sync", `{"a":"${"x".repeat(60 * KiB - 10)}"}`);
    expect(small.status).to.equal(400);
    for (const s of sending) s.destroy();
    await settle();
    // Given back: a large body is read again.
    const large = await call(port, "POST", "/sync", `{"a":"${"x".repeat(200 * KiB)}"}`);
    expect(large.status).to.equal(400);
  });

  it("a declared Content-Length over the limit is a 413 at once, before a byte of the body, and the connection closes", async () => {
    for (const [p, path] of [
      [port, "/sync"],
      [apiPort, "/convert"],
    ] as const) {
      const socket = await holder(p, path, 4 * 1024 * KiB);
      expect(await answerOf(socket)).to.deep.equal({
        status: "HTTP/1.1 413 Payload Too Large",
        closed: true,
      });
    }
  });

  it("a body that makes no progress is cut with a 408 (a test timeout, 20 s, below Node's 30 s request timeout bounds it)", async () => {
    const socket = await holder(apiPort, "/convert", 100 * KiB, 1 * KiB);
    const chunks: Buffer[] = [];
    socket.on("data", (c: Buffer) => chunks.push(c));
    await once(socket, "close");
    const text = Buffer.concat(chunks).toString();
    expect(text.split("\r\n")[0]).to.equal("HTTP/1.1 408 Request Timeout");
    const body = JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4)) as {
      response: { result: { status: string; message: string } };
    };
    expect(body.response.result).to.deep.include({
      status: "Failure",
      message: `the request body arrived slower than ${PROGRESS_FLOOR_BYTES / KiB} KiB in ${PROGRESS_WINDOW_MS / 1000} s, the least llsd-hook waits for; send the body with its headers`,
    });
  });

  it("a compressed body is charged as it is decoded: within the limit it is read, past it a 413", async () => {
    const small = gzipSync(Buffer.from("{}"));
    const read = await compressed(port, "/sync", small);
    expect(read.status).to.equal(400); // read: not a hook request
    const bomb = gzipSync(Buffer.from(`{"a":"${"x".repeat(300 * KiB)}"}`));
    expect(bomb.length).to.be.below(4 * KiB);
    const refused = await compressed(port, "/sync", bomb);
    expect([refused.status, refused.body]).to.deep.equal([
      413,
      {
        error:
          "request body larger than 0.25 MiB, the most llsd-hook accepts (BODY_LIMIT_MIB); see docs/operations/hook-server.md",
      },
    ]);
    const undecodable = await compressed(port, "/sync", Buffer.from("not gzip"));
    expect([undecodable.status, undecodable.body]).to.deep.equal([
      400,
      { error: "the compressed body could not be decompressed; check its Content-Encoding" },
    ]);
    const unknown = await compressed(port, "/sync", small, "zstd");
    expect(unknown.status).to.equal(415);
  });

  it("refuses a budget smaller than the per-request limit, naming the class's variable", () => {
    expect(() =>
      createApp({
        ...options,
        endpoints: API_SERVER_CLASS,
        bodyLimitBytes: 2 ** 20,
        bodyBudgetBytes: 2 ** 19,
      }),
    ).to.throw(
      "API_SERVER_BODY_BUDGET_MIB (0.5) must be at least BODY_LIMIT_MIB (1): a body at the limit would never fit",
    );
  });
});

describe("client timeouts, on a raw socket", function () {
  this.timeout(10_000);
  // Scaled down (the defaults, 10 s and 30 s, are in test/install/timeouts.test.ts). Node
  // checks them every connectionsCheckingInterval: at its default (30 s) neither client here
  // would be cut before the test's timeout (10 s); how soon they are: npm run bench -- 12.
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

  it("cuts a client that stalls in its headers, and one that trickles its body above the progress floor, with Node's 408: the server's timeout, not the client or the floor", async () => {
    expect(await stallBoth(port, port, "/sync")).to.deep.equal([CUT_BY_TIMEOUT, CUT_BY_TIMEOUT]);
  });
});
