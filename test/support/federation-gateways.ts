/**
 * Our subgraph and the tickets subgraph behind both federation gateways, over real HTTP:
 * Apollo's (`@apollo/gateway` serving a supergraph composed by `@apollo/composition`) and Hive
 * Gateway (`@graphql-hive/gateway-runtime` with a supergraph from `@theguild/federation-composition`,
 * demand control on). Both compose from the SDL the running subgraph reports, as a router would.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { composeServices as composeWithApollo } from '@apollo/composition';
import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import { composeServices as composeWithGuild } from '@theguild/federation-composition';
import { parse } from 'graphql';
import { startHarness, type GraphQLResponse, type Harness } from './harness.js';
import { startTicketsSubgraph, TICKETS_SDL, type ResourceKey, type TicketsSubgraph } from './tickets-subgraph.js';

/** The subgraph runs with the production defaults (introspection off): `_service` only with this secret. */
export const FEDERATION_SECRET = 'federation-test-secret-0123456789';
export const SECRET_HEADER = { 'x-federation-secret': FEDERATION_SECRET };
export const GATEWAYS = ['apollo', 'hive'] as const;
export type GatewayName = (typeof GATEWAYS)[number];

export interface FederatedGateway {
  url: string;
  query<T = any>(query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse<T>>;
}

export interface FederationStack {
  inventory: Harness;
  tickets: TicketsSubgraph;
  /** The resources the tickets are about: 20 of client_1, the three kinds in turn; ticket n is about resource n % 20. */
  ticketed: ResourceKey[];
  /** The subgraph SDL the inventory reported, and the supergraphs each composer made of it. */
  sdl: string;
  supergraphs: Record<GatewayName, string>;
  gateways: Record<GatewayName, FederatedGateway>;
  close(): Promise<void>;
}

/** Both composers over our SDL (as reported, or altered by a test) and the tickets subgraph. */
export function composeBoth(inventorySdl: string, urls: { inventory: string; tickets: string }, ticketsSdl = TICKETS_SDL) {
  const services = [
    { name: 'inventory', typeDefs: parse(inventorySdl), url: urls.inventory },
    { name: 'tickets', typeDefs: parse(ticketsSdl), url: urls.tickets },
  ];
  return { apollo: composeWithApollo(services), guild: composeWithGuild(services) };
}

const client = (url: string): FederatedGateway => ({
  url,
  async query(query, variables) {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
    return (await res.json()) as never;
  },
});

/** The two subgraphs alone (no gateway), and the SDL ours reports. */
export async function startSubgraphs(): Promise<Pick<FederationStack, 'inventory' | 'tickets' | 'ticketed' | 'sdl'>> {
  const inventory = await startHarness({ env: { NODE_ENV: 'production', AUTH: 'off', FEDERATION_SECRET } });
  const resources = inventory.simulator.dataset.tenants.get('client_1')!.resources;
  const byShape = ['general', 'device', 'synthetic'].map((shape) => resources.filter((r) => r.shape === shape));
  const ticketed = Array.from({ length: 20 }, (_x, i) => ({ tenantId: 'client_1', resourceId: byShape[i % 3]![Math.floor(i / 3)]!.id }));
  const tickets = await startTicketsSubgraph(ticketed);
  const sdl = (await inventory.query('{ _service { sdl } }', undefined, SECRET_HEADER)).data!._service.sdl as string;
  return { inventory, tickets, ticketed, sdl };
}

/**
 * The supergraph as Apollo Gateway (the JavaScript gateway) takes it: it refuses any supergraph
 * that links a SECURITY feature (`@authenticated`, `@requiresScopes`: Apollo Router enforces them,
 * Apollo Gateway supports none), so they are taken out for it alone. The subgraph enforces the same
 * rule itself (src/identity/access.ts), which is what its tests through Apollo Gateway show.
 */
export function withoutSecurityFeatures(supergraphSdl: string): string {
  return supergraphSdl
    .replace(/^\s*@link\(url: "https:\/\/specs\.apollo\.dev\/(authenticated|requiresScopes)\/v[\d.]+", for: SECURITY\)\n/gm, '')
    .replace(/^directive @(authenticated|requiresScopes)\b.*\n/gm, '')
    .replace(/^scalar requiresScopes__Scope\n/gm, '')
    .replace(/ @requiresScopes\(scopes: \[[^\]]*\]*\]\)/g, '')
    .replace(/ @authenticated\b/g, '')
    .replace(/^\s*@authenticated\n/gm, '');
}

/** The Apollo Gateway of a supergraph (not listening: the caller starts it), sending the secret to our subgraph. */
export function apolloGatewayOf(supergraphSdl: string): ApolloServer {
  const gateway = new ApolloGateway({
    supergraphSdl: withoutSecurityFeatures(supergraphSdl),
    buildService: ({ url }) => new RemoteGraphQLDataSource({ url, willSendRequest: ({ request }) => { request.http?.headers.set('x-federation-secret', FEDERATION_SECRET); } }),
  });
  return new ApolloServer({ gateway, includeStacktraceInErrorResponses: false });
}

/** The Hive Gateway of a supergraph, sending the secret to our subgraph; demand control reports each operation's estimate. */
export function hiveGatewayOf(supergraph: string) {
  // Unmasked so that a failure names its cause.
  return createGatewayRuntime({
    supergraph, logging: false, maskedErrors: false,
    transportEntries: { inventory: { headers: [['x-federation-secret', FEDERATION_SECRET]] } },
    demandControl: { includeExtensionMetadata: true },
  });
}

export async function startFederation(): Promise<FederationStack> {
  const { inventory, tickets, ticketed, sdl } = await startSubgraphs();
  const composed = composeBoth(sdl, { inventory: inventory.url, tickets: tickets.url });
  if (composed.apollo.errors || composed.guild.errors) throw new Error(`composition failed: ${[...composed.apollo.errors ?? [], ...composed.guild.errors ?? []].map((e) => e.message).join('; ')}`);

  const apolloServer = apolloGatewayOf(composed.apollo.supergraphSdl);
  const { url: apolloUrl } = await startStandaloneServer(apolloServer, { listen: { port: 0, host: '127.0.0.1' } });

  const hive = hiveGatewayOf(composed.guild.supergraphSdl!);
  const hiveServer = http.createServer(hive);
  await new Promise<void>((resolve) => hiveServer.listen(0, '127.0.0.1', resolve));

  return {
    inventory, tickets, ticketed, sdl, supergraphs: { apollo: composed.apollo.supergraphSdl, hive: composed.guild.supergraphSdl! },
    gateways: { apollo: client(apolloUrl), hive: client(`http://127.0.0.1:${(hiveServer.address() as AddressInfo).port}/graphql`) },
    async close() {
      await apolloServer.stop();
      hiveServer.closeAllConnections();
      await new Promise((resolve) => hiveServer.close(resolve));
      await hive.dispose();
      await tickets.close();
      await inventory.close();
    },
  };
}
