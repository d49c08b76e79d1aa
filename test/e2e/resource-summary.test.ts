/**
 * Tenant.resourceSummary: counts for dashboard tiles. The truth is the simulator's own search,
 * paged through directly; the cost is the simulator's call count, which must equal the estimate.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient as createSseClient } from 'graphql-sse';
import { startHarness, upstreamCalls, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
// Every measurement starts cold: the simulator's counts at zero, the response cache empty.
beforeEach(() => h.resetCounts());

const SUMMARY = `query Summary($tenant: ID!, $filter: ResourceFilter) {
  tenant(id: $tenant) { resourceSummary(filter: $filter) {
    total byState { state count } byResourceType { resourceType { name } count }
  } }
}`;

interface Summary { total: number; byState: { state: string; count: number }[]; byResourceType: { resourceType: { name: string }; count: number }[] }
interface Truth { total: number; byState: Record<string, number>; byResourceType: Record<string, number> }

/** Every record the simulator's search returns for a queryString, counted by state and resource type. */
async function truthOf(tenant: string, queryString: string | null): Promise<Truth> {
  const truth: Truth = { total: 0, byState: { ACTIVE: 0, INACTIVE: 0, DISCOVERED: 0 }, byResourceType: {} };
  for (let pageNo = 1; ; pageNo++) {
    const query = queryString === null ? '' : `&queryString=${encodeURIComponent(queryString)}`;
    const page = await h.rest<{ results: { state: string; resourceType: string }[]; nextPage: boolean }>(`${tenant}/resources/search?pageNo=${pageNo}&pageSize=200${query}`);
    for (const record of page.results) {
      truth.total++;
      const state = record.state.toUpperCase();
      truth.byState[state] = (truth.byState[state] ?? 0) + 1;
      truth.byResourceType[record.resourceType] = (truth.byResourceType[record.resourceType] ?? 0) + 1;
    }
    if (!page.nextPage) return truth;
  }
}

const TYPE_NAMES = () => h.simulator.dataset.resourceTypes.map((t) => t.name);

/**
 * Filters with the queryString the simulator is asked directly for the truth, and the upstream
 * calls a full summary costs: total + states + the types read + types (9 in the simulator),
 * less the buckets the filter excludes (0, no call) or names alone (the total read).
 */
const cases: [string, Record<string, unknown> | null, string | null, number][] = [
  ['no filter', null, null, 1 + 3 + 1 + 9],
  ['a state', { state: 'ACTIVE' }, 'state:active', 1 + 0 + 1 + 9],
  ['a type', { type: 'DEVICE' }, 'type:DEVICE', 1 + 3 + 1 + 9],
  ['two resource types', { resourceTypes: ['Linux', 'Windows'] }, 'resourceType:Linux,Windows', 1 + 3 + 1 + 2],
  ['a state and one resource type', { state: 'INACTIVE', resourceTypes: ['Linux'] }, 'state:inactive+resourceType:Linux', 1 + 0 + 1 + 0],
  ['a location and tags', { deviceLocation: { name: 'Frankfurt' }, tags: ['env'] }, 'tags:env+deviceLocation:Frankfurt+isEquals:false', 1 + 3 + 1 + 9],
];

describe('resourceSummary', () => {
  it.each(cases)('%s: counts equal the simulator\'s, calls equal 1 + states + types and the estimate', async (_name, filter, queryString, expectedCalls) => {
    const res = await h.query<{ tenant: { resourceSummary: Summary } }>(SUMMARY, { tenant: 'client_1', filter }, { 'x-upstream-stats': '1' });
    expect(res.errors).toBeUndefined();
    const summary = res.data!.tenant.resourceSummary;
    const calls = h.simulator.stats().totalCalls;
    const truth = await truthOf('client_1', queryString);

    expect(truth.total).toBeGreaterThan(0);
    expect(summary.total).toBe(truth.total);
    expect(summary.byState).toEqual(['ACTIVE', 'INACTIVE', 'DISCOVERED'].map((state) => ({ state, count: truth.byState[state] ?? 0 })));
    // Every type of the tenant is listed, those without a match with 0.
    expect(summary.byResourceType.map((b) => b.resourceType.name).sort()).toEqual([...TYPE_NAMES()].sort());
    for (const bucket of summary.byResourceType) expect(bucket.count, bucket.resourceType.name).toBe(truth.byResourceType[bucket.resourceType.name] ?? 0);

    expect(calls).toBe(expectedCalls);
    expect(upstreamCalls(h)).toEqual({ search: expectedCalls - 1, resourceTypes: 1 });
    const upstream = res.extensions!.upstream as { totalCalls: number; estimatedCalls: number };
    expect(upstream.totalCalls).toBe(expectedCalls);
    expect(upstream.estimatedCalls).toBe(expectedCalls);
  });

  it('counts every resource on a second tenant too', async () => {
    const res = await h.query<{ tenant: { resourceSummary: Summary } }>(SUMMARY, { tenant: 'client_2' }, { 'x-upstream-stats': '1' });
    expect(res.errors).toBeUndefined();
    const truth = await truthOf('client_2', null);
    const summary = res.data!.tenant.resourceSummary;
    expect(summary.total).toBe(truth.total);
    expect(Object.fromEntries(summary.byState.map((b) => [b.state, b.count]))).toEqual(truth.byState);
    expect(summary.byResourceType.reduce((sum, b) => sum + b.count, 0)).toBe(truth.total);
    expect((res.extensions!.upstream as { estimatedCalls: number }).estimatedCalls).toBe(h.simulator.stats().totalCalls);
  });

  it('answers a second identical query from the cache: 0 upstream calls', async () => {
    const first = await h.query(SUMMARY, { tenant: 'client_1', filter: { type: 'DEVICE' } });
    expect(first.errors).toBeUndefined();
    expect(h.simulator.stats().totalCalls).toBe(14);
    h.simulator.resetStats();
    const second = await h.query(SUMMARY, { tenant: 'client_1', filter: { type: 'DEVICE' } });
    expect(second.data).toEqual(first.data);
    expect(h.simulator.stats().totalCalls).toBe(0);
  });

  it('reads only what is selected: total alone is 1 call, byState alone 3', async () => {
    const total = await h.query('{ tenant(id: "client_1") { resourceSummary { total } } }', undefined, { 'x-upstream-stats': '1' });
    expect(total.data).toEqual({ tenant: { resourceSummary: { total: h.simulator.dataset.tenants.get('client_1')!.resources.length } } });
    expect(upstreamCalls(h)).toEqual({ search: 1 });
    expect((total.extensions!.upstream as { estimatedCalls: number }).estimatedCalls).toBe(1);

    h.resetCounts();
    const byState = await h.query('{ tenant(id: "client_1") { resourceSummary(filter: { tags: ["env"] }) { byState { count } } } }', undefined, { 'x-upstream-stats': '1' });
    expect(byState.errors).toBeUndefined();
    expect(upstreamCalls(h)).toEqual({ search: 3 });
    expect((byState.extensions!.upstream as { estimatedCalls: number }).estimatedCalls).toBe(3);
  });

  it('shares reads between aliases of the same summary and with resourceTypes, and the estimate knows it', async () => {
    const res = await h.query(`{ tenant(id: "client_1") {
      resourceTypes { name }
      a: resourceSummary(filter: { state: DISCOVERED }) { total byResourceType { count } }
      b: resourceSummary(filter: { state: DISCOVERED }) { byState { count } }
    } }`, undefined, { 'x-upstream-stats': '1' });
    expect(res.errors).toBeUndefined();
    // total (shared by b's DISCOVERED bucket) + the types read (shared) + 9 types.
    expect(upstreamCalls(h)).toEqual({ search: 1 + 9, resourceTypes: 1 });
    expect((res.extensions!.upstream as { estimatedCalls: number }).estimatedCalls).toBe(11);
  });

  it('with the response cache off (CACHE=false), a count shared by aliases is still read once per operation', async () => {
    const uncached = await startHarness({ env: { CACHE: 'false' } });
    try {
      const res = await uncached.query(`{ tenant(id: "client_1") {
        a: resourceSummary(filter: { state: ACTIVE }) { total byState { count } }
        b: resourceSummary(filter: { state: ACTIVE }) { total }
      } }`, undefined, { 'x-upstream-stats': '1' });
      expect(res.errors).toBeUndefined();
      expect(upstreamCalls(uncached)).toEqual({ search: 1 });
      expect((res.extensions!.upstream as { estimatedCalls: number }).estimatedCalls).toBe(1);
    } finally {
      await uncached.close();
    }
  });

  it('still renders during an outage from the counts read earlier, flagged as stale with the summary named', async () => {
    // Short times instead of waiting out the defaults (5 s + 10 s).
    const short = await startHarness({ env: { CACHE_TTL_SEARCH_S: '1', CACHE_STALE_WHILE_REVALIDATE_S: '1' } });
    try {
      const tile = '{ tenant(id: "client_1") { resourceSummary { total byState { state count } } } }';
      const fresh = await short.query(tile);
      expect(fresh.errors).toBeUndefined();
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      short.simulator.configure({ failureRate: 1, failureKinds: ['503'] });
      const during = await short.query(tile);
      expect(during.errors).toBeUndefined();
      expect(during.data).toEqual(fresh.data);
      const stale = during.extensions!.stale as { reason: string; reads: { data: string; fields: string[] }[] };
      expect(stale.reason).toBe('upstream-error');
      expect(stale.reads).toEqual([expect.objectContaining({ data: 'resource search', fields: expect.arrayContaining(['Tenant.resourceSummary']) })]);
    } finally {
      await short.close();
    }
  });

  it('as a live query: the first payload counts the same, the types read once after admission', async () => {
    const client = createSseClient({ url: h.url, singleConnection: false, retryAttempts: 0 });
    const stream = client.iterate({ query: SUMMARY.replace('ResourceFilter) {', 'ResourceFilter) @live {'), variables: { tenant: 'client_1' } });
    try {
      const first = await stream.next();
      const payload = first.value as { data?: { tenant: { resourceSummary: Summary } }; errors?: unknown[] };
      expect(payload.errors).toBeUndefined();
      expect(upstreamCalls(h)).toEqual({ search: 1 + 3 + 9, resourceTypes: 1 });
      const truth = await truthOf('client_1', null);
      expect(payload.data!.tenant.resourceSummary.total).toBe(truth.total);
      for (const bucket of payload.data!.tenant.resourceSummary.byResourceType) expect(bucket.count, bucket.resourceType.name).toBe(truth.byResourceType[bucket.resourceType.name] ?? 0);
    } finally {
      await stream.return?.();
      client.dispose();
    }
  });

  /*
   * The exact estimate needs the tenant's resource types. Those are read only once the operation
   * was admitted: what the cost limit or admission refuses before costs no upstream call.
   * MAX_UPSTREAM_CALLS=12 sits between a full summary of client_1 (14 calls) and one with a state
   * (11); one admission slot and no wait make a second operation OVERLOADED while one runs.
   */
  describe('limits before any read', () => {
    let limited: Harness;
    beforeAll(async () => {
      limited = await startHarness({ env: { MAX_UPSTREAM_CALLS: '12', ADMISSION_CAPACITY: '1', MAX_ADMISSION_WAIT_MS: '0' } });
    });
    afterAll(() => limited.close());
    beforeEach(() => limited.resetCounts());

    it('an operation over the limit whatever the tenant\'s types is refused with no upstream call', async () => {
      // 3 states + the types read + a page of 10 with applications (2 + 10): 16 even with no type.
      const res = await limited.query(`{ tenant(id: "client_1") {
        resourceSummary { byState { count } byResourceType { count } }
        resources(first: 10) { nodes { applications { name } } }
      } }`);
      expect(limited.simulator.stats().totalCalls).toBe(0);
      expect(res.data ?? null).toBeNull();
      // The estimate counts no type: the refusal holds whatever the tenant has.
      expect(res.errors!.map((e) => e.extensions)).toEqual([expect.objectContaining({ code: 'OPERATION_TOO_EXPENSIVE', limitKind: 'upstreamCalls', estimate: 16, limit: 12 })]);
      expect(res.errors![0]!.message).toMatch(/at least 16 upstream calls/);
    });

    it('under the limit with the real types (11 calls) it runs, though 50 assumed types would not fit, and the estimate is exact', async () => {
      const res = await limited.query(SUMMARY, { tenant: 'client_1', filter: { state: 'ACTIVE' } }, { 'x-upstream-stats': '1' });
      expect(res.errors).toBeUndefined();
      expect(upstreamCalls(limited)).toEqual({ search: 1 + 9, resourceTypes: 1 });
      expect((res.extensions!.upstream as { estimatedCalls: number }).estimatedCalls).toBe(11);
    });

    it('over the limit with the real types (14 calls): refused with the exact estimate after the one types read, nothing else', async () => {
      const res = await limited.query(SUMMARY, { tenant: 'client_1' });
      expect(res.data ?? null).toBeNull();
      expect(res.errors!.map((e) => e.extensions)).toEqual([expect.objectContaining({ code: 'OPERATION_TOO_EXPENSIVE', estimate: 14, limit: 12 })]);
      expect(upstreamCalls(limited)).toEqual({ resourceTypes: 1 });
    });

    it('an OVERLOADED summary costs no upstream call', async () => {
      limited.simulator.configure({ routeLatencyMs: { search: 1_500 } });
      try {
        // Holds the only slot while its search is slow.
        const slow = limited.query('{ tenant(id: "client_1") { resources(first: 1) { totalCount } } }');
        for (let i = 0; i < 100 && !upstreamCalls(limited).search; i++) await new Promise((resolve) => setTimeout(resolve, 10));
        expect(upstreamCalls(limited)).toEqual({ search: 1 });
        // 11 calls: under the limit, refused by admission alone.
        const shed = await limited.query(SUMMARY, { tenant: 'client_1', filter: { state: 'ACTIVE' } });
        expect(upstreamCalls(limited)).toEqual({ search: 1 });
        expect(shed.errors!.map((e) => e.extensions?.code)).toEqual(['OVERLOADED']);
        expect((await slow).errors).toBeUndefined();
      } finally {
        limited.simulator.configure({ routeLatencyMs: {} });
      }
    });
  });

  describe('bad input', () => {
    const bad: [string, Record<string, unknown>, string][] = [
      ['a separator in text', { hostName: 'web+state:active' }, 'filter.hostName'],
      ['the decommissioned state', { state: 'DECOMMISSIONED' }, 'filter.state'],
      ['an empty list', { resourceTypes: [] }, 'filter.resourceTypes'],
      ['a reversed date range', { createdBetween: { from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' } }, 'filter.createdBetween'],
      ['another tenant\'s global id', { id: Buffer.from('Resource:client_2:abc').toString('base64url') }, 'filter.id'],
    ];
    const BY_TYPE_ONLY = 'query($filter: ResourceFilter) { tenant(id: "client_1") { resourceSummary(filter: $filter) { byResourceType { count } } } }';
    it.each(bad)('%s: the search\'s error, no upstream call', async (_name, filter, field) => {
      const search = await h.query('query($filter: ResourceFilter) { tenant(id: "client_1") { resources(first: 1, filter: $filter) { totalCount } } }', { filter });
      for (const summary of [await h.query(SUMMARY, { tenant: 'client_1', filter }), await h.query(BY_TYPE_ONLY, { filter })]) {
        expect(summary.errors).toHaveLength(1);
        expect(summary.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
        expect(summary.errors![0]!.message).toBe(search.errors![0]!.message);
        expect(summary.data).toBeNull();
      }
      expect(h.simulator.stats().totalCalls).toBe(0);
    });

    it('an unknown tenant is NOT_FOUND, not a crash', async () => {
      const res = await h.query(SUMMARY, { tenant: 'client_404' });
      expect(res.data).toBeNull();
      expect(res.errors!.map((e) => e.extensions?.code)).toContain('NOT_FOUND');
      expect(res.errors!.every((e) => e.extensions?.code === 'NOT_FOUND')).toBe(true);
    });
  });
});
