// A pure function of one text, its answers kept by that text: least recently
// used first out, at most a number of entries weighing at most a number of
// bytes together. The answers are shared by every caller, so each is frozen
// (deepFreeze) before it is kept; what an answer weighs is the caller's to say.
import { deepFreeze } from "./json.js";

export interface TextMemoOptions<R> {
  entries: number;
  bytes: number;
  /** What keeping `answer` for `key` holds, in bytes; an answer over a quarter of `bytes` is not kept. */
  weigh: (key: string, answer: R) => number;
}

export interface TextMemo<R> {
  (key: string): R;
  /** What it holds now (for tests). */
  held(): { entries: number; bytes: number };
}

export function textMemo<R>(compute: (key: string) => R, options: TextMemoOptions<R>): TextMemo<R> {
  const answers = new Map<string, { answer: R; bytes: number }>();
  let heldBytes = 0;
  const memo = (key: string): R => {
    const hit = answers.get(key);
    if (hit !== undefined) {
      answers.delete(key);
      answers.set(key, hit);
      return hit.answer;
    }
    const answer = deepFreeze(compute(key));
    const bytes = options.weigh(key, answer);
    if (bytes > options.bytes / 4) return answer;
    answers.set(key, { answer, bytes });
    heldBytes += bytes;
    for (const [oldest, entry] of answers) {
      if (heldBytes <= options.bytes && answers.size <= options.entries) break;
      answers.delete(oldest);
      heldBytes -= entry.bytes;
    }
    return answer;
  };
  memo.held = () => ({ entries: answers.size, bytes: heldBytes });
  return memo;
}
