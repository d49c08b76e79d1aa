/**
 * A second, independent subgraph for composition tests, as a platform team would write it: it
 * knows a resource by its natural key (tenant id and inventory id), extends every Resource with
 * openTickets through @interfaceObject (so it needs no knowledge of the implementations), and is
 * Relay-style itself (Node, PageInfo and a connection of its own tickets, each referencing a resource).
 * It records the operations it receives, so tests can count the gateway's `_entities` fetches.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import { createYoga } from 'graphql-yoga';

export const TICKETS_SDL = /* GraphQL */ `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.9", import: ["@key", "@interfaceObject", "@shareable"])

  interface Node {
    id: ID!
  }

  type PageInfo @shareable {
    hasNextPage: Boolean!
    hasPreviousPage: Boolean!
    startCursor: String
    endCursor: String
  }

  type Resource @key(fields: "tenantId resourceId") @interfaceObject {
    tenantId: ID!
    resourceId: ID!
    "Open support tickets for the resource."
    openTickets: Int!
  }

  type Ticket implements Node @key(fields: "id") {
    id: ID!
    title: String!
    resource: Resource!
  }

  type TicketConnection {
    nodes: [Ticket!]!
    pageInfo: PageInfo!
  }

  type Query {
    "The newest tickets, each about one resource."
    tickets(first: Int!): TicketConnection!
    "Resources with the most tickets, as references the inventory subgraph resolves."
    hotResources(tenantId: ID!, resourceIds: [ID!]!): [Resource]!
  }
`;

export interface ResourceKey { tenantId: string; resourceId: string }

/** Deterministic, so tests can compute the expected value from the natural key. */
export function openTicketsFor(key: ResourceKey): number {
  let sum = 0;
  for (const ch of `${key.tenantId}:${key.resourceId}`) sum += ch.charCodeAt(0);
  return sum % 7;
}

export interface TicketsSubgraph {
  url: string;
  /** The operations received since the last reset. */
  received: { query: string; variables?: Record<string, unknown> }[];
  close: () => Promise<void>;
}

/** Ticket n is about resources[n % resources.length]. */
export async function startTicketsSubgraph(resources: ResourceKey[] = []): Promise<TicketsSubgraph> {
  const ticket = (n: number) => ({ id: `ticket-${n}`, title: `Ticket ${n}`, resource: resources[n % resources.length] });
  const schema = buildSubgraphSchema({
    typeDefs: parse(TICKETS_SDL),
    resolvers: {
      Query: {
        tickets: (_: unknown, args: { first: number }) => {
          const count = Math.min(args.first, resources.length);
          return { nodes: Array.from({ length: count }, (_x, n) => ticket(n)), pageInfo: { hasNextPage: count < resources.length, hasPreviousPage: false, startCursor: null, endCursor: null } };
        },
        hotResources: (_: unknown, args: { tenantId: string; resourceIds: string[] }) => args.resourceIds.map((resourceId) => ({ tenantId: args.tenantId, resourceId })),
      },
      Ticket: { __resolveReference: (ref: { id: string }) => ticket(Number(ref.id.slice('ticket-'.length))) },
      Resource: {
        __resolveReference: (ref: ResourceKey) => ref,
        openTickets: (ref: ResourceKey) => openTicketsFor(ref),
      },
    } as never,
  });
  const received: TicketsSubgraph['received'] = [];
  const yoga = createYoga({ schema, logging: false, plugins: [{ onParams: ({ params }) => { received.push({ query: params.query ?? '', variables: params.variables }); } }] });
  const server = http.createServer(yoga);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
    received,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
