// A port's connection limit (src/server/connections.ts), over real sockets: at
// the limit a new connection is let in and the one idle the longest is cut; a
// connection with a request in progress is never cut, and only when all are
// busy is the new one closed unread; over TLS too. The hook's two ports as
// main.ts opens them: test/install/timeouts.test.ts.
import { expect } from "chai";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import net, { type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import tls from "node:tls";
import { limitConnections, type ConnectionLimit } from "../../../src/server/connections.js";
import { makeCa } from "../../pki.js";

/** A client connection, and whether the server has closed it. */
interface Client {
  socket: net.Socket;
  closed: Promise<void>;
  isClosed: () => boolean;
  /** What the server sent on it. */
  received: () => string;
}

function track(socket: net.Socket): Client {
  let closed = false;
  const chunks: Buffer[] = [];
  socket.on("data", (c: Buffer) => chunks.push(c));
  socket.on("error", () => undefined);
  const done = once(socket, "close").then(() => {
    closed = true;
  });
  return {
    socket,
    closed: done,
    isClosed: () => closed,
    received: () => Buffer.concat(chunks).toString(),
  };
}

/** Resolves once `done` holds, looking every few milliseconds (bounded by the test's timeout). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 5));
}

/** A plain connection the server has counted as open. */
async function connect(port: number, limit: ConnectionLimit): Promise<Client> {
  const before = limit.counts();
  const client = track(net.connect(port, "127.0.0.1"));
  await once(client.socket, "connect");
  // Counted as open, or cut or refused to make room or for want of it.
  await until(() => {
    const now = limit.counts();
    return (
      now.cut + now.refused > before.cut + before.refused ||
      now.open > before.open ||
      client.isClosed()
    );
  });
  return client;
}

const GET = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";

describe("server: a port's connection limit", () => {
  let server: http.Server;
  let port: number;
  let limit: ConnectionLimit;
  /** Responses held until released (a request in progress). */
  let held: http.ServerResponse[];
  let hold: boolean;
  const clients: Client[] = [];

  async function start(max: number, make = () => http.createServer()): Promise<void> {
    held = [];
    hold = false;
    server = make();
    server.on("request", (_req, res: http.ServerResponse) => {
      if (hold) held.push(res);
      else res.end("ok");
    });
    limit = limitConnections(server, max);
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    port = (server.address() as AddressInfo).port;
  }

  const open = async () => {
    const c = await connect(port, limit);
    clients.push(c);
    return c;
  };

  afterEach(async () => {
    for (const c of clients.splice(0)) c.socket.destroy();
    server.closeAllConnections();
    server.close();
    await once(server, "close");
  });

  it("at the limit, lets a new connection in and cuts the one idle the longest; the newcomer is answered", async () => {
    await start(4);
    const idle = [await open(), await open(), await open(), await open()];
    expect(limit.counts()).to.include({ open: 4, busy: 0, cut: 0 });
    const newcomer = await open();
    newcomer.socket.write(GET);
    await until(() => newcomer.received().includes("ok"));
    expect(newcomer.received()).to.match(/^HTTP\/1\.1 200 OK/);
    await idle[0]?.closed;
    // The other three are still open: each is answered on the connection it had.
    for (const c of idle.slice(1)) c.socket.write(GET);
    await until(() => idle.slice(1).every((c) => c.received().includes("ok")));
    expect(idle.map((c) => c.isClosed())).to.deep.equal([true, false, false, false]);
    expect(limit.counts()).to.include({ open: 4, cut: 1, refused: 0 });
  });

  it("counts a kept-alive connection idle from its last answer, so those idle longer are cut first", async () => {
    await start(3);
    const [a, b, c] = [await open(), await open(), await open()];
    b?.socket.write(GET);
    await until(() => b?.received().includes("ok") ?? false);
    await until(() => limit.counts().busy === 0);
    await open(); // cuts a: idle since it connected
    await a?.closed;
    await open(); // cuts c, which connected after b but has been idle longer
    await c?.closed;
    expect([a, b, c].map((x) => x?.isClosed())).to.deep.equal([true, false, true]);
  });

  it("never cuts a connection with a request in progress: with every one busy, the new one is closed unread", async () => {
    await start(2);
    hold = true;
    const busy = [await open(), await open()];
    for (const c of busy) c.socket.write(GET);
    await until(() => held.length === 2);
    expect(limit.counts()).to.include({ open: 2, busy: 2 });
    const turnedAway = await open();
    await turnedAway.closed;
    expect(turnedAway.received()).to.equal("");
    expect(limit.counts()).to.include({ open: 2, busy: 2, cut: 0, refused: 1 });
    for (const res of held) res.end("ok");
    await until(() => busy.every((c) => c.received().includes("ok")));
    expect(busy.map((c) => c.isClosed())).to.deep.equal([false, false]);
    // Answered, they are idle again: the next connection cuts the first.
    await until(() => limit.counts().busy === 0);
    await open();
    await busy[0]?.closed;
  });

  it("tells a TLS connection with a request in progress from an idle one (an HTTPS port)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "llsd-connections-"));
    try {
      makeCa(dir, "server", "/CN=127.0.0.1");
      const key = readFileSync(join(dir, "server.key"));
      const cert = readFileSync(join(dir, "server.crt"));
      await start(2, () => https.createServer({ key, cert }));
      hold = true;
      const secure = track(tls.connect({ port, host: "127.0.0.1", rejectUnauthorized: false }));
      clients.push(secure);
      await once(secure.socket, "secureConnect");
      secure.socket.write(GET);
      await until(() => held.length === 1);
      const plain = await open(); // the second of two: no cut
      const third = await open(); // cuts the idle plain one, not the busy TLS one
      await plain.closed;
      expect(limit.counts()).to.include({ open: 2, busy: 1, cut: 1 });
      held[0]?.end("ok");
      await until(() => secure.received().includes("ok"));
      expect([secure.isClosed(), third.isClosed()]).to.deep.equal([false, false]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
