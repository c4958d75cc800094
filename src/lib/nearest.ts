// The name a user most likely meant when they wrote one that does not exist
// (`endpiont`, `provders`, `sentence-transformer`), for a "did you mean …?"
// in a message: the candidate at the smallest edit distance, offered only
// when it is close to the word and clearly nearer than every other one.

/** Names are compared without case and without - and _: vector_io, vectorIo and Vector-IO are one. */
function normalize(name: string): string {
  return name.toLowerCase().replace(/[-_]/g, "");
}

/** Longer words are no name of ours (ours are at most 128 characters); they get no suggestion. */
const MAX_LENGTH = 128;

/** How many edits a word of `length` characters may be from the name it meant. */
function allowedEdits(length: number): number {
  return Math.min(3, Math.max(1, Math.floor(length / 3)));
}

/**
 * The edit distance between `a` and `b` (insertions, deletions, substitutions
 * and swaps of two adjacent characters, each one edit), or `limit + 1` as soon
 * as it is known to exceed `limit`.
 */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, (before[j - 2] ?? 0) + 1);
      current.push(d);
      rowMin = Math.min(rowMin, d);
    }
    if (rowMin > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return Math.min(previous[b.length] ?? 0, limit + 1);
}

/**
 * The candidate `word` most likely meant: within a few edits of it (one for a
 * word of up to five characters, two up to eight, three beyond), ignoring case,
 * - and _, and strictly nearer than any other candidate. Undefined when none
 * is close, when two are equally near, or when `word` is itself a candidate.
 */
export function nearestName(word: string, candidates: Iterable<string>): string | undefined {
  const w = normalize(word);
  if (w.length === 0 || w.length > MAX_LENGTH) return undefined;
  const limit = allowedEdits(w.length);
  let best: { name: string; distance: number } | undefined;
  let tied = false;
  for (const name of new Set(candidates)) {
    if (name === word) return undefined;
    const c = normalize(name);
    if (c.length === 0 || c.length > MAX_LENGTH) continue;
    const distance = editDistance(w, c, limit);
    // A word of one or two characters is too short to tell a slip from another name.
    if (distance > limit || (distance > 0 && w.length < 3)) continue;
    if (best === undefined || distance < best.distance) {
      best = { name, distance };
      tied = false;
    } else if (distance === best.distance) tied = true;
  }
  return tied ? undefined : best?.name;
}
