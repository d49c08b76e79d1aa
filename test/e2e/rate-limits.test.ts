/**
 * Issue 28: the gateway against an upstream that throttles as the real platform documents (the
 * simulator's defaults: per tenant and minute, 50 paginated GETs, 500 other GETs, 25 updates),
 * at the gateway's defaults. Distinct dashboard pages (the cache cannot answer them) spend the
 * tenant's budget; what the budget cannot cover is answered whole from the cache or refused
 * whole, and the upstream never answers 429.
 */
import { createClient } from 'graphql-sse';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { testClock } from '../support/test-clock.js';
import { DASHBOARD } from '../support/dashboard-query.js';


const TYPES = `query Types($tenant: ID!) { tenant(id: $tenant) { resourceTypes { name } } }`;

/** 10:00:05 UTC: the clock the simulator and the gateway share; windows reset when it moves, not when the test sleeps. */
const START_MS = Date.UTC(2026, 10, 26, 10, 0, 5);

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A stack at the simulator's documented limits (`rateLimit: {}` keeps them) and the gateway's defaults. */
async function documentedStack(clock = testClock(START_MS)) {
  h = await startHarness({ simulator: { rateLimit: {} }, clock: clock.now });
  return { h, clock };
}

async function post(h: Harness, query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await h.fetch(h.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as { data?: any; errors?: any[]; extensions?: any } };
}

const window24h = (clock: { now(): number }, daysBack = 0) => ({
  from: new Date(clock.now() - (daysBack + 1) * 86_400_000).toISOString(),
  to: new Date(clock.now() - daysBack * 86_400_000).toISOString(),
});

describe('rate limits of the upstream (documented limits, gateway defaults)', () => {
  it('answers dashboard pages whole while the budget covers them, then refuses one whole, never half, with no upstream call and no 429', async () => {
    const { h, clock } = await documentedStack();
    const pages: Awaited<ReturnType<typeof post>>[] = [];
    let after: string | null = null;
    for (let page = 0; page < 3; page++) {
      const answer = await post(h, DASHBOARD, { tenant: 'client_1', after, ...window24h(clock) });
      pages.push(answer);
      after = answer.body.data?.tenant?.resources?.pageInfo?.endCursor ?? after;
    }
    // Pages 1 and 2: 1 search + 100 applications + 100 availability each, all answered.
    for (const page of pages.slice(0, 2)) {
      expect(page.body.errors).toBeUndefined();
      expect(page.body.data.tenant.resources.nodes).toHaveLength(100);
      for (const node of page.body.data.tenant.resources.nodes) expect(node.availability).not.toBeNull();
    }
    const spent = h.simulator.stats();
    expect(spent.byTenant.client_1?.other.calls).toBe(400);
    // Page 3 would need 200 other calls; 100 are left: one error, not 100 field errors, and HTTP 429.
    const third = pages[2]!;
    expect(third.status).toBe(429);
    expect(third.body.data ?? null).toBeNull();
    expect(third.body.errors).toHaveLength(1);
    expect(third.body.errors![0].extensions.code).toBe('RATE_LIMITED');
    const reset = h.simulator.rateLimitState('client_1').other.reset;
    const expected = reset - clock.now() / 1000;
    expect(Math.abs(third.body.errors![0].extensions.retryAfter - expected)).toBeLessThanOrEqual(1);
    expect(Number(third.retryAfter)).toBe(third.body.errors![0].extensions.retryAfter);
    // Nothing was sent for it, and the upstream never refused a call.
    expect(h.simulator.stats().totalCalls).toBe(spent.totalCalls);
    expect(h.simulator.stats().throttled).toBe(0);
    // The tenant still reads what its budget covers, and another tenant is untouched.
    const types = await post(h, TYPES, { tenant: 'client_1' });
    expect(types.body.errors).toBeUndefined();
    expect(types.body.data.tenant.resourceTypes.length).toBeGreaterThan(0);
    const other = await post(h, DASHBOARD, { tenant: 'client_2', after: null, ...window24h(clock) });
    expect(other.body.errors).toBeUndefined();
    expect(other.body.data.tenant.resources.nodes.length).toBeGreaterThan(0);
    // Once the window resets, the page is answered.
    clock.advance(expected * 1000 + 1);
    const later = await post(h, DASHBOARD, { tenant: 'client_1', after: pages[1]!.body.data.tenant.resources.pageInfo.endCursor, ...window24h(clock) });
    expect(later.body.errors).toBeUndefined();
    expect(later.body.data.tenant.resources.nodes).toHaveLength(100);
    expect(h.simulator.stats().throttled).toBe(0);
  });

  it('answers from the cache when the budget is spent and every read is cached, flagged rate-limited with the reset', async () => {
    const { h, clock } = await documentedStack();
    const first = window24h(clock);
    const page = await post(h, DASHBOARD, { tenant: 'client_1', after: null, ...first });
    expect(page.body.errors).toBeUndefined();
    // Pages of other availability windows (applications are cached now: 100 calls each) spend the rest.
    let denied: Awaited<ReturnType<typeof post>> | null = null;
    for (let day = 1; day <= 6 && !denied; day++) {
      const answer = await post(h, DASHBOARD, { tenant: 'client_1', after: null, ...window24h(clock, day) });
      if (answer.body.errors) denied = answer;
    }
    expect(denied?.body.errors?.[0]?.extensions.code).toBe('RATE_LIMITED');
    // Past the search's TTL and stale-while-revalidate (5 s + 10 s), within stale-if-error: the
    // first page again is answered from the cache, its search flagged as served for the rate limit.
    clock.advance(20_000);
    const calls = h.simulator.stats().totalCalls;
    const again = await post(h, DASHBOARD, { tenant: 'client_1', after: null, ...first });
    expect(again.body.errors).toBeUndefined();
    expect(again.body.data).toEqual(page.body.data);
    expect(h.simulator.stats().totalCalls).toBe(calls);
    const stale = again.body.extensions.stale;
    expect(stale.reason).toBe('rate-limited');
    expect(stale.reads.map((r: { data: string }) => r.data)).toEqual(['resource search']);
    expect(Date.parse(stale.resetAt) / 1000).toBe(h.simulator.rateLimitState('client_1').other.reset);
    expect(h.simulator.stats().throttled).toBe(0);
  });

  it('sends nothing of a category a plain REST client spent, until the reset', async () => {
    const { h, clock } = await documentedStack();
    // Another client of the tenant (a script) spends all 50 searches of this minute.
    for (let i = 1; i <= 50; i++) {
      const response = await fetch(`${h.simulator.url}/api/v2/tenants/client_1/resources/search?pageNo=${i}&pageSize=1`);
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    h.simulator.resetStats();
    // The gateway learns the search budget from the first answer it gets; a detail read tells nothing of it.
    const first = await post(h, `{ tenant(id: "client_1") { resources(first: 3) { nodes { id } } } }`, {});
    expect(first.body.errors?.[0]?.extensions.code).toBe('RATE_LIMITED');
    for (let i = 0; i < 5; i++) {
      const answer = await post(h, `query P($n: Int!) { tenant(id: "client_1") { resources(first: $n) { nodes { id } } } }`, { n: 4 + i });
      expect(answer.body.errors).toHaveLength(1);
      expect(answer.body.errors![0].extensions.code).toBe('RATE_LIMITED');
    }
    const stats = h.simulator.stats();
    // The one search that found the window closed (its 429 told the gateway), then none.
    expect(stats.byTenant.client_1?.paginated.calls ?? 0).toBe(0);
    expect(stats.throttled).toBe(1);
    const reset = h.simulator.rateLimitState('client_1').paginated.reset;
    clock.advance(reset * 1000 - clock.now() + 1);
    const after = await post(h, `{ tenant(id: "client_1") { resources(first: 3) { nodes { id } } } }`, {});
    expect(after.body.errors).toBeUndefined();
    expect(after.body.data.tenant.resources.nodes).toHaveLength(3);
  });

  it('judges a batched request as a whole: over MAX_UPSTREAM_CALLS together, or over what the window has left together', async () => {
    const { h, clock } = await documentedStack();
    const batch = async (windows: { from: string; to: string }[]) => {
      const response = await h.fetch(h.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
        body: JSON.stringify(windows.map((w) => ({ query: DASHBOARD, variables: { tenant: 'client_1', after: null, ...w } }))),
      });
      return (await response.json()) as { data?: any; errors?: any[] }[];
    };
    // Three pages of 201 calls each: each under the default limit (575, the tenant's calls a window), not together.
    const over = await batch([window24h(clock, 1), window24h(clock, 2), window24h(clock, 3)]);
    expect(over.map((a) => a.errors?.[0]?.extensions)).toEqual(Array(3).fill(expect.objectContaining({ code: 'OPERATION_TOO_EXPENSIVE', limitKind: 'upstreamCalls', estimate: 603, limit: 575 })));
    expect(h.simulator.stats().totalCalls).toBe(0);
    // One page spends 200 other calls; of the 300 left, two more pages (200 each) fit one by one but not together.
    expect((await post(h, DASHBOARD, { tenant: 'client_1', after: null, ...window24h(clock) })).body.errors).toBeUndefined();
    const calls = h.simulator.stats().totalCalls;
    const together = await batch([window24h(clock, 1), window24h(clock, 2)]);
    expect(together.map((a) => a.errors?.map((e: { extensions: { code: string } }) => e.extensions.code))).toEqual([['RATE_LIMITED'], ['RATE_LIMITED']]);
    expect(h.simulator.stats().totalCalls).toBe(calls);
    const alone = await post(h, DASHBOARD, { tenant: 'client_1', after: null, ...window24h(clock, 1) });
    expect(alone.body.errors).toBeUndefined();
    expect(h.simulator.stats().throttled).toBe(0);
  });

  it('refuses an operation that one window can never cover, naming the category and its limit, before any call', async () => {
    const { h, clock } = await documentedStack();
    // 260 hosts with applications and availability: 520 other calls (the total, 521, is under MAX_UPSTREAM_CALLS).
    const big = await post(h, DASHBOARD.replace('first: 100', 'first: 260'), { tenant: 'client_1', after: null, ...window24h(clock) });
    expect(big.body.errors).toHaveLength(1);
    expect(big.body.errors![0].extensions).toMatchObject({ code: 'OPERATION_TOO_EXPENSIVE', limitKind: 'upstreamCalls', category: 'other', estimate: 520, limit: 500 });
    expect(h.simulator.stats().totalCalls).toBe(0);
  });

  it('keeps a live query the window cannot cover open, says until when it waits, and answers it at the reset (issue 39, item 5)', async () => {
    const clock = testClock(START_MS);
    h = await startHarness({ simulator: { rateLimit: {} }, clock: clock.now, timers: clock.timers });
    // Another client of the tenant spends its 50 searches of the minute.
    for (let i = 1; i <= 50; i++) await (await fetch(`${h.simulator.url}/api/v2/tenants/client_1/resources/search?pageNo=${i}&pageSize=1`)).arrayBuffer();
    const sse = createClient({ url: h.url, singleConnection: false, retryAttempts: 0 });
    const payloads: { data?: any; errors?: unknown[]; extensions?: { live?: Record<string, unknown> } }[] = [];
    let ended = false;
    const stop = sse.subscribe({ query: `query Tile @live { tenant(id: "client_1") { id resources(first: 5) { nodes { id } } } }` }, {
      next: (payload) => void payloads.push(payload as never),
      error: () => { ended = true; },
      complete: () => { ended = true; },
    });
    try {
      await expect.poll(() => payloads.length, { timeout: 20_000 }).toBeGreaterThan(0);
      // Not an error: no data yet, and until when it waits (the window's reset).
      expect(payloads[0]!.errors).toBeUndefined();
      expect(payloads[0]!.data ?? null).toBeNull();
      const until = Date.parse(String(payloads[0]!.extensions?.live?.waitingUntil));
      const reset = h.simulator.rateLimitState('client_1').paginated.reset * 1000;
      expect(Math.abs(until - reset)).toBeLessThanOrEqual(1_000);
      expect(payloads[0]!.extensions?.live?.reason).toBe('RATE_LIMITED');
      // At the reset the tile runs again and opens, with its data.
      await clock.pass(until - clock.now() + 1_000);
      await expect.poll(() => payloads.length, { timeout: 20_000 }).toBeGreaterThan(1);
      expect(payloads[1]!.errors).toBeUndefined();
      expect(payloads[1]!.data.tenant.resources.nodes).toHaveLength(5);
      expect(ended).toBe(false);
    } finally {
      stop();
    }
  });
});
