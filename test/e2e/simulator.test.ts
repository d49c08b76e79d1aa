/** Contract of the embedded simulator, over real HTTP: what the gateway and its users rely on. */
import { spawn, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/app.js';
import type { SimResource } from '../../src/simulator/data-model.js';

let sim: Simulator;
const T = '/api/v2/tenants';

async function get(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${sim.url}${path}`, { headers });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}
const q = (s: string) => encodeURIComponent(s);
const tenant1 = () => sim.dataset.tenants.get('client_1')!;
const ids = (records: { id: string }[]) => records.map((r) => r.id).sort();

beforeAll(async () => {
  sim = await startSimulator({ port: 0 });
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.configure({ latencyMs: 0, jitterMs: 0, failureRate: 0, hang: false, auth: { ...sim.settings.auth, enabled: false } });
  // The simulator's defaults, rate limits included (50 searches a minute per tenant): each test starts with
  // full windows, as the file's ~100 searches of client_1 in one minute would spend them (issue 28).
  sim.resetRateLimits();
});

describe('data set', () => {
  it('holds ~500 resources of every shape on client_1, a small client_2 and an empty client_3', () => {
    const shapes = new Set(tenant1().resources.map((r) => r.shape));
    expect(tenant1().resources).toHaveLength(500);
    expect([...shapes].sort()).toEqual(['device', 'general', 'synthetic']);
    expect(sim.dataset.tenants.get('client_2')!.resources.length).toBeGreaterThan(0);
    expect(sim.dataset.tenants.get('client_3')!.resources).toHaveLength(0);
    expect(tenant1().resources.every((r) => r.appCount >= 0 && r.appCount <= 30)).toBe(true);
  });

  it('is deterministic for a seed', async () => {
    const other = await startSimulator({ port: 0 });
    expect(other.dataset.tenants.get('client_1')!.resources.map((r) => r.id)).toEqual(tenant1().resources.map((r) => r.id));
    await other.close();
  });
});

describe('search', () => {
  it('answers the documented envelope with defaults pageNo=1, pageSize=100, id descending', async () => {
    const { status, body } = await get(`${T}/client_1/resources/search`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ totalResults: 500, pageNo: 1, pageSize: 100, totalPages: 5, nextPage: true, orderBy: 'id', descendingOrder: true });
    expect(body.results).toHaveLength(100);
    const all = [...tenant1().resources].map((r) => r.id).sort().reverse();
    expect(body.results.map((r: { id: string }) => r.id)).toEqual(all.slice(0, 100));
    expect(Object.keys(body.results[0])).toEqual(expect.arrayContaining(['id', 'hostName', 'client', 'createdDate', 'attributes', 'ts', 'totalLocations']));
  });

  it('pages at the edges: last partial page, past the end, empty tenant', async () => {
    const last = await get(`${T}/client_1/resources/search?pageSize=30&pageNo=17`);
    expect(last.body).toMatchObject({ totalPages: 17, nextPage: false, pageNo: 17 });
    expect(last.body.results).toHaveLength(500 - 16 * 30);
    const past = await get(`${T}/client_1/resources/search?pageSize=30&pageNo=18`);
    expect(past.body.results).toEqual([]);
    expect(past.body.nextPage).toBe(false);
    const empty = await get(`${T}/client_3/resources/search`);
    expect(empty.body).toMatchObject({ results: [], totalResults: 0, totalPages: 0, nextPage: false });
  });

  it('sorts by sortName both ways, the descending order being the exact reverse', async () => {
    const asc = await get(`${T}/client_1/resources/search?pageSize=500&sortName=hostName&isDescendingOrder=false`);
    const desc = await get(`${T}/client_1/resources/search?pageSize=500&sortName=hostName&isDescendingOrder=true`);
    const names = asc.body.results.map((r: { hostName: string }) => r.hostName.toLowerCase());
    expect(names).toEqual([...names].sort());
    expect(desc.body.results.map((r: { id: string }) => r.id)).toEqual(asc.body.results.map((r: { id: string }) => r.id).reverse());
    expect(asc.body.orderBy).toBe('hostName');
    expect(asc.body.descendingOrder).toBe(false);
  });

  it('adds status with includeStatus=true only', async () => {
    const without = await get(`${T}/client_1/resources/search?pageSize=1`);
    const withStatus = await get(`${T}/client_1/resources/search?pageSize=1&includeStatus=true`);
    expect(without.body.results[0]).not.toHaveProperty('status');
    expect(withStatus.body.results[0].status).toBe(tenant1().byId.get(withStatus.body.results[0].id)!.status);
  });

  const sample = () => tenant1().resources.find((r) => r.shape === 'general' && r.aliasName && r.instanceId && r.network[0]?.aliasIp)!;
  const cases: [string, () => string, (r: SimResource, v: string) => boolean][] = [
    ['hostName', () => sample().hostName.slice(0, 8), (r, v) => r.hostName.toLowerCase().includes(v.toLowerCase())],
    ['resourceName', () => 'Load Balancer', (r, v) => r.resourceName.toLowerCase().includes(v.toLowerCase())],
    ['dnsName', () => 'corp.example', (r, v) => r.dns.includes(v)],
    ['aliasName', () => sample().aliasName, (r, v) => r.aliasName.includes(v)],
    ['id', () => sample().id, (r, v) => r.id === v],
    ['serialNumber', () => sample().serialNumber, (r, v) => r.serialNumber === v],
    ['ipAddress', () => sample().ipAddress, (r, v) => r.ipAddress === v || r.network.some((n) => n.ip === v)],
    ['systemUID', () => sample().systemUID, (r, v) => r.systemUID === v],
    ['state', () => 'inactive', (r) => r.state === 'inactive'],
    ['type', () => 'EBS', (r) => r.type === 'EBS'],
    ['resourceType', () => 'Linux,EBS', (r) => ['Linux', 'EBS'].includes(r.resourceType)],
    ['deviceType', () => 'Storage,Switch', (r) => ['Storage', 'Switch'].includes(r.deviceType)],
    ['appRoles', () => 'kafka,DNS-Server', (r) => r.appRoles.includes('kafka') || r.appRoles.includes('DNS-Server')],
    ['startCreationDate', () => '2025-06-01T00:00:00Z', (r) => r.createdAt >= Date.UTC(2025, 5, 1) / 1000],
    ['endCreationDate', () => '2025-06-01T00:00:00Z', (r) => r.createdAt <= Date.UTC(2025, 5, 1) / 1000],
    ['startUpdationDate', () => '2026-01-01T00:00:00Z', (r) => r.updatedAt >= Date.UTC(2026, 0, 1) / 1000],
    ['endUpdationDate', () => '2026-01-01T00:00:00Z', (r) => r.updatedAt <= Date.UTC(2026, 0, 1) / 1000],
    ['tags', () => 'env,tier', (r) => r.tags.some((t) => t.name === 'env' || t.name === 'tier')],
    ['template', () => 'tmpl-3', (r) => r.template === 'tmpl-3'],
    ['agentProfile', () => 'agent-2', (r) => r.agentProfile === 'agent-2'],
    ['gatewayProfile', () => '2', (r) => r.gatewayProfileId === '2'],
    ['instanceId', () => sample().instanceId, (r, v) => r.instanceId === v],
    ['accountNumber', () => sample().accountNumber || tenant1().resources.find((r) => r.accountNumber)!.accountNumber, (r, v) => r.accountNumber === v],
    ['installedIntgId', () => 'intg-aws', (r) => r.installedIntgId === 'intg-aws'],
    ['agentInstalled', () => 'true', (r) => r.agentInstalled],
    ['deviceGroup', () => 'production', (r) => r.deviceGroup.toLowerCase().includes('production')],
    ['serviceGroup', () => 'Bill', (r) => r.serviceGroup.includes('Bill')],
    ['deviceLocation', () => 'DC', (r) => r.location.name.includes('DC')],
    ['firstAssetManagedTime', () => '2026-01-01T00:00:00Z', (r) => r.firstAssetManagedAt >= Date.UTC(2026, 0, 1) / 1000],
    ['assetManagedTime', () => '2026-01-01T00:00:00Z', (r) => r.assetManagedAt >= Date.UTC(2026, 0, 1) / 1000],
    ['aliasIp', () => sample().network[0]!.aliasIp.split(',')[0]!, (r, v) => r.network.some((n) => n.aliasIp.split(',').includes(v))],
  ];
  it.each(cases)('filters by queryString key %s', async (key, value, predicate) => {
    const v = value();
    const { status, body } = await get(`${T}/client_1/resources/search?pageSize=1000&queryString=${q(`${key}:${v}`)}`);
    expect(status).toBe(200);
    const expected = tenant1().resources.filter((r) => predicate(r, v));
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(500);
    expect(ids(body.results)).toEqual(ids(expected));
  });

  it('applies isEquals: exact versus similar group matching', async () => {
    const similar = await get(`${T}/client_1/resources/search?pageSize=1000&queryString=${q('deviceGroup:Production+isEquals:false')}`);
    const exact = await get(`${T}/client_1/resources/search?pageSize=1000&queryString=${q('deviceGroup:Production+isEquals:true')}`);
    const exactWeb = await get(`${T}/client_1/resources/search?pageSize=1000&queryString=${q('deviceGroup:production web+isEquals:true')}`);
    expect(similar.body.totalResults).toBe(tenant1().resources.filter((r) => r.deviceGroup.startsWith('Production')).length);
    expect(exact.body.totalResults).toBe(0);
    expect(exactWeb.body.totalResults).toBe(tenant1().resources.filter((r) => r.deviceGroup === 'Production Web').length);
  });

  it('combines keys joined by +', async () => {
    const { body } = await get(`${T}/client_1/resources/search?pageSize=1000&queryString=${q('state:active+type:DEVICE+agentInstalled:true')}`);
    expect(ids(body.results)).toEqual(ids(tenant1().resources.filter((r) => r.state === 'active' && r.type === 'DEVICE' && r.agentInstalled)));
  });

  it.each([
    ['unknown queryString key', `queryString=${q('bogus:1')}`, /Unknown queryString key 'bogus'/],
    ['malformed segment', `queryString=${q('hostName')}`, /Malformed/],
    ['bad state', `queryString=${q('state:all')}`, /Invalid state/],
    ['bad date', `queryString=${q('startCreationDate:yesterday')}`, /Invalid date/],
    // '+' separates keys, so an offset date cannot travel in a queryString: only the Z form can.
    ['date with a +hhmm offset', `queryString=${q('startCreationDate:2025-06-01T00:00:00+0000')}`, /Malformed/],
    ['bad boolean', `queryString=${q('agentInstalled:maybe')}`, /true or false/],
    ['pageSize 0', 'pageSize=0', /pageSize/],
    ['pageNo not a number', 'pageNo=x', /pageNo/],
    ['unknown parameter', 'colour=red', /Unknown parameter/],
    ['unsortable field', 'sortName=bogus', /Cannot sort/],
  ])('answers 400 with a JSON body for %s', async (_name, query, message) => {
    const { status, body } = await get(`${T}/client_1/resources/search?${query}`);
    expect(status).toBe(400);
    expect(body).toMatchObject({ status: 400, error: 'Bad Request' });
    expect(body.message).toMatch(message);
  });
});

describe('minimal listing', () => {
  it('defaults to state=active and answers a plain array of minimal records', async () => {
    const { body } = await get(`${T}/client_1/resources/minimal`);
    expect(Array.isArray(body)).toBe(true);
    expect(ids(body)).toEqual(ids(tenant1().resources.filter((r) => r.state === 'active')));
    expect(Object.keys(body[0]).sort()).toEqual(['aliasName', 'hostName', 'id', 'ipAddress', 'name', 'resourceName', 'resourceType']);
  });

  it('accepts state=all, locationId, deviceGroupId, deviceTypeId and a queryString with state:all', async () => {
    expect((await get(`${T}/client_1/resources/minimal?state=all`)).body).toHaveLength(500);
    const loc = await get(`${T}/client_1/resources/minimal?state=all&locationId=12`);
    expect(ids(loc.body)).toEqual(ids(tenant1().resources.filter((r) => r.location.id === 12)));
    const group = await get(`${T}/client_1/resources/minimal?state=all&deviceGroupId=2`);
    expect(ids(group.body)).toEqual(ids(tenant1().resources.filter((r) => r.deviceGroup === 'Production DB')));
    const type = await get(`${T}/client_1/resources/minimal?state=all&deviceTypeId=3`);
    expect(ids(type.body)).toEqual(ids(tenant1().resources.filter((r) => r.resourceType === 'EBS')));
    const qs = await get(`${T}/client_1/resources/minimal?state=all&queryString=${q('state:all+type:SYNTHETIC')}`);
    expect(ids(qs.body)).toEqual(ids(tenant1().resources.filter((r) => r.type === 'SYNTHETIC')));
    expect((await get(`${T}/client_1/resources/minimal?state=sleeping`)).status).toBe(400);
  });
});

describe('detail, applications, availability', () => {
  it('renders the three detail shapes by resource kind', async () => {
    for (const shape of ['general', 'device', 'synthetic'] as const) {
      const r = tenant1().resources.find((x) => x.shape === shape)!;
      const { status, body } = await get(`${T}/client_1/resources/${r.id}`);
      expect(status).toBe(200);
      expect(body.id).toBe(r.id);
      if (shape === 'general') expect(body.generalInfo.hostName).toBe(r.hostName);
      // client_1 sends the keys real cloud items carry beyond the documented short form.
      if (shape === 'device') expect(Object.keys(body).sort()).toEqual(expect.arrayContaining(['clientUniqueId', 'consoles', 'createdDate', 'id', 'location', 'resourceName', 'source', 'state', 'status', 'type', 'updatedDate', 'hostName', 'name', 'installedApp', 'properties']));
      if (shape === 'synthetic') {
        expect(body.resourceType).toBe('SYNTHETIC');
        expect(body.ts).toBeGreaterThan(2 ** 32);
      }
    }
  });

  it('renders the documented short form only for a tenant without extra keys', async () => {
    const r = sim.dataset.tenants.get('client_2')!.resources.find((x) => x.shape === 'device')!;
    const { body } = await get(`${T}/client_2/resources/${r.id}`);
    expect(Object.keys(body).sort()).toEqual(['clientUniqueId', 'consoles', 'createdDate', 'id', 'location', 'resourceName', 'source', 'state', 'status', 'type', 'updatedDate']);
  });

  it('answers 404 with a body for unknown ids and tenants', async () => {
    const unknown = await get(`${T}/client_1/resources/00000000-0000-0000-0000-000000000000`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ status: 404, message: expect.stringMatching(/not found/) });
    expect((await get(`${T}/nobody/resources/search`)).status).toBe(404);
    expect((await get(`${T}/client_1/resources/nope/applications`)).status).toBe(404);
  });

  it('lists 0-30 applications per resource with documented fields', async () => {
    const r = tenant1().resources.find((x) => x.appCount > 5)!;
    const { body } = await get(`${T}/client_1/resources/${r.id}/applications`);
    expect(body).toHaveLength(r.appCount);
    expect(body[0]).toMatchObject({ id: expect.any(Number), name: expect.any(String), vendor: expect.any(String), createdDate: expect.stringMatching(/\+0000$/) });
  });

  it('computes availability consistently for any window', async () => {
    const r = tenant1().resources.filter((x) => x.outageRate > 0.01)[0]!;
    const from = 1790000000;
    const to = from + 30 * 86400;
    const mid = from + 13 * 86400 + 1234;
    const whole = (await get(`${T}/client_1/resources/${r.id}/availability?startTime=${from}&endTime=${to}`)).body;
    const a = (await get(`${T}/client_1/resources/${r.id}/availability?startTime=${from}&endTime=${mid}`)).body;
    const b = (await get(`${T}/client_1/resources/${r.id}/availability?startTime=${mid}&endTime=${to}`)).body;
    expect(whole.downTimeList.length).toBeGreaterThan(0);
    const sum = (list: { startTs: number; endTs: number }[]) => list.reduce((s, p) => s + p.endTs - p.startTs, 0);
    expect(whole.totalDowntime).toBe(sum(whole.downTimeList));
    expect(whole.totalAvailability).toBeCloseTo((100 * (to - from - whole.totalDowntime)) / (to - from), 9);
    expect(a.totalDowntime + b.totalDowntime).toBe(whole.totalDowntime);
    expect(whole.noOfOccurences).toBe(whole.downTimeList.length);
    // The log covers the window without gaps.
    expect(whole.totalLogList[0].startTs).toBe(from);
    expect(whole.totalLogList.at(-1).endTs).toBe(to);
    for (let i = 1; i < whole.totalLogList.length; i++) expect(whole.totalLogList[i].startTs).toBe(whole.totalLogList[i - 1].endTs);
    expect((await get(`${T}/client_1/resources/${r.id}/availability?startTime=${to}&endTime=${from}`)).status).toBe(400);
    expect((await get(`${T}/client_1/resources/${r.id}/availability?startTime=${from}`)).status).toBe(400);
  });
});

describe('update', () => {
  it('validates and persists, so a later read shows the change', async () => {
    const r = tenant1().resources.find((x) => x.shape === 'general')!;
    const post = (body: unknown) => fetch(`${sim.url}${T}/client_1/resources/${r.id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post({ logicalDiskDrives: [{ name: 'C:', utilizationWarningThreshold: 101 }] })).status).toBe(400);
    expect((await post({ oobInterfaceCards: [{ name: 'idrac' }] })).status).toBe(400);
    expect((await post({ colour: 'red' })).status).toBe(400);
    const ok = await post({ aliasName: 'renamed-by-test', logicalDiskDrives: [{ name: 'C:', utilizationWarningThreshold: 80 }] });
    expect(ok.status).toBe(200);
    expect((await get(`${T}/client_1/resources/${r.id}`)).body.generalInfo.aliasName).toBe('renamed-by-test');
  });
});

describe('history and antivirus', () => {
  it('lists decommissioned resources with state:DECOMMISSIONED and reads additional data on demand', async () => {
    const all = tenant1().decommissioned;
    const { body } = await get(`${T}/client_1/history/resources?pageSize=5&queryString=${q('state:DECOMMISSIONED')}`);
    expect(body).toMatchObject({ totalResults: all.length, pageSize: 5, nextPage: true });
    expect(body.results[0].state).toBe('Decommissioned');
    const id = body.results[0].id;
    const plain = (await get(`${T}/client_1/history/resources/${id}`)).body;
    const full = (await get(`${T}/client_1/history/resources/${id}?additionalInfo=true`)).body;
    expect(plain).not.toHaveProperty('bios');
    expect(full.bios.systemSerial).toBe(plain.serialNumber);
    expect(full.networkCards[0].ipAddress).toContain(';');
    const cloudy = all.find((d) => d.attributes)!;
    const byZone = await get(`${T}/client_1/history/resources?queryString=${q(`state:DECOMMISSIONED+zone:${cloudy.attributes!.zone}`)}`);
    expect(ids(byZone.body.results)).toEqual(ids(all.filter((d) => d.attributes?.zone === cloudy.attributes!.zone)));
    const from = '2026-06-01T00:00:00Z';
    const byDate = await get(`${T}/client_1/history/resources?pageSize=1000&queryString=${q(`state:DECOMMISSIONED+startDate:${from}`)}`);
    expect(ids(byDate.body.results)).toEqual(ids(all.filter((d) => d.decommissionedAt >= Date.UTC(2026, 5, 1) / 1000)));
    expect((await get(`${T}/client_1/history/resources?queryString=${q('state:ACTIVE')}`)).status).toBe(400);
  });

  it('lists antivirus records with previousPageNo, status filter and sorting', async () => {
    const all = tenant1().antivirus;
    const page2 = (await get(`${T}/client_1/resources/antivirus/search?pageSize=10&pageNo=2`)).body;
    expect(page2).toMatchObject({ previousPageNo: 1, pageNo: 2, orderBy: 'scanDate', descendingOrder: true, totalResults: all.length });
    const out = (await get(`${T}/client_1/resources/antivirus/search?pageSize=1000&queryString=${q('status:OUTOFDATE')}`)).body;
    expect(out.totalResults).toBe(all.filter((a) => a.status === 'OUTOFDATE').length);
    expect(tenant1().byId.has(out.results[0].resource.id)).toBe(true);
    expect((await get(`${T}/client_1/resources/antivirus/search?queryString=${q('status:MAYBE')}`)).status).toBe(400);
  });

  it('lists resource types with >> paths', async () => {
    const { body } = await get(`${T}/client_1/resourceType/minimal`);
    expect(body.length).toBeGreaterThan(5);
    expect(body.every((t: { path: string }) => t.path.includes('>>'))).toBe(true);
  });
});

describe('auth', () => {
  it('is off by default and, when on, issues expiring tokens and answers 401 without one', async () => {
    expect((await get(`${T}/client_1/resourceType/minimal`)).status).toBe(200);
    sim.configure({ auth: { ...sim.settings.auth, enabled: true, tokenTtlSeconds: 60 } });
    const denied = await get(`${T}/client_1/resourceType/minimal`);
    expect(denied.status).toBe(401);
    expect(denied.body).toMatchObject({ status: 401, error: 'Unauthorized' });
    const token = async (secret: string) =>
      fetch(`${sim.url}/auth/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'sim-client', client_secret: secret }).toString(),
      });
    const bad = await token('wrong');
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ error: 'invalid_client' });
    const good = await (await token('sim-secret')).json();
    expect(good).toMatchObject({ token_type: 'bearer', expires_in: 60, access_token: expect.any(String) });
    expect((await get(`${T}/client_1/resourceType/minimal`, { authorization: `Bearer ${good.access_token}` })).status).toBe(200);
    expect((await get(`${T}/client_1/resourceType/minimal`, { authorization: 'Bearer forged' })).status).toBe(401);
    sim.expireTokens();
    expect((await get(`${T}/client_1/resourceType/minimal`, { authorization: `Bearer ${good.access_token}` })).status).toBe(401);
  });

  it('revokes one token through POST /__sim/tokens/revoke while the others stay valid', async () => {
    sim.configure({ auth: { ...sim.settings.auth, enabled: true } });
    const revoked = (await tokenFrom(sim.url, 'sim-client', 'sim-secret'))!;
    const kept = (await tokenFrom(sim.url, 'sim-client', 'sim-secret'))!;
    const revoke = (body: string) => fetch(`${sim.url}/__sim/tokens/revoke`, { method: 'POST', body });
    const status = (token: string) => get(`${T}/client_1/resourceType/minimal`, { authorization: `Bearer ${token}` }).then((r) => r.status);
    const first = await revoke(JSON.stringify({ token: revoked }));
    expect([first.status, await first.json()]).toEqual([200, { revoked: true }]);
    expect([await status(revoked), await status(kept)]).toEqual([401, 200]);
    // A second revocation finds nothing to revoke; a body without a token is refused.
    expect(await (await revoke(JSON.stringify({ token: revoked }))).json()).toEqual({ revoked: false });
    expect((await revoke('{}')).status).toBe(400);
    expect((await revoke('not json')).status).toBe(400);
    expect(sim.revokeToken(kept)).toBe(true);
    expect(await status(kept)).toBe(401);
  });

  it('scopes the tokens of auth.clients to their tenants: 403 with the usual error body elsewhere', async () => {
    const scoped = await startSimulator({
      port: 0,
      auth: { enabled: true, clients: [{ clientId: 'reader-1', clientSecret: 'reader-1-secret', tenants: ['client_1'] }, { clientId: 'reader-all', clientSecret: 'reader-all-secret' }] },
    });
    try {
      const read = async (token: string, tenant: string) => {
        const response = await fetch(`${scoped.url}${T}/${tenant}/resources/search?pageSize=1`, { headers: { authorization: `Bearer ${token}` } });
        return { status: response.status, body: await response.json() };
      };
      const main = (await tokenFrom(scoped.url, 'sim-client', 'sim-secret'))!;
      const one = (await tokenFrom(scoped.url, 'reader-1', 'reader-1-secret'))!;
      const all = (await tokenFrom(scoped.url, 'reader-all', 'reader-all-secret'))!;
      expect(await tokenFrom(scoped.url, 'reader-1', 'sim-secret')).toBeNull();
      scoped.resetStats();

      expect((await read(one, 'client_1')).status).toBe(200);
      expect(await read(one, 'client_2')).toEqual({ status: 403, body: { status: 403, error: 'Forbidden', message: "This client may not access tenant 'client_2'" } });
      // Out of scope is 403 whether the tenant exists or not: a scoped client learns nothing of other tenants.
      expect((await read(one, 'no_such_tenant')).status).toBe(403);
      expect((await read(all, 'client_2')).status).toBe(200);
      expect((await read(main, 'client_2')).status).toBe(200);
      expect((await read(main, 'no_such_tenant')).status).toBe(404);
      // The request log says which client's token each request carried.
      expect(scoped.stats().requests.map((r) => [r.url.split('/')[4], r.clientId])).toEqual([
        ['client_1', 'reader-1'], ['client_2', 'reader-1'], ['no_such_tenant', 'reader-1'], ['client_2', 'reader-all'], ['client_2', 'sim-client'], ['no_such_tenant', 'sim-client'],
      ]);
      // Auth off: no token is needed and none is checked, scoped or not.
      scoped.configure({ auth: { enabled: false } });
      expect((await read(one, 'client_2')).status).toBe(200);
    } finally {
      await scoped.close();
    }
  });

  it('takes auth.clients from POST /__sim/config (refusing a malformed list with 400)', async () => {
    const config = (patch: unknown) => fetch(`${sim.url}/__sim/config`, { method: 'POST', body: JSON.stringify(patch) });
    const bad = await config({ auth: { clients: [{ clientId: 'x' }] } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ status: 400, error: 'Bad Request', message: 'auth.clients[0] needs a clientId and a clientSecret' });
    expect((await config({ auth: { clients: [{ clientId: 'x', clientSecret: 'y', tenants: 'client_1' }] } })).status).toBe(400);
    const ok = await config({ auth: { enabled: true, clients: [{ clientId: 'reader-2', clientSecret: 'reader-2-secret', tenants: ['client_2'] }] } });
    expect(ok.status).toBe(200);
    expect((await ok.json()).auth).toMatchObject({ enabled: true, clientId: 'sim-client', clients: [{ clientId: 'reader-2', clientSecret: 'reader-2-secret', tenants: ['client_2'] }] });
    try {
      const token = await tokenFrom(sim.url, 'reader-2', 'reader-2-secret');
      expect((await get(`${T}/client_2/resourceType/minimal`, { authorization: `Bearer ${token}` })).status).toBe(200);
      expect((await get(`${T}/client_1/resourceType/minimal`, { authorization: `Bearer ${token}` })).status).toBe(403);
    } finally {
      sim.configure({ auth: { clients: [] } });
    }
  });

  it('takes auth.clients from SIMULATOR_CLIENTS in `npm run simulator`, and stops with one line on a bad value', async () => {
    const clients = JSON.stringify([{ clientId: 'reader-3', clientSecret: 'reader-3-secret', tenants: ['client_3'] }]);
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/simulator/main.ts'], {
      env: { ...process.env, SIMULATOR_PORT: '0', SIMULATOR_AUTH: 'on', SIMULATOR_SIZE: '20', SIMULATOR_CLIENTS: clients }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d) => { out += d; const m = /listening on (http:\/\/\S+)/.exec(out); if (m) resolve(m[1]!); });
        child.once('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
      });
      const token = await tokenFrom(url, 'reader-3', 'reader-3-secret');
      const read = (tenant: string) => fetch(`${url}${T}/${tenant}/resources/search`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);
      expect([await read('client_3'), await read('client_1')]).toEqual([200, 403]);
    } finally {
      child.kill('SIGTERM');
    }
    const bad = spawnSync(process.execPath, ['--import', 'tsx', 'src/simulator/main.ts'], { env: { ...process.env, SIMULATOR_PORT: '0', SIMULATOR_CLIENTS: '[{"clientId":"a"}]' }, encoding: 'utf8', timeout: 20_000 });
    expect(bad.status).toBe(1);
    expect(bad.stderr.trim()).toBe('Invalid SIMULATOR_CLIENTS: auth.clients[0] needs a clientId and a clientSecret');
  });
});

/** An access token from a simulator's token endpoint, or null when the credentials are refused. */
async function tokenFrom(url: string, clientId: string, clientSecret: string): Promise<string | null> {
  const response = await fetch(`${url}/auth/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }).toString(),
  });
  const body = (await response.json()) as { access_token?: string };
  return response.status === 200 ? body.access_token ?? null : null;
}

describe('faults and latency', () => {
  it('adds the configured latency', async () => {
    sim.configure({ latencyMs: 60 });
    const started = performance.now();
    await get(`${T}/client_1/resourceType/minimal`);
    expect(performance.now() - started).toBeGreaterThanOrEqual(58);
  });

  it('injects the configured share of 503s, dropped connections and 429s with Retry-After', async () => {
    sim.configure({ failureRate: 0.3, retryAfterSeconds: 2 });
    sim.resetStats();
    const outcomes = { ok: 0, s503: 0, s429: 0, dropped: 0, retryAfter: new Set<string | null>() };
    for (let i = 0; i < 300; i++) {
      try {
        const r = await fetch(`${sim.url}${T}/client_1/resourceType/minimal`);
        await r.text();
        if (r.status === 200) outcomes.ok++;
        else if (r.status === 503) outcomes.s503++;
        else if (r.status === 429) { outcomes.s429++; outcomes.retryAfter.add(r.headers.get('retry-after')); }
      } catch {
        outcomes.dropped++;
      }
    }
    const failed = outcomes.s503 + outcomes.s429 + outcomes.dropped;
    expect(failed).toBeGreaterThan(300 * 0.2);
    expect(failed).toBeLessThan(300 * 0.4);
    expect(outcomes.s503 * outcomes.s429 * outcomes.dropped).toBeGreaterThan(0);
    expect([...outcomes.retryAfter]).toEqual(['2']);
    const stats = sim.stats();
    expect(stats.faults['503']).toBe(outcomes.s503);
    expect(stats.faults['429']).toBe(outcomes.s429);
    expect(stats.calls.resourceTypes).toBe(300);
  });

  it('tracks calls in flight and the maximum', async () => {
    // 1 s each: all 8 are in flight at once even where a busy machine takes longer than the 50 ms
    // they had to send the eighth (one core beside a busy loop did).
    sim.configure({ latencyMs: 1_000 });
    sim.resetStats();
    await Promise.all(Array.from({ length: 8 }, () => get(`${T}/client_1/resourceType/minimal`)));
    const stats = (await get('/__sim/stats')).body;
    expect(stats.maxInFlight).toBe(8);
    expect(stats.inFlight).toBe(0);
    expect(stats.calls.resourceTypes).toBe(8);
  });
});
