/**
 * The schema shape both peer rows of the own-cost table serve (bench/own-cost.ts): Apollo Server
 * (own-cost-apollo.ts) and Yoga's floor (own-cost-yoga-floor.ts). The same fields, global ids and
 * mapping as the gateway's answers to the three workloads; the resolvers call the context's `api`,
 * a method per endpoint, each peer with its own HTTP client.
 */
import { GraphQLScalarType, Kind } from 'graphql';

export interface InventoryApi {
  search(tenant: string, pageSize: number): Promise<{ results: Rec[] }>;
  detail(tenant: string, id: string): Promise<Rec>;
  applications(tenant: string, id: string): Promise<{ name: string; version: string }[]>;
  availability(tenant: string, id: string, from: number, to: number): Promise<{ totalAvailability: number; totalDowntime: number }>;
}

export interface Rec { id: string; hostName?: string; status?: string; location?: { name: string } | null; tenant: string }
export interface Context { api: InventoryApi }

export const typeDefs = `#graphql
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

export const resolvers = {
  DateTime,
  Query: { tenant: (_: unknown, { id }: { id: string }) => ({ id }) },
  Tenant: {
    resources: async ({ id }: { id: string }, { first }: { first?: number }, { api }: Context) => {
      // Each hit told its tenant in place: a copy of every 30-key record was a tenth of a peer's CPU on (a).
      const { results } = await api.search(id, first ?? 20);
      for (const r of results) r.tenant = id;
      return { nodes: results };
    },
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
