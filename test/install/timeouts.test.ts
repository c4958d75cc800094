// The hook as it starts (src/server/main.ts, default settings) cuts a client
// that stalls in its headers at 10 s and one that stalls in its body at 30 s,
// as README "Operations" says, each within a second: measured on raw sockets.
// (Node checks these limits only every 30 s by default; they were cut at
// ~19.5 s and ~58 s.)
import { expect } from "chai";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import net from "node:net";
import { join } from "node:path";

const main = join(import.meta.dirname, "..", "..", "src", "server", "main.ts");

async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as net.AddressInfo;
  server.close();
  return port;
}

async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const socket = net.connect(port, "127.0.0.1");
    const ok = await new Promise<boolean>((resolve) => {
      socket.on("connect", () => resolve(true));
      socket.on("error", () => resolve(false));
    });
    socket.destroy();
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the hook did not listen on ${port}`);
}

/** Seconds from connecting until the server closes a socket that sent `text`. */
async function cutAfter(port: number, text: string): Promise<number> {
  const socket = net.connect(port, "127.0.0.1");
  await once(socket, "connect");
  const started = performance.now();
  socket.on("data", () => undefined);
  socket.write(text);
  await once(socket, "close");
  return (performance.now() - started) / 1000;
}

describe("the hook's client timeouts (defaults, raw sockets)", function () {
  this.timeout(90_000);
  let hook: ChildProcess | undefined;
  let port = 0;
  before(async () => {
    port = await freePort();
    const metricsPort = await freePort();
    hook = spawn(process.execPath, ["--import", "tsx", main], {
      env: {
        ...process.env,
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
        LOG_LEVEL: "warn",
      },
      stdio: "ignore",
    });
    await waitForPort(port);
  });
  after(() => hook?.kill());

  it("headers at 10 s and the whole request at 30 s, each within a second", async () => {
    const [headers, body] = await Promise.all([
      cutAfter(port, "POST /sync HTTP/1.1\r\nHost: x\r\n"),
      cutAfter(
        port,
        "POST /convert HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
      ),
    ]);
    expect(headers).to.be.within(10, 12); // checked every second; a second more on a busy machine
    expect(body).to.be.within(30, 32);
  });
});
