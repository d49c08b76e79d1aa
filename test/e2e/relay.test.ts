/**
 * Relay works with the gateway out of the box. The real relay-compiler compiles the operations
 * and fragments of test/relay/src (a @refetchable fragment on Resource and one on Tenant, a
 * @connection on a tenant's resources, node/nodes lookups, resource types with their ids)
 * against schema/schema.graphql with no error, into a temporary directory (the artifacts are
 * not committed, so nothing can go stale). relay-runtime then runs them against the gateway,
 * normalizes the answers with no error or warning, and reads back what the server sent; the
 * refetch queries @refetchable generates (through node(id:)) return the same records.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import RelayRuntime from 'relay-runtime';
import type { ConcreteRequest, IEnvironment, ReaderFragment, SingularReaderSelector, Variables } from 'relay-runtime';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { startHarness, type GraphQLResponse, type Harness } from '../support/harness.js';

const { Environment, Network, RecordSource, Store, createOperationDescriptor, fetchQuery, getSelector } = RelayRuntime;

const RELAY_DIR = path.resolve('test/relay');
const COMPILER = path.resolve('node_modules/relay-compiler/cli.js');

interface Compiled {
  code: number;
  output: string;
  files: string[];
  dir: string;
}

/** Runs relay-compiler with test/relay/relay.config.json, its artifacts written to a temporary directory. */
async function compile(): Promise<Compiled> {
  const dir = await mkdtemp(path.join(tmpdir(), 'relay-'));
  const config = JSON.parse(await readFile(path.join(RELAY_DIR, 'relay.config.json'), 'utf8'));
  // Paths in a config are relative to the compiler's working directory: the temporary one.
  config.src = path.relative(dir, path.resolve(RELAY_DIR, config.src));
  config.schema = path.relative(dir, path.resolve(RELAY_DIR, config.schema));
  config.artifactDirectory = './__generated__';
  await mkdir(path.join(dir, '__generated__'));
  await writeFile(path.join(dir, 'relay.config.json'), JSON.stringify(config, null, 2));
  const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(process.execPath, [COMPILER, '--noWatchman', 'relay.config.json'], { cwd: dir, env: { ...process.env, NO_COLOR: '1' } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}`.replace(/\u001b\[[0-9;]*m/g, '') });
    });
  });
  const files = code === 0 ? (await readdir(path.join(dir, '__generated__'))).sort() : [];
  return { code, output, files, dir };
}

let h: Harness;
let compiled: Compiled;
/** Every answer the Relay network layer received. */
const answers: GraphQLResponse<any>[] = [];

async function artifact<T = ConcreteRequest>(name: string): Promise<T> {
  const module = (await import(path.join(compiled.dir, '__generated__', `${name}.graphql.ts`))) as { default: T };
  return module.default;
}

/** A Relay environment whose network layer posts to the gateway (or sends queries as GET, with no CSRF header). */
function environment(method: 'POST' | 'GET' = 'POST'): IEnvironment {
  const network = Network.create(async (params, variables) => {
    const accept = 'application/graphql-response+json, application/json';
    let response: Response;
    if (method === 'GET') {
      const url = new URL(h.url);
      url.searchParams.set('query', params.text ?? '');
      url.searchParams.set('operationName', params.name);
      url.searchParams.set('variables', JSON.stringify(variables));
      response = await fetch(url, { headers: { accept } });
    } else {
      response = await h.fetch(h.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept },
        body: JSON.stringify({ query: params.text, operationName: params.name, variables }),
      });
    }
    const json = (await response.json()) as GraphQLResponse<any>;
    answers.push(json);
    return json as never;
  });
  return new Environment({ network, store: new Store(new RecordSource()) });
}

/** Runs a query through Relay, keeps it retained, and reads the operation back from the store. */
async function run(env: IEnvironment, query: ConcreteRequest, variables: Variables): Promise<any> {
  const operation = createOperationDescriptor(query, variables);
  env.retain(operation);
  await fetchQuery(env, query, variables).toPromise();
  const snapshot = env.lookup(operation.fragment);
  expect(snapshot.isMissingData, `missing data in ${query.params.name}`).toBe(false);
  return snapshot.data;
}

/** Reads a fragment of a record reference out of the store. */
function read(env: IEnvironment, fragment: ReaderFragment, ref: unknown): any {
  const selector = getSelector(fragment, ref as never) as SingularReaderSelector;
  expect(selector).not.toBeNull();
  const snapshot = env.lookup(selector);
  expect(snapshot.isMissingData, `missing data in ${fragment.name}`).toBe(false);
  return snapshot.data;
}

/** Fragment data without Relay's own keys (fragment references, owners), to compare with the server's JSON. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !key.startsWith(' ') && !key.startsWith('__fragment') && key !== '__id' && key !== '__isWithinUnmatchedTypeRefinement')
      .map(([key, v]) => [key, plain(v)]),
  );
}

/** The same operation text sent to the gateway directly: what the server says. */
async function server(query: ConcreteRequest, variables: Variables): Promise<any> {
  const answer = await h.query(query.params.text ?? '', variables);
  expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
  return answer.data;
}

let consoleError: MockInstance;
let consoleWarn: MockInstance;

beforeAll(async () => {
  [h, compiled] = await Promise.all([startHarness(), compile()]);
});
afterAll(async () => {
  await h?.close();
  if (compiled?.dir) await rm(compiled.dir, { recursive: true, force: true });
});
beforeEach(() => {
  answers.length = 0;
  consoleError = vi.spyOn(console, 'error');
  consoleWarn = vi.spyOn(console, 'warn');
});
afterEach(() => {
  // relay-runtime reports normalization problems (e.g. a missing or non-string id) through console.error in development.
  expect(consoleError.mock.calls).toEqual([]);
  expect(consoleWarn.mock.calls).toEqual([]);
  for (const answer of answers) expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
  vi.restoreAllMocks();
});

describe('relay-compiler', () => {
  it('compiles the operations and fragments of test/relay/src against schema/schema.graphql with zero errors', () => {
    console.log(`relay-compiler output:\n${compiled.output.trim()}`);
    expect(compiled.code, compiled.output).toBe(0);
    expect(compiled.output).not.toMatch(/error/i);
    expect(compiled.output).toMatch(/Compilation completed/);
    expect(compiled.files).toEqual(
      [
        'NodeLookupManyQuery',
        'NodeLookupQuery',
        'ResourceCardRefetchQuery',
        'ResourceCard_resource',
        'TenantResourceTypesQuery',
        'TenantResourceTypes_tenant',
        'TenantResourcesPaginationQuery',
        'TenantResourcesQuery',
        'TenantResources_tenant',
      ].map((name) => `${name}.graphql.ts`),
    );
  });

  it('makes @refetchable queries that go through node(id:), and a @connection on Tenant.resources', async () => {
    for (const name of ['ResourceCardRefetchQuery', 'TenantResourcesPaginationQuery']) {
      const query = await artifact(name);
      expect(query.params.operationKind).toBe('query');
      expect(query.params.text).toMatch(/node\(id: \$id\)/);
    }
    const card = await artifact<ReaderFragment>('ResourceCard_resource');
    expect(card.metadata?.refetch).toMatchObject({ fragmentPathInResult: ['node'], identifierInfo: { identifierField: 'id' } });
    const tenant = await artifact<ReaderFragment>('TenantResources_tenant');
    expect(tenant.metadata?.connection).toEqual([{ count: 'count', cursor: 'cursor', direction: 'forward', path: ['resources'] }]);
    expect(tenant.metadata?.refetch).toMatchObject({ fragmentPathInResult: ['node'] });
  });
});

describe('relay-runtime against the gateway', () => {
  it('normalizes a tenant with a page of its resources, paginates the @connection through node(id:), and reads back what the server sent', async () => {
    const [query, pagination, tenantFragment, cardFragment] = await Promise.all([
      artifact('TenantResourcesQuery'),
      artifact('TenantResourcesPaginationQuery'),
      artifact<ReaderFragment>('TenantResources_tenant'),
      artifact<ReaderFragment>('ResourceCard_resource'),
    ]);
    const env = environment();
    const variables = { tenantId: 'client_1', count: 3 };
    const data = await run(env, query, variables);
    const tenant = read(env, tenantFragment, data.tenant);
    const cards = tenant.resources.edges.map((edge: any) => read(env, cardFragment, edge.node));
    expect(cards).toHaveLength(3);
    expect(cards[0].hostName).toEqual(expect.any(String));

    const expected = (await server(query, variables)).tenant;
    expect(data.tenant.id).toBe(expected.id);
    expect(expected).toMatchObject({
      id: tenant.id,
      tenantId: 'client_1',
      resources: {
        totalCount: tenant.resources.totalCount,
        pageInfo: tenant.resources.pageInfo,
        edges: tenant.resources.edges.map((edge: any, i: number) => ({ cursor: edge.cursor, node: plain(cards[i]) })),
      },
    });

    // The next page through the refetch query @refetchable made: Relay's connection handler appends it.
    await run(env, pagination, { id: tenant.id, count: 3, cursor: tenant.resources.pageInfo.endCursor });
    expect(answers.at(-1)?.data.node).toMatchObject({ __typename: 'Tenant', id: tenant.id, tenantId: 'client_1' });
    const merged = read(env, tenantFragment, data.tenant);
    const mergedCards = merged.resources.edges.map((edge: any) => plain(read(env, cardFragment, edge.node)));
    const firstSix = (await server(query, { tenantId: 'client_1', count: 6 })).tenant.resources;
    expect(merged.resources.edges.map((edge: any) => edge.cursor)).toEqual(firstSix.edges.map((edge: any) => edge.cursor));
    expect(firstSix.edges.map((edge: any) => edge.node)).toMatchObject(mergedCards);
    expect(merged.resources.pageInfo).toEqual(firstSix.pageInfo);
  });

  it('refetches a resource through the @refetchable query (node(id:)): the same record, the same fields', async () => {
    const [query, refetch, tenantFragment, cardFragment] = await Promise.all([
      artifact('TenantResourcesQuery'),
      artifact('ResourceCardRefetchQuery'),
      artifact<ReaderFragment>('TenantResources_tenant'),
      artifact<ReaderFragment>('ResourceCard_resource'),
    ]);
    const env = environment();
    const data = await run(env, query, { tenantId: 'client_1', count: 5 });
    const edges = read(env, tenantFragment, data.tenant).resources.edges;
    const typenames = new Set<string>();
    for (const edge of edges) {
      const before = plain(read(env, cardFragment, edge.node)) as any;
      typenames.add(before.__typename);
      // A fresh store: what the refetch query alone normalizes.
      const fresh = environment();
      const refetched = await run(fresh, refetch, { id: before.id });
      // The query's own selection is the fragment reference; the id is in the fragment.
      expect(plain(read(fresh, cardFragment, refetched.node))).toEqual(before);
      expect(fresh.getStore().getSource().get(before.id)?.__typename).toBe(before.__typename);
      // And in the same store: the record is updated in place, still equal.
      const again = await run(env, refetch, { id: before.id });
      expect(plain(read(env, cardFragment, again.node))).toEqual(before);
      expect((await server(refetch, { id: before.id })).node).toMatchObject(before);
    }
    expect(typenames.size).toBeGreaterThan(0);
  });

  it('normalizes resource types by their global ids (sent as GET), for two tenants in one store', async () => {
    const [query, fragment] = await Promise.all([artifact('TenantResourceTypesQuery'), artifact<ReaderFragment>('TenantResourceTypes_tenant')]);
    const env = environment('GET');
    for (const tenantId of ['client_1', 'client_2']) {
      const data = await run(env, query, { tenantId });
      const types = read(env, fragment, data.tenant).resourceTypes;
      expect(types.length).toBeGreaterThan(1);
      for (const type of types) {
        expect(type.id).toEqual(expect.any(String));
        expect(env.getStore().getSource().get(type.id)?.__typename).toBe('ResourceType');
      }
      const expected = await server(query, { tenantId });
      expect(expected.tenant).toMatchObject({ id: data.tenant.id, tenantId });
      expect(expected.tenant.resourceTypes).toEqual(plain(types));
    }
    // Both tenants read back what the server sent after both were normalized into the one store.
    for (const tenantId of ['client_1', 'client_2']) {
      const data = env.lookup(createOperationDescriptor(query, { tenantId }).fragment).data as any;
      expect(plain(read(env, fragment, data.tenant).resourceTypes)).toEqual((await server(query, { tenantId })).tenant.resourceTypes);
    }
  });

  it('looks up a tenant, a resource type and resources through node and nodes', async () => {
    const [lookup, lookupMany, types, resources, cardFragment] = await Promise.all([
      artifact('NodeLookupQuery'),
      artifact('NodeLookupManyQuery'),
      artifact('TenantResourceTypesQuery'),
      artifact('TenantResourcesQuery'),
      artifact<ReaderFragment>('ResourceCard_resource'),
    ]);
    const listed = await server(types, { tenantId: 'client_1' });
    const page = await server(resources, { tenantId: 'client_1', count: 2 });
    const resourceIds: string[] = page.tenant.resources.edges.map((edge: any) => edge.node.id);
    const typeId: string = listed.tenant.resourceTypes[0].id;
    const env = environment();

    const tenant = await run(env, lookup, { id: listed.tenant.id });
    expect(plain(tenant.node)).toEqual({ id: listed.tenant.id, __typename: 'Tenant', tenantId: 'client_1', resource: null });
    const type = await run(env, lookup, { id: typeId });
    expect(plain(type.node)).toEqual({ ...(await server(lookup, { id: typeId })).node, resource: null });
    const resource = await run(env, lookup, { id: resourceIds[0] });
    const card = plain(read(env, cardFragment, resource.node.resource));
    expect((await server(lookup, { id: resourceIds[0] })).node).toMatchObject(card as object);

    const ids = [...resourceIds, listed.tenant.id, typeId];
    const many = await run(env, lookupMany, { ids });
    expect(many.nodes.map((node: any) => node.id)).toEqual(ids);
    expect(many.nodes.map((node: any) => node.resource === null)).toEqual([false, false, true, true]);
    const cards = many.nodes.slice(0, 2).map((node: any) => plain(read(env, cardFragment, node.resource)));
    expect((await server(lookupMany, { ids })).nodes.slice(0, 2)).toMatchObject(cards);
  });
});
