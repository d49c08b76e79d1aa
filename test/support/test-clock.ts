/**
 * Epoch milliseconds that only move when told, with timers on them: the simulator's rate-limit
 * windows and the gateway's wall clock and background timers (live polls) share one, so minutes
 * of windows and polls pass in moments, and "polled within its period" is exact, not a bet on
 * how busy the machine is.
 */
import type { Timers } from '../../src/core/timers.js';

export interface TestClock {
  now(): number;
  /** Moves the clock; timers that come due wait for the next pass(). */
  advance(ms: number): void;
  /** The gateway's background timers on this clock (assembleGateway's `timers`). */
  timers: Timers;
  /**
   * Moves the clock by `ms`: each group of timers due at one moment fires with the clock at that
   * moment, and the clock moves on only once the work they started (a poll and its upstream call)
   * is done, so no poll is answered later, on the clock, than it was sent.
   */
  pass(ms: number): Promise<void>;
  /**
   * Fires the next group of timers due by `until` (epoch ms), as pass() does, and returns true;
   * false, with the clock at `until`, when none is due by then.
   */
  step(until: number): Promise<boolean>;
}

/** How long, in real time, the work of one moment's timers may take (a poll under a loaded machine). */
const SETTLE_MS = 20_000;

export function testClock(start: number): TestClock {
  let now = start;
  let queue: { at: number; fn: () => unknown }[] = [];
  return {
    now: () => now,
    advance(ms) {
      now += ms;
    },
    timers: {
      schedule(ms, fn) {
        const timer = { at: now + Math.max(0, ms), fn };
        queue.push(timer);
        return () => {
          queue = queue.filter((t) => t !== timer);
        };
      },
    },
    async step(until) {
      const at = Math.min(...queue.map((t) => t.at));
      if (!(at <= until)) {
        now = Math.max(now, until);
        return false;
      }
      now = Math.max(now, at);
      const due = queue.filter((t) => t.at === at);
      queue = queue.filter((t) => t.at !== at);
      let timeout: NodeJS.Timeout | undefined;
      const settled = Promise.allSettled(due.map(async (t) => t.fn()));
      const late = new Promise<never>((_, reject) => {
        timeout = setTimeout(() => reject(new Error(`timer work at +${at - start} ms not done within ${SETTLE_MS} ms`)), SETTLE_MS);
      });
      try {
        await Promise.race([settled, late]);
      } finally {
        clearTimeout(timeout);
      }
      return true;
    },
    async pass(ms) {
      const end = now + ms;
      while (await this.step(end));
    },
  };
}
