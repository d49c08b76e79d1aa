/**
 * The operation deadline at the defaults (30 s, attempts of 10 s, 10 retries): an upstream that
 * never answers gets UPSTREAM_TIMEOUT by the deadline, and nothing is sent after it. Real time
 * (undici's timeouts run on it); resilience.test.ts shows the same at a tenth of the time.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterAll(async () => {
  await h?.close();
});

it('answers UPSTREAM_TIMEOUT at the default 30 s deadline when the upstream never answers, with no attempt started after it', async () => {
  h = await startHarness();
  expect([h.config.operationTimeoutMs, h.config.upstreamTimeoutMs, h.config.upstreamRetries]).toEqual([30_000, 10_000, 10]);
  h.simulator.configure({ hang: true });
  const startedAt = performance.timeOrigin + performance.now();
  const started = performance.now();
  const res = await h.query('{ tenant(id: "client_1") { resourceTypes { name } } }');
  const elapsed = performance.now() - started;
  expect(res.errors?.[0]?.extensions?.code).toBe('UPSTREAM_TIMEOUT');
  // By the deadline, plus what a loaded machine adds to any answer (without it: ten retries of 10 s attempts).
  expect(elapsed).toBeGreaterThanOrEqual(29_900);
  expect(elapsed).toBeLessThanOrEqual(30_000 + 1_500);
  await sleep(300);
  const starts = h.simulator.stats().requests.map((r) => r.at - startedAt);
  // The attempts at about 0, 10 and 20 s; none once the deadline has passed.
  expect(starts.length).toBeGreaterThanOrEqual(2);
  expect(Math.max(...starts)).toBeLessThan(30_000);
}, 60_000);
