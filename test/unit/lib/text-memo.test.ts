// textMemo: a pure function of a text, its answers kept by that text, least
// recently used first out, within a count and a weight, each answer frozen.
import { expect } from "chai";
import { textMemo } from "../../../src/lib/text-memo.js";

/** A memo of `{ text }` that counts its computations, each answer weighing its text's length. */
function counting(entries: number, bytes: number) {
  let computed = 0;
  const memo = textMemo(
    (text) => {
      computed++;
      return { text, parts: [text.length] };
    },
    { entries, bytes, weigh: (text) => text.length },
  );
  return { memo, computed: () => computed };
}

describe("textMemo", () => {
  it("answers a text it kept with the same frozen answer, without computing it again", () => {
    const { memo, computed } = counting(4, 100);
    const first = memo("abc");
    expect(memo("abc")).to.equal(first);
    expect(computed()).to.equal(1);
    expect(Object.isFrozen(first)).to.equal(true);
    expect(Object.isFrozen(first.parts)).to.equal(true);
    expect(memo.held()).to.deep.equal({ entries: 1, bytes: 3 });
  });

  it("drops the least recently used past its count of entries", () => {
    const { memo, computed } = counting(2, 100);
    memo("a");
    memo("b");
    memo("a"); // a is now the most recent
    memo("c"); // b goes
    expect(memo.held().entries).to.equal(2);
    memo("a");
    expect(computed()).to.equal(3);
    memo("b");
    expect(computed()).to.equal(4);
  });

  it("drops the least recently used past its bytes", () => {
    const { memo } = counting(10, 20);
    for (const text of ["aaaaa", "bbbbb", "ccccc", "ddddd", "eeeee"]) memo(text); // 25 bytes
    expect(memo.held()).to.deep.equal({ entries: 4, bytes: 20 });
  });

  it("does not keep an answer over a quarter of its bytes, and still answers it, frozen", () => {
    const { memo, computed } = counting(10, 20);
    const answer = memo("123456"); // 6 bytes > 20 / 4
    expect(answer.text).to.equal("123456");
    expect(Object.isFrozen(answer)).to.equal(true);
    memo("123456");
    expect(computed()).to.equal(2);
    expect(memo.held()).to.deep.equal({ entries: 0, bytes: 0 });
  });
});
