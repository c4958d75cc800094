// test/net.ts: ports for the servers the tests spawn come from below the
// kernel's ephemeral range, so no outgoing connection can take one between
// the probe and the server's bind.
import { expect } from "chai";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ephemeralLow, freePort } from "../../net.js";

describe("freePort", () => {
  const dir = mkdtempSync(join(tmpdir(), "llsd-net-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const [text, low] of [
    ["32768\t60999\n", 32768],
    ["49152 65535", 49152],
    ["", 32768],
    ["nonsense", 32768],
  ] as const) {
    it(`reads the range's low end from ${JSON.stringify(text)} as ${low}`, () => {
      const file = join(dir, "range");
      writeFileSync(file, text);
      expect(ephemeralLow(file)).to.equal(low);
    });
  }

  it("falls back to 32768 when the range cannot be read", () => {
    expect(ephemeralLow(join(dir, "absent"))).to.equal(32768);
  });

  it("hands out distinct ports below the ephemeral range that a server can bind", async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    expect(new Set(ports).size).to.equal(20);
    for (const port of ports) {
      expect(port).to.be.within(10_000, ephemeralLow() - 1);
    }
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(ports[0], "127.0.0.1", resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  });
});
