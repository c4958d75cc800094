// The hook as it starts (src/server/main.ts, default settings) cuts a client
// that stalls in its headers (10 s) and one that stalls in its body (30 s),
// as README "Operations" says: each gets Node's 408 and the server closes the
// connection, on raw sockets. How soon after its limit each is cut (Node
// checks only every 30 s by default; they were cut at ~19.5 s and ~58 s) is
// measured by npm run bench -- 11, not asserted here.
import { expect } from "chai";
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { freePort, waitForPort } from "../net.js";
import { CUT_BY_TIMEOUT, stallBoth } from "../support/stall.js";

const main = join(import.meta.dirname, "..", "..", "src", "server", "main.ts");

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

  it("cuts a client stalled in its headers and one stalled in its body, each with Node's 408", async () => {
    expect(await stallBoth(port)).to.deep.equal([CUT_BY_TIMEOUT, CUT_BY_TIMEOUT]);
  });
});
