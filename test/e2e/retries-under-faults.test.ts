/**
 * Faults upstream absorbed by retries: whole answers while 30% of upstream GETs fail, and the
 * process-wide retry budget capping the extra load when faults are beyond that. These assert
 * answers and call counts, not latency, so they run with the other files (resilience.test.ts and
 * stay-up-upstream.test.ts, which assert deadlines and latency, run alone).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { inPool } from '../support/load.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const NESTED = `{ tenant(id: "client_1") { resources(first: 5) { nodes { id hostName applications { name } availability(from: "2026-10-31T00:00:00Z", to: "2026-11-01T00:00:00Z") { downtimeSeconds } } } } }`;
const WINDOW = 'from: "2026-10-31T00:00:00Z", to: "2026-11-01T00:00:00Z"';
/** A page of 20 with applications and availability: 1 search + 20 + 20 = 41 upstream calls. */
const PAGE_20 = `{ tenant(id: "client_1") { resources(first: 20) { nodes { id hostName applications { name } availability(${WINDOW}) { downtimeSeconds } } } } }`;
/** The same with 5 resources: 11 calls. */
const PAGE_5 = PAGE_20.replace('first: 20', 'first: 5');
/** Distinct callers, as distinct clients would be (the upstream auth mode is none: not forwarded). */
const caller = (i: number) => ({ authorization: `Bearer stay-up-client-${i}` });

describe('retries', () => {
  it('answers 200 nested queries completely while 30% of upstream GETs fail with 503s and dropped connections', async () => {
    // Every operation here must reach the upstream: the response cache (on by default) would answer the repeats itself.
    h = await startHarness({ env: { UPSTREAM_RETRIES: '10', CACHE: 'false' } });
    const expected = await h.query(NESTED);
    expect(expected.errors).toBeUndefined();
    h.simulator.configure({ failureRate: 0.3, failureKinds: ['503', 'drop'] });
    h.resetCounts();
    let retries = 0;
    // Ten clients, each sending its next query when its last is answered (not batches of ten,
    // where every batch waits for its slowest retry chain).
    const results = await inPool(200, 10, () => h!.query(NESTED, undefined, { 'x-upstream-stats': '1' }));
    expect(results.filter(Boolean)).toHaveLength(200);
    for (const res of results) {
      expect(res.errors).toBeUndefined();
      expect(res.data).toEqual(expected.data);
      retries += (res.extensions?.upstream as { retries: number }).retries;
    }
    const stats = h.simulator.stats();
    expect(stats.faults['503']).toBeGreaterThan(0);
    expect(stats.faults.drop).toBeGreaterThan(0);
    // Every injected fault was retried, and the stats say so.
    expect(retries).toBe(stats.faults['503'] + stats.faults.drop);
    expect(stats.totalCalls).toBe(200 * 11 + retries);
    // 2,200 calls and their retries' backoff: 30 s on a quiet machine, over 60 s on one core
    // beside busy loops. It asserts answers and counts, not time: the timeout only catches a hang.
  }, 180_000);
});

describe('retries under a budget', () => {
  it('answers 200 nested 20-resource pages completely at default settings while 30% of upstream GETs fail, with at most 1.5x the fault-free calls', async () => {
    h = await startHarness();
    const expected = await h.query(PAGE_20);
    expect(expected.errors).toBeUndefined();
    const faultFreeCalls = h.simulator.stats().totalCalls;
    expect(faultFreeCalls).toBe(41);

    h.simulator.configure({ failureRate: 0.3, failureKinds: ['503', 'drop'] });
    h.resetCounts();
    const results = await inPool(200, 10, (i) => h!.query(PAGE_20, undefined, { 'x-upstream-stats': '1', ...caller(i % 10) }));
    const stats = h.simulator.stats();
    const incomplete = results.filter((res) => res.errors !== undefined || JSON.stringify(res.data) !== JSON.stringify(expected.data));
    expect(incomplete.map((res) => res.errors?.[0])).toEqual([]);
    expect(stats.faults['503']).toBeGreaterThan(0);
    expect(stats.faults.drop).toBeGreaterThan(0);
    const ratio = stats.totalCalls / (200 * faultFreeCalls);
    console.info(`30% faults: ${stats.totalCalls} upstream calls for 200 pages = ${ratio.toFixed(3)}x the fault-free ${200 * faultFreeCalls}; faults ${JSON.stringify(stats.faults)}`);
    expect(ratio).toBeLessThanOrEqual(1.5);
    // The retries the gateway reports are exactly the injected faults.
    const retries = results.reduce((sum, res) => sum + (res.extensions?.upstream as { retries: number }).retries, 0);
    expect(retries).toBe(stats.faults['503'] + stats.faults.drop);
    expect(h.client.breakerState).toBe('closed');
  }, 60_000);

  it('caps the extra load at the retry budget when faults are beyond what retries should absorb', async () => {
    // About the budget alone: the breaker is off so that the 60% fault rate cannot trip it.
    // Every operation here must reach the upstream: the response cache (on by default) would answer the repeats itself.
    h = await startHarness({ env: { UPSTREAM_BREAKER_FAILURES: '0', LOG_LEVEL: 'info', CACHE: 'false' } });
    h.simulator.configure({ failureRate: 0.6, failureKinds: ['503', 'drop'] });
    h.resetCounts();
    const started = performance.now();
    const results = await inPool(100, 10, (i) => h!.query(PAGE_5, undefined, { 'x-upstream-stats': '1', ...caller(i % 10) }));
    const seconds = (performance.now() - started) / 1000;
    const total = h.simulator.stats().totalCalls;
    const retries = results.reduce((sum, res) => sum + (res.extensions?.upstream as { retries: number }).retries, 0);
    const first = total - retries;
    console.info(`60% faults: ${first} first attempts, ${retries} retries (${(retries / first).toFixed(2)} per first attempt) in ${seconds.toFixed(1)} s`);
    // Unbounded retries would add p/(1-p) = 1.5 retries per first attempt; the budget allows
    // 50% of the first attempts plus 10 per second (counted over a 10 s window).
    expect(retries).toBeLessThanOrEqual(0.5 * first + 10 * Math.max(10, seconds + 10));
    expect(retries / first).toBeLessThan(1);
    // What could not be retried still answers, field by field.
    expect(results.every((res) => res.data?.tenant !== undefined)).toBe(true);
  }, 60_000);
});
