// A clock for the pool's tests that moves only when a test moves it: the
// rules' waits are then exact, and no assertion depends on how long anything
// took (src/server/pool/clock.ts).
import type { Clock } from "../../../../src/server/pool/clock.js";

export interface FakeClock extends Clock {
  /** Moves the clock `ms` on, calling each timer due by then in the order they are due. */
  advance(ms: number): void;
  /** Timers not called yet. */
  pending(): number;
}

export function fakeClock(start = 0): FakeClock {
  let now = start;
  let nextId = 0;
  const timers = new Map<number, { due: number; fn: () => void }>();
  const due = (until: number) =>
    [...timers].filter(([, t]) => t.due <= until).sort(([a, x], [b, y]) => x.due - y.due || a - b);
  return {
    now: () => now,
    after(ms, fn) {
      const id = nextId++;
      timers.set(id, { due: now + ms, fn });
      return () => timers.delete(id);
    },
    advance(ms) {
      const until = now + ms;
      // A timer a callback sets that is due by `until` is called too.
      for (let next = due(until)[0]; next !== undefined; next = due(until)[0]) {
        const [id, timer] = next;
        timers.delete(id);
        now = Math.max(now, timer.due);
        timer.fn();
      }
      now = until;
    },
    pending: () => timers.size,
  };
}
