/**
 * Queries and mutations run as compiled code (src/server/compiled-execution.ts); what the compiler
 * does not do stays on Yoga's executor. The answers are the same either way; the debug log says
 * which executor an operation got (LOG_LEVEL=debug only makes that visible).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, upstreamCalls, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { LOG_LEVEL: 'debug' } });
});
afterAll(async () => {
  await h.close();
});

const executorOf = (operationName: string) => h.logs
  .map((line) => JSON.parse(line) as { msg: string; operationName?: string; reason?: string })
  .filter((line) => line.operationName === operationName && /^operation (compiled|runs on the standard executor)/.test(line.msg))
  .map((line) => (line.msg === 'operation compiled' ? 'compiled' : `standard: ${line.reason}`));

describe('compiled execution', () => {
  it('runs each named operation of a document with several (as GraphiQL sends them) as its own code', async () => {
    const document = `
      query Names { tenant(id: "client_1") { resources(first: 3) { nodes { resourceId name } } } }
      query Hosts { tenant(id: "client_1") { resources(first: 3) { nodes { resourceId hostName } } } }`;
    const page = await h.rest('client_1/resources/search?pageNo=1&pageSize=3&sortName=name&isDescendingOrder=false');
    const post = async (operationName: string) => (await fetch(h.url + '/graphql', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: document, operationName }),
    })).json() as Promise<{ data: { tenant: { resources: { nodes: Record<string, string>[] } } } }>;
    for (let round = 0; round < 2; round++) {
      expect((await post('Names')).data.tenant.resources.nodes).toEqual(page.results.map((r: { id: string; name: string }) => ({ resourceId: r.id, name: r.name })));
      expect((await post('Hosts')).data.tenant.resources.nodes).toEqual(page.results.map((r: { id: string; hostName: string }) => ({ resourceId: r.id, hostName: r.hostName })));
    }
    // Compiled once each, on first use.
    expect(executorOf('Names')).toEqual(['compiled']);
    expect(executorOf('Hosts')).toEqual(['compiled']);
  });

  it('learns the concrete type of a resource from the minimal list (which does not say it) before its type is asked (a small tenant)', async () => {
    const res = await h.query(`query MinimalTypes { tenant(id: "client_2") { resourceList { __typename resourceId } } }`);
    expect(res.errors).toBeUndefined();
    const items = (res.data as { tenant: { resourceList: { __typename: string; resourceId: string }[] } }).tenant.resourceList;
    expect(items.length).toBeGreaterThan(3);
    expect(new Set(items.map((i) => i.__typename)).size).toBeGreaterThan(1);
    for (const item of items.slice(0, 6)) {
      const detail = await h.query('query($id: ID!) { tenant(id: "client_2") { resource(id: $id) { __typename } } }', { id: item.resourceId });
      expect((detail.data as { tenant: { resource: { __typename: string } } }).tenant.resource.__typename).toBe(item.__typename);
    }
    expect(executorOf('MinimalTypes')).toEqual(['compiled']);
  });

  it('leaves @defer, @stream and documents without one operation to run to Yoga\'s executor, with the same answers', async () => {
    const deferred = await fetch(h.url + '/graphql', {
      method: 'POST', headers: { 'content-type': 'application/json', accept: 'multipart/mixed' },
      body: JSON.stringify({ query: 'query Later { tenant(id: "client_1") { id ... @defer { resourceTypes { name } } } }' }),
    });
    expect(deferred.headers.get('content-type')).toMatch(/^multipart\/mixed/);
    expect(await deferred.text()).toContain('"resourceTypes"');
    expect(executorOf('Later')).toEqual(['standard: streamed']);
    const unnamed = await h.query('query A { __typename } query B { __typename }');
    expect(unnamed.errors?.[0]?.message).toMatch(/what operation to execute/);
  });

  it('answers variables that do not fit as the standard executor does (BAD_USER_INPUT, nothing sent upstream)', async () => {
    h.resetCounts();
    const res = await h.query('query Paged($first: Int) { tenant(id: "client_1") { resources(first: $first) { nodes { id } } } }', { first: 'ten' });
    expect(res.data).toBeUndefined();
    expect(res.errors?.[0]?.message).toMatch(/Variable "\$first" got invalid value "ten"/);
    expect(upstreamCalls(h)).toEqual({});
    expect(executorOf('Paged')).toEqual(['compiled']);
  });

  it('keeps a field error to its field, with its code and path, as the standard executor does', async () => {
    const res = await h.query('query TwoResources { tenant(id: "client_1") { id bad: resource(id: "no such id!") { id } } }');
    expect((res.data as { tenant: { id: string; bad: unknown } }).tenant.id).toBeTruthy();
    expect((res.data as { tenant: { bad: unknown } }).tenant.bad).toBeNull();
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0]!.path).toEqual(['tenant', 'bad']);
    expect(res.errors![0]!.extensions?.code).toBe('BAD_USER_INPUT');
    expect(executorOf('TwoResources')).toEqual(['compiled']);
  });

  it('merges a field selected twice, once under @skip or @include, as the specification says', async () => {
    const query = `query Merged($x: Boolean!) { tenant(id: "client_1") {
      resourceTypes { name ... on ResourceType @skip(if: $x) { number } }
      ... on Tenant @include(if: $x) { resourceTypes { path } }
      ...Levels @skip(if: $x)
    } }
    fragment Levels on Tenant { resourceTypes { levels } }`;
    const types = (x: boolean) => h.query(query, { x }).then((r) => (r.data as { tenant: { resourceTypes: Record<string, unknown>[] } }).tenant.resourceTypes);
    const skipped = await types(true);
    const kept = await types(false);
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped.every((t) => Object.keys(t).sort().join() === 'name,path')).toBe(true);
    expect(kept.every((t) => Object.keys(t).sort().join() === 'levels,name,number')).toBe(true);
    expect(executorOf('Merged')).toEqual(['compiled']);
  });

  it('runs a mutation compiled', async () => {
    const page = await h.rest('client_1/resources/search?pageNo=1&pageSize=1');
    const id = (page.results as { id: string }[])[0]!.id;
    const res = await h.query('mutation Rename($id: ID!) { updateResource(input: { tenantId: "client_1", id: $id, aliasName: "compiled" }) { resource { aliasName } userErrors { code } } }', { id });
    expect(res.data).toEqual({ updateResource: { resource: { aliasName: 'compiled' }, userErrors: [] } });
    expect(executorOf('Rename')).toEqual(['compiled']);
  });
});

describe('compiled code in the document cache (DOCUMENT_CACHE_MAX_BYTES)', () => {
  let small: Harness;
  beforeAll(async () => {
    // 1 MiB: no document may weigh more than 128 KiB with its code.
    small = await startHarness({ env: { LOG_LEVEL: 'debug', DOCUMENT_CACHE_MAX_BYTES: String(1024 * 1024) } });
  });
  afterAll(async () => {
    await small.close();
  });
  const executorsOf = (operationName: string) => small.logs
    .map((line) => JSON.parse(line) as { msg: string; operationName?: string; reason?: string })
    .filter((line) => line.operationName === operationName && /^operation (compiled|runs on the standard executor)/.test(line.msg))
    .map((line) => (line.msg === 'operation compiled' ? 'compiled' : `standard: ${line.reason}`));
  const metric = async () => Number(/^gateway_document_cache_bytes (\d+)$/m.exec(await (await small.fetch('http://gateway.in-process/metrics')).text())?.[1]);

  it('counts each document with its compiled code against the bound, and evicts the least recently used', async () => {
    const one = (i: number) => `query Small${i} { tenant(id: "client_1") { id } }`;
    expect((await small.query(one(0))).data).toEqual({ tenant: { id: expect.any(String) } });
    const first = await metric();
    // Parsed and compiled: tens of kilobytes, most of them code.
    expect(first).toBeGreaterThan(10_000);
    for (let i = 1; i < 200; i++) await small.query(one(i));
    expect(await metric()).toBeLessThanOrEqual(1024 * 1024);
    expect(await metric()).toBeGreaterThan(1024 * 1024 - 2 * first);
    // The first was evicted: its document is parsed and its code made again.
    await small.query(one(0));
    expect(executorsOf('Small0')).toEqual(['compiled', 'compiled']);
  });

  it('runs an operation whose code would weigh more than an entry may on Yoga\'s executor, with the same answer, compiling it once', async () => {
    const wide = `query Wide { tenant(id: "client_1") { ${Array.from({ length: 6 }, (_, i) => `r${i}: resources(first: 2) { nodes { __typename id resourceId name hostName ... on GeneralResource { osName location { name } } applications { name version } } }`).join(' ')} } }`;
    const a = await small.query(wide);
    const b = await small.query(wide);
    expect(a.errors).toBeUndefined();
    expect(b).toEqual(a);
    expect(executorsOf('Wide')).toEqual([expect.stringMatching(/^standard: compiled code too large to keep \(about \d+ KB\)$/)]);
  });
});
