/**
 * Our subgraph and a second "tickets" subgraph behind both federation gateways over real HTTP:
 * Apollo Gateway 2.14 (supergraph by @apollo/composition) and Hive Gateway (supergraph by
 * @theguild/federation-composition, demand control on). Each gateway starts once for the file.
 */
import { parse } from 'graphql';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { estimateUpstreamCalls } from '../../src/schema/cost.js';
import { ASSUMED_SIZES } from '../../src/schema/field-costs.js';
import { globalIdOf } from '../../src/schema/global-id.js';
import { GATEWAYS, startFederation, type FederationStack } from '../support/federation-gateways.js';
import { upstreamCalls } from '../support/harness.js';
import { openTicketsFor } from '../support/tickets-subgraph.js';

let stack: FederationStack;
beforeAll(async () => {
  stack = await startFederation();
});
afterAll(() => stack.close());
beforeEach(() => {
  stack.inventory.resetCounts();
  stack.tickets.received.length = 0;
});

const TYPE_OF_SHAPE: Record<string, string> = { general: 'GeneralResource', device: 'DeviceResource', synthetic: 'SyntheticResource' };
const simulated = (id: string) => stack.inventory.simulator.dataset.tenants.get('client_1')!.byId.get(id)!;
const entitiesFetches = () => stack.tickets.received.filter((r) => r.query.includes('_entities')).length;
const resourceGid = (id: string) => globalIdOf({ kind: 'Resource', tenantId: 'client_1', id });

describe.each(GATEWAYS)('behind %s', (name) => {
  const gateway = () => stack.gateways[name];

  it("answers 20 resources with the other subgraph's field, in one _entities request to it", async () => {
    const res = await gateway().query('{ tenant(id: "client_1") { resources(first: 20) { nodes { resourceId hostName openTickets } } } }');
    expect(res.errors).toBeUndefined();
    const rest = await stack.inventory.rest('client_1/resources/search?pageSize=20&sortName=name&isDescendingOrder=false');
    expect(res.data!.tenant.resources.nodes).toEqual(rest.results.map((r: { id: string; hostName: string }) => ({
      resourceId: r.id, hostName: r.hostName, openTickets: openTicketsFor({ tenantId: 'client_1', resourceId: r.id }),
    })));
    expect(entitiesFetches()).toBe(1);
    // Apollo: the page only. Hive's planner fetches the page a second time through the Tenant
    // entity (_entities) for the resources' key fields: the search is answered from the response
    // cache, the tenant's existence costs its resource types read (a planner limit, in the README).
    expect(upstreamCalls(stack.inventory)).toEqual(name === 'apollo' ? { search: 1 } : { search: 1, resourceTypes: 1 });
  });

  it("answers 10 tickets with their resources' fields through inline fragments of the three types", async () => {
    const res = await gateway().query(`{ tickets(first: 10) { nodes { id resource { __typename resourceId openTickets
      ... on GeneralResource { physicalMemory } ... on DeviceResource { type } ... on SyntheticResource { checkType } } } pageInfo { hasNextPage } } }`);
    expect(res.errors).toBeUndefined();
    const nodes = res.data!.tickets.nodes as { id: string; resource: Record<string, unknown> }[];
    expect(nodes).toHaveLength(10);
    for (const [n, ticket] of nodes.entries()) {
      const key = stack.ticketed[n]!;
      const sim = simulated(key.resourceId);
      const own = { general: 'physicalMemory', device: 'type', synthetic: 'checkType' }[sim.shape as string]!;
      expect(ticket.resource).toMatchObject({ __typename: TYPE_OF_SHAPE[sim.shape], resourceId: key.resourceId, openTickets: openTicketsFor(key) });
      expect(ticket.resource[own], `${ticket.id}: ${own}`).toEqual(expect.any(String));
    }
    expect(new Set(nodes.map((t) => t.resource.__typename))).toEqual(new Set(Object.values(TYPE_OF_SHAPE)));
    // One detail read per resource, shared by its type and its fields.
    expect(upstreamCalls(stack.inventory).detail).toBeLessThanOrEqual(10);
  });

  it('answers the good references of a batch that holds a malformed one and a vanished one', async () => {
    const [a, b] = stack.ticketed;
    const ids = [a!.resourceId, 'not an id!', b!.resourceId, '00000000-0000-4000-8000-000000000000'];
    const res = await gateway().query('query($ids: [ID!]!) { hotResources(tenantId: "client_1", resourceIds: $ids) { resourceId hostName openTickets } }', { ids });
    const items = res.data!.hotResources as ({ resourceId: string; hostName: string | null } | null)[];
    expect(items).toHaveLength(4);
    expect(items[0]).toEqual({ resourceId: a!.resourceId, hostName: simulated(a!.resourceId).hostName, openTickets: openTicketsFor(a!) });
    expect(items[2]).toEqual({ resourceId: b!.resourceId, hostName: simulated(b!.resourceId).hostName, openTickets: openTicketsFor(b!) });
    // The malformed one has no hostName (the item or its field null, as the gateway merges), the vanished one neither.
    expect(items[1]?.hostName ?? null).toBeNull();
    expect(items[3]?.hostName ?? null).toBeNull();
    if (name === 'apollo') {
      // Our error at its index; the vanished resource null without one.
      expect(res.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['hotResources', 1], 'BAD_USER_INPUT']]);
    } else {
      // Hive drops our error at index 1, and has an error of its own for the null entity at index 3 (its limits, in the README).
      expect(items[1]).toBeNull();
      expect(res.errors?.map((e) => [e.path, e.message])).toEqual([[['hotResources', 3], 'Abstract type "Resource" was resolved to a non-object type "Resource".']]);
    }
  });

  it('answers 600 references to 5 resources at the cost of 5 detail reads', async () => {
    const five = stack.ticketed.slice(0, 5);
    const ids = Array.from({ length: 600 }, (_x, i) => five[i % 5]!.resourceId);
    const res = await gateway().query('query($ids: [ID!]!) { hotResources(tenantId: "client_1", resourceIds: $ids) { resourceId hostName } }', { ids });
    expect(res.errors).toBeUndefined();
    expect(res.data!.hotResources.map((r: { resourceId: string; hostName: string }) => [r.resourceId, r.hostName])).toEqual(ids.map((id) => [id, simulated(id).hostName]));
    expect(upstreamCalls(stack.inventory).detail).toBeLessThanOrEqual(5);
  });
});

describe('node and nodes with a field of the other subgraph', () => {
  const query = (id: string) => `{ node(id: "${id}") { id ... on Resource { hostName openTickets } } nodes(ids: ["${id}"]) { id ... on Resource { openTickets } } }`;

  it('are answered behind Apollo Gateway', async () => {
    const key = stack.ticketed[1]!;
    const res = await stack.gateways.apollo.query(query(resourceGid(key.resourceId)));
    expect(res.errors).toBeUndefined();
    expect(res.data).toEqual({
      node: { id: resourceGid(key.resourceId), hostName: simulated(key.resourceId).hostName, openTickets: openTicketsFor(key) },
      nodes: [{ id: resourceGid(key.resourceId), openTickets: openTicketsFor(key) }],
    });
  });

  it('are not, behind Hive Gateway: its planner makes no fetch to the @interfaceObject subgraph under the Node interface (a planner limit)', async () => {
    const key = stack.ticketed[1]!;
    const res = await stack.gateways.hive.query(query(resourceGid(key.resourceId)));
    expect(stack.tickets.received).toEqual([]);
    expect(res.data).toEqual({ node: null, nodes: [null] });
    expect(res.errors?.map((e) => e.message)).toEqual([
      `Cannot return null for non-nullable field ${TYPE_OF_SHAPE[simulated(key.resourceId).shape]}.openTickets.`,
      `Cannot return null for non-nullable field ${TYPE_OF_SHAPE[simulated(key.resourceId).shape]}.openTickets.`,
    ]);
  });
});

describe('demand control', () => {
  const priced = (first: number) => `{ tenant(id: "client_1") { resources(first: ${first}) { nodes { applications { name } } } } }`;
  const ownEstimate = (query: string) => estimateUpstreamCalls(parse(query), null, {}, {
    defaultPageSize: stack.inventory.config.defaultPageSize, maxPageSize: stack.inventory.config.maxPageSize,
    minimalListSize: stack.inventory.config.maxPageSize, resourceTypeCount: ASSUMED_SIZES.resourceTypes,
    maxAvailabilityWindowDays: stack.inventory.config.maxAvailabilityWindowDays,
  }).estimate;

  it("prices a page in proportion to its calls under Hive Gateway, within a factor of two of the subgraph's own estimate", async () => {
    const [large, small] = await Promise.all([stack.gateways.hive.query(priced(100)), stack.gateways.hive.query(priced(5))]);
    const hive = { large: (large.extensions as any).cost.estimated as number, small: (small.extensions as any).cost.estimated as number };
    const own = { large: ownEstimate(priced(100)), small: ownEstimate(priced(5)) };
    expect(own).toEqual({ large: 101, small: 6 }); // one search page, then the applications of each resource
    expect(hive.large).toBeGreaterThanOrEqual(10 * hive.small);
    for (const size of ['large', 'small'] as const) {
      expect(hive[size], size).toBeGreaterThanOrEqual(own[size] / 2);
      expect(hive[size], size).toBeLessThanOrEqual(own[size] * 2);
    }
  });

  it('keeps @cost and @listSize in both supergraphs (Apollo Gateway itself has no demand control: the Router has)', () => {
    for (const name of GATEWAYS) {
      const supergraph = stack.supergraphs[name].replace(/\s+/g, ' ');
      expect(supergraph, name).toContain('applications: [InstalledApplication!] @cost(weight: 1)');
      expect(supergraph, name).toMatch(/: ResourceConnection @cost\(weight: 1\) @listSize\([^)]*slicingArguments: \["first", "last"\],? [^)]*sizedFields: \["edges", "nodes"\]/);
    }
  });
});
