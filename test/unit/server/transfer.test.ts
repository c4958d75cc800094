import { expect } from "chai";
import { MessageChannel } from "node:worker_threads";
import { copyOf, moving, owned } from "../../../src/server/transfer.js";

/** Posts `bytes` through a real MessagePort with its transfer list; resolves with what arrived. */
function post(bytes: Uint8Array): Promise<Uint8Array> {
  const { port1, port2 } = new MessageChannel();
  return new Promise((resolve, reject) => {
    port2.once("message", (got: Uint8Array) => {
      port1.close();
      port2.close();
      resolve(got);
    });
    try {
      port1.postMessage(bytes, moving(bytes));
    } catch (error) {
      reject(error);
    }
  });
}

describe("moving bytes between threads", () => {
  const rows: { name: string; make: () => Uint8Array; same: boolean }[] = [
    {
      name: "a small Buffer (a view into Node's shared pool)",
      make: () => Buffer.from("small"),
      same: false,
    },
    {
      name: "Buffer.concat of small parts (pooled)",
      make: () => Buffer.concat([Buffer.from("a"), Buffer.from("b")]),
      same: false,
    },
    {
      name: "a view into part of a buffer",
      make: () => new Uint8Array(new ArrayBuffer(16), 4, 8),
      same: false,
    },
    {
      name: "a Uint8Array owning its buffer",
      make: () => new TextEncoder().encode("{}"),
      same: true,
    },
    {
      name: "a large Buffer (outside the pool)",
      make: () => Buffer.alloc(64 * 1024, 7),
      same: true,
    },
  ];
  for (const row of rows)
    it(`${row.name}: ${row.same ? "moved as is" : "copied"}, and arrives whole`, async () => {
      const bytes = row.make();
      const before = Buffer.from(bytes).toString("hex");
      const sent = owned(bytes);
      expect(sent === bytes).to.equal(row.same);
      const got = await post(sent);
      expect(Buffer.from(got).toString("hex")).to.equal(before);
      if (!row.same)
        expect(Buffer.from(bytes).toString("hex")).to.equal(before, "the original is untouched");
    });

  it("a pooled Buffer's neighbours in the pool keep their bytes after one of them is sent", async () => {
    const neighbour = Buffer.from("neighbour");
    const sent = Buffer.from("sent");
    await post(owned(sent));
    expect(neighbour.toString()).to.equal("neighbour");
  });

  it("copyOf copies where Buffer#slice would share", () => {
    const original = Buffer.from("abc");
    const copy = copyOf(original);
    copy[0] = 0x7a;
    expect(original.toString()).to.equal("abc");
    expect(original.slice()[0]).to.equal(original[0]);
  });
});
