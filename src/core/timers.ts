/**
 * Timers of background work on the wall clock (live polls, re-runs at a window's reset): the
 * process's own by default; a test that moves the wall clock (assembleGateway's `wallClock`)
 * passes timers on the same clock, so minutes of polling pass in moments.
 */
export interface Timers {
  /** Calls `fn` after `ms` (never keeping the process alive); returns what cancels it. */
  schedule(ms: number, fn: () => unknown): () => void;
}

export const realTimers: Timers = {
  schedule(ms, fn) {
    const timer = setTimeout(() => void fn(), ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};
