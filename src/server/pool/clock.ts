// The pool's one wall clock, passed in so that its rules can be tested with a
// clock that moves only when a test moves it. Milliseconds that never go back
// (performance.now(), not Date.now(), which a clock change can move).

export interface Clock {
  /** Now, ms. */
  now(): number;
  /**
   * Calls `fn` once, `ms` from now; `idle`: this timer alone does not keep
   * the process alive. Returns what cancels it.
   */
  after(ms: number, fn: () => void, idle?: boolean): () => void;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  after(ms, fn, idle = false) {
    // A time already past is due now (Node.js warns of a negative delay, and takes it as 1 ms).
    const timer = setTimeout(fn, Math.max(0, ms));
    if (idle) timer.unref();
    return () => clearTimeout(timer);
  },
};
