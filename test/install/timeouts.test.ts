// The hook as it starts (src/server/main.ts, default settings) cuts a client
// that stalls in its headers at 10 s and one that trickles its body (above
// the progress floor of src/server/body-budget.ts) at 30 s, as README
// "Operations" says, each within a second: measured on raw sockets. (Node
// checks these limits only every 30 s by default; they were cut at ~19.5 s
// and ~58 s.) A body that stalls is answered 408 by the progress floor, on
// both ports.
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

/**
 * Seconds from connecting until the server closes a socket that sent `text`
 * (then `trickle` every 500 ms, when given), and the status line it answered, if any.
 */
async function cutAfter(port: number, text: string, trickle?: string): Promise<number> {
  return (await cut(port, text, trickle)).seconds;
}

async function cut(port: number, text: string, trickle?: string) {
  const socket = net.connect(port, "127.0.0.1");
  await once(socket, "connect");
  const started = performance.now();
  let answer = "";
  socket.on("data", (b: Buffer) => (answer += b.toString()));
  socket.on("error", () => undefined);
  socket.write(text);
  const timer = trickle === undefined ? undefined : setInterval(() => socket.write(trickle), 500);
  await once(socket, "close");
  clearInterval(timer);
  return { seconds: (performance.now() - started) / 1000, status: answer.split("\r\n")[0] };
}

describe("the hook's client timeouts (defaults, raw sockets)", function () {
  this.timeout(90_000);
  let hook: ChildProcess | undefined;
  let port = 0;
  let apiServerPort = 0;
  before(async () => {
    port = await freePort();
    apiServerPort = await freePort();
    const metricsPort = await freePort();
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
  });
  after(() => hook?.kill());

  it("headers at 10 s and the whole request at 30 s, each within a second", async () => {
    const [headers, body] = await Promise.all([
      cutAfter(port, "POST /sync HTTP/1.1\r\nHost: x\r\n"),
      // 16 KiB a second of a 4 MiB body: above the progress floor, under the limit for 256 s.
      cutAfter(
        apiServerPort,
        "POST /convert HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4000000\r\n\r\n",
        " ".repeat(8 * 1024),
      ),
    ]);
    expect(headers).to.be.within(10, 12); // checked every second; a second more on a busy machine
    expect(body).to.be.within(30, 32);
  });

  it("a body that stalls is answered 408 by the progress floor, on the hook's port and the API server's", async () => {
    const stalled = (path: string) =>
      `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`;
    const answers = await Promise.all([
      cut(port, stalled("/sync")),
      cut(apiServerPort, stalled("/convert")),
    ]);
    expect(answers.map((a) => a.status)).to.deep.equal([
      "HTTP/1.1 408 Request Timeout",
      "HTTP/1.1 408 Request Timeout",
    ]);
  });
});
