/**
 * A second, independent subgraph for composition tests: it extends every Resource with
 * openTickets (through @interfaceObject, so it needs no knowledge of the implementations)
 * and can also hand out resource references of its own.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import { createYoga } from 'graphql-yoga';

export const TICKETS_SDL = /* GraphQL */ `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@interfaceObject"])

  type Resource @key(fields: "id") @interfaceObject {
    id: ID!
    "Open support tickets for the resource."
    openTickets: Int!
  }

  type Query {
    "Resources with the most tickets, as references the inventory subgraph resolves."
    hotResources(ids: [ID!]!): [Resource!]!
  }
`;

/** Deterministic, so tests can compute the expected value from the (global) id. */
export function openTicketsFor(id: string): number {
  let sum = 0;
  for (const ch of id) sum += ch.charCodeAt(0);
  return sum % 7;
}

export async function startTicketsSubgraph(): Promise<{ url: string; close: () => Promise<void> }> {
  const schema = buildSubgraphSchema({
    typeDefs: parse(TICKETS_SDL),
    resolvers: {
      Query: { hotResources: (_: unknown, args: { ids: string[] }) => args.ids.map((id) => ({ id })) },
      Resource: {
        __resolveReference: (ref: { id: string }) => ref,
        openTickets: (ref: { id: string }) => openTicketsFor(ref.id),
      },
    } as never,
  });
  const server = http.createServer(createYoga({ schema, logging: false }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
