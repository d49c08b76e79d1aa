/**
 * The upstream response cache at its defaults, in one gateway over the simulator (the fleet on
 * Redis is test/e2e/replicas.test.ts): hits, coalescing, invalidation by updateResource, scopes,
 * no cached errors, and a dashboard that still renders from stale entries while the upstream is down.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { globalIdOf } from '../../src/schema/global-id.js';
import { startHarness, upstreamCalls, type Harness } from '../support/harness.js';
import { testClock } from '../support/test-clock.js';

const STATS = { 'x-upstream-stats': '1' };
/** A dashboard: a page of 10, each with its applications and a day of availability that is over. */
const DASHBOARD = `{ tenant(id: "client_1") { resources(first: 10) { nodes { id hostName
  applications { name version }
  availability(from: "2026-10-31T00:00:00Z", to: "2026-11-01T00:00:00Z") { availabilityPercent }
} } } }`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

interface UpstreamExtension { totalCalls: number; cacheHits: number; cacheMisses: number; coalesced: number }
const upstreamOf = (res: { extensions?: Record<string, unknown> }) => res.extensions!.upstream as UpstreamExtension;

describe('the response cache at its defaults', () => {
  it('answers a repeated dashboard without the upstream, and says so in the stats', async () => {
    h = await startHarness();
    const first = await h.query(DASHBOARD, undefined, STATS);
    expect(first.errors).toBeUndefined();
    expect(upstreamOf(first)).toMatchObject({ totalCalls: 21, cacheHits: 0, cacheMisses: 21 });
    const again = await h.query(DASHBOARD, undefined, STATS);
    expect(again.data).toEqual(first.data);
    expect(upstreamOf(again)).toMatchObject({ totalCalls: 0, cacheHits: 21, cacheMisses: 0 });
    expect(upstreamCalls(h)).toEqual({ search: 1, applications: 10, availability: 10 });
    // A differently shaped query over the same records shares the entries.
    const other = await h.query('{ tenant(id: "client_1") { resources(first: 10) { nodes { ipAddress applications { name } } } } }', undefined, STATS);
    expect(upstreamOf(other)).toMatchObject({ totalCalls: 0, cacheHits: 11 });
    const metrics = await (await h.fetch(h.endpoint.replace(/\/graphql$/, '/metrics'))).text();
    expect(metrics).toMatch(/^upstream_cache_reads_total\{route="search",result="miss"\} 1$/m);
    expect(metrics).toMatch(/^upstream_cache_reads_total\{route="search",result="hit"\} 2$/m);
    expect(metrics).toMatch(/^upstream_cache_reads_total\{route="applications",result="hit"\} 20$/m);
    expect(Number(/^upstream_cache_memory_bytes (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(10_000);
    expect(metrics).toMatch(/^upstream_cache_shared_available 0$/m);
  });

  it('shares one upstream call among identical reads in flight from different operations', async () => {
    h = await startHarness({ simulator: { latencyMs: 150 } });
    const answers = await Promise.all(Array.from({ length: 10 }, () => h!.query(DASHBOARD, undefined, STATS)));
    for (const res of answers) expect(res.errors).toBeUndefined();
    expect(upstreamCalls(h)).toEqual({ search: 1, applications: 10, availability: 10 });
    // The other nine got every read from the one call in flight, or from the entry it left.
    const shared = answers.reduce((n, res) => n + upstreamOf(res).coalesced, 0);
    expect(shared).toBeGreaterThan(0);
    expect(shared + answers.reduce((n, res) => n + upstreamOf(res).cacheHits, 0)).toBe(9 * 21);
  });

  it('shows an update at once: the detail and the tenant lists are read again, other records stay cached', async () => {
    h = await startHarness();
    const page = await h.rest('client_1/resources/search?pageSize=2&queryString=type:DEVICE');
    const [id, other] = page.results.map((r: { id: string }) => r.id) as [string, string];
    const read = `query($id: ID!, $other: ID!) { tenant(id: "client_1") {
      resource(id: $id) { aliasName } neighbour: resource(id: $other) { aliasName }
      resourceList { resourceId aliasName }
    } }`;
    const before = await h.query(read, { id, other });
    expect(before.errors).toBeUndefined();
    h.simulator.resetStats();
    await h.query(read, { id, other });
    expect(upstreamCalls(h)).toEqual({});

    const update = await h.query(`mutation($id: ID!) { updateResource(input: { tenantId: "client_1", id: $id, aliasName: "renamed-by-test" }) { resource { aliasName } userErrors { code } } }`, { id });
    expect(update.data.updateResource).toEqual({ resource: { aliasName: 'renamed-by-test' }, userErrors: [] });
    h.simulator.resetStats();
    const after = await h.query(read, { id, other });
    expect(after.data.tenant.resource.aliasName).toBe('renamed-by-test');
    expect(after.data.tenant.neighbour).toEqual(before.data.tenant.neighbour);
    expect(after.data.tenant.resourceList.find((r: { resourceId: string }) => r.resourceId === id).aliasName).toBe('renamed-by-test');
    // The updated record's detail was read again by the mutation itself; the list once; the neighbour not at all.
    expect(upstreamCalls(h)).toEqual({ minimal: 1 });
  });

  it('drops the tenant\'s cached antivirus list on an update, as the route table says (the live queries read the same rule)', async () => {
    h = await startHarness();
    const list = `{ tenant(id: "client_1") { antivirusDefinitions(first: 5) { nodes { name resource { id } } } } }`;
    expect((await h.query(list)).errors).toBeUndefined();
    const page = await h.rest('client_1/resources/search?pageSize=1&queryString=type:DEVICE');
    h.simulator.resetStats();
    await h.query(list);
    expect(upstreamCalls(h)).toEqual({});
    await h.query(`mutation($id: ID!) { updateResource(input: { tenantId: "client_1", id: $id, aliasName: "renamed-for-antivirus" }) { userErrors { code } } }`, { id: page.results[0].id });
    h.simulator.resetStats();
    await h.query(list);
    expect(upstreamCalls(h)).toEqual({ antivirus: 1 });
  });

  it('keeps callers apart in passthrough: another credential is never answered from the first one\'s entries', async () => {
    h = await startHarness({ simulator: { auth: { enabled: true, clientId: 'c', clientSecret: 's', tokenTtlSeconds: 3600, expiresInAsString: false } }, env: { INVENTORY_AUTH_MODE: 'passthrough' } });
    const token = async () => {
      const res = await fetch(`${h!.simulator.url}/auth/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials&client_id=c&client_secret=s' });
      return `Bearer ${((await res.json()) as { access_token: string }).access_token}`;
    };
    const [alice, bob] = [await token(), await token()];
    const query = '{ tenant(id: "client_1") { resourceTypes { name } } }';
    expect(upstreamOf(await h.query(query, undefined, { ...STATS, authorization: alice }))).toMatchObject({ totalCalls: 1 });
    expect(upstreamOf(await h.query(query, undefined, { ...STATS, authorization: alice }))).toMatchObject({ totalCalls: 0, cacheHits: 1 });
    expect(upstreamOf(await h.query(query, undefined, { ...STATS, authorization: bob }))).toMatchObject({ totalCalls: 1, cacheHits: 0 });
    // A refused credential gets the upstream's answer, not a cached one.
    const refused = await h.query(query, undefined, { ...STATS, authorization: 'Bearer not-a-token' });
    expect(refused.errors![0]!.extensions!.code).toBe('UNAUTHENTICATED');
  });

  it('does not keep errors: a read that failed is tried again by the next operation', async () => {
    h = await startHarness({ env: { UPSTREAM_RETRIES: '0' } });
    h.simulator.injectFaults({ route: 'resourceTypes', kind: '503' });
    const failed = await h.query('{ tenant(id: "client_1") { resourceTypes { name } } }');
    expect(failed.errors![0]!.extensions!.code).toBe('UPSTREAM_UNAVAILABLE');
    const next = await h.query('{ tenant(id: "client_1") { resourceTypes { name } } }');
    expect(next.errors).toBeUndefined();
    expect(upstreamCalls(h)).toEqual({ resourceTypes: 2 });
  });

  it('keeps answers for the README\'s default times', () => {
    const cache = loadConfig({}).cache!;
    expect(cache.ttlMs).toEqual({
      search: 5_000, minimal: 5_000, detail: 30_000, applications: 60_000, history: 60_000, historyDetail: 300_000,
      antivirus: 60_000, resourceTypes: 3_600_000, availability: 60_000, availabilityPast: 86_400_000,
    });
    expect([cache.staleWhileRevalidateMs, cache.staleIfErrorMs]).toEqual([10_000, 3_600_000]);
  });

  it('renders a dashboard read earlier from stale entries while the upstream is down, and says which data and how old', async () => {
    // The defaults: the TTL and stale-while-revalidate window (5 s + 10 s) passed on a test clock,
    // and the default retries with their backoff against a down upstream (seconds of real time).
    const clock = testClock(Date.UTC(2026, 10, 26, 12, 0, 0));
    h = await startHarness({ clock: clock.now });
    const fresh = await h.query(DASHBOARD);
    expect(fresh.errors).toBeUndefined();
    // Past the search's TTL and its stale-while-revalidate window: only an outage serves it now.
    clock.advance(16_000);
    h.simulator.configure({ failureRate: 1, failureKinds: ['503'] });
    const during = await h.query(DASHBOARD);
    expect(during.errors).toBeUndefined();
    expect(during.data).toEqual(fresh.data);
    expect(during.extensions!.stale).toEqual({
      reason: 'upstream-error',
      maxAgeSeconds: expect.any(Number),
      reads: [{
        data: 'resource search', fields: expect.arrayContaining(['Tenant.resources', 'Resource.hostName']),
        ids: [globalIdOf({ kind: 'Tenant', tenantId: 'client_1' })], reason: 'upstream-error', maxAgeSeconds: expect.any(Number),
      }],
    });
    const age = (during.extensions!.stale as { maxAgeSeconds: number }).maxAgeSeconds;
    expect(age).toBeGreaterThanOrEqual(16);
    expect(age).toBeLessThan(30);
    // The upstream back: fresh again, and no flag.
    h.simulator.configure({ failureRate: 0 });
    await sleep(1_100); // the breaker's cool-down
    const after = await h.query(DASHBOARD);
    expect(after.errors).toBeUndefined();
    expect(after.extensions?.stale).toBeUndefined();
  }, 60_000);

  it('holds the in-process level within CACHE_MAX_BYTES', async () => {
    h = await startHarness({ env: { CACHE_MAX_BYTES: '200000' } });
    for (let offset = 0; offset < 500; offset += 50) {
      expect((await h.query(`{ tenant(id: "client_1") { resources(first: 50, offset: ${offset}) { nodes { id } } } }`)).errors).toBeUndefined();
      expect(h.client.cacheMemoryBytes()).toBeLessThanOrEqual(200_000);
    }
    expect(h.client.cacheMemoryBytes()).toBeGreaterThan(100_000);
  });
});
