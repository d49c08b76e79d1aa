/**
 * What an outside audit found on the production face (issue 30): the schema through `_service`
 * and through "Did you mean …?", `x-upstream-stats`, the metrics' operation names, `query: null`,
 * and Yoga's internal `http` extension over WebSocket. Production stacks are started with
 * NODE_ENV=production and nothing else the finding is about: the production defaults.
 */
import { printSubgraphSchema } from '@apollo/subgraph';
import { createClient as createWsClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { subgraphSchema } from '../../src/schema/index.js';
import { MAX_OPERATION_NAMES } from '../../src/observability/metrics.js';
import { startHarness, type GraphQLResponse, type Harness } from '../support/harness.js';
import { sumBy } from '../support/metrics-text.js';

const SECRET = 'federation-secret-0123456789abcdef';
let production: Harness;
let development: Harness;

beforeAll(async () => {
  [production, development] = await Promise.all([startHarness({ env: { NODE_ENV: 'production', AUTH: 'off', FEDERATION_SECRET: SECRET } }), startHarness()]);
});
afterAll(async () => {
  await Promise.all([production?.close(), development?.close()]);
});

/** One operation over graphql-transport-ws, with the upgrade request's headers. */
async function overWebSocket(h: Harness, query: string, headers: Record<string, string> = {}): Promise<GraphQLResponse<any>> {
  const client = createWsClient({
    url: h.url.replace('http', 'ws'), retryAttempts: 0, lazy: true,
    webSocketImpl: class extends WebSocket { constructor(url: string, protocols: string[]) { super(url, protocols, { headers }); } },
  });
  try {
    for await (const result of client.iterate({ query })) return result as GraphQLResponse;
    throw new Error('no result');
  } catch (errors) {
    if (Array.isArray(errors)) return { errors };
    throw errors;
  } finally {
    await client.dispose();
  }
}

const SDL = '{ _service { sdl } }';

describe('_service in production', () => {
  it('is refused like introspection without the federation secret, over HTTP and WebSocket, with no http extension', async () => {
    for (const res of [
      await production.query(SDL),
      await production.query(SDL, undefined, { 'x-federation-secret': `${SECRET}x` }),
      await production.query(SDL, undefined, { 'x-federation-secret': SECRET.slice(0, -1) }),
      await overWebSocket(production, SDL),
    ]) {
      expect(res.data ?? null).toBeNull();
      expect(res.errors).toHaveLength(1);
      expect(res.errors![0]!.extensions!.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(res.errors![0]!.message).toMatch(/x-federation-secret/);
      expect(JSON.stringify(res)).not.toContain('type Tenant');
      expect(res.errors![0]!.extensions).not.toHaveProperty('http');
    }
  });

  it('answers the federation gateway that sends the secret, over HTTP and WebSocket', async () => {
    const expected = printSubgraphSchema(subgraphSchema);
    expect((await production.query(SDL, undefined, { 'x-federation-secret': SECRET })).data?._service.sdl).toBe(expected);
    expect((await overWebSocket(production, SDL, { 'x-federation-secret': SECRET })).data?._service.sdl).toBe(expected);
    // A refusal first does not stick to the document (Yoga caches validation by document and rules).
    expect((await production.query(SDL)).errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('is answered with INTROSPECTION=true, and in development, without a secret', async () => {
    expect((await development.query(SDL)).data?._service.sdl).toContain('type Tenant');
    const open = await startHarness({ env: { NODE_ENV: 'production', AUTH: 'off', INTROSPECTION: 'true' } });
    try {
      expect((await open.query(SDL)).data?._service.sdl).toContain('type Tenant');
    } finally {
      await open.close();
    }
  });
});

/** Misspelt requests, each with what graphql-js would suggest, and the answer production gives. */
const MISSPELT: { what: string; query: string; variables?: Record<string, unknown>; production: string[] }[] = [
  {
    what: 'field', query: '{ tenant(id: "client_1") { resourcez(first: 1) { totalCount } } }',
    production: ['Cannot query field "resourcez" on type "(hidden)".'],
  },
  {
    what: 'argument', query: '{ tenant(id: "client_1") { resources(firts: 1) { totalCount } } }',
    production: ['Unknown argument "firts" on field "(hidden)".'],
  },
  {
    what: 'input field', query: '{ tenant(id: "client_1") { resources(first: 1, filter: { stat: ACTIVE }) { totalCount } } }',
    production: ['Field "stat" is not defined by type "(hidden)".'],
  },
  {
    what: 'enum value', query: '{ tenant(id: "client_1") { resources(first: 1, filter: { state: ACTIV }) { totalCount } } }',
    production: ['Value "ACTIV" does not exist in "(hidden)" enum.'],
  },
  {
    what: 'type', query: 'query($f: ResourceFiltr) { tenant(id: "client_1") { resources(first: 1, filter: $f) { totalCount } } }',
    production: ['Unknown type "ResourceFiltr".'],
  },
  {
    what: 'enum value and input field in variables', query: 'query($f: ResourceFilter) { tenant(id: "client_1") { resources(first: 1, filter: $f) { totalCount } } }',
    variables: { f: { state: 'ACTIV', stat: 'x' } },
    production: [
      'Variable "$f" got invalid value "ACTIV" at "f.state"; Value "ACTIV" does not exist in "(hidden)" enum.',
      'Variable "$f" got invalid value { state: "ACTIV", stat: "x" }; Field "stat" is not defined by type "ResourceFilter".',
    ],
  },
  {
    what: 'a field of an interface', query: '{ tenant(id: "client_1") { resources(first: 1) { nodes { osNam } } } }',
    production: ['Cannot query field "osNam" on type "(hidden)".'],
  },
  {
    what: 'missing argument and sub-selection', query: '{ tenant { resources } }',
    production: ['Field "resources" of type "(hidden)" must have a selection of subfields.', 'Field "tenant" argument "(hidden)" of type "(hidden)" is required, but it was not provided.'],
  },
];

describe('suggestions with introspection off', () => {
  it.each(MISSPELT)('names nothing the request did not name: $what', async ({ query, variables, production: expected }) => {
    const res = await production.query(query, variables);
    expect(res.data ?? null).toBeNull();
    expect(res.errors!.map((e) => e.message).sort()).toEqual(expected);
    for (const e of res.errors!) expect(['GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT']).toContain(e.extensions!.code);
  });

  it('redacts over WebSocket too', async () => {
    const res = await overWebSocket(production, MISSPELT[0]!.query);
    expect(res.errors!.map((e) => e.message)).toEqual(MISSPELT[0]!.production);
  });

  it.each(MISSPELT.filter((m) => m.what !== 'missing argument and sub-selection'))('still suggests in development: $what', async ({ query, variables }) => {
    const res = await development.query(query, variables);
    expect(res.errors!.some((e) => /Did you mean/.test(e.message))).toBe(true);
  });
});

describe('smaller findings', () => {
  const STATS_QUERY = '{ tenant(id: "client_1") { resourceTypes { name } } }';

  it('x-upstream-stats is off in production unless UPSTREAM_STATS allows it', async () => {
    const headers = { 'x-upstream-stats': '1' };
    const off = await production.query(STATS_QUERY, undefined, headers);
    expect(off.errors).toBeUndefined();
    expect(off.extensions?.upstream).toBeUndefined();
    expect((await development.query(STATS_QUERY, undefined, headers)).extensions?.upstream).toMatchObject({ totalCalls: expect.any(Number) });
    const allowed = await startHarness({ env: { NODE_ENV: 'production', AUTH: 'off', UPSTREAM_STATS: 'true' } });
    try {
      expect((await allowed.query(STATS_QUERY, undefined, headers)).extensions?.upstream).toMatchObject({ totalCalls: 1 });
    } finally {
      await allowed.close();
    }
  });

  it.each([['query: null', '{"query": null}'], ['no query', '{}'], ['query: 12', '{"query": 12}']])('answers %s with 400 and a code', async (_, body) => {
    for (const accept of ['application/json', 'application/graphql-response+json', '*/*']) {
      const res = await fetch(production.url, { method: 'POST', headers: { 'content-type': 'application/json', accept }, body });
      expect(res.status).toBe(400);
      const json = (await res.json()) as GraphQLResponse;
      expect(json.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
  });

  it('errors over WebSocket carry no internal http extension', async () => {
    for (const h of [production, development]) {
      const res = await overWebSocket(h, '{ tenant(id: "client_1") { nope } }');
      expect(res.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(res.errors?.[0]?.extensions).not.toHaveProperty('http');
    }
  });

  it('one-off operation names do not displace the names that recur', async () => {
    const h = await startHarness({ env: { NODE_ENV: 'production', AUTH: 'off' } });
    try {
      const run = (name: string) => h.query(`query ${name} { __typename }`);
      for (let i = 0; i < MAX_OPERATION_NAMES; i++) await run(`Junk${i}`);
      await run('DashboardTiles');
      await run('DashboardTiles');
      await run('DashboardTiles');
      // More one-offs, however many, leave it its place.
      for (let i = MAX_OPERATION_NAMES; i < 2 * MAX_OPERATION_NAMES; i++) await run(`Junk${i}`);
      await run('DashboardTiles');
      const names = sumBy(await (await h.fetch(h.endpoint.replace('/graphql', '/metrics'))).text(), 'graphql_operations_total', 'operation_name');
      // Its first sighting (the junk had taken the places for first sightings) is 'other'; then it has its own label.
      expect(names.DashboardTiles).toBe(3);
      expect(names.other).toBe(MAX_OPERATION_NAMES / 2 + 1 + MAX_OPERATION_NAMES);
      expect(Object.keys(names).filter((name) => name.startsWith('Junk'))).toHaveLength(MAX_OPERATION_NAMES / 2);
    } finally {
      await h.close();
    }
  });
});
