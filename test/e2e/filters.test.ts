/** Every filter key reaches the upstream queryString as documented; hostile values never do. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APP_ROLES } from '../../src/domain/app-roles.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.resetCounts());

const sample = () => h.simulator.dataset.tenants.get('client_1')!.resources.find((r) => r.shape === 'general' && r.aliasName && r.instanceId && r.network[0]?.aliasIp)!;
const withAccount = () => h.simulator.dataset.tenants.get('client_1')!.resources.find((r) => r.accountNumber)!;
const sentQueryStrings = (route: string) =>
  h.simulator.stats().requests.filter((r) => r.route === route).map((r) => new URL(r.url, 'http://x').searchParams.get('queryString'));

describe('ResourceFilter -> queryString', () => {
  const cases: [string, () => Record<string, unknown>, () => string][] = [
    ['hostName', () => ({ hostName: sample().hostName }), () => `hostName:${sample().hostName}`],
    ['resourceName', () => ({ resourceName: 'Load Balancer' }), () => 'resourceName:Load Balancer'],
    ['dnsName', () => ({ dnsName: 'corp.example.com' }), () => 'dnsName:corp.example.com'],
    ['aliasName', () => ({ aliasName: sample().aliasName }), () => `aliasName:${sample().aliasName}`],
    ['id', () => ({ id: sample().id }), () => `id:${sample().id}`],
    ['serialNumber', () => ({ serialNumber: sample().serialNumber }), () => `serialNumber:${sample().serialNumber}`],
    ['ipAddress', () => ({ ipAddress: sample().ipAddress }), () => `ipAddress:${sample().ipAddress}`],
    ['systemUID', () => ({ systemUID: sample().systemUID }), () => `systemUID:${sample().systemUID}`],
    ['state', () => ({ state: 'DISCOVERED' }), () => 'state:discovered'],
    ['type', () => ({ type: 'LOAD_BALANCER' }), () => 'type:LOAD_BALANCER'],
    ['resourceTypes', () => ({ resourceTypes: ['Linux', 'EBS'] }), () => 'resourceType:Linux,EBS'],
    ['deviceTypes', () => ({ deviceTypes: ['Storage', 'Switch'] }), () => 'deviceType:Storage,Switch'],
    ['appRoles', () => ({ appRoles: ['KAFKA', 'DNS_SERVER', 'MEMORY_STATS'] }), () => 'appRoles:kafka,DNS-Server,MemoryStats'],
    ['createdBetween', () => ({ createdBetween: { from: '2025-01-01T00:00:00Z', to: '2025-07-01T12:00:00+02:00' } }), () => 'startCreationDate:2025-01-01T00:00:00Z+endCreationDate:2025-07-01T10:00:00Z'],
    ['updatedBetween', () => ({ updatedBetween: { from: 1767225600 } }), () => 'startUpdationDate:2026-01-01T00:00:00Z'],
    ['tags', () => ({ tags: ['env', 'tier'] }), () => 'tags:env,tier'],
    ['template', () => ({ template: 'tmpl-3' }), () => 'template:tmpl-3'],
    ['agentProfile', () => ({ agentProfile: 'agent-2' }), () => 'agentProfile:agent-2'],
    ['gatewayProfile', () => ({ gatewayProfile: '2' }), () => 'gatewayProfile:2'],
    ['instanceId', () => ({ instanceId: sample().instanceId }), () => `instanceId:${sample().instanceId}`],
    ['accountNumber', () => ({ accountNumber: withAccount().accountNumber }), () => `accountNumber:${withAccount().accountNumber}`],
    ['installedIntegrationId', () => ({ installedIntegrationId: 'intg-aws' }), () => 'installedIntgId:intg-aws'],
    ['agentInstalled', () => ({ agentInstalled: false }), () => 'agentInstalled:false'],
    ['deviceGroup', () => ({ deviceGroup: { name: 'Production Web', exact: true } }), () => 'deviceGroup:Production Web+isEquals:true'],
    ['serviceGroup', () => ({ serviceGroup: { name: 'Bill' } }), () => 'serviceGroup:Bill+isEquals:false'],
    ['deviceLocation', () => ({ deviceLocation: { name: 'DC' }, serviceGroup: { name: 'Search' } }), () => 'serviceGroup:Search+deviceLocation:DC+isEquals:false'],
    ['firstAssetManagedTime', () => ({ firstAssetManagedTime: '2026-01-01T00:00:00Z' }), () => 'firstAssetManagedTime:2026-01-01T00:00:00Z'],
    ['assetManagedTime', () => ({ assetManagedTime: '2026-01-01T00:00:00Z' }), () => 'assetManagedTime:2026-01-01T00:00:00Z'],
    ['aliasIp', () => ({ aliasIp: sample().network[0]!.aliasIp.split(',')[0] }), () => `aliasIp:${sample().network[0]!.aliasIp.split(',')[0]}`],
  ];

  it.each(cases)('%s', async (_name, filter, expected) => {
    const res = await h.query('query($filter: ResourceFilter) { tenant(id: "client_1") { resources(first: 500, filter: $filter) { totalCount nodes { resourceId } } } }', { filter: filter() });
    expect(res.errors).toBeUndefined();
    expect(sentQueryStrings('search')).toEqual([expected()]);
    // The connection's default order: by name, A to Z.
    const rest = await h.rest(`client_1/resources/search?pageSize=500&queryString=${encodeURIComponent(expected())}&sortName=name&isDescendingOrder=false`);
    expect(res.data!.tenant.resources.totalCount).toBe(rest.totalResults);
    expect(res.data!.tenant.resources.nodes.map((n: { resourceId: string }) => n.resourceId)).toEqual(rest.results.map((r: { id: string }) => r.id));
    expect(rest.totalResults).toBeGreaterThan(0);
  });

  it('joins several keys with + in one queryString', async () => {
    await h.query('{ tenant(id: "client_1") { resources(first: 5, filter: { state: ACTIVE, type: "DEVICE", agentInstalled: true, tags: ["env"] }) { totalCount } } }');
    expect(sentQueryStrings('search')).toEqual(['state:active+type:DEVICE+tags:env+agentInstalled:true']);
  });

  it('exposes all 45 documented appRoles', async () => {
    const res = await h.query('{ __type(name: "AppRole") { enumValues { name } } }');
    expect(res.data!.__type.enumValues).toHaveLength(45);
    expect(APP_ROLES).toHaveLength(45);
    const all = res.data!.__type.enumValues.map((v: { name: string }) => v.name);
    await h.query(`{ tenant(id: "client_1") { resources(first: 1, filter: { appRoles: [${all.join(', ')}] }) { totalCount } } }`);
    const [sent] = sentQueryStrings('search');
    expect(sent!.startsWith('appRoles:')).toBe(true);
    expect(sent!.slice('appRoles:'.length).split(',').sort()).toEqual([...APP_ROLES].sort());
  });

  it('passes the filter to the minimal listing too', async () => {
    await h.query('{ tenant(id: "client_1") { resourceList(state: ALL, filter: { hostName: "lnx", deviceGroup: { name: "Lab", exact: true } }) { resourceId } } }');
    expect(sentQueryStrings('minimal')).toEqual(['hostName:lnx+deviceGroup:Lab+isEquals:true']);
  });
});

describe('DecommissionedResourceFilter -> queryString', () => {
  it.each([
    [{ hostName: 'old-srv' }, 'state:DECOMMISSIONED+hostName:old-srv'],
    [{ id: 'abc-1', ipAddress: '10.0.0.1', instanceId: 'i-1', tags: ['env'] }, 'state:DECOMMISSIONED+id:abc-1+ipAddress:10.0.0.1+instanceId:i-1+tags:env'],
    [{ decommissionedBetween: { from: '2026-01-01T00:00:00Z', to: '2026-06-30T00:00:00Z' } }, 'state:DECOMMISSIONED+startDate:2026-01-01T00:00:00Z+endDate:2026-06-30T00:00:00Z'],
    [{ type: 'DEVICE', accountNumber: '42', provider: 'AWS', owner: '7' }, 'state:DECOMMISSIONED+type:DEVICE+accountNumber:42+provider:AWS+owner:7'],
    [{ instanceType: 't3.large', instanceState: 'DECOMMISSIONED', zone: 'eu-west-1a', region: 'eu-west-1' }, 'state:DECOMMISSIONED+instanceType:t3.large+instanceState:DECOMMISSIONED+zone:eu-west-1a+region:eu-west-1'],
    [{ ami: 'ami-1', hostedServiceName: 'svc-1', launchedBetween: { from: '2025-01-01T00:00:00Z' } }, 'state:DECOMMISSIONED+ami:ami-1+hostedServiceName:svc-1+startLaunchDate:2025-01-01T00:00:00Z'],
  ])('%j', async (filter, expected) => {
    const res = await h.query('query($f: DecommissionedResourceFilter) { tenant(id: "client_1") { decommissionedResources(first: 50, filter: $f) { totalCount } } }', { f: filter });
    expect(res.errors).toBeUndefined();
    expect(sentQueryStrings('history')).toEqual([expected]);
    const rest = await h.rest(`client_1/history/resources?pageSize=50&queryString=${encodeURIComponent(expected)}`);
    expect(res.data!.tenant.decommissionedResources.totalCount).toBe(rest.totalResults);
  });

  it('filters antivirus definitions by status', async () => {
    await h.query('{ tenant(id: "client_1") { antivirusDefinitions(first: 5, status: UP_TO_DATE) { totalCount } } }');
    expect(sentQueryStrings('antivirus')).toEqual(['status:UPTODATE']);
  });
});

describe('hostile filter values', () => {
  const hostile: [string, Record<string, unknown>][] = [
    ['a + smuggling a second key', { hostName: 'a+state:inactive' }],
    ['a colon', { hostName: 'x:y' }],
    ['a newline', { resourceName: 'web\nstate:inactive' }],
    ['a carriage return', { aliasName: 'a\rb' }],
    ['a NUL', { dnsName: 'a\u0000b' }],
    ['a 10 kB string', { hostName: 'x'.repeat(10_000) }],
    ['an empty string', { template: '   ' }],
    ['a comma inside a list item', { tags: ['env,state:inactive'] }],
    ['a + inside a list item', { resourceTypes: ['Linux+state:inactive'] }],
    ['an empty list', { deviceTypes: [] }],
    ['a malformed ip', { ipAddress: '10.0.0.1+state:x' }],
    ['an id with a slash', { id: '../etc/passwd' }],
    ['a group name with +', { deviceGroup: { name: 'a+b' } }],
    ['disagreeing exact flags', { deviceGroup: { name: 'a', exact: true }, serviceGroup: { name: 'b', exact: false } }],
    ['an inverted date range', { createdBetween: { from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' } }],
    ['a DECOMMISSIONED state', { state: 'DECOMMISSIONED' }],
    ['a unicode line separator', { hostName: 'a\u2028b' }],
  ];
  it.each(hostile)('%s gives BAD_USER_INPUT and no upstream call', async (_name, filter) => {
    const res = await h.query('query($filter: ResourceFilter) { tenant(id: "client_1") { resources(first: 5, filter: $filter) { totalCount } } }', { filter });
    expect(res.data).toEqual({ tenant: { resources: null } });
    expect(res.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    expect(h.simulator.stats().totalCalls).toBe(0);
  });

  it('refuses a date without an offset', async () => {
    const res = await h.query('{ tenant(id: "client_1") { resources(first: 5, filter: { firstAssetManagedTime: "2026-01-01T00:00:00" }) { totalCount } } }');
    expect(res.errors?.[0]?.message).toMatch(/DateTime/);
    expect(h.simulator.stats().totalCalls).toBe(0);
  });
});
