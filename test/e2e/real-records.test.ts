/**
 * Records of the real API carry keys their documented form lacks. Each field is read from the
 * record at hand wherever its key stands; only an absent key costs a call. Literal records from
 * a real HTTP upstream, exact call counts; then the simulator's realistic records.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, upstreamCalls, type Harness } from '../support/harness.js';
import { page, startRecordUpstream, type RecordUpstream, type Route } from '../support/record-upstream.js';

const ID = '5b2c1f7e-1111-4a4a-9b9b-000000000001';
const searchHit = { id: ID, hostName: 'web-01', ipAddress: '10.0.0.1', type: 'DEVICE', resourceType: 'Linux', state: 'active', model: 'R740' };
const minimal = { id: ID, name: 'web-01', hostName: 'web-01', ipAddress: '10.0.0.1', aliasName: '', resourceName: 'web-01', resourceType: 'Linux' };
const avReference = { id: ID, hostName: 'web-01', ipAddress: '10.0.0.1', osName: 'Debian 12' };
const general = {
  id: ID, ipAddress: '10.0.0.1', state: 'active', status: 'UP', location: { id: 7, name: 'Lab' }, tags: [{ name: 'env', value: 'prod', tagSource: 'USER' }],
  generalInfo: { name: 'web-01', hostName: 'web-01', osName: 'Debian 12', resourceType: 'Linux' },
};
const shortForm = { id: ID, createdDate: '2026-01-01T00:00:00+0000', updatedDate: '2026-02-01T00:00:00+0000', type: 'EBS', state: 'active', status: 'UP', location: { id: 7, name: 'Lab' }, resourceName: 'vol-1', consoles: [], clientUniqueId: 'client_1' };
const synthetic = { id: ID, resourceType: 'SYNTHETIC', name: 'HTTP check', consoles: [], checkType: 'HTTP', host: 'example.org', deleted: false, url: 'https://example.org', locationUuids: [], ts: 2 ** 40, clientId: 1 };
const history = { id: ID, hostName: 'old-01', ipAddress: '10.0.0.9', updatedDate: '2026-03-01T00:00:00+0000', type: 'DEVICE', state: 'Decommissioned', tags: [], history: { decommissionReason: 'retired' } };
const bios = { biosName: 'AMI', biosVersion: '1.2' };

interface Records { search?: object; minimal?: object; antivirus?: object; detail?: object; history?: object; historyDetail?: object }

let upstream: RecordUpstream;
let gw: Harness;
let records: Records = {};

beforeAll(async () => {
  upstream = await startRecordUpstream();
  upstream.answer = (route: Route, { query }) => {
    switch (route) {
      case 'search': return page(records.search ? [records.search] : []);
      case 'minimal': return records.minimal ? [records.minimal] : [];
      case 'antivirus': return page(records.antivirus ? [{ name: 'ClamAV', status: 'UPTODATE', resource: records.antivirus }] : []);
      case 'detail': return records.detail ?? [404, { message: 'Resource not found' }];
      case 'history': return page(records.history ? [records.history] : []);
      case 'historyDetail': return query.get('additionalInfo') === 'true' ? { ...records.history, ...records.historyDetail } : records.history;
      default: return [404, { message: 'Not found' }];
    }
  };
  gw = await startHarness({ upstreamUrl: upstream.url });
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});

interface FormCase {
  form: string;
  query: string;
  /** The form's record, and the key it carries beyond its documented form. */
  records: Records;
  extra: Record<string, unknown>;
  on: keyof Records;
  /** The value the field shows, from the record itself or from the call that supplies it. */
  expected: unknown;
  pick: (data: any) => unknown;
  callsWith: Partial<Record<Route, number>>;
  callsWithout: Partial<Record<Route, number>>;
}

const T = (inner: string) => `{ tenant(id: "client_1") { ${inner} } }`;
const cases: FormCase[] = [
  {
    form: 'search hit with a location', query: T('resources(first: 1) { nodes { location { name } } }'),
    records: { search: searchHit, detail: general }, on: 'search', extra: { location: { id: 7, name: 'Lab' } },
    expected: { name: 'Lab' }, pick: (d) => d.tenant.resources.nodes[0].location, callsWith: { search: 1 }, callsWithout: { search: 1, detail: 1 },
  },
  {
    form: 'search hit with tags', query: T('resources(first: 1) { nodes { tags { name value } } }'),
    records: { search: searchHit, detail: general }, on: 'search', extra: { tags: [{ name: 'env', value: 'prod' }] },
    expected: [{ name: 'env', value: 'prod' }], pick: (d) => d.tenant.resources.nodes[0].tags, callsWith: { search: 1 }, callsWithout: { search: 1, detail: 1 },
  },
  {
    form: 'minimal record with a status', query: T('resourceList { status }'),
    records: { minimal, detail: general }, on: 'minimal', extra: { status: 'DOWN' },
    expected: 'DOWN', pick: (d) => d.tenant.resourceList[0].status, callsWith: { minimal: 1 }, callsWithout: { minimal: 1, detail: 1 },
  },
  {
    form: 'minimal record with a type (the concrete type at no cost)', query: T('resourceList { __typename }'),
    records: { minimal, detail: general }, on: 'minimal', extra: { type: 'DEVICE' },
    expected: 'GeneralResource', pick: (d) => d.tenant.resourceList[0].__typename, callsWith: { minimal: 1 }, callsWithout: { minimal: 1, detail: 1 },
  },
  {
    form: 'antivirus reference with tags', query: T('antivirusDefinitions(first: 1) { nodes { resource { tags { name } } } }'),
    records: { antivirus: avReference, detail: general }, on: 'antivirus', extra: { tags: [{ name: 'env' }] },
    expected: [{ name: 'env' }], pick: (d) => d.tenant.antivirusDefinitions.nodes[0].resource.tags, callsWith: { antivirus: 1 }, callsWithout: { antivirus: 1, detail: 1 },
  },
  {
    form: 'general detail with a model', query: T(`resource(id: "${ID}") { model }`),
    records: { detail: general, search: searchHit }, on: 'detail', extra: { model: 'PowerEdge' },
    expected: 'PowerEdge', pick: (d) => d.tenant.resource.model, callsWith: { detail: 1 }, callsWithout: { detail: 1, search: 1 },
  },
  {
    form: "cloud item's short detail with a host name", query: T(`resource(id: "${ID}") { hostName }`),
    records: { detail: shortForm, search: { ...searchHit, type: 'EBS', hostName: 'vol-host' } }, on: 'detail', extra: { hostName: 'vol-1.internal' },
    expected: 'vol-1.internal', pick: (d) => d.tenant.resource.hostName, callsWith: { detail: 1 }, callsWithout: { detail: 1, search: 1 },
  },
  {
    form: 'synthetic detail with a state', query: T(`resource(id: "${ID}") { state }`),
    records: { detail: synthetic, search: { ...searchHit, type: 'SYNTHETIC', state: 'active' } }, on: 'detail', extra: { state: 'inactive' },
    expected: 'INACTIVE', pick: (d) => d.tenant.resource.state, callsWith: { detail: 1 }, callsWithout: { detail: 1, search: 1 },
  },
  {
    form: 'history record with its BIOS', query: T('decommissionedResources(first: 1) { nodes { bios { biosName } } }'),
    records: { history, historyDetail: { bios } }, on: 'history', extra: { bios },
    expected: { biosName: 'AMI' }, pick: (d) => d.tenant.decommissionedResources.nodes[0].bios, callsWith: { history: 1 }, callsWithout: { history: 1, historyDetail: 1 },
  },
];

/** Each query starts cold: the records change between queries, and what one costs is the point. */
function fresh(): void {
  upstream.reset();
  gw.client.clearCache();
}

describe('read by presence, not by form', () => {
  afterEach(() => upstream.reset());

  it.each(cases.map((c) => [c.form, c] as const))('%s: served with no further call; lacking it costs exactly one', async (_name, c) => {
    records = { ...c.records, [c.on]: { ...c.records[c.on], ...c.extra } };
    fresh();
    const carried = await gw.query(c.query);
    expect(carried.errors).toBeUndefined();
    expect(c.pick(carried.data)).toEqual(c.expected);
    expect(upstream.calls).toEqual(c.callsWith);

    records = c.records;
    fresh();
    const lacking = await gw.query(c.query);
    expect(lacking.errors).toBeUndefined();
    expect(upstream.calls).toEqual(c.callsWithout);
  });

  it('serves a present key with an empty value as known-empty, without a call', async () => {
    records = { search: { ...searchHit, location: null, tags: '', updatedDate: '' }, detail: general };
    fresh();
    const res = await gw.query(T('resources(first: 1) { nodes { location { name } tags { name } updatedAt } }'));
    expect(res.data!.tenant.resources.nodes[0]).toEqual({ location: null, tags: [], updatedAt: null });
    expect(upstream.calls).toEqual({ search: 1 });
  });

  it('ignores unknown and misspelled keys', async () => {
    records = { search: { ...searchHit, hostNmae: 'typo', fancyNewKey: { deep: [1, 2] }, 'weird key': null } };
    fresh();
    const res = await gw.query(T('resources(first: 1) { nodes { hostName } }'));
    expect(res).toEqual({ data: { tenant: { resources: { nodes: [{ hostName: 'web-01' }] } } } });
  });

  it('logs a detail whose shape contradicts the record type, and still serves its fields', async () => {
    records = { search: { ...searchHit, type: 'EBS' }, detail: general };
    fresh();
    const before = gw.logs.length;
    const res = await gw.query(T('resources(first: 1) { nodes { __typename status location { name } } }'));
    expect(res.errors).toBeUndefined();
    expect(res.data!.tenant.resources.nodes[0]).toEqual({ __typename: 'DeviceResource', status: 'UP', location: { name: 'Lab' } });
    expect(upstream.calls).toEqual({ search: 1, detail: 1 });
    const warnings = gw.logs.slice(before).filter((l) => l.includes('contradicts its type'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('"fromDetail":"general"');
  });

  it('answers one NOT_FOUND naming an unknown tenant, however many fields ask', async () => {
    upstream.answer = (route) => [404, { message: route === 'detail' ? "Unknown tenant 'client_9'" : "Unknown tenant 'client_9'" }];
    try {
      const res = await gw.query(`{ tenant(id: "client_9") {
        resources(first: 2) { totalCount } resourceList { id } resourceTypes { name }
        antivirusDefinitions(first: 1) { totalCount } resource(id: "${ID}") { id }
      } }`);
      expect(res.errors).toHaveLength(1);
      expect(res.errors![0]).toMatchObject({ message: "Tenant 'client_9' was not found", extensions: { code: 'NOT_FOUND', tenantId: 'client_9' } });
      expect(res.data!.tenant).toEqual({ resources: null, resourceList: null, resourceTypes: null, antivirusDefinitions: null, resource: null });
    } finally {
      upstream.answer = () => [404, {}];
    }
  });
});

describe('the simulator sends real records', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  afterEach(() => h.simulator.configure({ routeLatencyMs: {} }));

  it('serves a page of 100 with __typename, update time, tags and location in one call; every type as a detail read gives it', async () => {
    h.resetCounts();
    const res = await h.query('{ tenant(id: "client_1") { resources(first: 100, orderBy: { field: ID, direction: DESC }) { nodes { __typename resourceId hostName updatedAt tags { name value } location { name } } } } }');
    expect(res.errors).toBeUndefined();
    expect(upstreamCalls(h)).toEqual({ search: 1 });
    const nodes = res.data!.tenant.resources.nodes as { __typename: string; resourceId: string; tags: unknown[]; location: { name: string } }[];
    expect(nodes).toHaveLength(100);
    const tenant = h.simulator.dataset.tenants.get('client_1')!;
    for (const node of nodes) {
      const sim = tenant.byId.get(node.resourceId)!;
      expect(node.location.name).toBe(sim.location.name);
      expect(node.tags).toEqual(sim.tags.map((t) => ({ name: t.name, value: t.value })));
    }
    // What a detail read decides for the same resources, one lookup each.
    const lookups = await h.query(`{ tenant(id: "client_1") { ${nodes.map((n, i) => `r${i}: resource(id: "${n.resourceId}") { __typename }`).slice(0, 25).join(' ')} } }`);
    for (let i = 0; i < 25; i++) expect(lookups.data!.tenant[`r${i}`].__typename).toBe(nodes[i]!.__typename);
    expect(new Set(nodes.map((n) => n.__typename))).toEqual(new Set(['GeneralResource', 'DeviceResource', 'SyntheticResource']));
  });

  it('exposes device groups, management profile, MAC, serial, system UID and OS architecture from search hits', async () => {
    const sim = h.simulator.dataset.tenants.get('client_1')!.resources.find((r) => r.shape === 'general' && r.index % 2 === 0 && r.index % 3 !== 0 && r.index % 5 !== 0)!;
    h.resetCounts();
    const res = await h.query(`{ tenant(id: "client_1") { resources(first: 1, filter: { id: "${sim.id}" }) { nodes {
      deviceGroups { name } managementProfile { name type } macAddress serialNumber systemUID osArchitecture clientUniqueId
    } } } }`);
    expect(res.errors).toBeUndefined();
    expect(res.data!.tenant.resources.nodes[0]).toEqual({
      deviceGroups: [{ name: sim.deviceGroup }], managementProfile: { name: expect.any(String), type: expect.stringMatching(/GATEWAY|AGENT/) },
      macAddress: sim.network[0]!.mac, serialNumber: sim.serialNumber, systemUID: sim.systemUID,
      osArchitecture: sim.osName.startsWith('Microsoft') ? '64-bit' : 'x86_64', clientUniqueId: 'client_1',
    });
    expect(upstreamCalls(h)).toEqual({ search: 1 });
  });

  it("shows a cloud item's identity, integration install details and provider properties from its short detail", async () => {
    const sim = h.simulator.dataset.tenants.get('client_1')!.resources.find((r) => r.type.startsWith('AZ_'))!;
    h.resetCounts();
    const res = await h.query(`{ tenant(id: "client_1") { resource(id: "${sim.id}") {
      __typename name hostName cloudResourceId installedIntegration { integrationName installedBy installedAt } cloud { provider properties }
    } } }`);
    expect(res.errors).toBeUndefined();
    expect(res.data!.tenant.resource).toMatchObject({
      __typename: 'DeviceResource', name: sim.name, hostName: sim.hostName,
      cloudResourceId: expect.stringMatching(/^\/subscriptions\/.+\/providers\/Microsoft\.Network\/virtualNetworks\//),
      installedIntegration: { integrationName: 'Azure', installedBy: 'ops@acme.example', installedAt: expect.any(String) },
      cloud: { provider: 'Azure', properties: expect.objectContaining({ resourceGroup: 'rg-client_1', subscriptionId: expect.any(String) }) },
    });
    expect(upstreamCalls(h)).toEqual({ detail: 1 });
  });

  it("reads an AWS item's ARN from its identity, the same as properties.arn", async () => {
    const sim = h.simulator.dataset.tenants.get('client_1')!.resources.find((r) => r.shape === 'device' && !r.type.startsWith('AZ_'))!;
    const res = await h.query(`{ tenant(id: "client_1") { resource(id: "${sim.id}") { cloudResourceId cloud { properties } } } }`);
    expect(res.errors).toBeUndefined();
    const { cloudResourceId, cloud } = res.data!.tenant.resource;
    expect(cloudResourceId).toMatch(/^arn:aws:(ec2|elasticloadbalancing):eu-central-1:\d*:/);
    expect(cloud.properties.arn).toBe(cloudResourceId);
  });

  it('fills a field of a tenant that sends documented records only by the read that supplies it, and spends none where none can', async () => {
    h.resetCounts();
    const res = await h.query('{ tenant(id: "client_2") { resources(first: 10, orderBy: { field: ID, direction: DESC }) { nodes { resourceId type location { name } } } } }');
    expect(res.errors).toBeUndefined();
    const nodes = res.data!.tenant.resources.nodes as { resourceId: string; type: string; location: { name: string } | null }[];
    const checks = nodes.filter((n) => n.type === 'SYNTHETIC');
    expect(checks.length).toBeGreaterThan(0);
    // A synthetic check's detail carries no location: no call is spent on it.
    for (const n of checks) expect(n.location).toBeNull();
    const byId = h.simulator.dataset.tenants.get('client_2')!.byId;
    for (const n of nodes.filter((x) => x.type !== 'SYNTHETIC')) expect(n.location!.name).toBe(byId.get(n.resourceId)!.location.name);
    expect(upstreamCalls(h)).toEqual({ search: 1, detail: nodes.length - checks.length });
  });

  it('asks for applications together with the detail of a lookup (prefetch)', async () => {
    const sim = h.simulator.dataset.tenants.get('client_1')!.resources.find((r) => r.appCount > 0)!;
    h.simulator.configure({ routeLatencyMs: { detail: 300, applications: 300 } });
    h.resetCounts();
    const res = await h.query(`{ tenant(id: "client_1") { resource(id: "${sim.id}") { id applications { name } } } }`);
    expect(res.errors).toBeUndefined();
    const stats = h.simulator.stats();
    expect(stats.calls).toEqual({ detail: 1, applications: 1 });
    // Without the prefetch the applications call would start only after the 300 ms detail read:
    // one call in flight at a time. With it both are in flight at once. Counted by the simulator,
    // not timed (the bound on their starts, 150 ms apart, was a quiet machine's figure).
    expect(stats.maxInFlight).toBe(2);
  });

  it('answers a search-only field of a looked-up resource from a search hit of the same operation (priming)', async () => {
    const sim = h.simulator.dataset.tenants.get('client_1')!.resources.find((r) => r.shape === 'general')!;
    // The detail answers late, so the search page is in before the lookup needs its search-only field.
    h.simulator.configure({ routeLatencyMs: { detail: 300 } });
    h.resetCounts();
    const res = await h.query(`{ tenant(id: "client_1") {
      resources(first: 1, filter: { id: "${sim.id}" }) { nodes { id } }
      resource(id: "${sim.id}") { classCode }
    } }`);
    expect(res.errors).toBeUndefined();
    expect(res.data!.tenant.resource.classCode).toBe(sim.classCode);
    expect(upstreamCalls(h)).toEqual({ search: 1, detail: 1 });
  });
});
