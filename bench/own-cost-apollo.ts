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
import { GraphQLScalarType, Kind } from 'graphql';

class InventoryAPI extends RESTDataSource {
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

interface Rec { id: string; hostName?: string; status?: string; location?: { name: string } | null; tenant: string }
interface Context { api: InventoryAPI }

const typeDefs = `#graphql
  scalar DateTime
  type Query { tenant(id: ID!): Tenant }
  type Tenant { id: ID! resources(first: Int): ResourceConnection resource(id: ID!): Resource }
  type ResourceConnection { nodes: [Resource!]! }
  type Resource {
    id: ID!
    hostName: String
    status: String
    location: Location
    applications: [Application!]!
    availability(from: DateTime!, to: DateTime!): Availability
  }
  type Location { name: String }
  type Application { name: String version: String }
  type Availability { availabilityPercent: Float downtimeSeconds: Int }
`;

/** Epoch seconds, from an integer or an ISO date-time. */
const DateTime = new GraphQLScalarType({
  name: 'DateTime',
  serialize: (v) => v,
  parseValue: (v) => (typeof v === 'number' ? v : Math.floor(Date.parse(String(v)) / 1000)),
  parseLiteral: (ast) => (ast.kind === Kind.INT ? Number(ast.value) : ast.kind === Kind.STRING ? Math.floor(Date.parse(ast.value) / 1000) : null),
});

const resolvers = {
  DateTime,
  Query: { tenant: (_: unknown, { id }: { id: string }) => ({ id }) },
  Tenant: {
    resources: async ({ id }: { id: string }, { first }: { first?: number }, { api }: Context) => ({
      nodes: (await api.search(id, first ?? 20)).results.map((r) => ({ ...r, tenant: id })),
    }),
    resource: async ({ id }: { id: string }, args: { id: string }, { api }: Context) => ({ ...(await api.detail(id, args.id)), tenant: id }),
  },
  Resource: {
    id: (r: Rec) => Buffer.from(`Resource:${r.tenant}:${r.id}`).toString('base64'),
    // A search hit lacks the monitoring status: the detail has it.
    status: async (r: Rec, _: unknown, { api }: Context) => ('status' in r ? r.status : (await api.detail(r.tenant, r.id)).status),
    applications: (r: Rec, _: unknown, { api }: Context) => api.applications(r.tenant, r.id),
    availability: async (r: Rec, { from, to }: { from: number; to: number }, { api }: Context) => {
      const a = await api.availability(r.tenant, r.id, from, to);
      return { availabilityPercent: a.totalAvailability, downtimeSeconds: a.totalDowntime };
    },
  },
};

const server = new ApolloServer<Context>({ typeDefs, resolvers });
const { url } = await startStandaloneServer(server, {
  listen: { port: 0, host: '127.0.0.1' },
  context: async () => ({ api: new InventoryAPI() }),
});
console.log(`apollo peer listening on ${url}`);
process.on('SIGTERM', () => void server.stop().finally(() => process.exit(0)));
