import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { checkMockUpstreams, mockUpstream } from '../support/upstream-client.js';

const DETAIL = '/base/api/v2/tenants/t/resources/r';

describe('the retry loop', () => {
  afterEach(checkMockUpstreams);

  it('retries a failing read until it succeeds', async () => {
    const up = mockUpstream();
    up.pool.intercept({ path: DETAIL }).reply(503, {}).times(2);
    up.pool.intercept({ path: DETAIL }).reply(200, { id: 'r' });
    const session = up.client.session({ authorization: null });
    await expect(session.detail('t', 'r')).resolves.toEqual({ id: 'r' });
    expect(session.stats.totalCalls).toBe(3);
    expect(session.stats.retries).toBe(2);
    session.close();
  });

  it('waits out a Retry-After below the cap', async () => {
    const up = mockUpstream();
    up.pool.intercept({ path: DETAIL }).reply(429, {}, { headers: { 'retry-after': '0.3' } });
    up.pool.intercept({ path: DETAIL }).reply(200, { id: 'r' });
    const session = up.client.session({ authorization: null });
    const started = performance.now();
    await expect(session.detail('t', 'r')).resolves.toEqual({ id: 'r' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(session.stats.retries).toBe(1);
    session.close();
  });

  it('gives up at once on a Retry-After over UPSTREAM_MAX_RETRY_AFTER_MS', async () => {
    const up = mockUpstream({ UPSTREAM_MAX_RETRY_AFTER_MS: '100' });
    up.pool.intercept({ path: DETAIL }).reply(429, {}, { headers: { 'retry-after': '5' } });
    const session = up.client.session({ authorization: null });
    const started = performance.now();
    await expect(session.detail('t', 'r')).rejects.toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    // Not after the Retry-After's 5 s: halfway tells the two apart on any machine (it was 1 s).
    expect(performance.now() - started).toBeLessThan(5_000 / 2);
    expect(session.stats.totalCalls).toBe(1);
    session.close();
  });

  it('stops retrying when the retry budget is spent', async () => {
    const up = mockUpstream({ UPSTREAM_RETRY_BUDGET_PERCENT: '0', UPSTREAM_RETRY_BUDGET_MIN_PER_SECOND: '0' });
    up.pool.intercept({ path: DETAIL }).reply(503, {});
    const session = up.client.session({ authorization: null });
    await expect(session.detail('t', 'r')).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status: 503 });
    expect(session.stats.totalCalls).toBe(1);
    expect(session.stats.retries).toBe(0);
    session.close();
  });

  it('does not retry an update the upstream may have received', async () => {
    const up = mockUpstream();
    up.pool.intercept({ path: DETAIL, method: 'POST' }).reply(503, {});
    const session = up.client.session({ authorization: null });
    await expect(session.update('t', 'r', { name: 'x' })).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status: 503 });
    expect(session.stats.totalCalls).toBe(1);
    session.close();
  });

  it('retries an update that provably never left (connection refused)', async () => {
    const up = mockUpstream();
    up.pool.intercept({ path: DETAIL, method: 'POST' }).replyWithError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    up.pool.intercept({ path: DETAIL, method: 'POST' }).reply(200, { ok: true });
    const session = up.client.session({ authorization: null });
    await expect(session.update('t', 'r', { name: 'x' })).resolves.toEqual({ ok: true });
    expect(session.stats.retries).toBe(1);
    session.close();
  });
});
