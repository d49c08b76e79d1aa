/** The live query settings (src/config.ts): defaults follow the cache TTLs, bad values stop start-up. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const base = { INVENTORY_API_URL: 'http://upstream.test', INVENTORY_AUTH_MODE: 'none' };

describe('live query settings', () => {
  it('polls each route at its cache TTL, at least 2 s, unless LIVE_POLL_INTERVAL_S says otherwise', () => {
    const defaults = loadConfig(base).live;
    expect(defaults.pollIntervalMs.search).toBe(5_000);
    expect(defaults.pollIntervalMs.detail).toBe(30_000);
    expect(loadConfig({ ...base, CACHE_TTL_SEARCH_S: '0' }).live.pollIntervalMs.search).toBe(2_000);
    expect(loadConfig({ ...base, CACHE_TTL_DETAIL_S: '12' }).live.pollIntervalMs.detail).toBe(12_000);
    // The cache off does not change the period: the TTL settings still say how fresh data should be.
    expect(loadConfig({ ...base, CACHE: 'false' }).live.pollIntervalMs.search).toBe(5_000);
    const fixed = loadConfig({ ...base, LIVE_POLL_INTERVAL_S: '7' }).live.pollIntervalMs;
    expect(new Set(Object.values(fixed))).toEqual(new Set([7_000]));
    expect(defaults.maxOperations).toBe(5_000);
    expect(defaults.maxOperationsPerCaller).toBe(500);
  });

  it.each([
    [{ LIVE_POLL_INTERVAL_S: 'soon' }, /LIVE_POLL_INTERVAL_S must be a whole number/],
    [{ LIVE_POLL_INTERVAL_S: '0' }, /LIVE_POLL_INTERVAL_S must be between 1/],
    [{ MAX_LIVE_OPERATIONS: '0' }, /MAX_LIVE_OPERATIONS must be between 1/],
    [{ MAX_LIVE_OPERATIONS: '10', MAX_LIVE_OPERATIONS_PER_CALLER: '20' }, /MAX_LIVE_OPERATIONS_PER_CALLER \(20\) must not exceed MAX_LIVE_OPERATIONS \(10\)/],
  ])('refuses %o with one message naming the setting', (env, message) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, ...env })).toThrow(message);
  });

  it('caps the per-caller default at the process bound', () => {
    expect(loadConfig({ ...base, MAX_LIVE_OPERATIONS: '100' }).live.maxOperationsPerCaller).toBe(100);
  });
});
