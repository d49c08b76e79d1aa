/** The public endpoint against hostile input: every case is refused with its code and costs no upstream call. */
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { globalIdOf } from '../../src/schema/global-id.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.resetCounts());

interface Case {
  name: string;
  /** A GraphQL request (query + variables), or a raw HTTP request. */
  query?: string;
  variables?: Record<string, unknown>;
  raw?: () => Promise<Response>;
  code: string;
  status?: number;
}

const RESOURCE_TEXT_FIELDS = ['hostName', 'resourceName', 'dnsName', 'aliasName', 'serialNumber', 'systemUID', 'type', 'template', 'agentProfile', 'gatewayProfile', 'instanceId', 'accountNumber', 'installedIntegrationId'];
const RESOURCE_LIST_FIELDS = ['resourceTypes', 'deviceTypes', 'tags'];
const GROUP_FIELDS = ['deviceGroup', 'serviceGroup', 'deviceLocation'];
const HISTORY_TEXT_FIELDS = ['hostName', 'instanceId', 'type', 'accountNumber', 'provider', 'owner', 'instanceType', 'zone', 'region', 'ami', 'hostedServiceName'];
const SEARCH = 'query($f: ResourceFilter) { tenant(id: "client_1") { resources(first: 5, filter: $f) { totalCount } } }';
const HISTORY = 'query($f: DecommissionedResourceFilter) { tenant(id: "client_1") { decommissionedResources(first: 5, filter: $f) { totalCount } } }';
const LOOKUP = 'query($id: ID!) { tenant(id: "client_1") { resource(id: $id) { id } } }';

const post = (body: string, headers: Record<string, string> = {}) => h.fetch(h.endpoint, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

const cases: Case[] = [
  // path traversal and odd ids
  ...['../../etc/passwd', '%2F..%2Fadmin', 'a/b', '..', '.', 'abc\u0000', 'x'.repeat(200), 'id with space'].map((id) => ({ name: `resource id ${JSON.stringify(id).slice(0, 30)}`, query: LOOKUP, variables: { id }, code: 'BAD_USER_INPUT' })),
  ...['client_1/../client_2', '%2e%2e', 'client_1?x=1', 'tenant#frag'].map((id) => ({ name: `tenant id ${JSON.stringify(id)}`, query: 'query($t: ID!) { tenant(id: $t) { resources(first: 1) { totalCount } } }', variables: { t: id }, code: 'BAD_USER_INPUT' })),
  { name: 'decommissioned id with a slash', query: '{ tenant(id: "client_1") { decommissionedResource(id: "../x") { id } } }', code: 'BAD_USER_INPUT' },
  { name: 'entity reference with a traversal id', query: 'query($r: [_Any!]!) { _entities(representations: $r) { __typename } }', variables: { r: [{ __typename: 'Resource', tenantId: 'client_1', resourceId: '../../x' }] }, code: 'BAD_USER_INPUT' },
  { name: 'entity reference by a global id that hides a traversal id', query: 'query($r: [_Any!]!) { _entities(representations: $r) { __typename } }', variables: { r: [{ __typename: 'Resource', id: Buffer.from('Resource:client_1:../../x').toString('base64url') }] }, code: 'BAD_USER_INPUT' },
  // injection in every filter
  ...RESOURCE_TEXT_FIELDS.map((field) => ({ name: `filter.${field} with +key:value`, query: SEARCH, variables: { f: { [field]: 'x+state:inactive' } }, code: 'BAD_USER_INPUT' })),
  ...RESOURCE_LIST_FIELDS.map((field) => ({ name: `filter.${field} item with a comma and a key`, query: SEARCH, variables: { f: { [field]: ['ok', 'x,state:inactive'] } }, code: 'BAD_USER_INPUT' })),
  ...GROUP_FIELDS.map((field) => ({ name: `filter.${field}.name with a newline`, query: SEARCH, variables: { f: { [field]: { name: 'lab\nstate:inactive' } } }, code: 'BAD_USER_INPUT' })),
  { name: 'filter.id with a colon', query: SEARCH, variables: { f: { id: 'x:y' } }, code: 'BAD_USER_INPUT' },
  { name: 'filter.ipAddress with a +', query: SEARCH, variables: { f: { ipAddress: '10.0.0.1+state:x' } }, code: 'BAD_USER_INPUT' },
  { name: 'filter.aliasIp that is no address', query: SEARCH, variables: { f: { aliasIp: 'evil host' } }, code: 'BAD_USER_INPUT' },
  { name: 'filter.appRoles with an unknown role', query: SEARCH, variables: { f: { appRoles: ['KAFKA', 'ROOTKIT'] } }, code: 'BAD_USER_INPUT' },
  ...HISTORY_TEXT_FIELDS.map((field) => ({ name: `history filter.${field} with +key:value`, query: HISTORY, variables: { f: { [field]: 'x+state:ACTIVE' } }, code: 'BAD_USER_INPUT' })),
  // unicode and control characters
  { name: 'a bell character', query: SEARCH, variables: { f: { hostName: 'a\u0007b' } }, code: 'BAD_USER_INPUT' },
  { name: 'an escape sequence', query: SEARCH, variables: { f: { hostName: '\u001b[31mred' } }, code: 'BAD_USER_INPUT' },
  { name: 'a C1 control character', query: SEARCH, variables: { f: { hostName: 'a\u0085b' } }, code: 'BAD_USER_INPUT' },
  { name: 'a paragraph separator', query: SEARCH, variables: { f: { hostName: 'a\u2029b' } }, code: 'BAD_USER_INPUT' },
  // sizes and ranges
  { name: 'a 10 kB filter value', query: SEARCH, variables: { f: { hostName: 'x'.repeat(10_000) } }, code: 'BAD_USER_INPUT' },
  { name: 'a huge first', query: '{ tenant(id: "client_1") { resources(first: 100000) { totalCount } } }', code: 'BAD_USER_INPUT' },
  { name: 'a first beyond 32 bits', query: '{ tenant(id: "client_1") { resources(first: 99999999999) { totalCount } } }', code: 'GRAPHQL_VALIDATION_FAILED' },
  { name: 'a negative offset', query: '{ tenant(id: "client_1") { resources(offset: -1, first: 1) { totalCount } } }', code: 'BAD_USER_INPUT' },
  { name: 'a forged cursor', query: '{ tenant(id: "client_1") { resources(after: "b3ZlcjoxMjM=") { totalCount } } }', code: 'BAD_USER_INPUT' },
  { name: 'a threshold out of range', query: 'mutation { updateResource(input: { tenantId: "client_1", id: "abc", logicalDiskDrives: [{ name: "C:", freeDiskWarningThreshold: 1e9 }] }) { userErrors { code } } }', code: 'OUT_OF_RANGE' },
  { name: 'an update of a traversal id', query: 'mutation { updateResource(input: { tenantId: "client_1", id: "../../admin", aliasName: "x" }) { userErrors { code } } }', code: 'INVALID_FORMAT' },
  // dates
  { name: 'an invalid date', query: SEARCH, variables: { f: { createdBetween: { from: '2026-02-30T00:00:00Z' } } }, code: 'BAD_USER_INPUT' },
  { name: 'a date without an offset', query: SEARCH, variables: { f: { assetManagedTime: '2026-01-01 00:00' } }, code: 'BAD_USER_INPUT' },
  { name: 'a date as a word', query: '{ tenant(id: "client_1") { resource(id: "abc") { availability(from: "yesterday", to: "today") { downtimeSeconds } } } }', code: 'GRAPHQL_VALIDATION_FAILED' },
  { name: 'an availability window of ten years', query: '{ tenant(id: "client_1") { resources(first: 1) { nodes { availability(from: "2016-01-01T00:00:00Z", to: "2026-01-01T00:00:00Z") { downtimeSeconds } } } } }', code: 'BAD_USER_INPUT' },
  // enums
  { name: 'an unknown enum value', query: '{ tenant(id: "client_1") { resourceList(state: EVERYTHING) { id } } }', code: 'GRAPHQL_VALIDATION_FAILED' },
  { name: 'an enum value given as a string variable', query: 'query($s: ResourceStateFilter) { tenant(id: "client_1") { resourceList(state: $s) { id } } }', variables: { s: 'all' }, code: 'BAD_USER_INPUT' },
  // shape of the operation
  { name: 'deep introspection nesting', query: `{ __schema { types { ${'fields { type { '.repeat(8)}name${' } }'.repeat(8)} } } }`, code: 'OPERATION_TOO_EXPENSIVE' },
  { name: 'an alias bomb', query: `{ tenant(id: "client_1") { ${Array.from({ length: 200 }, (_, i) => `a${i}: id`).join(' ')} } }`, code: 'OPERATION_TOO_EXPENSIVE' },
  { name: 'aliases multiplied through fragments', query: `query { tenant(id: "client_1") { ...F ...F ...F } } fragment F on Tenant { ${Array.from({ length: 12 }, (_, i) => `x${i}: id`).join(' ')} }`, code: 'OPERATION_TOO_EXPENSIVE' },
  { name: 'a fragment cycle', query: 'query { tenant(id: "client_1") { ...A } } fragment A on Tenant { id ...B } fragment B on Tenant { id ...A }', code: 'GRAPHQL_VALIDATION_FAILED' },
  { name: 'a token flood', query: `{ tenant(id: "client_1") { id ${'__typename '.repeat(3000)} } }`, code: 'OPERATION_TOO_EXPENSIVE' },
  { name: 'a syntax error', query: '{ tenant(id: "client_1") { id ', code: 'GRAPHQL_PARSE_FAILED' },
  { name: 'an unknown field', query: '{ tenant(id: "client_1") { secrets } }', code: 'GRAPHQL_VALIDATION_FAILED' },
  { name: 'too many upstream calls', query: '{ tenant(id: "client_1") { resources(first: 500) { nodes { applications { name } availability(from: "2026-10-01T00:00:00Z", to: "2026-10-02T00:00:00Z") { downtimeSeconds } } } } }', code: 'OPERATION_TOO_EXPENSIVE' },
  // HTTP
  { name: 'an oversized body', raw: () => post(JSON.stringify({ query: `{ tenant(id: "client_1") { id } }`, variables: { pad: 'x'.repeat(200_000) } })), code: 'OPERATION_TOO_EXPENSIVE', status: 413 },
  // A mutation that would call the upstream if it ran (a real id, a valid change).
  { name: 'a mutation over GET', raw: () => h.fetch(`${h.endpoint}?query=${encodeURIComponent(`mutation { updateResource(input: { tenantId: "client_1", id: "${h.simulator.dataset.tenants.get('client_1')!.resources[0]!.id}", aliasName: "x" }) { userErrors { code } } }`)}`), code: 'BAD_USER_INPUT', status: 405 },
  { name: 'a form-encoded POST', raw: () => h.fetch(h.endpoint, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'query=%7B__typename%7D' }), code: 'FORBIDDEN', status: 403 },
  { name: 'a text/plain POST', raw: () => h.fetch(h.endpoint, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ query: '{ __typename }' }) }), code: 'FORBIDDEN', status: 403 },
  { name: 'a multipart POST', raw: () => { const form = new FormData(); form.set('operations', JSON.stringify({ query: '{ __typename }' })); form.set('map', '{}'); /* the multipart encoding is made by the HTTP client */ return fetch(h.url, { method: 'POST', body: form }); }, code: 'FORBIDDEN', status: 403 },
  { name: 'a batch over the limit', raw: () => post(JSON.stringify(Array.from({ length: 20 }, () => ({ query: '{ tenant(id: "client_1") { resourceTypes { name } } }' })))), code: 'OPERATION_TOO_EXPENSIVE', status: 413 },
  { name: 'a body that is not JSON', raw: () => post('{"query": "{ __typename }"'), code: 'BAD_USER_INPUT', status: 400 },
];

function codesOf(body: any): string[] {
  const errors = [...(body?.errors ?? []), ...((body?.data?.updateResource?.userErrors ?? []) as unknown[])];
  return errors.map((e: any) => e.extensions?.code ?? e.code);
}

describe('hostile input', () => {
  it('covers at least 40 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    let status: number;
    let body: any;
    if (c.raw) {
      const response = await c.raw();
      status = response.status;
      body = await response.json().catch(() => null);
    } else {
      const response = await post(JSON.stringify({ query: c.query, variables: c.variables }));
      status = response.status;
      body = await response.json();
    }
    expect(codesOf(body)).toContain(c.code);
    if (c.status) expect(status).toBe(c.status);
    expect(JSON.stringify(body)).not.toMatch(/"stack"|at .+\.(ts|js):\d+/);
    expect(h.simulator.stats().totalCalls).toBe(0);
  });

  it('lets ordinary unicode through', async () => {
    const res = await h.query(SEARCH, { f: { hostName: 'Zürich-東京' } });
    expect(res.errors).toBeUndefined();
    expect(h.simulator.stats().requests[0]!.url).toContain(encodeURIComponent('hostName:Zürich-東京'));
  });

  it('allows the standard introspection query and a GET query, with or without a CSRF header', async () => {
    const res = await h.query(getIntrospectionQuery());
    expect(res.errors).toBeUndefined();
    const url = `${h.url}?query=${encodeURIComponent('{ tenant(id: "client_1") { id tenantId } }')}`;
    const expected = { data: { tenant: { id: globalIdOf({ kind: 'Tenant', tenantId: 'client_1' }), tenantId: 'client_1' } } };
    const marked = await fetch(url, { headers: { 'x-graphql-yoga-csrf': '1' } });
    expect(marked.status).toBe(200);
    expect(await marked.json()).toEqual(expected);
    // As urql sends queries by default: a GET with no CSRF header.
    const plain = await fetch(url);
    expect(plain.status).toBe(200);
    expect(await plain.json()).toEqual(expected);
  });
});

describe('the upstream call budget', () => {
  it('refuses the most expensive query the schema allows, with the estimate and the limit', async () => {
    const window = (i: number) => `w${i}: availability(from: "2026-10-0${i}T00:00:00Z", to: "2026-10-0${i + 1}T00:00:00Z") { downtimeSeconds }`;
    const node = `__typename dns applications { name } ${[1, 2, 3, 4].map(window).join(' ')}`;
    const res = await h.query(`{ tenant(id: "client_1") {
      resources(first: 500) { nodes { ${node} } }
      resourceList(state: ALL) { ${node} }
      resourceTypes { resources(first: 500) { nodes { ${node} } } }
      antivirusDefinitions(first: 500) { nodes { resource { ${node} } } }
      decommissionedResources(first: 500) { nodes { bios { biosName } } }
    } }`);
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'OPERATION_TOO_EXPENSIVE', limitKind: 'upstreamCalls', limit: 575 });
    expect(res.errors?.[0]?.extensions?.estimate).toBeGreaterThan(100_000);
    expect(h.simulator.stats().totalCalls).toBe(0);
  });

  it('admits the nested 100-item page', async () => {
    const res = await h.query('{ tenant(id: "client_1") { resources(first: 100) { nodes { applications { name } availability(from: "2026-10-31T00:00:00Z", to: "2026-11-01T00:00:00Z") { downtimeSeconds } } } } }', undefined, { 'x-upstream-stats': '1' });
    expect(res.errors).toBeUndefined();
    expect((res.extensions!.upstream as { totalCalls: number }).totalCalls).toBe(201);
  });

  it('stops at run time when an unbounded list turns out larger than the estimate assumed', async () => {
    const small = await startHarness({ env: { MAX_UPSTREAM_CALLS: '30', MAX_PAGE_SIZE: '10', DEFAULT_PAGE_SIZE: '10' } });
    try {
      // The estimate assumes 10 minimal records (1 + 10 x 1 = 11 calls); client_1 lists 403 active resources.
      const res = await small.query('{ tenant(id: "client_1") { resourceList { applications { name } } } }');
      expect(res.errors?.some((e) => e.extensions?.code === 'OPERATION_TOO_EXPENSIVE')).toBe(true);
      expect(small.simulator.stats().totalCalls).toBe(30);
    } finally {
      await small.close();
    }
  });
});
