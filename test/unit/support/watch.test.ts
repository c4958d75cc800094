// test/support/watch.ts: a watch's events, however its lines are cut into chunks.
import { expect } from "chai";
import { PassThrough } from "node:stream";
import { readWatch, type WatchEvent } from "../../support/watch.js";

const event = (type: string, name: string) => JSON.stringify({ type, object: { name } });

describe("readWatch", () => {
  it("gives each event once its line is whole, skips blank lines, and stops when told", async () => {
    const stream = new PassThrough();
    const seen: WatchEvent<{ name: string }>[] = [];
    readWatch<{ name: string }>(stream, (e) => {
      seen.push(e);
      return e.type === "DELETED";
    });
    const text = `${event("ADDED", "a")}\n\n  \n${event("MODIFIED", "a")}\r\n${event("DELETED", "a")}\n${event("ADDED", "b")}\n`;
    // Written 7 characters at a time, so that lines arrive in pieces.
    for (let i = 0; i < text.length; i += 7) stream.write(text.slice(i, i + 7));
    stream.end();
    await new Promise((resolve) => stream.on("end", resolve).resume());
    expect(seen.map((e) => `${e.type} ${e.object.name}`)).to.deep.equal([
      "ADDED a",
      "MODIFIED a",
      "DELETED a",
    ]);
  });
});
