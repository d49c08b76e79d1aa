/** Our subgraph composed with another by a real composition library and served by a real federation gateway. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { printSubgraphSchema } from '@apollo/subgraph';
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import { composeServices } from '@theguild/federation-composition';
import { parse } from 'graphql';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { globalIdOf } from '../../src/schema/global-id.js';
import { subgraphSchema } from '../../src/schema/index.js';
import { startHarness, upstreamCalls, type Harness } from '../support/harness.js';
import { openTicketsFor, startTicketsSubgraph, TICKETS_SDL } from '../support/tickets-subgraph.js';

/** The subgraph runs with the production defaults (introspection off): `_service` only with this secret. */
const FEDERATION_SECRET = 'federation-test-secret-0123456789';
const SECRET_HEADER = { 'x-federation-secret': FEDERATION_SECRET };
let inventory: Harness;
let tickets: Awaited<ReturnType<typeof startTicketsSubgraph>>;
let gatewayServer: http.Server;
let gatewayUrl: string;

function compose(inventorySdl: string) {
  return composeServices([
    { name: 'inventory', typeDefs: parse(inventorySdl), url: inventory.url },
    { name: 'tickets', typeDefs: parse(TICKETS_SDL), url: tickets.url },
  ]);
}

async function viaGateway(query: string, variables?: Record<string, unknown>) {
  const res = await fetch(gatewayUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  return (await res.json()) as { data?: any; errors?: { message: string }[] };
}

beforeAll(async () => {
  inventory = await startHarness({ env: { NODE_ENV: 'production', FEDERATION_SECRET } });
  tickets = await startTicketsSubgraph();
  // Compose from the SDL the running subgraph itself reports, as a router would (with the secret).
  const sdlResponse = await inventory.query('{ _service { sdl } }', undefined, SECRET_HEADER);
  const composed = compose(sdlResponse.data!._service.sdl);
  expect(composed.errors).toBeUndefined();
  // Unmasked so that a failure here names its cause.
  // The gateway sends the secret with every subgraph request: it may ask for `_service` itself.
  const gateway = createGatewayRuntime({
    supergraph: composed.supergraphSdl!, logging: false, maskedErrors: false,
    transportEntries: { inventory: { headers: [['x-federation-secret', FEDERATION_SECRET]] } },
  });
  gatewayServer = http.createServer(gateway);
  await new Promise<void>((resolve) => gatewayServer.listen(0, '127.0.0.1', resolve));
  gatewayUrl = `http://127.0.0.1:${(gatewayServer.address() as AddressInfo).port}/graphql`;
});
afterAll(async () => {
  gatewayServer.closeAllConnections();
  await new Promise((resolve) => gatewayServer.close(resolve));
  await tickets.close();
  await inventory.close();
});
beforeEach(() => inventory.resetCounts());

describe('federation', () => {
  it('reports the checked-in subgraph SDL to the federation gateway only (its secret), in production', async () => {
    const res = await inventory.query('{ _service { sdl } }', undefined, SECRET_HEADER);
    expect(res.data!._service.sdl).toBe(printSubgraphSchema(subgraphSchema));
    const refused = await inventory.query('{ _service { sdl } }');
    expect(refused.data ?? null).toBeNull();
    expect(refused.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('answers a query that crosses both subgraphs', async () => {
    const res = await viaGateway('{ tenant(id: "client_1") { resources(first: 5) { nodes { id resourceId hostName openTickets } } } }');
    expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
    // The connection's default order: by name, A to Z.
    const rest = await inventory.rest('client_1/resources/search?pageSize=5&sortName=name&isDescendingOrder=false');
    expect(res.data.tenant.resources.nodes).toEqual(rest.results.map((r: { id: string; hostName: string }) => ({
      id: globalIdOf({ kind: 'Resource', tenantId: 'client_1', id: r.id }), resourceId: r.id, hostName: r.hostName, openTickets: openTicketsFor(globalIdOf({ kind: 'Resource', tenantId: 'client_1', id: r.id })),
    })));
  });

  it('resolves references from the other subgraph through our loaders, de-duplicated', async () => {
    const page = await inventory.rest('client_1/resources/search?pageSize=100');
    const ids: string[] = page.results.map((r: { id: string }) => r.id);
    const withDuplicates = [...ids, ...ids.slice(0, 30)];
    // The other subgraph knows resources by the global id, as node(id:) does.
    const globalIds = withDuplicates.map((id) => globalIdOf({ kind: 'Resource', tenantId: 'client_1', id }));
    const res = await viaGateway('query($ids: [ID!]!) { hotResources(ids: $ids) { __typename id resourceId openTickets status } }', { ids: globalIds });
    expect(res.errors).toBeUndefined();
    expect(res.data.hotResources).toHaveLength(130);
    const byId = inventory.simulator.dataset.tenants.get('client_1')!.byId;
    for (const [i, node] of res.data.hotResources.entries()) {
      expect(node.resourceId).toBe(withDuplicates[i]);
      expect(node.id).toBe(globalIdOf({ kind: 'Resource', tenantId: 'client_1', id: node.resourceId }));
      expect(node.__typename).toBe({ general: 'GeneralResource', device: 'DeviceResource', synthetic: 'SyntheticResource' }[byId.get(node.resourceId)!.shape]);
      expect(node.openTickets).toBe(openTicketsFor(node.id));
    }
    const calls = upstreamCalls(inventory);
    expect(calls.detail).toBeLessThanOrEqual(100);
    expect(Object.keys(calls)).toEqual(['detail']);
  });

  it('resolves _entities for every entity type and both keys, 100 references costing at most 100 detail calls', async () => {
    const page = await inventory.rest('client_1/resources/search?pageSize=100');
    const history = await inventory.rest(`client_1/history/resources?pageSize=2&queryString=${encodeURIComponent('state:DECOMMISSIONED')}`);
    const resourceGid = (id: string) => globalIdOf({ kind: 'Resource', tenantId: 'client_1', id });
    const decommissioned = history.results[0];
    const tenant2 = globalIdOf({ kind: 'Tenant', tenantId: 'client_2' });
    const representations = [
      // By the inventory's own key, then the first 20 again by their global id.
      ...page.results.map((r: { id: string }) => ({ __typename: 'Resource', tenantId: 'client_1', resourceId: r.id })),
      ...page.results.slice(0, 20).map((r: { id: string }) => ({ __typename: 'Resource', id: resourceGid(r.id) })),
      { __typename: 'Tenant', id: tenant2 },
      { __typename: 'Tenant', tenantId: 'client_2' },
      { __typename: 'DecommissionedResource', tenantId: 'client_1', resourceId: decommissioned.id },
      { __typename: 'DecommissionedResource', id: globalIdOf({ kind: 'DecommissionedResource', tenantId: 'client_1', id: decommissioned.id }) },
    ];
    const res = await inventory.query(
      'query($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Resource { id resourceId hostName } ... on Tenant { id tenantId } ... on DecommissionedResource { resourceId hostName } } }',
      { r: representations },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!._entities).toHaveLength(124);
    const expectedResources = [...page.results, ...page.results.slice(0, 20)].map((r: { id: string; hostName: string }) => ({ id: resourceGid(r.id), resourceId: r.id, hostName: r.hostName }));
    expect(res.data!._entities.slice(0, 120).map(({ __typename: _, ...e }: { __typename: string }) => e)).toEqual(expectedResources);
    expect(res.data!._entities[120]).toEqual({ __typename: 'Tenant', id: tenant2, tenantId: 'client_2' });
    expect(res.data!._entities[121]).toEqual({ __typename: 'Tenant', id: tenant2, tenantId: 'client_2' });
    expect(res.data!._entities[122]).toEqual({ __typename: 'DecommissionedResource', resourceId: decommissioned.id, hostName: decommissioned.hostName });
    expect(res.data!._entities[123]).toEqual({ __typename: 'DecommissionedResource', resourceId: decommissioned.id, hostName: decommissioned.hostName });
    const calls = upstreamCalls(inventory);
    expect(calls.detail).toBe(100);
    expect(calls.historyDetail).toBe(1);
  });

  it('fails to compose when the resource key is removed', () => {
    const sdl = printSubgraphSchema(subgraphSchema);
    // Without its key, Resource is no entity the tickets subgraph can extend.
    const withoutKey = sdl.replace(/(interface Resource implements Node\s*)@key\(fields: "id"\)\s*/, '$1');
    expect(withoutKey).not.toBe(sdl);
    const composed = compose(withoutKey);
    expect(composed.errors?.length).toBeGreaterThan(0);
  });
});
