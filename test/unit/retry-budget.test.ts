import { describe, expect, it } from 'vitest';
import { RetryBudget } from '../../src/upstream/retry-budget.js';

function clock(start = 0) {
  let t = start;
  return { now: () => t, advance: (ms: number) => { t += ms; } };
}

describe('RetryBudget', () => {
  it('allows retries up to the percentage of first attempts plus the minimum reserve', () => {
    const c = clock();
    const budget = new RetryBudget({ percent: 50, minPerSecond: 1, windowMs: 10_000, now: c.now });
    for (let i = 0; i < 100; i++) budget.recordRequest();
    // 50% of 100 first attempts + 1/s over a 10 s window = 60 retries.
    let granted = 0;
    while (budget.tryRetry()) granted++;
    expect(granted).toBe(60);
    expect(budget.refused).toBe(1);
    expect(budget.snapshot()).toEqual({ requests: 100, retries: 60, available: 0 });
  });

  it('refuses retries with no traffic beyond the minimum, and forgets what fell out of the window', () => {
    const c = clock(1_000_000);
    const budget = new RetryBudget({ percent: 20, minPerSecond: 0, windowMs: 1_000, now: c.now });
    expect(budget.tryRetry()).toBe(false);
    for (let i = 0; i < 10; i++) budget.recordRequest();
    expect(budget.tryRetry()).toBe(true);
    expect(budget.tryRetry()).toBe(true);
    expect(budget.tryRetry()).toBe(false);
    // Half the window later the same first attempts still count, and so do the retries.
    c.advance(500);
    expect(budget.tryRetry()).toBe(false);
    // A full window later both are gone.
    c.advance(600);
    expect(budget.snapshot()).toEqual({ requests: 0, retries: 0, available: 0 });
    for (let i = 0; i < 10; i++) budget.recordRequest();
    expect(budget.tryRetry()).toBe(true);
  });

  it('absorbs 30% random faults at the defaults (50%, 10/s) and caps a total outage at 1.5x the traffic', () => {
    const c = clock();
    const run = (faultRate: number, calls: number) => {
      const budget = new RetryBudget({ percent: 50, minPerSecond: 10, now: c.now });
      let random = 42;
      const rand = () => ((random = (random * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
      let sent = 0;
      let failedForGood = 0;
      for (let i = 0; i < calls; i++) {
        c.advance(2); // 500 calls/s
        budget.recordRequest();
        sent++;
        let retries = 0;
        while (rand() < faultRate) {
          if (retries >= 10 || !budget.tryRetry()) { failedForGood++; break; }
          retries++;
          sent++;
        }
      }
      return { sent, failedForGood };
    };
    const faults = run(0.3, 8_200);
    expect(faults.failedForGood).toBe(0);
    expect(faults.sent / 8_200).toBeLessThan(1.5);
    const outage = run(1, 8_200);
    // 8,200 first attempts over 16.4 s: at most 50% more, plus 10/s within each 10 s window.
    expect(outage.sent / 8_200).toBeLessThan(1.5 + 0.03);
    expect(outage.failedForGood).toBe(8_200);
  });
});
