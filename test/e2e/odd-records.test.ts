/**
 * Upstream data is untrusted: a real HTTP upstream here feeds records with extra and missing
 * fields, '' and null, other UTC offsets, integers beyond 32 bits and outright junk. Every
 * query must still answer, mapping what it can.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { globalIdOf } from '../../src/schema/global-id.js';
import { startHarness, type Harness } from '../support/harness.js';

const BIG = 2 ** 40 + 7;
const gid = (id: string) => globalIdOf({ kind: 'Resource', tenantId: 'client_1', id });
const searchPage = {
  results: [
    {
      id: 'odd-1', hostName: 'odd-host', ipAddress: '', dns: null, createdDate: '2024-03-01T10:00:00+0530', state: 'ACTIVE', type: 'DEVICE',
      agentInstalled: 'true', ts: BIG, clientId: BIG, totalLocations: '3', consoles: 'not-an-array', attributes: { network: [{ ip: '10.0.0.9', mac: null, aliasIp: ' 10.0.0.10 , ,10.0.0.11' }, 'junk'] },
      unexpected: { nested: [1, 2, 3] }, assetManagedTime: '', firstAssetManagedTime: '2024-03-01T10:00:00-08:00',
    },
    'not-a-record',
    { hostName: 'no-id-here' },
    { id: 'odd-2', createdDate: 'yesterday-ish', state: 'weird', deleted: 'maybe', agentInstalled: null, ts: 'NaN', client: [], attributes: null },
    { id: 42, hostName: 123, createdDate: 1709287200, state: 'inactive' },
  ],
  totalResults: '5',
  pageNo: 1,
  pageSize: 5,
  extra: 'envelope field',
};
const details: Record<string, unknown> = {
  'odd-1': {
    id: 'odd-1', generalInfo: { hostName: 'odd-host', createdTime: '2024-03-01T10:00:00.123Z', updatedTime: '', agentDeploytime: null, physicalMemory: 16 },
    location: { id: '7', name: '' }, tags: [{ name: 'env', value: null }, { value: 'orphan' }, null], components: ['cpu', null, 5],
    networkCardDetails: [{ id: BIG, networkName: 'eth0', dhcpEnabled: 'false', aliasIps: '' }], installedApp: { displayName: 'no id' },
    properties: { provider: 'AWS', launchDate: '2023-01-01T00:00:00+0000' }, metricTypes: [{ displayName: 'no name' }, { metricName: 'cpu' }], appRoles: [{ name: '' }, { name: 'kafka' }, 'x'],
  },
  'odd-2': { id: 'odd-2', resourceType: 'SYNTHETIC', ts: BIG * 1000, credential: { id: 'abc', port: 70000, timeoutMs: BIG, oauthClientSecret: null, oauthClientKey: '' }, locationUuids: ['a', null, 3] },
  '42': { id: '42', type: 'EBS', location: 'somewhere', createdDate: '2024-13-45T99:00:00+0000', updatedDate: '2024-02-29T23:59:59+1400' },
};
const applications = [
  { id: BIG, name: 'big-id', installedDate: '', createdDate: '2024-01-01T00:00:00+0000' },
  { id: 'x', name: 'bad id' },
  { id: 3, name: '' },
  { id: 4, name: 'fine', vendor: null, modifiedDate: 1704067200 },
];
const availability = {
  totalAvailability: '99.5', totalDowntime: BIG, currentState: null, totalLogList: [{ startTs: 1704067200, endTs: 1704070800, state: 0, key: 7 }, { startTs: 'x', endTs: 1, state: 1 }, null],
  downTimeList: 'none', noOfOccurences: BIG, degradedTimeList: null, extra: true,
};

let upstream: http.Server;
let h: Harness;

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://odd');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const path = url.pathname.replace('/api/v2/tenants/client_1', '');
    if (path === '/resources/search') {
      const id = /^id:(.*)$/.exec(url.searchParams.get('queryString') ?? '')?.[1];
      return send(200, id ? { ...searchPage, results: searchPage.results.filter((r) => typeof r === 'object' && String((r as { id?: unknown }).id) === id) } : searchPage);
    }
    if (path === '/resources/minimal') return send(200, [{ id: 'odd-1', name: '', hostName: null }, 7, { id: '' }]);
    const detail = /^\/resources\/([^/]+)$/.exec(path);
    if (detail) return details[detail[1]!] ? send(200, details[detail[1]!]) : send(404, { message: 'nope' });
    if (/\/applications$/.test(path)) return send(200, applications);
    if (/\/availability$/.test(path)) return send(200, availability);
    if (path === '/resourceType/minimal') return send(200, [{ id: 1, name: ' Linux ', path: 'Server >>  Linux >>' }, { id: 'x' }, { id: 2, name: 'NoPath' }]);
    if (path === '/resources/antivirus/search') return send(200, { results: [{ status: 'uptodate', scanDate: '', resource: { id: 'odd-1' } }, { status: 'WHAT', resource: null }], totalResults: 2 });
    if (path === '/history/resources') return send(200, { results: [{ id: 'h1', state: 'Decommissioned', attributes: {}, history: null, tags: 'x' }], totalResults: 1 });
    return send(404, {});
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  h = await startHarness({ upstreamUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` });
});
afterAll(async () => {
  await h.close();
  await new Promise((resolve) => upstream.close(resolve));
});

describe('odd upstream records', () => {
  it('maps a search page of odd records without errors, dropping only records without an id', async () => {
    const res = await h.query(`{ tenant(id: "client_1") { resources(first: 5) { totalCount edges { cursor node {
      id resourceId hostName ipAddress dns createdAt state agentInstalled ts clientId totalLocations consoles deleted assetManagedAt firstAssetManagedAt
      networkAddresses { ip mac aliasIps } client { number name }
    } } } } }`);
    expect(res.errors).toBeUndefined();
    const conn = res.data!.tenant.resources;
    expect(conn.totalCount).toBe(5);
    expect(conn.edges.map((e: any) => e.node.resourceId)).toEqual(['odd-1', 'odd-2', '42']);
    expect(conn.edges.map((e: any) => e.node.id)).toEqual(['odd-1', 'odd-2', '42'].map(gid));
    // Cursors keep the upstream positions of the surviving records.
    expect(conn.edges.map((e: any) => Buffer.from(e.cursor, 'base64url').toString())).toEqual(['o:0', 'o:3', 'o:4']);
    const [one, two, three] = conn.edges.map((e: any) => e.node);
    expect(one).toEqual({
      id: gid('odd-1'), resourceId: 'odd-1', hostName: 'odd-host', ipAddress: null, dns: null, createdAt: '2024-03-01T04:30:00Z', state: 'ACTIVE', agentInstalled: true,
      ts: BIG, clientId: null, totalLocations: 3, consoles: [], deleted: null, assetManagedAt: null, firstAssetManagedAt: '2024-03-01T18:00:00Z',
      networkAddresses: [{ ip: '10.0.0.9', mac: null, aliasIps: ['10.0.0.10', '10.0.0.11'] }], client: null,
    });
    expect(two).toMatchObject({ resourceId: 'odd-2', createdAt: null, state: null, deleted: null, agentInstalled: null, ts: null, client: null, networkAddresses: [] });
    expect(three).toMatchObject({ resourceId: '42', hostName: '123', createdAt: '2024-03-01T10:00:00Z', state: 'INACTIVE' });
  });

  it('maps odd detail records of all three shapes', async () => {
    const res = await h.query(`{ tenant(id: "client_1") {
      general: resource(id: "odd-1") { __typename ... on GeneralResource { createdAt updatedAt agentDeployedAt physicalMemory location { number name } tags { name value } components
        networkCards { index dhcpEnabled aliasIps } installedIntegration { installId } cloud { provider launchedAt } metricTypes { name } appRoles } }
      synthetic: resource(id: "odd-2") { __typename ... on SyntheticResource { ts locationUuids credential { number port timeoutMs hasClientKey hasClientSecret } } }
      device: resource(id: "42") { __typename createdAt updatedAt location { number } }
    } }`);
    expect(res.errors).toBeUndefined();
    expect(res.data!.tenant).toEqual({
      general: {
        __typename: 'GeneralResource', createdAt: '2024-03-01T10:00:00.123Z', updatedAt: null, agentDeployedAt: null, physicalMemory: '16', location: { number: 7, name: null },
        tags: [{ name: 'env', value: null }], components: ['cpu', '5'], networkCards: [{ index: null, dhcpEnabled: false, aliasIps: [] }], installedIntegration: null,
        cloud: { provider: 'AWS', launchedAt: '2023-01-01T00:00:00Z' }, metricTypes: [{ name: 'cpu' }], appRoles: ['kafka'],
      },
      synthetic: { __typename: 'SyntheticResource', ts: BIG * 1000, locationUuids: ['a', '3'], credential: { number: null, port: 70000, timeoutMs: null, hasClientKey: false, hasClientSecret: false } },
      device: { __typename: 'DeviceResource', createdAt: null, updatedAt: '2024-02-29T09:59:59Z', location: null },
    });
  });

  it('maps odd applications, availability, minimal records, types, antivirus and history', async () => {
    const res = await h.query(`{ tenant(id: "client_1") {
      resource(id: "odd-1") { applications { number name vendor installedAt createdAt modifiedAt }
        availability(from: 1704067200, to: 1704153600) { availabilityPercent downtimeSeconds currentState downOccurrences periods { key state durationSeconds } downPeriods { start } degradedPeriods } }
      resourceList { resourceId name hostName }
      resourceTypes { id number name path levels }
      antivirusDefinitions(first: 5) { nodes { status scanDate resource { resourceId } } }
      decommissionedResources(first: 5) { nodes { id resourceId state cloud { provider } decommissionReason tags { name } } }
    } }`);
    expect(res.errors).toBeUndefined();
    const t = res.data!.tenant;
    expect(t.resource.applications).toEqual([
      { number: BIG, name: 'big-id', vendor: null, installedAt: null, createdAt: '2024-01-01T00:00:00Z', modifiedAt: null },
      { number: 4, name: 'fine', vendor: null, installedAt: null, createdAt: null, modifiedAt: '2024-01-01T00:00:00Z' },
    ]);
    expect(t.resource.availability).toEqual({
      availabilityPercent: 99.5, downtimeSeconds: BIG, currentState: null, downOccurrences: null, periods: [{ key: '7', state: 'DOWN', durationSeconds: 3600 }], downPeriods: [], degradedPeriods: [],
    });
    expect(t.resourceList).toEqual([{ resourceId: 'odd-1', name: null, hostName: null }]);
    // Ordered by path: 'NoPath' before 'Server >> ...'.
    const typeId = (number: number) => globalIdOf({ kind: 'ResourceType', tenantId: 'client_1', number });
    expect(t.resourceTypes).toEqual([
      { id: typeId(2), number: 2, name: 'NoPath', path: 'NoPath', levels: ['NoPath'] },
      { id: typeId(1), number: 1, name: 'Linux', path: 'Server >>  Linux >>', levels: ['Server', 'Linux'] },
    ]);
    expect(t.antivirusDefinitions.nodes).toEqual([{ status: 'UP_TO_DATE', scanDate: null, resource: { resourceId: 'odd-1' } }, { status: null, scanDate: null, resource: null }]);
    expect(t.decommissionedResources.nodes).toEqual([{ id: globalIdOf({ kind: 'DecommissionedResource', tenantId: 'client_1', id: 'h1' }), resourceId: 'h1', state: 'DECOMMISSIONED', cloud: null, decommissionReason: null, tags: [] }]);
  });
});
