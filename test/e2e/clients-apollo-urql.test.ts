/**
 * Frontend clients out of the box, over real HTTP against the gateway: Apollo Client 4
 * (InMemoryCache with the checked-in possibleTypes, no keyFields, no typePolicies) and urql
 * (graphcache with the gateway's introspection; plain urql with its default GET transport).
 *
 * What broke before every `id` was a global id: value types carried the upstream's numbers as
 * `id` (NetworkCard.id was 1 on most resources, Location.id 11..14, ...), so both normalized
 * caches keyed them `NetworkCard:1`, `Location:12`: every resource's first card was one shared
 * cache entry and the last write won (resources showed each other's cards); Apollo without
 * possibleTypes dropped the fields of fragments on the Resource interface; urql's default GET was
 * refused by CSRF prevention; graphcache printed 300+ "Invalid key" warnings over the dashboard.
 *
 * So the assertions are exact: every normalized entry must equal the server's object for its
 * global id (read back through node(id:)), HTTP requests and warnings are counted exactly.
 */
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { loadDevMessages, loadErrorMessages } from '@apollo/client/dev';
import { Client, cacheExchange as documentCacheExchange, fetchExchange, gql as urqlGql } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import {
  buildClientSchema,
  buildSchema,
  getIntrospectionQuery,
  getNamedType,
  introspectionFromSchema,
  isLeafType,
  isObjectType,
  type GraphQLField,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import fragmentMatcher from '../../schema/possible-types.json' with { type: 'json' };
import { globalIdOf } from '../../src/schema/global-id.js';
import { startHarness, type Harness } from '../support/harness.js';

// Readable Apollo messages instead of "go.apollo.dev/c/err#..." links.
loadDevMessages();
loadErrorMessages();

let h: Harness;
let introspection: IntrospectionQuery;
let schema: GraphQLSchema;
beforeAll(async () => {
  h = await startHarness();
  const res = await h.query<IntrospectionQuery>(getIntrospectionQuery());
  expect(res.errors).toBeUndefined();
  introspection = res.data!;
  schema = buildClientSchema(introspection);
});
afterAll(() => h.close());
afterEach(() => vi.restoreAllMocks());

/** What caches print (console.warn / console.error) while `run` runs. */
async function printedDuring<T>(run: () => Promise<T>): Promise<{ result: T; printed: string[] }> {
  const warn: MockInstance = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  const error: MockInstance = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    const result = await run();
    return { result, printed: [...warn.mock.calls, ...error.mock.calls].map((args) => args.map(String).join(' ')) };
  } finally {
    warn.mockRestore();
    error.mockRestore();
  }
}

/** A counting wrapper around the real global fetch (the transport stays real). */
function countingFetch(): { calls: string[]; fetch: typeof fetch } {
  const calls: string[] = [];
  return {
    calls,
    fetch: (input, init) => {
      calls.push(init?.method ?? 'GET');
      return fetch(input, init);
    },
  };
}

/** Counts the requests to the gateway made through the global fetch (what urql calls by default). */
function spyGlobalFetch(): { methods: () => string[]; restore: () => void } {
  const spy = vi.spyOn(globalThis, 'fetch');
  return {
    methods: () => spy.mock.calls.filter(([input]) => String(input).startsWith(h.url)).map(([, init]) => init?.method ?? 'GET'),
    restore: () => spy.mockRestore(),
  };
}

const tenant1 = () => h.simulator.dataset.tenants.get('client_1')!;
const resourceGid = (tenantId: string, id: string) => globalIdOf({ kind: 'Resource', tenantId, id });
/** A device of client_1 with network cards, and the first resource of each other shape. */
const generalWithCards = () => tenant1().resources.find((r) => r.shape === 'general' && r.network.length > 0)!;
const ofShape = (shape: 'device' | 'synthetic') => tenant1().resources.find((r) => r.shape === shape)!;

// --- the dashboard ------------------------------------------------------------------------

/** Value objects (no id: stored inside their parent) are selected through one fragment each. */
const ROW = `
  fragment Place on Location { number name city }
  fragment Row on Resource { resourceId hostName name state ipAddress resourceType tags { name value source } location { ...Place } }`;
const CARD = `
  fragment Card on NetworkCard { index name macAddress ipAddress aliasIps dhcpEnabled linkMode status }`;
const FACTS = `${CARD}
  fragment Facts on GeneralResource { osName osArchitecture networkCards { ...Card } cloud { provider instanceId zone instanceType } }`;

interface DashboardQuery { name: string; query: string; variables: () => Record<string, unknown> }

/** Ordered by id, so that the page mixes the three resource types. */
const PAGE = `query Page { tenant(id: "client_1") { id tenantId
  resources(first: 25, orderBy: { field: ID, direction: ASC }) { totalCount pageInfo { hasNextPage endCursor }
    nodes { __typename id ...Row ...Facts } } } } ${ROW}${FACTS}`;

/** Realistic dashboard reads: pages with fragments on the Resource interface and on concrete types, a lookup, lists. */
const DASHBOARD: DashboardQuery[] = [
  { name: 'page', query: PAGE, variables: () => ({}) },
  {
    name: 'detail',
    query: `query Detail($id: ID!) { tenant(id: "client_1") { id resource(id: $id) { __typename id ...Row ...Facts
      description serialNumber make model applications { number name version } } } } ${ROW}${FACTS}`,
    variables: () => ({ id: generalWithCards().id }),
  },
  { name: 'types', query: 'query Types { tenant(id: "client_1") { id resourceTypes { id number name path levels } } }', variables: () => ({}) },
  {
    name: 'antivirus',
    query: `query Antivirus { tenant(id: "client_1") { id antivirusDefinitions(first: 10) { totalCount
      edges { cursor node { name version status scanDate resource { __typename id ...Row } } } } } } ${ROW}`,
    variables: () => ({}),
  },
  {
    name: 'decommissioned',
    query: `query Decommissioned { tenant(id: "client_1") { id decommissionedResources(first: 5) { totalCount nodes {
      id resourceId hostName decommissionedAt decommissionReason tags { name value }
      networkCards { index name macAddress ipAddresses dhcpEnabled } bios { systemModel systemSerial biosVersion }
      cpus { processorName numberOfCores } physicalDisks { name model } } } } }`,
    variables: () => ({}),
  },
  {
    name: 'second tenant',
    query: `query Second { tenant(id: "client_2") { id tenantId resources(first: 10) { nodes { __typename id ...Row ...Facts
      ... on SyntheticResource { checkType url credential { number hasClientKey hasClientSecret } }
      ... on DeviceResource { cloudResourceId installedIntegration { installId integrationName } } } } } } ${ROW}${FACTS}`,
    variables: () => ({}),
  },
];

/** More shapes for urql: node lookups, mixed nodes, a nested connection, arguments, an unpaged list. */
const MORE: DashboardQuery[] = [
  {
    name: 'node lookup',
    query: `query Lookup($id: ID!) { node(id: $id) { __typename id ... on Resource { ...Row } ... on GeneralResource { ...Facts
      applications { number name version } } } } ${ROW}${FACTS}`,
    variables: () => ({ id: resourceGid('client_1', generalWithCards().id) }),
  },
  {
    name: 'mixed nodes',
    query: `query Mixed($ids: [ID!]!) { nodes(ids: $ids) { __typename id ... on Tenant { tenantId } ... on Resource { resourceId hostName }
      ... on ResourceType { number name path } ... on DecommissionedResource { resourceId hostName } } }`,
    variables: () => ({
      ids: [
        globalIdOf({ kind: 'Tenant', tenantId: 'client_1' }),
        resourceGid('client_1', ofShape('device').id),
        resourceGid('client_1', ofShape('synthetic').id),
        globalIdOf({ kind: 'ResourceType', tenantId: 'client_1', number: 3 }),
        globalIdOf({ kind: 'DecommissionedResource', tenantId: 'client_1', id: tenant1().decommissioned[0]!.id }),
      ],
    }),
  },
  {
    name: 'nested connection',
    query: `query TypeResources($id: ID!) { node(id: $id) { __typename id ... on ResourceType { name
      resources(first: 3) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { __typename id resourceId hostName } } } } } }`,
    variables: () => ({ id: globalIdOf({ kind: 'ResourceType', tenantId: 'client_1', number: 1 }) }),
  },
  {
    name: 'availability',
    query: `query Availability($id: ID!, $from: DateTime!, $to: DateTime!) { tenant(id: "client_1") { id resource(id: $id) { __typename id
      availability(from: $from, to: $to) { from to availabilityPercent downtimeSeconds downOccurrences
        periods { key start end state stateCode durationSeconds } } } } }`,
    variables: () => ({ id: generalWithCards().id, from: '2026-10-01T00:00:00Z', to: '2026-10-08T00:00:00Z' }),
  },
  {
    name: 'unpaged list',
    query: `query List { tenant(id: "client_2") { id resourceList(state: ALL) { __typename id resourceId hostName ipAddress location { ...Place } } } }
      fragment Place on Location { number name city }`,
    variables: () => ({}),
  },
];

// --- reading a normalized entry back from the server ------------------------------------------

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Entry = Record<string, Json>;
/** How to read a field back from the server and write it the way Apollo stores it. */
type Plan = { kind: 'leaf' } | { kind: 'ref' } | { kind: 'object'; byType: Map<string, { responseKey: string; storeName: string; plan: Plan }[]> };

/** Apollo's store field name: `name` or `name({"arg":value,...})`. */
function parseStoreFieldName(storeName: string): { name: string; args: Record<string, unknown> } {
  const open = storeName.indexOf('(');
  if (open < 0) return { name: storeName, args: {} };
  return { name: storeName.slice(0, open), args: JSON.parse(storeName.slice(open + 1, -1)) as Record<string, unknown> };
}

/**
 * Builds the selection that reads from the server exactly the fields stored in a cache entry
 * (recursively through embedded objects; references are read as `__typename id`). Fields with
 * arguments get an alias and typed variables.
 */
class RefetchBuilder {
  readonly variables: Record<string, unknown> = {};
  readonly definitions: string[] = [];
  private n = 0;

  selection(objects: Entry[]): { text: string; plan: Plan } {
    const byType = new Map<string, { responseKey: string; storeName: string; plan: Plan }[]>();
    const parts = ['__typename'];
    for (const typename of new Set(objects.map((o) => o.__typename as string))) {
      const type = schema.getType(typename);
      if (!isObjectType(type)) throw new Error(`a stored object of type ${typename}, not an object type`);
      const ofType = objects.filter((o) => o.__typename === typename);
      const fields: { responseKey: string; storeName: string; plan: Plan }[] = [];
      const texts: string[] = [];
      for (const storeName of [...new Set(ofType.flatMap((o) => Object.keys(o)))].filter((k) => k !== '__typename').sort()) {
        const { name, args } = parseStoreFieldName(storeName);
        const field = type.getFields()[name];
        if (!field) throw new Error(`${typename}.${name} is not in the schema`);
        // Only fields with arguments get an alias (the gateway allows 30 aliases per operation).
        const responseKey = storeName === name ? name : `f${this.n++}`;
        const sub = this.sub(field, ofType.map((o) => o[storeName]).filter((v): v is Json => v !== undefined));
        fields.push({ responseKey, storeName, plan: sub.plan });
        texts.push(`${responseKey === name ? '' : `${responseKey}: `}${name}${this.arguments(field, args)}${sub.text}`);
      }
      byType.set(typename, fields);
      parts.push(`... on ${typename} { ${texts.join(' ')} }`);
    }
    return { text: `{ ${parts.join(' ')} }`, plan: { kind: 'object', byType } };
  }

  private arguments(field: GraphQLField<unknown, unknown>, args: Record<string, unknown>): string {
    const list = Object.entries(args).map(([arg, value]) => {
      const definition = field.args.find((a) => a.name === arg);
      if (!definition) throw new Error(`${field.name}(${arg}:) is not in the schema`);
      const variable = `v${this.n++}`;
      this.definitions.push(`$${variable}: ${String(definition.type)}`);
      this.variables[variable] = value;
      return `${arg}: $${variable}`;
    });
    return list.length > 0 ? `(${list.join(', ')})` : '';
  }

  private sub(field: GraphQLField<unknown, unknown>, values: Json[]): { text: string; plan: Plan } {
    if (isLeafType(getNamedType(field.type))) return { text: '', plan: { kind: 'leaf' } };
    const objects = values.flat(Infinity as 1).filter((v): v is Entry => v !== null && typeof v === 'object');
    if (objects.some((v) => '__ref' in v)) {
      if (!objects.every((v) => '__ref' in v)) throw new Error(`${field.name} mixes references and embedded objects`);
      return { text: ' { __typename id }', plan: { kind: 'ref' } };
    }
    if (objects.length === 0) return { text: ' { __typename }', plan: { kind: 'object', byType: new Map() } };
    const { text, plan } = this.selection(objects);
    return { text: ` ${text}`, plan };
  }
}

/** A server answer written the way Apollo's cache stores it under `plan`. */
function asStored(value: any, plan: Plan): Json {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map((v) => asStored(v, plan));
  if (plan.kind === 'leaf') return value as Json;
  if (plan.kind === 'ref') return { __ref: `${value.__typename}:${value.id}` };
  const out: Entry = { __typename: value.__typename };
  for (const f of plan.byType.get(value.__typename) ?? []) out[f.storeName] = asStored(value[f.responseKey], f.plan);
  return out;
}

/** The server's object for the cache key `Typename:<global id>`, with the entry's fields, as Apollo would store it. */
async function serverObjectFor(key: string, entry: Entry): Promise<Entry> {
  const builder = new RefetchBuilder();
  const { text, plan } = builder.selection([entry]);
  const query = `query Refetch($id: ID!${builder.definitions.map((d) => `, ${d}`).join('')}) { node(id: $id) ${text} }`;
  const res = await h.query(query, { id: key.slice(key.indexOf(':') + 1), ...builder.variables });
  if (res.errors) throw new Error(`${query}: ${JSON.stringify(res.errors)}`);
  return asStored(res.data!.node, plan) as Entry;
}

/** Fields of entries that differ from the server's object for the same id. */
async function entriesDifferingFromServer(entries: Record<string, Entry>, keys: string[]) {
  const differing: { key: string; field: string; cache: Json | undefined; server: Json | undefined }[] = [];
  for (const key of keys) {
    const entry = entries[key]!;
    const server = await serverObjectFor(key, entry);
    for (const field of new Set([...Object.keys(entry), ...Object.keys(server)])) {
      if (!isDeepStrictEqual(entry[field], server[field])) differing.push({ key, field, cache: entry[field], server: server[field] });
    }
  }
  return differing;
}

const NODE_TYPES: string[] = fragmentMatcher.possibleTypes.Node;
const typenameOfKey = (key: string) => key.slice(0, key.indexOf(':'));

// --- Apollo Client ------------------------------------------------------------------------

function apollo(options: { possibleTypes?: Record<string, string[]> } = {}) {
  const http = countingFetch();
  const cache = new InMemoryCache(options.possibleTypes ? { possibleTypes: options.possibleTypes } : {});
  const client = new ApolloClient({ cache, link: new HttpLink({ uri: h.url, fetch: http.fetch }) });
  return { client, cache, calls: http.calls };
}

describe('Apollo Client 4: InMemoryCache({ possibleTypes }), default HttpLink, no keyFields or typePolicies', () => {
  let run: Awaited<ReturnType<typeof runDashboard>>;
  let printed: string[];

  async function runDashboard() {
    const { client, cache, calls } = apollo({ possibleTypes: fragmentMatcher.possibleTypes });
    const results: unknown[] = [];
    for (const q of DASHBOARD) results.push((await client.query({ query: gql(q.query), variables: q.variables() })).data);
    return { client, cache, calls, results, requests: calls.length };
  }

  beforeAll(async () => {
    ({ result: run, printed } = await printedDuring(runDashboard));
  });

  it('sends one POST per dashboard query, prints nothing, and answers a repeat from the cache with no request', async () => {
    expect(run.requests).toBe(DASHBOARD.length);
    expect(run.calls).toEqual(DASHBOARD.map(() => 'POST'));
    expect(printed).toEqual([]);
    const again = await printedDuring(async () => {
      const results: unknown[] = [];
      for (const q of DASHBOARD) results.push((await run.client.query({ query: gql(q.query), variables: q.variables() })).data);
      return results;
    });
    expect(run.calls).toHaveLength(DASHBOARD.length);
    expect(again.printed).toEqual([]);
    expect(again.result).toEqual(run.results);
  });

  it('normalizes only Node types, under Typename:<global id>; value objects are embedded in their parent', () => {
    const keys = Object.keys(run.cache.extract()).filter((k) => k !== 'ROOT_QUERY');
    expect(keys.filter((k) => !NODE_TYPES.includes(typenameOfKey(k)))).toEqual([]);
    expect(keys.filter((k) => /^(NetworkCard|DecommissionedNetworkCard|Location|Tag|CloudProperties|AntivirusDefinition):/.test(k))).toEqual([]);
    const counts: Record<string, number> = {};
    for (const k of keys) counts[typenameOfKey(k)] = (counts[typenameOfKey(k)] ?? 0) + 1;
    expect(Object.keys(counts).sort()).toEqual(NODE_TYPES);
  });

  it('holds, in every normalized entry, exactly the server object for that global id (read back through node(id:))', async () => {
    const entries = run.cache.extract() as Record<string, Entry>;
    const keys = Object.keys(entries).filter((k) => k !== 'ROOT_QUERY');
    expect(keys.length).toBeGreaterThan(50);
    expect(await entriesDifferingFromServer(entries, keys)).toEqual([]);
  });

  it("stores each resource's own network cards and location: no two resources share one", async () => {
    const resources = Object.entries(run.cache.extract() as Record<string, Entry>).filter(([k]) => k.startsWith('GeneralResource:'));
    expect(resources.length).toBeGreaterThan(10);
    const simOf = (resourceId: string) => (tenant1().byId.get(resourceId) ?? h.simulator.dataset.tenants.get('client_2')!.byId.get(resourceId))!;
    // Locations: four places shared by many resources, each embedded in its resource.
    const locations = resources.map(([, e]) => e.location as Entry);
    expect(locations.map((l) => [l.number, l.name])).toEqual(resources.map(([, e]) => [simOf(e.resourceId as string).location.id, simOf(e.resourceId as string).location.name]));
    expect(new Set(locations.map((l) => l.number)).size).toBeGreaterThan(1);
    // Cards: in the numeric-id era most first cards were `NetworkCard:1`, one entry for all.
    const withCards = resources.filter(([, e]) => Array.isArray(e.networkCards) && e.networkCards.length > 0);
    const firstCards = withCards.map(([, e]) => (e.networkCards as Entry[]).find((c) => c.index === 1)).filter((c) => c !== undefined);
    expect(firstCards.length).toBeGreaterThan(5);
    expect(new Set(firstCards.map((c) => c.macAddress)).size).toBe(firstCards.length);
    for (const [key, entry] of withCards) {
      const res = await h.query(`query($id: ID!) { node(id: $id) { ... on GeneralResource { networkCards { __typename ...Card } } } } ${CARD}`, {
        id: key.slice(key.indexOf(':') + 1),
      });
      expect(res.data!.node.networkCards, key).toEqual(entry.networkCards);
    }
  });

  it('keeps a resource read in a list and then in a detail in one entry holding the fields of both', async () => {
    const { client, cache, calls } = apollo({ possibleTypes: fragmentMatcher.possibleTypes });
    const r = generalWithCards();
    const gid = resourceGid('client_1', r.id);
    const list = await client.query({ query: gql`query List($id: ID!) { tenant(id: "client_1") { id resources(first: 1, filter: { id: $id }) { nodes { __typename id hostName ... on GeneralResource { osName } } } } }`, variables: { id: r.id } });
    const detail = await client.query({ query: gql`query Detail($id: ID!) { tenant(id: "client_1") { id resource(id: $id) { __typename id description ... on Resource { serialNumber } } } }`, variables: { id: r.id } });
    expect(calls).toHaveLength(2);
    const key = `GeneralResource:${gid}`;
    expect((list.data as any).tenant.resources.nodes).toEqual([{ __typename: 'GeneralResource', id: gid, hostName: r.hostName, osName: r.osName }]);
    expect((detail.data as any).tenant.resource).toEqual({ __typename: 'GeneralResource', id: gid, description: expect.any(String), serialNumber: r.serialNumber });
    const entries = cache.extract() as Record<string, Entry>;
    expect(Object.keys(entries).filter((k) => k.includes(gid))).toEqual([key]);
    expect(entries[key]).toEqual({
      __typename: 'GeneralResource', id: gid, hostName: r.hostName, osName: r.osName,
      description: (detail.data as any).tenant.resource.description, serialNumber: r.serialNumber,
    });
    const tenant = entries[`Tenant:${globalIdOf({ kind: 'Tenant', tenantId: 'client_1' })}`]!;
    expect(tenant[`resource({"id":"${r.id}"})`]).toEqual({ __ref: key });
  });

  it('keeps the fields of fragments on the Resource interface (and loses them without possibleTypes: the control)', async () => {
    const { client, calls } = apollo({ possibleTypes: fragmentMatcher.possibleTypes });
    const result = (await client.query({ query: gql(PAGE) })).data as any;
    const page = client.readQuery({ query: gql(PAGE) }) as any;
    expect(calls).toHaveLength(1);
    expect(page).toEqual(result);
    const nodes = page.tenant.resources.nodes as any[];
    expect(nodes).toHaveLength(25);
    expect(new Set(nodes.map((n) => n.__typename))).toEqual(new Set(['GeneralResource', 'DeviceResource', 'SyntheticResource']));
    for (const n of nodes) {
      const sim = tenant1().byId.get(n.resourceId)!;
      expect([n.hostName, n.location.name], n.id).toEqual([sim.hostName, sim.location.name]);
    }

    // Control: the same page through a cache without possibleTypes drops the Row fragment.
    const control = await printedDuring(async () => {
      const { client, cache } = apollo();
      const data = (await client.query({ query: gql(PAGE) })).data as any;
      return { data, entries: cache.extract() as Record<string, Entry> };
    });
    const controlNodes = control.result.data.tenant.resources.nodes as any[];
    expect(controlNodes).toHaveLength(25);
    expect(controlNodes.filter((n) => 'hostName' in n || 'resourceId' in n || 'location' in n)).toEqual([]);
    expect(Object.values(control.result.entries).filter((e) => 'hostName' in e)).toEqual([]);
    expect(control.printed.length).toBeGreaterThan(0);
    expect(control.printed.every((line) => line.includes('possibleTypes'))).toBe(true);
  });
});

// --- urql -----------------------------------------------------------------------------------

/**
 * graphcache `keys`: every object type without an `id` field (connections, edges, PageInfo and
 * value types such as NetworkCard, Location, Tag) is embedded in its parent, without a warning.
 * Exactly the README's snippet.
 */
function embeddedKeys(schemaJson: IntrospectionQuery): Record<string, () => null> {
  const roots = [schemaJson.__schema.queryType?.name, schemaJson.__schema.mutationType?.name];
  return Object.fromEntries(
    schemaJson.__schema.types
      .filter((t) => t.kind === 'OBJECT' && !t.name.startsWith('__') && !roots.includes(t.name) && !t.fields.some((f) => f.name === 'id'))
      .map((t) => [t.name, () => null]),
  );
}

/**
 * The server's answer to the query. (urql adds __typename only to the document it sends;
 * graphcache answers with the fields the query asked for.)
 */
async function serverAnswer(q: DashboardQuery): Promise<unknown> {
  const res = await h.query(q.query, q.variables());
  expect(res.errors, q.name).toBeUndefined();
  return res.data;
}

const URQL_SUITE = [...DASHBOARD, ...MORE];

describe('urql with graphcache({ schema, keys }) and the default fetch transport', () => {
  let first: { name: string; requests: string[]; data: unknown; server: unknown; error: unknown }[];
  let printed: string[];
  let client: Client;

  beforeAll(async () => {
    const spied = await printedDuring(async () => {
      client = new Client({ url: h.url, exchanges: [cacheExchange({ schema: introspection, keys: embeddedKeys(introspection) }), fetchExchange] });
      const out: typeof first = [];
      for (const q of URQL_SUITE) {
        const fetchSpy = spyGlobalFetch();
        const result = await client.query(q.query, q.variables()).toPromise();
        await new Promise((resolve) => setTimeout(resolve, 20)); // a stale result would refetch in the background
        const requests = fetchSpy.methods();
        fetchSpy.restore();
        out.push({ name: q.name, requests, data: result.data, error: result.error, server: await serverAnswer(q) });
      }
      return out;
    });
    first = spied.result;
    printed = spied.printed;
  });

  it('runs eleven dashboard queries with zero warnings or errors printed', () => {
    expect(URQL_SUITE.length).toBeGreaterThanOrEqual(8);
    expect(printed).toEqual([]);
    expect(first.filter((r) => r.error !== undefined).map((r) => `${r.name}: ${String(r.error)}`)).toEqual([]);
  });

  it('sends exactly one request per query, GET when the URL fits (urql default), and gets the server answer', () => {
    expect(first.map((r) => r.requests.length)).toEqual(URQL_SUITE.map(() => 1));
    // Every URL of the suite stays within urql's 2048-character limit for GET.
    expect(first.map((r) => r.requests[0])).toEqual(URQL_SUITE.map(() => 'GET'));
    for (const r of first) expect(r.data, r.name).toEqual(r.server);
  });

  it('answers every query again from the cache: no request, and still the server answer', async () => {
    const fetchSpy = spyGlobalFetch();
    const again = await printedDuring(async () => {
      const out: { name: string; data: unknown }[] = [];
      for (const q of URQL_SUITE) out.push({ name: q.name, data: (await client.query(q.query, q.variables()).toPromise()).data });
      await new Promise((resolve) => setTimeout(resolve, 50));
      return out;
    });
    expect(fetchSpy.methods()).toEqual([]);
    expect(again.printed).toEqual([]);
    fetchSpy.restore();
    for (const [i, r] of again.result.entries()) expect(r.data, r.name).toEqual(await serverAnswer(URQL_SUITE[i]!));
  });

  it('gets the same keys config from the checked-in SDL (the README route to the introspection JSON)', () => {
    const fromSdl = introspectionFromSchema(buildSchema(readFileSync(new URL('../../schema/schema.graphql', import.meta.url), 'utf8')));
    expect(Object.keys(embeddedKeys(fromSdl)).sort()).toEqual(Object.keys(embeddedKeys(introspection)).sort());
    expect(Object.keys(embeddedKeys(introspection))).toEqual(expect.arrayContaining(['NetworkCard', 'Location', 'Tag', 'ResourceConnection', 'PageInfo']));
    expect(Object.keys(embeddedKeys(introspection)).filter((t) => NODE_TYPES.includes(t))).toEqual([]);
  });

  it('control: without the keys config graphcache warns "Invalid key" for each value type', async () => {
    const control = await printedDuring(async () => {
      const bare = new Client({ url: h.url, exchanges: [cacheExchange({ schema: introspection }), fetchExchange] });
      for (const q of URQL_SUITE) await bare.query(q.query, q.variables()).toPromise();
    });
    // 213 warnings on this data set (one per field path), all of them "Invalid key".
    expect(control.printed.length).toBeGreaterThan(100);
    expect(control.printed.filter((l) => !l.startsWith('Invalid key'))).toEqual([]);
    const types = new Set(control.printed.filter((l) => l.startsWith('Invalid key')).map((l) => /create a `keys` config for `(\w+)`/.exec(l)?.[1]));
    expect([...types].sort()).toEqual([
      'AntivirusDefinition', 'Availability', 'AvailabilityPeriod', 'CloudProperties', 'Cpu', 'DecommissionedBios', 'DecommissionedNetworkCard',
      'InstalledApplication', 'Location', 'NetworkCard', 'PhysicalDisk', 'SyntheticCredential', 'Tag',
    ]);
  });
});

describe('urql with all defaults (document cache, fetch exchange)', () => {
  it('sends a query as GET without any CSRF header and a mutation as POST, and both work', async () => {
    const fetchSpy = spyGlobalFetch();
    const client = new Client({ url: h.url, exchanges: [documentCacheExchange, fetchExchange] });
    const r = h.simulator.dataset.tenants.get('client_2')!.resources.find((x) => x.shape === 'general')!;
    const query = urqlGql`query One($id: ID!) { tenant(id: "client_2") { id resource(id: $id) { __typename id resourceId hostName aliasName } } }`;
    const read = await client.query(query, { id: r.id }).toPromise();
    expect(read.error).toBeUndefined();
    const gid = resourceGid('client_2', r.id);
    expect((read.data as any).tenant.resource).toEqual({ __typename: 'GeneralResource', id: gid, resourceId: r.id, hostName: r.hostName, aliasName: r.aliasName || null });
    expect(fetchSpy.methods()).toEqual(['GET']);

    const update = await client
      .mutation(urqlGql`mutation Alias($input: UpdateResourceInput!) { updateResource(input: $input) { resource { __typename id aliasName } userErrors { code } } }`, {
        input: { tenantId: 'client_2', id: r.id, aliasName: 'urql-alias' },
      })
      .toPromise();
    expect(update.error).toBeUndefined();
    expect((update.data as any).updateResource).toEqual({ __typename: 'UpdateResourcePayload', resource: { __typename: 'GeneralResource', id: gid, aliasName: 'urql-alias' }, userErrors: [] });
    expect(fetchSpy.methods()).toEqual(['GET', 'POST']);
    // The document cache drops results of the mutated typename: the next read goes out again, as GET.
    const reread = await client.query(query, { id: r.id }).toPromise();
    expect((reread.data as any).tenant.resource.aliasName).toBe('urql-alias');
    expect(fetchSpy.methods()).toEqual(['GET', 'POST', 'GET']);
  });
});

// --- one truth per object: a list and a detail of the same resources ---------------------------

/**
 * Real search hits carry a location without city and tags without their source, while the
 * detail carries both. When the gateway answered nested objects from the record at hand, the
 * list said `city: null` and the detail `city: "Dallas"` for the same resource: each answer
 * overwrote the normalized entry and a watched list re-rendered with the other value. Literal
 * records from a real HTTP upstream; both caches must hold one value and never flip.
 */
describe('one truth per object: a dashboard list and a detail view of the same resources in a normalized cache', () => {
  const IDS = ['0e6f1a2b-0000-4000-8000-000000000001', '0e6f1a2b-0000-4000-8000-000000000002', '0e6f1a2b-0000-4000-8000-000000000003'];
  const hit = (id: string, i: number) => ({
    id, type: 'DEVICE', resourceType: 'Linux', hostName: `host-${i}`, state: 'active',
    location: { id: 7 + i, name: `Site ${i}` }, tags: [{ name: 'env', value: 'prod' }],
  });
  const detail = (id: string, i: number) => ({
    id, state: 'active', generalInfo: { hostName: `host-${i}`, resourceType: 'Linux' },
    location: { id: 7 + i, name: `Site ${i}`, city: 'Dallas', clientId: 1 }, tags: [{ name: 'env', value: 'prod', tagSource: 'USER' }],
  });
  // __typename everywhere, as Apollo adds it to what it sends and stores.
  const SELECTION = '__typename id resourceId hostName location { __typename number name city clientId } tags { __typename name value source }';
  const LIST = `query List { tenant(id: "client_1") { id resources(first: 10) { nodes { ${SELECTION} } } } }`;
  const DETAIL = `query Detail($id: ID!) { tenant(id: "client_1") { id resource(id: $id) { ${SELECTION} } } }`;

  let upstream: Awaited<ReturnType<typeof import('../support/record-upstream.js').startRecordUpstream>>;
  let gw: Harness;
  beforeAll(async () => {
    const { startRecordUpstream, page } = await import('../support/record-upstream.js');
    upstream = await startRecordUpstream();
    upstream.answer = (route, { id }) => {
      if (route === 'search') return page(IDS.map(hit));
      if (route === 'detail') return IDS.includes(id!) ? detail(id!, IDS.indexOf(id!)) : [404, { message: 'Resource not found' }];
      return [404, { message: 'Not found' }];
    };
    gw = await startHarness({ upstreamUrl: upstream.url });
  });
  afterAll(async () => {
    await gw.close();
    await upstream.close();
  });

  const serverAnswers = async () => {
    const list = await gw.query(LIST);
    const details = await Promise.all(IDS.map((id) => gw.query(DETAIL, { id })));
    for (const r of [list, ...details]) expect(r.errors).toBeUndefined();
    return { list: list.data!.tenant.resources.nodes as Entry[], details: details.map((d) => d.data!.tenant.resource as Entry) };
  };

  it('the list and the detail answer each resource alike (city included)', async () => {
    const { list, details } = await serverAnswers();
    expect(list).toEqual(details);
    expect(list.map((r: any) => r.location.city)).toEqual(['Dallas', 'Dallas', 'Dallas']);
  });

  it('Apollo Client 4: the watched list never re-emits changed values, and each entry equals every server answer', async () => {
    const cache = new InMemoryCache({ possibleTypes: fragmentMatcher.possibleTypes });
    const client = new ApolloClient({ cache, link: new HttpLink({ uri: gw.url }) });
    const emitted: string[] = [];
    const watched = client.watchQuery({ query: gql(LIST) }).subscribe({ next: (r) => { if (!r.loading && r.data) emitted.push(JSON.stringify(r.data)); } });
    await vi.waitFor(() => expect(emitted).toHaveLength(1));
    for (const id of IDS) await client.query({ query: gql(DETAIL), variables: { id } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    watched.unsubscribe();
    expect(new Set(emitted).size).toBe(1);
    const { list, details } = await serverAnswers();
    const entries = cache.extract() as Record<string, Entry>;
    for (const [i, server] of list.entries()) {
      const entry = entries[`GeneralResource:${server.id as string}`]!;
      for (const answer of [server, details[i]!]) expect(entry, server.id as string).toEqual(answer);
    }
  });

  it('urql graphcache: the list query never re-emits changed values, and the cache answers every query as the server does', async () => {
    const client = new Client({ url: gw.url, exchanges: [cacheExchange({ schema: introspection, keys: embeddedKeys(introspection) }), fetchExchange] });
    const emitted: string[] = [];
    const listening = client.query(LIST, {}).subscribe((r) => { if (r.data) emitted.push(JSON.stringify(r.data)); });
    await vi.waitFor(() => expect(emitted.length).toBeGreaterThan(0));
    for (const id of IDS) await client.query(DETAIL, { id }).toPromise();
    await new Promise((resolve) => setTimeout(resolve, 50));
    listening.unsubscribe();
    expect(new Set(emitted).size).toBe(1);
    const { list, details } = await serverAnswers();
    const fromCache = (await client.query(LIST, {}, { requestPolicy: 'cache-only' }).toPromise()).data as any;
    expect(fromCache.tenant.resources.nodes).toEqual(list);
    for (const [i, id] of IDS.entries()) {
      const cached = (await client.query(DETAIL, { id }, { requestPolicy: 'cache-only' }).toPromise()).data as any;
      expect(cached.tenant.resource).toEqual(details[i]);
    }
  });
});
