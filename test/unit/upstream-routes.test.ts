import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { routePath, tenantPathPrefix } from '../../src/upstream/route-path.js';
import { ROUTES, ttlSettings } from '../../src/core/routes.js';
import { checkMockUpstreams, mockUpstream } from '../support/upstream-client.js';

describe('the route table', () => {
  it('builds each route\'s path from its template, ids and query encoded', () => {
    expect(routePath('search', 't 1', undefined, { pageNo: 1, pageSize: 5, queryString: 'name==a+b', sortName: undefined, includeStatus: null }))
      .toBe('/api/v2/tenants/t%201/resources/search?pageNo=1&pageSize=5&queryString=name%3D%3Da%2Bb');
    expect(routePath('detail', 't', 'r/1')).toBe('/api/v2/tenants/t/resources/r%2F1');
    expect(routePath('applications', 't', 'r?x')).toBe('/api/v2/tenants/t/resources/r%3Fx/applications');
    expect(routePath('historyDetail', 't', 'r', { additionalInfo: true })).toBe('/api/v2/tenants/t/history/resources/r?additionalInfo=true');
    expect(routePath('availability', 't', 'r', { startTime: '1', endTime: '2' })).toBe('/api/v2/tenants/t/resources/r/availability?startTime=1&endTime=2');
    expect(routePath('resourceTypes', 't', undefined)).toBe('/api/v2/tenants/t/resourceType/minimal');
    expect(routePath('antivirus', 't', undefined)).toBe('/api/v2/tenants/t/resources/antivirus/search');
    expect(routePath('history', 't', undefined)).toBe('/api/v2/tenants/t/history/resources');
    expect(routePath('minimal', 't', undefined)).toBe('/api/v2/tenants/t/resources/minimal');
  });

  it('puts every route of a tenant below that tenant\'s prefix (what a refused credential drops from the cache)', () => {
    expect(tenantPathPrefix('t 1')).toBe('/api/v2/tenants/t%201/');
    for (const route of Object.keys(ROUTES) as (keyof typeof ROUTES)[]) expect(routePath(route, 't 1', 'r')).toMatch(/^\/api\/v2\/tenants\/t%201\//);
  });

  it('refuses ids that could walk the path', () => {
    for (const id of ['', '.', '..']) {
      expect(() => routePath('detail', 't', id)).toThrow(expect.objectContaining({ extensions: { code: 'BAD_USER_INPUT' } }));
      expect(() => routePath('search', id, undefined)).toThrow(expect.objectContaining({ extensions: { code: 'BAD_USER_INPUT' } }));
    }
  });

  it('is where the cache TTL defaults come from: every GET route has one, the update none', () => {
    const ttl = ttlSettings();
    for (const [name, spec] of Object.entries(ROUTES)) expect(name in ttl).toBe(spec.method === 'GET');
    const cache = loadConfig({}).cache!;
    expect(cache.ttlMs.detail).toBe(30_000);
    expect(cache.ttlMs.resourceTypes).toBe(3_600_000);
    expect(cache.ttlMs.availabilityPast).toBe(86_400_000);
    expect(loadConfig({ CACHE_TTL_SEARCH_S: '7' }).cache!.ttlMs.search).toBe(7_000);
  });
});

describe('session endpoints over the wire', () => {
  afterEach(checkMockUpstreams);

  it('send the table\'s method and path below the base URL\'s path', async () => {
    const up = mockUpstream();
    up.pool.intercept({ path: '/base/api/v2/tenants/t%201/resources/r%2F1', method: 'GET' }).reply(200, { id: 'r/1' });
    up.pool.intercept({ path: '/base/api/v2/tenants/t%201/resources/r%2F1', method: 'POST', body: '{"name":"x"}' }).reply(200, { ok: true });
    const session = up.client.session({ authorization: null });
    await expect(session.detail('t 1', 'r/1')).resolves.toEqual({ id: 'r/1' });
    await expect(session.update('t 1', 'r/1', { name: 'x' })).resolves.toEqual({ ok: true });
    session.close();
  });

  it('refuse a path-walking id before any call', async () => {
    const up = mockUpstream();
    const session = up.client.session({ authorization: null });
    await expect(session.detail('t', '..')).rejects.toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    await expect(session.update('t', '.', {})).rejects.toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    expect(session.stats.totalCalls).toBe(0);
    session.close();
  });
});
