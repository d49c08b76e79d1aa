/**
 * What composition and the gateways cannot do (their limits, not ours), shown so that the README's
 * list stays true: each test fails when the limit goes away or our schema stops working around it.
 * The gateways run in-process here (ApolloServer.executeOperation, the Hive runtime's fetch).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apolloGatewayOf, composeBoth, hiveGatewayOf, startSubgraphs } from '../support/federation-gateways.js';
import { TICKETS_SDL } from '../support/tickets-subgraph.js';

let subgraphs: Awaited<ReturnType<typeof startSubgraphs>>;
beforeAll(async () => {
  subgraphs = await startSubgraphs();
});
afterAll(() => subgraphs.inventory.close().then(() => subgraphs.tickets.close()));

const urls = () => ({ inventory: subgraphs.inventory.url, tickets: subgraphs.tickets.url });
const PAGE = '{ tenant(id: "client_1") { resources(first: 3) { nodes { resourceId openTickets } } } }';

/** Our SDL with the global id as a second key of the resource entities (as it was before the natural key). */
const withSecondResourceKey = (sdl: string) =>
  sdl.replace(/((?:interface Resource|type (?:General|Device|Synthetic)Resource) implements Node(?: & Resource)?\s*)@key\(fields: "tenantId resourceId"\)/g, '$1@key(fields: "id") @key(fields: "tenantId resourceId")');

describe('the resource key', () => {
  it('is what lets the tickets subgraph extend Resource: without it, neither composer composes', () => {
    const withoutKey = subgraphs.sdl.replace(/@key\(fields: "tenantId resourceId"\)/g, '');
    const composed = composeBoth(withoutKey, urls());
    expect(composed.apollo.errors?.length).toBeGreaterThan(0);
    expect(composed.guild.errors?.length).toBeGreaterThan(0);
  });

  it('is the natural key alone: with the global id as a second key, Hive Gateway plans no fetch to the @interfaceObject subgraph (Apollo does)', async () => {
    const sdl = withSecondResourceKey(subgraphs.sdl);
    expect(sdl.match(/@key\(fields: "id"\) @key\(fields: "tenantId resourceId"\)/g)).toHaveLength(4);
    const composed = composeBoth(sdl, urls());
    expect(composed.apollo.errors).toBeUndefined();
    expect(composed.guild.errors).toBeUndefined();

    const apollo = apolloGatewayOf(composed.apollo.supergraphSdl!);
    await apollo.start();
    const viaApollo = await apollo.executeOperation({ query: PAGE });
    await apollo.stop();
    const apolloResult = viaApollo.body.kind === 'single' ? viaApollo.body.singleResult : null;
    expect(apolloResult?.errors).toBeUndefined();
    expect((apolloResult?.data as any).tenant.resources.nodes).toHaveLength(3);

    const hive = hiveGatewayOf(composed.guild.supergraphSdl!);
    subgraphs.tickets.received.length = 0;
    const viaHive = await (await hive.fetch('http://gateway/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: PAGE }) })).json();
    await hive.dispose();
    expect(subgraphs.tickets.received).toEqual([]);
    expect(viaHive.data).toEqual({ tenant: { resources: null } });
    expect(viaHive.errors[0].message).toMatch(/^Cannot return null for non-nullable field \w+Resource\.openTickets\.$/);
  });
});

describe('a second Relay-style subgraph', () => {
  const withOwnNode = TICKETS_SDL.replace('type Query {', 'type Query {\n    node(id: ID!): Node @shareable\n    nodes(ids: [ID!]!): [Node]! @shareable');

  it('composes with its own Node, PageInfo and connection (PageInfo, node and nodes are shareable on our side)', () => {
    const composed = composeBoth(subgraphs.sdl, urls());
    expect(composed.apollo.errors).toBeUndefined();
    expect(composed.guild.errors).toBeUndefined();
    expect(subgraphs.sdl).toMatch(/type PageInfo\s+@shareable/);
  });

  it("cannot define its own Query.node beside ours under Apollo's composition (no common runtime type), while the Guild's composes it", () => {
    expect(withOwnNode).toContain('node(id: ID!): Node @shareable');
    const composed = composeBoth(subgraphs.sdl, urls(), withOwnNode);
    expect(composed.apollo.errors?.map((e) => e.message).join('\n')).toMatch(/Shared field "Query.node" return type "Node" has a non-intersecting set of possible runtime types/);
    expect(composed.guild.errors).toBeUndefined();
  });
});
