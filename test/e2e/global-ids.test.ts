/**
 * Global Object Identification: every `id` is a global id, the same wherever an object is
 * reached, refetchable through node/nodes (through the same loaders) and _entities; malformed
 * ids are refused before any upstream call.
 */
import { isInterfaceType, isNonNullType, isObjectType, isScalarType, type GraphQLNamedType } from 'graphql';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { globalIdOf } from '../../src/schema/global-id.js';
import { schema } from '../../src/schema/index.js';
import { startHarness, upstreamCalls, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.resetCounts());

const tenant1 = () => h.simulator.dataset.tenants.get('client_1')!;
const resourceGid = (tenantId: string, id: string) => globalIdOf({ kind: 'Resource', tenantId, id });

describe('the schema', () => {
  it('has a field named id only as a non-null ID on types that implement Node', () => {
    const offenders: string[] = [];
    for (const type of Object.values(schema.getTypeMap()) as GraphQLNamedType[]) {
      if (type.name.startsWith('__') || !(isObjectType(type) || isInterfaceType(type))) continue;
      const id = type.getFields().id;
      if (!id) continue;
      const t = id.type;
      const isIdType = isNonNullType(t) && isScalarType(t.ofType) && t.ofType.name === 'ID';
      const isNode = type.name === 'Node' || type.getInterfaces().some((i) => i.name === 'Node');
      if (!isIdType || !isNode) offenders.push(type.name);
    }
    expect(offenders).toEqual([]);
  });
});

describe('node and nodes', () => {
  it('refetches each kind of object by its id and returns the same record', async () => {
    const shapes = ['general', 'device', 'synthetic'] as const;
    const sims = shapes.map((shape) => tenant1().resources.find((r) => r.shape === shape)!);
    const listed = await h.query(`{ tenant(id: "client_1") {
      id tenantId
      ${sims.map((r, i) => `r${i}: resource(id: "${r.id}") { id resourceId __typename hostName name }`).join(' ')}
      decommissionedResources(first: 1) { nodes { id resourceId hostName } }
      resourceTypes { id number name path }
    } }`);
    expect(listed.errors).toBeUndefined();
    const t = listed.data!.tenant;
    const objects = [t, t.r0, t.r1, t.r2, t.decommissionedResources.nodes[0], t.resourceTypes[3]];
    const refetched = await h.query(`query($ids: [ID!]!) { nodes(ids: $ids) {
      id __typename
      ... on Tenant { tenantId }
      ... on Resource { resourceId hostName name }
      ... on DecommissionedResource { resourceId hostName }
      ... on ResourceType { number typeName: name path }
    } }`, { ids: objects.map((o) => o.id) });
    expect(refetched.errors, JSON.stringify(refetched.errors)).toBeUndefined();
    const nodes = refetched.data!.nodes;
    expect(nodes[0]).toEqual({ id: t.id, __typename: 'Tenant', tenantId: 'client_1' });
    for (let i = 0; i < 3; i++) expect(nodes[i + 1]).toEqual(t[`r${i}`]);
    expect(nodes[4]).toEqual({ __typename: 'DecommissionedResource', ...t.decommissionedResources.nodes[0] });
    const type = t.resourceTypes[3];
    expect(nodes[5]).toEqual({ __typename: 'ResourceType', id: type.id, number: type.number, typeName: type.name, path: type.path });
    const one = await h.query('query($id: ID!) { node(id: $id) { id ... on Resource { resourceId } } }', { id: t.r1.id });
    expect(one.data!.node).toEqual({ id: t.r1.id, resourceId: sims[1]!.id });
  });

  it('gives a resource the same id wherever it is reached, whatever the selection', async () => {
    const av = tenant1().antivirus[0]!.resource;
    const res = await h.query(`{ tenant(id: "client_1") {
      resources(first: 1, filter: { id: "${av.id}" }) { nodes { id } }
      typed: resources(first: 1, filter: { id: "${av.id}" }) { nodes { __typename id } }
      resource(id: "${av.id}") { id }
      resourceList(filter: { id: "${av.id}" }) { id }
      antivirusDefinitions(first: 500) { nodes { resource { id resourceId } } }
    } }`);
    expect(res.errors).toBeUndefined();
    const expected = resourceGid('client_1', av.id);
    const d = res.data!.tenant;
    expect([d.resources.nodes[0].id, d.typed.nodes[0].id, d.resource.id, d.resourceList[0].id]).toEqual([expected, expected, expected, expected]);
    expect(d.antivirusDefinitions.nodes.find((n: { resource: { resourceId: string } }) => n.resource.resourceId === av.id).resource.id).toBe(expected);
  });

  it('reads 100 ids across two tenants with at most one detail call each, never twice', async () => {
    const ids = [
      ...tenant1().resources.slice(0, 80).map((r) => resourceGid('client_1', r.id)),
      ...h.simulator.dataset.tenants.get('client_2')!.resources.slice(0, 20).map((r) => resourceGid('client_2', r.id)),
    ];
    expect(ids).toHaveLength(100);
    const res = await h.query('query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Resource { resourceId tenantId } } }', { ids: [...ids, ...ids.slice(0, 10)] });
    expect(res.errors).toBeUndefined();
    expect(res.data!.nodes.map((n: { id: string }) => n.id)).toEqual([...ids, ...ids.slice(0, 10)]);
    const details = h.simulator.stats().requests.filter((r) => r.route === 'detail').map((r) => r.url);
    expect(details.length).toBeLessThanOrEqual(100);
    expect(new Set(details).size).toBe(details.length);
    expect(upstreamCalls(h)).toEqual({ detail: details.length });
  });

  it('answers null for an id whose object no longer exists', async () => {
    const res = await h.query('query($id: ID!) { node(id: $id) { id } }', { id: resourceGid('client_1', '00000000-0000-0000-0000-000000000000') });
    expect(res).toEqual({ data: { node: null } });
  });

  it.each([
    ['garbage', 'not an id!'],
    ['base64 of nothing known', Buffer.from('Planet:earth').toString('base64url')],
    ['a tenant with a traversal', Buffer.from('Resource:../client_1:abc').toString('base64url')],
    ['a resource id with a slash', Buffer.from('Resource:client_1:a/b').toString('base64url')],
    ['a resource type that is no number', Buffer.from('ResourceType:client_1:x').toString('base64url')],
    ['too long', 'A'.repeat(1000)],
  ])('refuses a malformed id (%s) with BAD_USER_INPUT and no upstream call', async (_name, id) => {
    for (const [query, variables] of [
      ['query($id: ID!) { node(id: $id) { id } }', { id }],
      ['query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: [resourceGid('client_1', tenant1().resources[0]!.id), id] }],
    ] as const) {
      const res = await h.query(query, variables);
      expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(JSON.stringify(res)).not.toMatch(/stack|\.ts:\d+/);
    }
    expect(h.simulator.stats().totalCalls).toBe(0);
  });
});

describe('arguments that name an object', () => {
  const tenantGid = (tenantId: string) => globalIdOf({ kind: 'Tenant', tenantId });
  const decommissionedGid = (tenantId: string, id: string) => globalIdOf({ kind: 'DecommissionedResource', tenantId, id });
  const typeGid = (tenantId: string, number: number) => globalIdOf({ kind: 'ResourceType', tenantId, number });
  const firstResource = (tenantId: string) => h.simulator.dataset.tenants.get(tenantId)!.resources.find((r) => r.shape === 'device')!;
  const firstDecommissioned = (tenantId: string) => h.simulator.dataset.tenants.get(tenantId)!.decommissioned[0]!;

  it('give the same answer for the inventory id and the global id, from the same reads', async () => {
    const r = firstResource('client_1');
    const d = firstDecommissioned('client_1');
    const res = await h.query(`query($rGid: ID!, $dGid: ID!, $tGid: ID!) {
      byTenantId: tenant(id: "client_1") {
        id tenantId
        byInventoryId: resource(id: "${r.id}") { id resourceId __typename hostName }
        byGlobalId: resource(id: $rGid) { id resourceId __typename hostName }
        oldByInventoryId: decommissionedResource(id: "${d.id}") { id resourceId hostName }
        oldByGlobalId: decommissionedResource(id: $dGid) { id resourceId hostName }
      }
      byTenantGid: tenant(id: $tGid) { id tenantId }
    }`, { rGid: resourceGid('client_1', r.id), dGid: decommissionedGid('client_1', d.id), tGid: tenantGid('client_1') });
    expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
    const t = res.data!.byTenantId;
    expect(t.byInventoryId).toEqual({ id: resourceGid('client_1', r.id), resourceId: r.id, __typename: 'DeviceResource', hostName: r.hostName });
    expect(t.byGlobalId).toEqual(t.byInventoryId);
    expect(t.oldByInventoryId).toEqual({ id: decommissionedGid('client_1', d.id), resourceId: d.id, hostName: d.hostName });
    expect(t.oldByGlobalId).toEqual(t.oldByInventoryId);
    expect(res.data!.byTenantGid).toEqual({ id: t.id, tenantId: 'client_1' });
    // Both forms reach the same loader key: one read of each object.
    expect(upstreamCalls(h)).toEqual({ detail: 1, historyDetail: 1 });
  });

  it('filter by id with either form and find the same records', async () => {
    const r = firstResource('client_1');
    const d = firstDecommissioned('client_1');
    const query = `query($r: ID!, $d: ID!) { tenant(id: "client_1") {
      resources(first: 5, filter: { id: $r }) { nodes { id resourceId } }
      resourceList(filter: { id: $r }) { id resourceId }
      resourceTypes { resources(first: 5, filter: { id: $r }) { nodes { id } } }
      decommissionedResources(first: 5, filter: { id: $d }) { nodes { id resourceId } }
    } }`;
    const byInventoryId = await h.query(query, { r: r.id, d: d.id });
    const byGlobalId = await h.query(query, { r: resourceGid('client_1', r.id), d: decommissionedGid('client_1', d.id) });
    expect(byInventoryId.errors, JSON.stringify(byInventoryId.errors)).toBeUndefined();
    const t = byInventoryId.data!.tenant;
    expect(t.resources.nodes).toEqual([{ id: resourceGid('client_1', r.id), resourceId: r.id }]);
    expect(t.resourceList).toEqual([{ id: resourceGid('client_1', r.id), resourceId: r.id }]);
    expect(t.resourceTypes.flatMap((type: { resources: { nodes: unknown[] } }) => type.resources.nodes)).toEqual([{ id: resourceGid('client_1', r.id) }]);
    expect(t.decommissionedResources.nodes).toEqual([{ id: decommissionedGid('client_1', d.id), resourceId: d.id }]);
    expect(byGlobalId).toEqual(byInventoryId);
  });

  const r1 = () => firstResource('client_1').id;
  it.each([
    ['Tenant.resource', 'a tenant id', () => `{ tenant(id: "client_1") { resource(id: "${tenantGid('client_1')}") { id } } }`, 'id'],
    ['Tenant.resource', 'a decommissioned resource id', () => `{ tenant(id: "client_1") { resource(id: "${decommissionedGid('client_1', r1())}") { id } } }`, 'id'],
    ['Tenant.resource', 'a resource type id', () => `{ tenant(id: "client_1") { resource(id: "${typeGid('client_1', 1)}") { id } } }`, 'id'],
    ['Tenant.resource', "another tenant's resource", () => `{ tenant(id: "client_1") { resource(id: "${resourceGid('client_2', firstResource('client_2').id)}") { id } } }`, 'id'],
    ['Tenant.resource', 'a resource id with a slash', () => `{ tenant(id: "client_1") { resource(id: "${Buffer.from('Resource:client_1:a/b').toString('base64url')}") { id } } }`, 'id'],
    ['Tenant.resource', 'garbage', () => '{ tenant(id: "client_1") { resource(id: "not an id!") { id } } }', 'id'],
    ['Tenant.decommissionedResource', 'an active resource id', () => `{ tenant(id: "client_1") { decommissionedResource(id: "${resourceGid('client_1', firstDecommissioned('client_1').id)}") { id } } }`, 'id'],
    ['Tenant.decommissionedResource', "another tenant's record", () => `{ tenant(id: "client_1") { decommissionedResource(id: "${decommissionedGid('client_2', firstDecommissioned('client_2').id)}") { id } } }`, 'id'],
    ['Tenant.decommissionedResource', 'a record id with a traversal', () => `{ tenant(id: "client_1") { decommissionedResource(id: "${Buffer.from('DecommissionedResource:client_1:..').toString('base64url')}") { id } } }`, 'id'],
    // A short one, so that it would also pass as a tenant id if the rule did not read it as a global id.
    ['Query.tenant', 'a resource id', () => `{ tenant(id: "${resourceGid('client_1', '42')}") { tenantId resource(id: "${r1()}") { id } } }`, 'id'],
    ['ResourceFilter.id', "another tenant's resource", () => `{ tenant(id: "client_1") { resources(first: 5, filter: { id: "${resourceGid('client_2', firstResource('client_2').id)}" }) { totalCount } } }`, 'filter.id'],
    ['ResourceFilter.id of resourceList', 'a tenant id', () => `{ tenant(id: "client_1") { resourceList(filter: { id: "${tenantGid('client_1')}" }) { id } } }`, 'filter.id'],
    ['ResourceFilter.id of a resource type', 'a decommissioned resource id', () => `{ node(id: "${typeGid('client_1', 1)}") { ... on ResourceType { resources(first: 5, filter: { id: "${decommissionedGid('client_1', r1())}" }) { totalCount } } } }`, 'filter.id', { resourceTypes: 1 }],
    ['DecommissionedResourceFilter.id', 'an active resource id', () => `{ tenant(id: "client_1") { decommissionedResources(first: 5, filter: { id: "${resourceGid('client_1', r1())}" }) { totalCount } } }`, 'filter.id'],
    ['Query.tenant', 'a tenant id with a slash', () => `{ tenant(id: "${Buffer.from('Tenant:client_1/x').toString('base64url')}") { tenantId resource(id: "${r1()}") { id } } }`, 'id'],
  ])('%s refuses %s with BAD_USER_INPUT naming the argument and no upstream call', async (_field, _case, query, field, reads: Record<string, number> = {}) => {
    const res = await h.query(query());
    expect(res.errors, JSON.stringify(res)).toHaveLength(1);
    expect(res.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    expect(JSON.stringify(res)).not.toMatch(/stack|\.ts:\d+/);
    // None but the reads that reach the field (a resource type found by node(id:) is read first).
    expect(upstreamCalls(h)).toEqual(reads);
  });
});

describe('federation keys', () => {
  it('reaches an entity by the same global id as node, and by the inventory ids', async () => {
    const sim = tenant1().resources.find((r) => r.shape === 'general')!;
    const gid = resourceGid('client_1', sim.id);
    const res = await h.query('query($r: [_Any!]!) { _entities(representations: $r) { ... on Resource { id resourceId hostName } ... on Tenant { id tenantId } } }', {
      r: [
        { __typename: 'Resource', id: gid },
        { __typename: 'GeneralResource', tenantId: 'client_1', resourceId: sim.id },
        { __typename: 'Tenant', id: globalIdOf({ kind: 'Tenant', tenantId: 'client_1' }) },
      ],
    });
    expect(res.errors).toBeUndefined();
    expect(res.data!._entities).toEqual([
      { id: gid, resourceId: sim.id, hostName: sim.hostName },
      { id: gid, resourceId: sim.id, hostName: sim.hostName },
      { id: globalIdOf({ kind: 'Tenant', tenantId: 'client_1' }), tenantId: 'client_1' },
    ]);
    // Two references to one resource: one detail read; the tenant's existence: its resource types.
    expect(upstreamCalls(h)).toEqual({ detail: 1, resourceTypes: 1 });
  });

  it('refuses a global id of another kind as a resource reference', async () => {
    const res = await h.query('query($r: [_Any!]!) { _entities(representations: $r) { ... on Resource { id } } }', {
      r: [{ __typename: 'Resource', id: globalIdOf({ kind: 'Tenant', tenantId: 'client_1' }) }],
    });
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(h.simulator.stats().totalCalls).toBe(0);
  });
});
