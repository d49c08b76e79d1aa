/**
 * Tenant.resourceSummary: counts for dashboard tiles. The truth is the simulator's own search,
 * paged through directly; the cost is the simulator's call count, which must equal the estimate.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient as createSseClient } from 'graphql-sse';
import { startHarness, upstreamCalls, type Harness } from '../support/harness.js';
import { testClock } from '../support/test-clock.js';

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

/** An alias IP of a resource of client_1: a filter the resource list cannot take. */
const ALIAS_IP = () => h.simulator.dataset.tenants.get('client_1')!.resources.flatMap((r) => r.network.map((n) => n.aliasIp)).find(Boolean)!.split(',')[0]!;

/** Calls of the upstream's paginated category (search, decommissioned list, antivirus list). */
const paginated = () => { const calls = upstreamCalls(h); return (calls.search ?? 0) + (calls.history ?? 0) + (calls.antivirus ?? 0); };

/**
 * Filters with the queryString the simulator is asked directly for the truth, and the upstream
 * calls a full summary costs, by route: a resource list per state (one when the filter names a
 * state) and the types read, whatever the number of resources or types; with aliasIp (which the
 * list does not take), one search page instead (fewer than MAX_PAGE_SIZE matches).
 */
const cases: [string, () => Record<string, unknown> | null, () => string | null, Record<string, number>][] = [
  ['no filter', () => null, () => null, { minimal: 3, resourceTypes: 1 }],
  ['a state', () => ({ state: 'ACTIVE' }), () => 'state:active', { minimal: 1, resourceTypes: 1 }],
  ['a type', () => ({ type: 'DEVICE' }), () => 'type:DEVICE', { minimal: 3, resourceTypes: 1 }],
  ['two resource types', () => ({ resourceTypes: ['Linux', 'Windows'] }), () => 'resourceType:Linux,Windows', { minimal: 3, resourceTypes: 1 }],
  ['a state and one resource type', () => ({ state: 'INACTIVE', resourceTypes: ['Linux'] }), () => 'state:inactive+resourceType:Linux', { minimal: 1, resourceTypes: 1 }],
  ['a location and tags', () => ({ deviceLocation: { name: 'Frankfurt' }, tags: ['env'] }), () => 'tags:env+deviceLocation:Frankfurt+isEquals:false', { minimal: 3, resourceTypes: 1 }],
  ['a text filter', () => ({ hostName: 'client1-00' }), () => 'hostName:client1-00', { minimal: 3, resourceTypes: 1 }],
  ['an alias IP (not a key of the resource list)', () => ({ aliasIp: ALIAS_IP() }), () => `aliasIp:${ALIAS_IP()}`, { search: 1, resourceTypes: 1 }],
];

describe('resourceSummary', () => {
  it.each(cases)('%s: counts equal the simulator\'s, at most 3 paginated calls, calls equal the estimate', async (_name, filter, queryString, expectedCalls) => {
    const res = await h.query<{ tenant: { resourceSummary: Summary } }>(SUMMARY, { tenant: 'client_1', filter: filter() }, { 'x-upstream-stats': '1' });
    expect(res.errors).toBeUndefined();
    const summary = res.data!.tenant.resourceSummary;
    const calls = { ...upstreamCalls(h) };
    const paginatedCalls = paginated();
    const truth = await truthOf('client_1', queryString());

    expect(truth.total).toBeGreaterThan(0);
    expect(summary.total).toBe(truth.total);
    expect(summary.byState).toEqual(['ACTIVE', 'INACTIVE', 'DISCOVERED'].map((state) => ({ state, count: truth.byState[state] ?? 0 })));
    // Every type of the tenant is listed, those without a match with 0.
    expect(summary.byResourceType.map((b) => b.resourceType.name).sort()).toEqual([...TYPE_NAMES()].sort());
    for (const bucket of summary.byResourceType) expect(bucket.count, bucket.resourceType.name).toBe(truth.byResourceType[bucket.resourceType.name] ?? 0);

    expect(paginatedCalls).toBeLessThanOrEqual(3);
    expect(calls).toEqual(expectedCalls);
    const total = Object.values(expectedCalls).reduce((a, b) => a + b, 0);
    const upstream = res.extensions!.upstream as { totalCalls: number; estimatedCalls: number };
    expect(upstream.totalCalls).toBe(total);
    expect(upstream.estimatedCalls).toBe(total);
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
    expect(h.simulator.stats().totalCalls).toBe(4);
    h.simulator.resetStats();
    const second = await h.query(SUMMARY, { tenant: 'client_1', filter: { type: 'DEVICE' } });
    expect(second.data).toEqual(first.data);
    expect(h.simulator.stats().totalCalls).toBe(0);
  });

  it('reads only what is selected: total alone is 1 call, byState alone 3, byResourceType alone 2', async () => {
    const total = await h.query('{ tenant(id: "client_1") { resourceSummary { total } } }', undefined, { 'x-upstream-stats': '1' });
    expect(total.data).toEqual({ tenant: { resourceSummary: { total: h.simulator.dataset.tenants.get('client_1')!.resources.length } } });
    expect(upstreamCalls(h)).toEqual({ minimal: 1 });
    expect((total.extensions!.upstream as { estimatedCalls: number }).estimatedCalls).toBe(1);

    h.resetCounts();
    const byState = await h.query('{ tenant(id: "client_1") { resourceSummary(filter: { tags: ["env"] }) { byState { count } } } }', undefined, { 'x-upstream-stats': '1' });
    expect(byState.errors).toBeUndefined();
    expect(upstreamCalls(h)).toEqual({ minimal: 3 });
    expect((byState.extensions!.upstream as { estimatedCalls: number }).estimatedCalls).toBe(3);

    h.resetCounts();
    const byType = await h.query('{ tenant(id: "client_1") { resourceSummary { byResourceType { count } } } }', undefined, { 'x-upstream-stats': '1' });
    expect(byType.errors).toBeUndefined();
    expect(upstreamCalls(h)).toEqual({ minimal: 1, resourceTypes: 1 });
    expect((byType.extensions!.upstream as { estimatedCalls: number }).estimatedCalls).toBe(2);

    // With aliasIp, total alone is the search's total at page size 1.
    h.resetCounts();
    const aliased = await h.query('query($ip: String) { tenant(id: "client_1") { resourceSummary(filter: { aliasIp: $ip }) { total } } }', { ip: ALIAS_IP() }, { 'x-upstream-stats': '1' });
    expect(aliased.errors).toBeUndefined();
    expect(upstreamCalls(h)).toEqual({ search: 1 });
    expect(h.simulator.stats().requests.map((r) => new URL(r.url, 'http://x').searchParams.get('pageSize'))).toEqual(['1']);
    expect((aliased.extensions!.upstream as { estimatedCalls: number }).estimatedCalls).toBe(1);
  });

  it('shares reads between aliases of the same summary and with resourceTypes, and the estimate knows it', async () => {
    const res = await h.query(`{ tenant(id: "client_1") {
      resourceTypes { name }
      a: resourceSummary(filter: { state: DISCOVERED }) { total byResourceType { count } }
      b: resourceSummary(filter: { state: DISCOVERED }) { byState { count } }
    } }`, undefined, { 'x-upstream-stats': '1' });
    expect(res.errors).toBeUndefined();
    // The DISCOVERED list (a's total and types, b's states) + the types read (shared with resourceTypes).
    expect(upstreamCalls(h)).toEqual({ minimal: 1, resourceTypes: 1 });
    expect((res.extensions!.upstream as { estimatedCalls: number }).estimatedCalls).toBe(2);
  });

  it('with the response cache off (CACHE=false), a count shared by aliases is still read once per operation', async () => {
    const uncached = await startHarness({ env: { CACHE: 'false' } });
    try {
      const res = await uncached.query(`{ tenant(id: "client_1") {
        a: resourceSummary(filter: { state: ACTIVE }) { total byState { count } }
        b: resourceSummary(filter: { state: ACTIVE }) { total }
      } }`, undefined, { 'x-upstream-stats': '1' });
      expect(res.errors).toBeUndefined();
      expect(upstreamCalls(uncached)).toEqual({ minimal: 1 });
      expect((res.extensions!.upstream as { estimatedCalls: number }).estimatedCalls).toBe(1);
    } finally {
      await uncached.close();
    }
  });

  it('still renders during an outage from the counts read earlier, flagged as stale with the summary named', async () => {
    // At the defaults, on a test clock: the entries' TTL (5 s) and stale-while-revalidate (10 s) pass in a moment.
    const clock = testClock(Date.now());
    const short = await startHarness({ clock: clock.now });
    try {
      const tile = '{ tenant(id: "client_1") { resourceSummary { total byState { state count } } } }';
      const fresh = await short.query(tile);
      expect(fresh.errors).toBeUndefined();
      const { ttlMs, staleWhileRevalidateMs } = short.config.cache!;
      clock.advance(ttlMs.minimal + staleWhileRevalidateMs + 1_000);
      short.simulator.configure({ failureRate: 1, failureKinds: ['503'] });
      const during = await short.query(tile);
      expect(during.errors).toBeUndefined();
      expect(during.data).toEqual(fresh.data);
      const stale = during.extensions!.stale as { reason: string; reads: { data: string; fields: string[] }[] };
      expect(stale.reason).toBe('upstream-error');
      expect(stale.reads).toEqual([expect.objectContaining({ data: 'resource list', fields: expect.arrayContaining(['Tenant.resourceSummary']) })]);
    } finally {
      await short.close();
    }
  });

  it('as a live query: the first payload counts the same with the same reads, and a re-run after an update makes the same reads', async () => {
    const client = createSseClient({ url: h.url, singleConnection: false, retryAttempts: 0 });
    const stream = client.iterate({ query: SUMMARY.replace('ResourceFilter) {', 'ResourceFilter) @live {'), variables: { tenant: 'client_1' } });
    try {
      const first = await stream.next();
      const payload = first.value as { data?: { tenant: { resourceSummary: Summary } }; errors?: unknown[] };
      expect(payload.errors).toBeUndefined();
      expect(upstreamCalls(h)).toEqual({ minimal: 3, resourceTypes: 1 });
      const truth = await truthOf('client_1', null);
      expect(payload.data!.tenant.resourceSummary.total).toBe(truth.total);
      for (const bucket of payload.data!.tenant.resourceSummary.byResourceType) expect(bucket.count, bucket.resourceType.name).toBe(truth.byResourceType[bucket.resourceType.name] ?? 0);

      // An update of the tenant makes its lists stale: the re-run (cold, as the cache is emptied here) makes the same reads.
      h.resetCounts();
      const id = h.simulator.dataset.tenants.get('client_1')!.resources[0]!.id;
      const update = await h.query('mutation($id: ID!) { updateResource(input: { tenantId: "client_1", id: $id, aliasName: "tile" }) { userErrors { code } } }', { id });
      expect(update.errors).toBeUndefined();
      for (let i = 0; i < 3_000 && ((upstreamCalls(h).minimal ?? 0) < 3 || !upstreamCalls(h).resourceTypes); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const calls = upstreamCalls(h);
      expect({ minimal: calls.minimal, search: calls.search, resourceTypes: calls.resourceTypes }).toEqual({ minimal: 3, search: undefined, resourceTypes: 1 });
    } finally {
      await stream.return?.();
      client.dispose();
    }
  });

  /*
   * The estimate is exact before execution (a summary's reads do not depend on the tenant's
   * number of types), so what the cost limit or admission refuses costs no upstream call.
   * MAX_UPSTREAM_CALLS=12; one admission slot and no wait make a second operation OVERLOADED while one runs.
   */
  describe('limits before any read', () => {
    let limited: Harness;
    beforeAll(async () => {
      limited = await startHarness({ env: { MAX_UPSTREAM_CALLS: '12', ADMISSION_CAPACITY: '1', MAX_ADMISSION_WAIT_MS: '0' } });
    });
    afterAll(() => limited.close());
    beforeEach(() => limited.resetCounts());

    it('an operation over the limit is refused with its exact estimate and no upstream call', async () => {
      // 3 lists + the types read + a page of 10 with applications (1 page + 10): 15.
      const res = await limited.query(`{ tenant(id: "client_1") {
        resourceSummary { byState { count } byResourceType { count } }
        resources(first: 10) { nodes { applications { name } } }
      } }`);
      expect(limited.simulator.stats().totalCalls).toBe(0);
      expect(res.data ?? null).toBeNull();
      expect(res.errors!.map((e) => e.extensions)).toEqual([expect.objectContaining({ code: 'OPERATION_TOO_EXPENSIVE', limitKind: 'upstreamCalls', estimate: 15, limit: 12 })]);
    });

    it('a full summary runs under the limit, with the exact estimate (4)', async () => {
      const res = await limited.query(SUMMARY, { tenant: 'client_1' }, { 'x-upstream-stats': '1' });
      expect(res.errors).toBeUndefined();
      expect(upstreamCalls(limited)).toEqual({ minimal: 3, resourceTypes: 1 });
      expect((res.extensions!.upstream as { estimatedCalls: number }).estimatedCalls).toBe(4);
    });

    it('an OVERLOADED summary costs no upstream call', async () => {
      limited.simulator.configure({ routeLatencyMs: { search: 1_500 } });
      try {
        // Holds the only slot while its search is slow.
        const slow = limited.query('{ tenant(id: "client_1") { resources(first: 1) { totalCount } } }');
        for (let i = 0; i < 100 && !upstreamCalls(limited).search; i++) await new Promise((resolve) => setTimeout(resolve, 10));
        expect(upstreamCalls(limited)).toEqual({ search: 1 });
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
        expect(summary.data?.tenant ?? null).toBeNull();
      }
      expect(h.simulator.stats().totalCalls).toBe(0);
    });

    it('an unknown tenant is NOT_FOUND, not a crash', async () => {
      const res = await h.query(SUMMARY, { tenant: 'client_404' });
      expect(res.data?.tenant ?? null).toBeNull();
      expect(res.errors!.map((e) => e.extensions?.code)).toContain('NOT_FOUND');
      expect(res.errors!.every((e) => e.extensions?.code === 'NOT_FOUND')).toBe(true);
    });
  });
});
