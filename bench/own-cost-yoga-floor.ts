/**
 * The own-cost table's floor row (bench/own-cost.ts): what Yoga itself costs on the three
 * workloads, with nothing of the gateway's around it. Yoga 5 with no plugin but the gateway's
 * compiled execution (src/server/compiled-execution.ts, graphql-jit), the peers' schema shape
 * (own-cost-schema.ts), resolvers straight onto an undici pool (64 connections, at most 16 calls in
 * flight per operation, as the gateway and the plain client), no loaders, limits, logs or metrics.
 * Whatever the gateway costs above this row is its own; this row above the plain client is the
 * price of serving GraphQL over HTTP with Yoga. It prints "listening on <url>".
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSchema, createYoga } from 'graphql-yoga';
import { Agent, request } from 'undici';
import { createLogger } from '../src/logger.js';
import { compiledExecutionPlugin } from '../src/server/compiled-execution.js';
import { DocumentCache } from '../src/server/document-cache.js';
import { resolvers, typeDefs, type InventoryApi } from './own-cost-schema.js';

const PER_OPERATION = 16;
const upstream = process.env.UPSTREAM_URL!;
const agent = new Agent({ connections: 64, keepAliveTimeout: 60_000 });

/** One operation's calls, at most PER_OPERATION in flight. */
function operationApi(): InventoryApi {
  let inFlight = 0;
  const waiting: (() => void)[] = [];
  const get = async (path: string): Promise<any> => {
    if (inFlight >= PER_OPERATION) await new Promise<void>((resolve) => waiting.push(resolve));
    inFlight++;
    try {
      const res = await request(`${upstream}/api/v2/tenants/${path}`, { dispatcher: agent });
      if (res.statusCode !== 200) {
        await res.body.dump();
        throw new Error(`upstream ${res.statusCode} on ${path}`);
      }
      return await res.body.json();
    } finally {
      inFlight--;
      waiting.shift()?.();
    }
  };
  const at = (tenant: string, id: string) => `${encodeURIComponent(tenant)}/resources/${encodeURIComponent(id)}`;
  return {
    search: (tenant, pageSize) => get(`${encodeURIComponent(tenant)}/resources/search?pageNo=1&pageSize=${pageSize}&sortName=name&isDescendingOrder=false`),
    detail: (tenant, id) => get(at(tenant, id)),
    applications: (tenant, id) => get(`${at(tenant, id)}/applications`),
    availability: (tenant, id, from, to) => get(`${at(tenant, id)}/availability?startTime=${from}&endTime=${to}`),
  };
}

/** Yoga's parse cache, holding the compiled code as in the gateway (its default bound). */
const documents = new DocumentCache(32 * 1024 * 1024);
const yoga = createYoga({
  schema: createSchema({ typeDefs, resolvers }),
  graphqlEndpoint: '/',
  logging: false,
  landingPage: false,
  graphiql: false,
  parserAndValidationCache: documents.yogaCache(),
  plugins: [compiledExecutionPlugin(createLogger('silent'), documents)],
  context: () => ({ api: operationApi() }),
});
const server = http.createServer(yoga);
server.listen(0, '127.0.0.1', () => console.log(`yoga floor listening on http://127.0.0.1:${(server.address() as AddressInfo).port}/`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
