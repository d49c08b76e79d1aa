/**
 * Sign-in through federation (issue 38): the subgraph SDL carries @authenticated and
 * @requiresScopes, both composers accept it, and both gateways in the suite, forwarding the
 * caller's Authorization (Apollo Gateway from its data source, Hive Gateway by its header
 * propagation), get the answers a direct call gets: data for the granted tenant, FORBIDDEN at the
 * field for another, 401-class refusals for no token.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeBoth, withoutSecurityFeatures } from '../support/federation-gateways.js';
import { startHarness, upstreamCalls, type Harness } from '../support/harness.js';
import { AUDIENCE, startOpenIdProvider, type OpenIdProvider } from '../support/openid-provider.js';
import { startTicketsSubgraph, type TicketsSubgraph } from '../support/tickets-subgraph.js';

let provider: OpenIdProvider;
let inventory: Harness;
let tickets: TicketsSubgraph;
let apollo: ApolloServer;
let hive: ReturnType<typeof createGatewayRuntime>;
let hiveServer: http.Server;
const urls: Record<'direct' | 'apollo' | 'hive', string> = { direct: '', apollo: '', hive: '' };
let supergraphs: { apollo: string; guild: string };

beforeAll(async () => {
  provider = await startOpenIdProvider([
    { clientId: 'alice', tenants: ['client_1'], scopes: ['inventory:read'] },
  ]);
  inventory = await startHarness({ env: { AUTH_ISSUERS: provider.issuer, AUTH_AUDIENCE: AUDIENCE } });
  for (let i = 0; i < 150 && (await inventory.fetch(inventory.endpoint.replace('/graphql', '/readyz'))).status !== 200; i++) await new Promise((r) => setTimeout(r, 100));
  tickets = await startTicketsSubgraph([]);
  // The router's view of the subgraph: its SDL as it reports it (introspection is on in development).
  const sdl = (await (await inventory.fetch(inventory.endpoint, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${await provider.token('alice')}` }, body: JSON.stringify({ query: '{ _service { sdl } }' }) })).json() as { data: { _service: { sdl: string } } }).data._service.sdl;
  const composed = composeBoth(sdl, { inventory: inventory.url, tickets: tickets.url });
  if (composed.apollo.errors || composed.guild.errors) throw new Error(`composition failed: ${[...composed.apollo.errors ?? [], ...composed.guild.errors ?? []].map((e) => e.message).join('; ')}`);
  supergraphs = { apollo: composed.apollo.supergraphSdl, guild: composed.guild.supergraphSdl! };
  apollo = new ApolloServer({
    gateway: new ApolloGateway({
      supergraphSdl: withoutSecurityFeatures(composed.apollo.supergraphSdl),
      buildService: ({ url }) => new RemoteGraphQLDataSource<{ authorization?: string }>({
        url,
        willSendRequest: ({ request, context }) => { if (context.authorization) request.http?.headers.set('authorization', context.authorization); },
      }),
    }),
  });
  urls.apollo = (await startStandaloneServer(apollo, { listen: { port: 0, host: '127.0.0.1' }, context: async ({ req }) => ({ authorization: req.headers.authorization }) })).url;
  hive = createGatewayRuntime({
    supergraph: composed.guild.supergraphSdl!, logging: false,
    propagateHeaders: { fromClientToSubgraphs: ({ request }) => ({ authorization: request.headers.get('authorization') }) },
  });
  hiveServer = http.createServer(hive);
  await new Promise<void>((resolve) => hiveServer.listen(0, '127.0.0.1', resolve));
  urls.hive = `http://127.0.0.1:${(hiveServer.address() as AddressInfo).port}/graphql`;
  urls.direct = inventory.url;
}, 60_000);

afterAll(async () => {
  await apollo?.stop();
  hiveServer?.closeAllConnections();
  await new Promise((resolve) => hiveServer?.close(resolve));
  await hive?.dispose();
  await tickets?.close();
  await inventory?.close();
  await provider?.close();
});

async function ask(url: string, query: string, authorization?: string) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) }, body: JSON.stringify({ query }) });
  return (await response.json()) as { data?: Record<string, any> | null; errors?: { message: string; path?: unknown[]; extensions?: Record<string, unknown> }[] };
}

const TWO = '{ a: tenant(id: "client_1") { tenantId resourceTypes { name } } b: tenant(id: "client_2") { tenantId } }';

describe('the subgraph SDL', () => {
  it('declares who may read and update, and both supergraphs keep it', () => {
    for (const supergraph of [supergraphs.apollo, supergraphs.guild]) {
      expect(supergraph).toMatch(/\): Tenant[^\n]*@authenticated/);
      expect(supergraph).toContain('@requiresScopes(scopes: [["inventory:read", "inventory:write"]])');
    }
  });
});

describe.each(['apollo', 'hive'] as const)('behind %s, with the caller\'s token forwarded', (name) => {
  it('answers as a direct call does: the granted tenant\'s data, FORBIDDEN at the other\'s field', async () => {
    const authorization = `Bearer ${await provider.token('alice')}`;
    inventory.resetCounts();
    const direct = await ask(urls.direct, TWO, authorization);
    const through = await ask(urls[name], TWO, authorization);
    expect(through.data).toEqual(direct.data);
    expect(through.data!.a.tenantId).toBe('client_1');
    expect(through.data!.b).toBeNull();
    const forbidden = through.errors?.find((e) => JSON.stringify(e).includes('FORBIDDEN'));
    expect(forbidden, JSON.stringify(through.errors)).toBeTruthy();
    expect(JSON.stringify(through.errors)).toContain('client_2');
    // One read for both (the second from the cache the first filled); nothing for client_2.
    expect(upstreamCalls(inventory)).toEqual({ resourceTypes: 1 });
  });

  it('without a token, the subgraph refuses and nothing is read', async () => {
    inventory.resetCounts();
    const through = await ask(urls[name], TWO);
    expect(through.data?.a ?? null).toBeNull();
    expect(JSON.stringify(through.errors)).toMatch(/UNAUTHENTICATED|401|Sign in/);
    expect(upstreamCalls(inventory)).toEqual({});
  });
});
