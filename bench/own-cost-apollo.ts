/**
 * The own-cost table's peer row (bench/own-cost.ts): Apollo Server 5 with
 * @apollo/datasource-rest over the same upstream, the same schema shape for the three workloads
 * (tenant → resources(first) → nodes, tenant → resource(id); the same global ids, field names and
 * mapping), written the way its documentation shows: one RESTDataSource per request, a method per
 * endpoint, thin resolvers. Its defaults: node-fetch, the per-request GET deduplication, the HTTP
 * cache (the upstream sends no Cache-Control, so nothing is stored). It prints "listening on <url>".
 */
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { RESTDataSource } from '@apollo/datasource-rest';
import { resolvers, typeDefs, type Context, type InventoryApi, type Rec } from './own-cost-schema.js';

class InventoryAPI extends RESTDataSource implements InventoryApi {
  override baseURL = `${process.env.UPSTREAM_URL!}/api/v2/`;
  search(tenant: string, pageSize: number): Promise<{ results: Rec[] }> {
    return this.get(`tenants/${encodeURIComponent(tenant)}/resources/search`, { params: { pageNo: '1', pageSize: String(pageSize), sortName: 'name', isDescendingOrder: 'false' } });
  }
  detail(tenant: string, id: string): Promise<Rec> {
    return this.get(`tenants/${encodeURIComponent(tenant)}/resources/${encodeURIComponent(id)}`);
  }
  applications(tenant: string, id: string): Promise<{ name: string; version: string }[]> {
    return this.get(`tenants/${encodeURIComponent(tenant)}/resources/${encodeURIComponent(id)}/applications`);
  }
  availability(tenant: string, id: string, from: number, to: number): Promise<{ totalAvailability: number; totalDowntime: number }> {
    return this.get(`tenants/${encodeURIComponent(tenant)}/resources/${encodeURIComponent(id)}/availability`, { params: { startTime: String(from), endTime: String(to) } });
  }
}

const server = new ApolloServer<Context>({ typeDefs, resolvers });
const { url } = await startStandaloneServer(server, {
  listen: { port: 0, host: '127.0.0.1' },
  context: async () => ({ api: new InventoryAPI() }),
});
console.log(`apollo peer listening on ${url}`);
process.on('SIGTERM', () => void server.stop().finally(() => process.exit(0)));
