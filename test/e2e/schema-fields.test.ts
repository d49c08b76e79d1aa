/** Every root field and type of the graph, compared with what the simulator's REST API answers. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { globalIdOf } from '../../src/schema/global-id.js';
import { startHarness, upstreamCalls, type Harness } from '../support/harness.js';

let h: Harness;
const iso = (upstream: string | number | null | undefined) => {
  if (upstream === null || upstream === undefined || upstream === '') return null;
  if (typeof upstream === 'number') return new Date(upstream * 1000).toISOString().replace('.000Z', 'Z');
  const m = /^(.{19})([+-]\d{2})(\d{2})$/.exec(upstream)!;
  return new Date(`${m[1]}${m[2]}:${m[3]}`).toISOString().replace('.000Z', 'Z');
};
const orNull = (s: string | null | undefined) => (s === '' || s === undefined ? null : s);
const resourceGid = (id: string, tenantId = 'client_1') => globalIdOf({ kind: 'Resource', tenantId, id });
const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
/** The order of resourceList: by name, then host name, then id. */
const byName = (a: any, b: any) => collator.compare(a.name ?? '', b.name ?? '') || collator.compare(a.hostName ?? '', b.hostName ?? '') || collator.compare(a.id, b.id);
/** The order of resourceTypes: by path. */
const byPath = (a: any, b: any) => collator.compare(a.path, b.path);
/** The default order of Tenant.resources, as the upstream sorts. */
const BY_NAME = 'sortName=name&isDescendingOrder=false';

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.resetCounts());

describe('Query.tenant', () => {
  it('makes no upstream call by itself', async () => {
    const res = await h.query('{ tenant(id: "client_1") { id tenantId } }');
    expect(res).toEqual({ data: { tenant: { id: globalIdOf({ kind: 'Tenant', tenantId: 'client_1' }), tenantId: 'client_1' } } });
    expect(h.simulator.stats().totalCalls).toBe(0);
  });

  it('refuses a tenant id that is not a plain id', async () => {
    const res = await h.query('{ tenant(id: "../admin") { id } }');
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});

describe('Tenant.resources (search)', () => {
  it('maps every search field, and decides SYNTHETIC without a detail call', async () => {
    const rest = await h.rest(`client_1/resources/search?pageSize=50&${BY_NAME}`);
    const res = await h.query(`{ tenant(id: "client_1") { resources(first: 50) { totalCount nodes {
      id resourceId tenantId name hostName ipAddress dns aliasName resourceName resourceType type state source agentInstalled createdAt
      make model osName description classCode deviceType devicePath gatewayProfileId clientId deleted ts locationOffset totalLocations
      assetManagedAt firstAssetManagedAt consoles client { number uniqueId name } networkAddresses { ip mac aliasIps }
    } } } }`);
    expect(res.errors).toBeUndefined();
    const nodes = res.data!.tenant.resources.nodes;
    expect(res.data!.tenant.resources.totalCount).toBe(rest.totalResults);
    expect(nodes).toHaveLength(50);
    rest.results.forEach((r: any, i: number) => {
      expect(nodes[i]).toEqual({
        id: resourceGid(r.id), resourceId: r.id, tenantId: 'client_1', name: orNull(r.name), hostName: orNull(r.hostName), ipAddress: orNull(r.ipAddress), dns: orNull(r.dns),
        aliasName: orNull(r.aliasName), resourceName: orNull(r.resourceName), resourceType: r.resourceType, type: r.type, state: r.state.toUpperCase(),
        source: r.source, agentInstalled: r.agentInstalled, createdAt: iso(r.createdDate), make: orNull(r.make), model: orNull(r.model),
        osName: orNull(r.osName), description: orNull(r.description), classCode: r.classCode, deviceType: r.deviceType, devicePath: r.devicePath,
        gatewayProfileId: r.gatewayProfileId, clientId: r.clientId, deleted: r.deleted, ts: r.ts, locationOffset: r.locationOffset,
        totalLocations: r.totalLocations, assetManagedAt: iso(r.assetManagedTime), firstAssetManagedAt: iso(r.firstAssetManagedTime), consoles: r.consoles,
        client: { number: r.client.id, uniqueId: r.client.uniqueId, name: r.client.name }, networkAddresses: r.attributes.network.map((n: any) => ({ ip: n.ip, mac: n.mac, aliasIps: n.aliasIp ? n.aliasIp.split(',') : [] })),
      });
    });
    // Only search-form fields were asked for: one upstream call.
    expect(upstreamCalls(h)).toEqual({ search: 1 });
  });

  it('resolves __typename from the type the search record carries, as the detail shape would, without a detail call', async () => {
    const rest = await h.rest(`client_1/resources/search?pageSize=40&${BY_NAME}`);
    const res = await h.query('{ tenant(id: "client_1") { resources(first: 40) { nodes { __typename resourceId } } } }');
    expect(res.data!.tenant.resources.nodes).toHaveLength(40);
    for (const [i, node] of res.data!.tenant.resources.nodes.entries()) {
      const shape = h.simulator.dataset.tenants.get('client_1')!.byId.get(node.resourceId)!.shape;
      expect(node.__typename).toBe({ general: 'GeneralResource', device: 'DeviceResource', synthetic: 'SyntheticResource' }[shape]);
      expect(node.resourceId).toBe(rest.results[i].id);
    }
    expect(upstreamCalls(h)).toEqual({ search: 1 });
  });

  it('includes status when includeStatus is true, without a detail call', async () => {
    const res = await h.query('{ tenant(id: "client_1") { resources(first: 5, includeStatus: true) { nodes { resourceId status } } } }');
    const rest = await h.rest(`client_1/resources/search?pageSize=5&includeStatus=true&${BY_NAME}`);
    expect(res.data!.tenant.resources.nodes.map((n: any) => [n.resourceId, n.status])).toEqual(rest.results.map((r: any) => [r.id, r.status]));
    expect(upstreamCalls(h)).toEqual({ search: 1 });
  });

  it('orders by each order field and direction as the upstream does', async () => {
    for (const [field, sortName] of [['HOST_NAME', 'hostName'], ['CREATED_DATE', 'createdDate'], ['IP_ADDRESS', 'ipAddress'], ['NAME', 'name'], ['RESOURCE_TYPE', 'resourceType'], ['STATE', 'state'], ['ID', 'id']]) {
      for (const direction of ['ASC', 'DESC']) {
        const res = await h.query(`{ tenant(id: "client_1") { resources(first: 10, orderBy: { field: ${field}, direction: ${direction} }) { nodes { resourceId } } } }`);
        const rest = await h.rest(`client_1/resources/search?pageSize=10&sortName=${sortName}&isDescendingOrder=${direction === 'DESC'}`);
        expect(res.data!.tenant.resources.nodes.map((n: any) => n.resourceId)).toEqual(rest.results.map((r: any) => r.id));
      }
    }
    // Without orderBy: by name, A to Z.
    const res = await h.query('{ tenant(id: "client_1") { resources(first: 10) { nodes { resourceId } } } }');
    const rest = await h.rest(`client_1/resources/search?pageSize=10&${BY_NAME}`);
    expect(res.data!.tenant.resources.nodes.map((n: any) => n.resourceId)).toEqual(rest.results.map((r: any) => r.id));
  });
});

describe('Tenant.resource (detail) and the three types', () => {
  const shapeQuery = `query($id: ID!) { tenant(id: "client_1") { resource(id: $id) {
    __typename id resourceId name hostName ipAddress state status source createdAt updatedAt location { number name city clientId mspId } tags { name value source } consoles
    ... on GeneralResource { extResourceId dns make model osName description physicalMemory keyboardType encodingType agentDeployedAt assetManagedAt firstAssetManagedAt
      components bios { systemSerial systemModel } cpus networkCards { index name status ipAddress macAddress dhcpEnabled linkMode aliasIps }
      installedIntegration { installId displayName integrationId integrationName } cloud { provider instanceId publicIp launchedAt zone }
      metricTypes { name displayName unit availabilityMetric thresholdType } clientUniqueId appRoles wsusSettings }
    ... on DeviceResource { clientUniqueId type resourceName }
    ... on SyntheticResource { checkType host url deleted locationUuids ts resourceType
      credential { number secure port snmpVersion autoEnableMode universal spSecure spPort securityLevel timeoutMs oauthAccessTokenUrl oauthGrantType hasClientKey hasClientSecret oauthClientKey oauthClientSecret } }
  } } }`;

  it('maps the general form', async () => {
    const sim = h.simulator.dataset.tenants.get('client_1')!.resources.find((r) => r.shape === 'general' && r.cloud && r.installedIntgId)!;
    const rest = await h.rest(`client_1/resources/${sim.id}`);
    const res = await h.query(shapeQuery, { id: sim.id });
    expect(res.errors).toBeUndefined();
    const g = rest.generalInfo;
    expect(res.data!.tenant.resource).toEqual({
      __typename: 'GeneralResource', id: resourceGid(sim.id), resourceId: sim.id, name: g.name, hostName: g.hostName, ipAddress: rest.ipAddress, state: 'ACTIVE'.toLowerCase() === rest.state ? 'ACTIVE' : rest.state.toUpperCase(),
      status: rest.status, source: rest.source, createdAt: iso(g.createdTime), updatedAt: iso(g.updatedTime),
      location: { number: rest.location.id, name: rest.location.name, city: rest.location.city, clientId: rest.location.clientId, mspId: rest.location.mspId },
      tags: rest.tags.map((t: any) => ({ name: t.name, value: t.value, source: t.tagSource })), consoles: [],
      extResourceId: orNull(rest.extResourceId), dns: g.dns, make: g.make, model: sim.model, osName: g.osName, description: g.description,
      physicalMemory: g.physicalMemory, keyboardType: orNull(g.keyboardType), encodingType: g.encodingType, agentDeployedAt: iso(g.agentDeploytime),
      assetManagedAt: iso(g.assetManagedTime), firstAssetManagedAt: iso(g.firstAssetManagedTime), components: rest.components, bios: rest.bios, cpus: rest.cpus,
      networkCards: rest.networkCardDetails.map((n: any) => ({ index: n.id, name: n.networkName, status: n.status, ipAddress: n.ipAddress, macAddress: n.macAddress, dhcpEnabled: n.dhcpEnabled, linkMode: n.linkMode, aliasIps: n.aliasIps ? n.aliasIps.split(',') : [] })),
      installedIntegration: { installId: rest.installedApp.id, displayName: rest.installedApp.displayName, integrationId: rest.installedApp.integration.id, integrationName: rest.installedApp.integration.name },
      cloud: { provider: rest.properties.provider, instanceId: rest.properties.instanceId, publicIp: rest.properties.publicIp, launchedAt: null, zone: rest.properties.zone },
      metricTypes: rest.metricTypes.map((m: any) => ({ name: m.metricName, displayName: m.displayName, unit: m.unit, availabilityMetric: m.availabilityMetric, thresholdType: m.thresholdType })),
      clientUniqueId: rest.clientUniqueId, appRoles: rest.appRoles.map((a: any) => a.name), wsusSettings: orNull(rest.wsusSettings),
    });
    // model is not in the general detail: it came from the search form (search by id).
    expect(upstreamCalls(h)).toEqual({ detail: 1, search: 1 });
  });

  it('maps the short device form; names come from the cloud item\'s detail, tags (which it lacks) from one search by id', async () => {
    const sim = h.simulator.dataset.tenants.get('client_1')!.resources.find((r) => r.shape === 'device')!;
    const rest = await h.rest(`client_1/resources/${sim.id}`);
    const res = await h.query(shapeQuery, { id: sim.id });
    expect(res.data!.tenant.resource).toMatchObject({
      __typename: 'DeviceResource', id: resourceGid(sim.id), resourceId: sim.id, status: rest.status, createdAt: iso(rest.createdDate), updatedAt: iso(rest.updatedDate),
      location: { number: rest.location.id, name: rest.location.name, city: null, clientId: null, mspId: null },
      tags: sim.tags.map((t) => ({ name: t.name, value: t.value, source: t.tagSource })),
      clientUniqueId: rest.clientUniqueId, type: rest.type, resourceName: rest.resourceName, name: sim.name, hostName: sim.hostName,
    });
    expect(upstreamCalls(h)).toEqual({ detail: 1, search: 1 });
  });

  it('maps the synthetic form, hiding credential secrets by default', async () => {
    const sim = h.simulator.dataset.tenants.get('client_1')!.resources.find((r) => r.shape === 'synthetic' && r.synthetic!.credential.oauthClientSecret)!;
    const rest = await h.rest(`client_1/resources/${sim.id}`);
    const res = await h.query(shapeQuery, { id: sim.id });
    const c = rest.credential;
    expect(res.data!.tenant.resource).toMatchObject({
      __typename: 'SyntheticResource', id: resourceGid(sim.id), resourceId: sim.id, checkType: rest.checkType, host: rest.host, url: rest.url, deleted: rest.deleted, locationUuids: rest.locationUuids,
      ts: rest.ts, resourceType: 'SYNTHETIC', name: rest.name,
      credential: {
        number: c.id, secure: c.secure, port: c.port, snmpVersion: null, autoEnableMode: c.autoEnableMode, universal: c.universal, spSecure: c.spSecure,
        spPort: c.spPort, securityLevel: c.securityLevel, timeoutMs: c.timeoutMs, oauthAccessTokenUrl: c.oauthAccessTokenUrl, oauthGrantType: c.oauthGrantType,
        hasClientKey: c.oauthClientKey !== '', hasClientSecret: true, oauthClientKey: null, oauthClientSecret: null,
      },
    });
    expect(JSON.stringify(res)).not.toContain(c.oauthClientSecret);
  });

  it('answers null without an error for an unknown id', async () => {
    const res = await h.query('{ tenant(id: "client_1") { resource(id: "00000000-0000-0000-0000-000000000000") { id resourceId } } }');
    expect(res).toEqual({ data: { tenant: { resource: null } } });
  });
});

describe('applications and availability', () => {
  it('maps installed applications', async () => {
    const sim = h.simulator.dataset.tenants.get('client_1')!.resources.find((r) => r.appCount > 3)!;
    const rest = await h.rest(`client_1/resources/${sim.id}/applications`);
    const res = await h.query('query($id: ID!) { tenant(id: "client_1") { resource(id: $id) { applications { number name vendor version installedAt createdAt modifiedAt } } } }', { id: sim.id });
    expect(res.data!.tenant.resource.applications).toEqual(
      rest.map((a: any) => ({ number: a.id, name: a.name, vendor: a.vendor, version: a.version, installedAt: iso(a.installedDate), createdAt: iso(a.createdDate), modifiedAt: iso(a.modifiedDate) })),
    );
  });

  it('maps availability over a window, with periods and totals', async () => {
    const sim = h.simulator.dataset.tenants.get('client_1')!.resources.find((r) => r.outageRate > 0.01)!;
    const from = 1790000000;
    const to = from + 20 * 86400;
    const rest = await h.rest(`client_1/resources/${sim.id}/availability?startTime=${from}&endTime=${to}`);
    const res = await h.query(
      `query($id: ID!, $from: DateTime!, $to: DateTime!) { tenant(id: "client_1") { resource(id: $id) { availability(from: $from, to: $to) {
        from to availabilityPercent downtimeSeconds currentState downOccurrences degradedOccurrences degradedSeconds pauseOccurrences pausedSeconds degradedPeriods pausedPeriods
        periods { key start end durationSeconds actualStart stateCode state rca scheduledStart scheduledEnd } downPeriods { start end stateCode state }
      } } } }`,
      { id: sim.id, from: new Date(from * 1000).toISOString(), to },
    );
    const a = res.data!.tenant.resource.availability;
    expect(a).toMatchObject({
      from: iso(from), to: iso(to), availabilityPercent: rest.totalAvailability, downtimeSeconds: rest.totalDowntime, currentState: rest.currentState,
      downOccurrences: rest.noOfOccurences, degradedOccurrences: rest.noOfDegradedOccurences, degradedSeconds: rest.totalDegradedTime,
      pauseOccurrences: rest.noOfPauseOccurences, pausedSeconds: rest.totalPauseTime, degradedPeriods: rest.degradedTimeList, pausedPeriods: rest.pauseTimeList,
    });
    expect(a.periods).toHaveLength(rest.totalLogList.length);
    expect(a.periods[0]).toEqual({
      key: rest.totalLogList[0].key, start: iso(rest.totalLogList[0].startTs), end: iso(rest.totalLogList[0].endTs),
      durationSeconds: rest.totalLogList[0].endTs - rest.totalLogList[0].startTs, actualStart: iso(rest.totalLogList[0].actStartTs),
      stateCode: rest.totalLogList[0].state, state: { 0: 'DOWN', 4: 'UNKNOWN' }[rest.totalLogList[0].state as number] ?? 'OTHER',
      rca: rest.totalLogList[0].rca, scheduledStart: iso(rest.totalLogList[0].schStartTs || null), scheduledEnd: iso(rest.totalLogList[0].schEndTs || null),
    });
    expect(a.downPeriods.every((p: any) => p.state === 'DOWN' && p.stateCode === 0)).toBe(true);
    expect(a.downPeriods.reduce((s: number, p: any) => s + (Date.parse(p.end) - Date.parse(p.start)) / 1000, 0)).toBe(a.downtimeSeconds);
  });

  it('refuses an empty or inverted window without an upstream call', async () => {
    const res = await h.query('{ tenant(id: "client_1") { resources(first: 1) { nodes { availability(from: "2026-01-02T00:00:00Z", to: "2026-01-01T00:00:00Z") { downtimeSeconds } } } } }');
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    // Checked before execution: not even the search runs.
    expect(upstreamCalls(h)).toEqual({});
  });
});

describe('resourceList (minimal)', () => {
  it('lists minimal records as full Resources whose other fields load lazily', async () => {
    const rest = await h.rest(`client_1/resources/minimal?state=all&locationId=11`);
    const res = await h.query('{ tenant(id: "client_1") { resourceList(state: ALL, locationId: 11) { id resourceId name hostName ipAddress aliasName resourceName resourceType } } }');
    expect(rest.length).toBeGreaterThan(1);
    expect(res.data!.tenant.resourceList).toEqual([...rest].sort(byName).map((r: any) => ({ id: resourceGid(r.id), resourceId: r.id, name: orNull(r.name), hostName: orNull(r.hostName), ipAddress: orNull(r.ipAddress), aliasName: orNull(r.aliasName), resourceName: orNull(r.resourceName), resourceType: orNull(r.resourceType) })));
    expect(upstreamCalls(h)).toEqual({ minimal: 1 });
    const lazy = await h.query('{ tenant(id: "client_1") { resourceList(filter: { type: "EBS" }) { resourceId status location { name } } } }');
    const ebs = await h.rest(`client_1/resources/minimal?queryString=${encodeURIComponent('type:EBS')}`);
    const byId = h.simulator.dataset.tenants.get('client_1')!.byId;
    expect(lazy.data!.tenant.resourceList.map((r: any) => [r.resourceId, r.status, r.location.name])).toEqual([...ebs].sort(byName).map((r: any) => [r.id, byId.get(r.id)!.status, byId.get(r.id)!.location.name]));
  });

  it('passes deviceGroupId, deviceTypeId and the state filter', async () => {
    for (const [args, query] of [['deviceGroupId: 2, state: INACTIVE', 'deviceGroupId=2&state=inactive'], ['deviceTypeId: 1, state: DISCOVERED', 'deviceTypeId=1&state=discovered']]) {
      const res = await h.query(`{ tenant(id: "client_1") { resourceList(${args}) { resourceId } } }`);
      const rest = await h.rest(`client_1/resources/minimal?${query}`);
      expect(res.data!.tenant.resourceList.map((r: any) => r.resourceId)).toEqual([...rest].sort(byName).map((r: any) => r.id));
    }
  });
});

describe('decommissioned resources', () => {
  it('lists the history and reads hardware with additionalInfo=true only when selected', async () => {
    const rest = await h.rest(`client_1/history/resources?pageSize=5&queryString=${encodeURIComponent('state:DECOMMISSIONED')}`);
    const res = await h.query('{ tenant(id: "client_1") { decommissionedResources(first: 5) { totalCount nodes { id resourceId tenantId hostName ipAddress dns decommissionedAt deviceType devicePath type state macAddress make model osName osArchitecture serialNumber systemUID description agentInstalled name aliasName resourceName resourceType decommissionReason tags { name value source } managementProfile { number name type } cloud { provider instanceId launchedAt zone } } } } }');
    expect(res.errors).toBeUndefined();
    const nodes = res.data!.tenant.decommissionedResources.nodes;
    expect(res.data!.tenant.decommissionedResources.totalCount).toBe(rest.totalResults);
    rest.results.forEach((d: any, i: number) => {
      expect(nodes[i]).toEqual({
        id: globalIdOf({ kind: 'DecommissionedResource', tenantId: 'client_1', id: d.id }), resourceId: d.id, tenantId: 'client_1', hostName: d.hostName, ipAddress: d.ipAddress, dns: d.dns, decommissionedAt: iso(d.updatedDate), deviceType: d.deviceType,
        devicePath: d.devicePath, type: d.type, state: 'DECOMMISSIONED', macAddress: d.macAddress, make: d.make, model: d.model, osName: d.osName,
        osArchitecture: d.osArchitecture, serialNumber: d.serialNumber, systemUID: d.systemUID, description: d.description, agentInstalled: d.agentInstalled,
        name: d.name ?? null, aliasName: d.aliasName ?? null, resourceName: d.resourceName ?? null, resourceType: d.resourceType ?? null,
        decommissionReason: d.history.decommissionReason, tags: d.tags.map((t: any) => ({ ...t, source: null })), managementProfile: d.managementProfile ? { number: d.managementProfile.id, name: d.managementProfile.name, type: d.managementProfile.type } : null,
        cloud: d.attributes ? { provider: d.attributes.provider, instanceId: d.attributes.instanceId, launchedAt: iso(d.attributes.launchDate), zone: d.attributes.zone } : null,
      });
    });
    expect(upstreamCalls(h)).toEqual({ history: 1 });
    expect(h.simulator.stats().requests[0]!.url).toContain(`queryString=${encodeURIComponent('state:DECOMMISSIONED')}`);
  });

  it('reads hardware data once per resource, from a list or a direct lookup', async () => {
    const list = await h.query('{ tenant(id: "client_1") { decommissionedResources(first: 3) { nodes { resourceId bios { systemSerial biosVersion } cpus { processorName numberOfCores l2CacheSize } } } } }');
    expect(upstreamCalls(h)).toEqual({ history: 1, historyDetail: 3 });
    const id = list.data!.tenant.decommissionedResources.nodes[0].resourceId;
    const rest = await h.rest(`client_1/history/resources/${id}?additionalInfo=true`);
    h.resetCounts();
    const one = await h.query(`{ tenant(id: "client_1") { decommissionedResource(id: "${id}") { id resourceId hostName bios { biosName biosVersion smBiosVersion smBiosMajorVersion smBiosMinorVersion smBiosPresent systemSerial systemModel systemManufacturer }
      networkCards { index name ipAddresses macAddress dhcpEnabled linkMode } physicalDisks { name model manufacturer interfaceType partitions mediaType }
      logicalDisks { name description fileSystem total free monitor utilizationWarningThreshold utilizationCriticalThreshold freeDiskWarningThreshold freeDiskCriticalThreshold }
      cpus { processor processorName processorVersion manufacturer family powerManagementSupported l2CacheSize maxClockSpeed dataWidth numberOfCores }
      videoCards { name ram version resolution bitsPerPixel } } } }`);
    const d = one.data!.tenant.decommissionedResource;
    expect(d.resourceId).toBe(id);
    expect(d.id).toBe(globalIdOf({ kind: 'DecommissionedResource', tenantId: 'client_1', id }));
    expect(d.bios).toEqual(rest.bios);
    expect(d.networkCards).toEqual(rest.networkCards.map((n: any) => ({ index: n.id, name: n.networkName, ipAddresses: n.ipAddress.split(';'), macAddress: n.macAddress, dhcpEnabled: n.dhcpEnabled, linkMode: n.linkMode })));
    expect(d.physicalDisks).toEqual(rest.physicalDisks);
    expect(d.logicalDisks).toEqual(rest.logicalDisks.map(({ total, free, fileSystem, name, description, monitor, ...t }: any) => ({ name, description, fileSystem, total, free, monitor, ...t })));
    expect(d.cpus).toEqual(rest.cpus);
    expect(d.videoCards).toEqual(rest.videoCards);
    expect(upstreamCalls(h)).toEqual({ historyDetail: 1 });
    expect(h.simulator.stats().requests[0]!.url).toContain('additionalInfo=true');
    h.resetCounts();
    await h.query(`{ tenant(id: "client_1") { decommissionedResource(id: "${id}") { id hostName } } }`);
    expect(h.simulator.stats().requests[0]!.url).not.toContain('additionalInfo');
  });
});

describe('antivirus and resource types', () => {
  it('lists antivirus definitions with their resources, which load lazily', async () => {
    const rest = await h.rest(`client_1/resources/antivirus/search?pageSize=5&queryString=${encodeURIComponent('status:OUTOFDATE')}&sortName=name&isDescendingOrder=false`);
    const res = await h.query('{ tenant(id: "client_1") { antivirusDefinitions(first: 5, status: OUT_OF_DATE, orderBy: { field: NAME, direction: ASC }) { totalCount nodes { name version currentDefinition currentDefinitionDate scanDate supported status resource { id resourceId hostName ipAddress osName } } } } }');
    expect(res.data!.tenant.antivirusDefinitions.totalCount).toBe(rest.totalResults);
    expect(res.data!.tenant.antivirusDefinitions.nodes).toEqual(rest.results.map((a: any) => ({
      name: a.name, version: a.version, currentDefinition: a.currentDefinition, currentDefinitionDate: iso(a.currentDefinitionDate), scanDate: iso(a.scanDate),
      supported: a.supported, status: 'OUT_OF_DATE',
      resource: { id: resourceGid(a.resource.id), resourceId: a.resource.id, hostName: a.resource.hostName, ipAddress: a.resource.ipAddress, osName: a.resource.osName },
    })));
    expect(upstreamCalls(h)).toEqual({ antivirus: 1 });
    h.resetCounts();
    const lazy = await h.query('{ tenant(id: "client_1") { antivirusDefinitions(first: 3) { nodes { resource { __typename dns } } } } }');
    expect(lazy.data!.tenant.antivirusDefinitions.nodes.every((n: any) => n.resource.__typename === 'GeneralResource' && n.resource.dns)).toBe(true);
    expect(upstreamCalls(h)).toEqual({ antivirus: 1, detail: 3 });
  });

  it('lists resource types with trimmed levels and their resources', async () => {
    const rest = await h.rest('client_1/resourceType/minimal');
    const res = await h.query('{ tenant(id: "client_1") { resourceTypes { id number name path levels resources(first: 3) { totalCount nodes { resourceType } } } } }');
    const types = res.data!.tenant.resourceTypes;
    expect(types.map((t: any) => [t.id, t.number, t.name, t.path])).toEqual(
      [...rest].sort(byPath).map((t: any) => [globalIdOf({ kind: 'ResourceType', tenantId: 'client_1', number: t.id }), t.id, t.name.trim(), t.path]),
    );
    expect(types.find((t: any) => t.name === 'Virtual Network').levels).toEqual(['Cloud', 'Azure', 'Virtual Network']);
    for (const t of types) {
      const count = h.simulator.dataset.tenants.get('client_1')!.resources.filter((r) => r.resourceType.toLowerCase() === t.name.toLowerCase()).length;
      expect(t.resources.totalCount).toBe(count);
      expect(t.resources.nodes.every((n: any) => n.resourceType === t.name)).toBe(true);
    }
  });
});
