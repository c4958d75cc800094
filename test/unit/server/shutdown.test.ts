// The hook's stop on SIGTERM (src/server/shutdown.ts) with a client that keeps
// its connections alive, as Metacontroller's does: during the delay every
// request is answered, with Connection: close; new connections are still
// accepted; a request in progress at the signal finishes; the process exits
// once the delay is over and nothing is in progress, or after forceAfterMs
// with a request still running; a client sending its headers or body too
// slowly is still cut by Node's timeouts once the ports stop listening.
// test/node/pods.test.ts runs the same in a rolling restart on a real node.
// The tests read no clock: what comes before the signal and after it is told
// by a flag set with the signal, and "not before the delay" by a timer of the
// test's own that falls due before the hook's (Node runs timers in the order
// they fall due).
import { expect } from "chai";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { pino } from "pino";
import { gracefulShutdown } from "../../../src/server/shutdown.js";

interface Answer {
  status: number;
  connection: string | undefined;
  /** The request was sent after the signal. */
  sentAfter: boolean;
  /** The answer had come in full before the signal. */
  cameBefore: boolean;
}

function lines(): { logger: pino.Logger; entries: () => { msg: string; [k: string]: unknown }[] } {
  const out: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      out.push(chunk.toString());
      done();
    },
  });
  return {
    logger: pino({}, sink),
    entries: () =>
      out
        .join("")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as { msg: string }),
  };
}

/** Resolves once `done` holds, looking every few milliseconds. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 5));
}

describe("server: stopping on SIGTERM", () => {
  let server: http.Server;
  let agent: http.Agent;
  let port: number;
  let connections: number;
  let signalled: boolean;

  async function start(handler: http.RequestListener, options: http.ServerOptions = {}) {
    server = http.createServer(options, handler);
    connections = 0;
    signalled = false;
    server.on("connection", () => connections++);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
    agent = new http.Agent({ keepAlive: true, maxSockets: 3 });
  }

  afterEach(() => {
    agent?.destroy();
    server?.closeAllConnections();
    server?.close();
  });

  function post(path = "/sync"): Promise<Answer> {
    const sentAfter = signalled;
    return new Promise((resolve, reject) => {
      const req = http.request({ host: "127.0.0.1", port, path, method: "POST", agent }, (res) => {
        res.resume();
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            connection: res.headers.connection,
            sentAfter,
            cameBefore: !signalled,
          }),
        );
      });
      req.on("error", reject);
      req.end("{}");
    });
  }

  /**
   * The hook's options with an exit the test can await, and a check that the
   * exit has not come yet, run by a timer of the test's own of `ms`. Made
   * before the signal, that timer falls due no later than the hook's of the
   * same length, and Node runs timers that fall due together in the order
   * they were made.
   */
  function stopping(
    delayMs: number,
    forceAfterMs: number,
    ms: number,
  ): {
    stop: (signal: string, delayMs?: number) => void;
    log: ReturnType<typeof lines>;
    exited: Promise<void>;
    exitsBefore: Promise<number>;
    exits: () => number;
  } {
    const log = lines();
    let exits = 0;
    let exit!: () => void;
    const exited = new Promise<void>((r) => (exit = r));
    const exitsBefore = new Promise<number>((r) => setTimeout(() => r(exits), ms));
    const stop = gracefulShutdown([server], [], {
      delayMs,
      forceAfterMs,
      logger: log.logger,
      exit: () => {
        exits++;
        exit();
      },
    });
    return { stop, log, exited, exitsBefore, exits: () => exits };
  }

  it("keeps answering during the delay, closing each connection after its answer, then exits once nothing is in progress", async () => {
    await start((req, res) => {
      const ms = req.url === "/slow" ? 150 : 5;
      setTimeout(() => res.end("{}"), ms);
    });
    const answers: Answer[] = [];
    const errors: string[] = [];
    let sending = true;
    const worker = async () => {
      while (sending)
        await post().then(
          (a) => answers.push(a),
          (e: Error) => errors.push(e.message),
        );
    };
    const workers = [worker(), worker(), worker()];
    await new Promise((r) => setTimeout(r, 100));
    const slow = post("/slow");
    await new Promise((r) => setTimeout(r, 20));
    const before = connections;
    const { stop, log, exited, exitsBefore } = stopping(300, 5_000, 300);
    signalled = true;
    stop("SIGTERM");
    // The client goes on until well inside the delay (as until its endpoints change).
    await new Promise((r) => setTimeout(r, 200));
    sending = false;
    await Promise.all(workers);
    const slowAnswer = await slow;
    expect(await exitsBefore, "exits before the delay was over").to.equal(0);
    await exited;

    expect(errors).to.deep.equal([]);
    expect(slowAnswer.status).to.equal(200);
    const after = answers.filter((a) => a.sentAfter);
    expect(after.length).to.be.above(3);
    expect(after.every((a) => a.status === 200 && a.connection === "close")).to.equal(true);
    const came = answers.filter((a) => a.cameBefore);
    expect(came.length).to.be.above(0);
    expect(came.every((a) => a.connection === "keep-alive")).to.equal(true);
    // Each closed connection was replaced by a new one, accepted during the delay.
    expect(connections - before).to.be.at.least(after.length - 3);
    const entries = log.entries();
    expect(entries.map((e) => e.msg)).to.deep.equal(["shutting down", "stopped"]);
    expect(entries[0]).to.include({ signal: "SIGTERM", delayMs: 300 });
    expect(entries[1]?.["answered"]).to.be.at.least(after.length);
  });

  it("exits after forceAfterMs when a request is still in progress", async () => {
    await start(() => undefined); // never answers
    const { stop, log, exited, exitsBefore } = stopping(0, 200, 200);
    const hanging = post().catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    stop("SIGINT");
    expect(await exitsBefore, "exits before forceAfterMs").to.equal(0);
    await exited;
    const last = log.entries().at(-1);
    expect(last).to.include({ msg: "stopping with requests in progress", inProgress: 1 });
    server.closeAllConnections();
    await hanging;
  });

  it("after the delay, a client sending its headers or its body too slowly is still cut (408), and the stop does not wait for it", async () => {
    // Limits short enough for the test, checked often; the hook's are in src/server/timeouts.ts.
    await start(
      (req, res) => {
        req.resume();
        req.on("end", () => res.end("{}"));
      },
      { headersTimeout: 100, requestTimeout: 200, connectionsCheckingInterval: 20 },
    );
    const log = lines();
    let exited!: () => void;
    const exit = new Promise<void>((r) => (exited = r));
    const stop = gracefulShutdown([server], [], {
      delayMs: 0,
      // Well past the limits: the stop ends by "stopped", or by this (the bug).
      forceAfterMs: 1_000,
      logger: log.logger,
      exit: () => exited(),
    });
    /** A raw client that sends `text` and no more; resolves with all it was sent back once cut. */
    const stalled = async (text: string) => {
      const socket = net.connect(port, "127.0.0.1");
      await new Promise((r) => socket.once("connect", r));
      socket.write(text);
      const received: Buffer[] = [];
      socket.on("data", (d: Buffer) => received.push(d));
      const closed = new Promise<string>((r) =>
        socket.once("close", () => r(Buffer.concat(received).toString())),
      );
      return { closed };
    };
    const headers = await stalled("POST /sync HTTP/1.1\r\nHost: hook\r\n");
    const body = await stalled("POST /sync HTTP/1.1\r\nHost: hook\r\nContent-Length: 100\r\n\r\n{");
    await until(() => connections === 2);
    stop("SIGINT", 0);
    await exit;
    expect(log.entries().map((e) => e.msg)).to.deep.equal(["shutting down", "stopped"]);
    const [headersSaw, bodySaw] = await Promise.all([headers.closed, body.closed]);
    expect(headersSaw).to.match(/^HTTP\/1\.1 408 /);
    expect(bodySaw).to.match(/^HTTP\/1\.1 408 /);
  });

  it("a second signal changes nothing", async () => {
    await start((_req, res) => res.end("{}"));
    const { stop, log, exited, exitsBefore, exits } = stopping(50, 1_000, 200);
    stop("SIGTERM");
    stop("SIGINT", 0);
    await Promise.all([exited, exitsBefore]);
    expect(exits()).to.equal(1);
    expect(log.entries().map((e) => e.msg)).to.deep.equal(["shutting down", "stopped"]);
  });
});
