/**
 * Who is asking (issue 38): signed-in callers with tokens from a real OpenID provider
 * (node-oidc-provider, client-credentials grant, JWT access tokens), the gateway in
 * client-credentials mode with its own upstream credential, and the simulator requiring it.
 * Everything at the defaults besides the identity settings (AUTH_ISSUERS, AUTH_AUDIENCE).
 */
import { SignJWT, generateKeyPair, decodeProtectedHeader } from 'jose';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, upstreamCalls, type Harness } from '../support/harness.js';
import { AUDIENCE, startOpenIdProvider, type OpenIdProvider } from '../support/openid-provider.js';
import { encodeGlobalId } from '../../src/schema/global-id.js';
import { TokenVerifier } from '../../src/identity/verifier.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';

const SIM_AUTH = { auth: { enabled: true, clientId: 'gw-client', clientSecret: 'gw-secret-value-123', tokenTtlSeconds: 3600, expiresInAsString: false } };
const GATEWAY_CREDENTIAL = { INVENTORY_AUTH_MODE: 'client-credentials', INVENTORY_CLIENT_ID: 'gw-client', INVENTORY_CLIENT_SECRET: 'gw-secret-value-123' };
const PEOPLE = [
  { clientId: 'alice', tenants: ['client_1'], scopes: ['inventory:read', 'inventory:write'] },
  { clientId: 'bob', tenants: ['client_1', 'client_2'], scopes: ['inventory:read'] },
  { clientId: 'carol', tenants: ['client_2'], scopes: ['inventory:read'] },
  { clientId: 'root', tenants: ['*'], scopes: ['inventory:read', 'inventory:write'] },
  { clientId: 'brief', tenants: ['client_1'], scopes: ['inventory:read'], ttlS: 5 },
  { clientId: 'planner', tenants: ['client_1'], scopes: ['inventory:read', 'inventory:explain'] },
];

let provider: OpenIdProvider;
let h: Harness;
/** Every token handed out in this file: none may reach a log line. */
const issued: string[] = [];
const bearer = async (person: string, scopes?: string[]) => {
  const token = await provider.token(person, scopes);
  issued.push(token);
  return { authorization: `Bearer ${token}` };
};

async function post(body: unknown, headers: Record<string, string> = {}) {
  const response = await h.fetch(h.endpoint, {
    method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers }, body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as { data?: any; errors?: { message: string; path?: unknown[]; extensions?: Record<string, unknown> }[] } };
}

async function ready(harness: Harness, timeoutMs = 15_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    const response = await harness.fetch(harness.endpoint.replace('/graphql', '/readyz'));
    if (response.status === 200) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`not ready: ${await response.text()}`);
    await sleep(100);
  }
}

const identityEnv = () => ({ ...GATEWAY_CREDENTIAL, AUTH_ISSUERS: provider.issuer, AUTH_AUDIENCE: AUDIENCE });
const TWO_TENANTS = '{ a: tenant(id: "client_1") { resourceTypes { name } } b: tenant(id: "client_2") { resourceTypes { name } } }';

beforeAll(async () => {
  provider = await startOpenIdProvider(PEOPLE);
  h = await startHarness({ simulator: SIM_AUTH, env: identityEnv() });
  await ready(h);
});
afterAll(async () => {
  const text = h.logs.join('\n');
  for (const token of issued) expect(text.includes(token), 'a token in the logs').toBe(false);
  await h.close();
  await provider.close();
});

describe('refusals of the token', () => {
  it('no token: 401 with WWW-Authenticate: Bearer, one UNAUTHENTICATED naming the reason, no upstream call', async () => {
    h.resetCounts();
    const { status, headers, body } = await post({ query: TWO_TENANTS });
    expect(status).toBe(401);
    expect(headers.get('www-authenticate')).toBe('Bearer');
    expect(body.data ?? null).toBeNull();
    expect(body.errors).toHaveLength(1);
    expect(body.errors![0]!.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'TOKEN_MISSING' });
    // GET, a batch and a mutation are refused the same way.
    const get = await h.fetch(`${h.endpoint}?query=${encodeURIComponent('{ tenant(id: "client_1") { tenantId } }')}`, { headers: { accept: 'application/json' } });
    expect(get.status).toBe(401);
    const batch = await post([{ query: '{ tenant(id: "client_1") { tenantId } }' }, { query: '{ tenant(id: "client_2") { tenantId } }' }]);
    expect(batch.status).toBe(401);
    expect(upstreamCalls(h)).toEqual({});
  });

  it('a malformed token, a bad signature, another issuer, a key nobody published: each its own reason, the token never echoed', async () => {
    h.resetCounts();
    const good = (await bearer('alice')).authorization.slice('Bearer '.length);
    const [head, payload, signature] = good.split('.');
    const flipped = `${head}.${payload}.${signature!.startsWith('A') ? 'B' : 'A'}${signature!.slice(1)}`;
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    void publicKey;
    const handMade = (claims: Record<string, unknown>, kid = 'made-up') => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid }).setIssuedAt().setExpirationTime('5m').sign(privateKey);
    const cases: [string, string][] = [
      ['Bearer not-a-jwt', 'TOKEN_MALFORMED'],
      ['Basic YWxpY2U6c2VjcmV0', 'TOKEN_MALFORMED'],
      [`Bearer ${flipped}`, 'BAD_SIGNATURE'],
      [`Bearer ${await handMade({ iss: 'https://elsewhere.example', sub: 'mallory', aud: AUDIENCE })}`, 'WRONG_ISSUER'],
      [`Bearer ${await handMade({ iss: provider.issuer, sub: 'mallory', aud: AUDIENCE, tenants: ['*'], scope: 'inventory:read' })}`, 'UNKNOWN_KEY'],
    ];
    for (const [authorization, reason] of cases) {
      const { status, headers, body } = await post({ query: TWO_TENANTS }, { authorization });
      expect(status, reason).toBe(401);
      expect(headers.get('www-authenticate')).toContain('Bearer');
      expect(body.errors![0]!.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason });
      expect(JSON.stringify(body)).not.toContain(authorization.slice(7, 40));
    }
    expect(upstreamCalls(h)).toEqual({});
  });

  it('the GraphiQL page and the health routes need no token (the page sends the one typed into its Headers tab)', async () => {
    const page = await h.fetch(h.endpoint, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
    expect((await h.fetch(h.endpoint.replace('/graphql', '/healthz'))).status).toBe(200);
  });

  it('/metrics counts the refusals by reason', async () => {
    const text = await (await h.fetch(h.endpoint.replace('/graphql', '/metrics'))).text();
    expect(text).toMatch(/gateway_auth_refusals_total\{reason="TOKEN_MISSING"\} [1-9]/);
    expect(text).toMatch(/gateway_auth_refusals_total\{reason="BAD_SIGNATURE"\} [1-9]/);
  });
});

describe('tenant grants and scopes: one rule before the cache and any upstream call', () => {
  it('a granted tenant is read; an ungranted one is FORBIDDEN at its field, the rest intact, no upstream call for it', async () => {
    h.resetCounts();
    const { status, body } = await post({ query: TWO_TENANTS }, await bearer('alice'));
    expect(status).toBe(200);
    expect(body.data.a.resourceTypes.length).toBeGreaterThan(0);
    expect(body.data.b).toBeNull();
    expect(body.errors).toHaveLength(1);
    expect(body.errors![0]).toMatchObject({ path: ['b'], extensions: { code: 'FORBIDDEN', reason: 'TENANT_NOT_GRANTED' } });
    // Only client_1's read went upstream.
    expect(h.simulator.stats().requests.every((r: { url: string }) => r.url.includes('/client_1/'))).toBe(true);
    expect(upstreamCalls(h)).toEqual({ resourceTypes: 1 });
  });

  it('an unknown tenant gets the same answer as an existing one not granted (no probing for names)', async () => {
    const headers = await bearer('alice');
    const existing = await post({ query: '{ t: tenant(id: "client_2") { tenantId } }' }, headers);
    const unknown = await post({ query: '{ t: tenant(id: "client_404") { tenantId } }' }, headers);
    expect(unknown.status).toBe(existing.status);
    const strip = (b: typeof existing.body) => JSON.stringify(b).replaceAll('client_404', 'X').replaceAll('client_2', 'X').replace(/"requestId":"[^"]+"/, '');
    expect(strip(unknown.body)).toBe(strip(existing.body));
  });

  it('node, nodes and _entities refuse another tenant\'s object alone', async () => {
    const mine = h.simulator.dataset.tenants.get('client_1')!.resources[0]!;
    const theirs = h.simulator.dataset.tenants.get('client_2')!.resources[0]!;
    const mineId = encodeGlobalId('Resource', `client_1:${mine.id}`);
    const theirsId = encodeGlobalId('Resource', `client_2:${theirs.id}`);
    h.resetCounts();
    const headers = await bearer('alice');
    const nodes = await post({ query: 'query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Resource { resourceId } } }', variables: { ids: [mineId, theirsId] } }, headers);
    expect(nodes.body.data.nodes[0]).toMatchObject({ resourceId: mine.id });
    expect(nodes.body.data.nodes[1]).toBeNull();
    expect(nodes.body.errors).toEqual([expect.objectContaining({ path: ['nodes', 1], extensions: expect.objectContaining({ code: 'FORBIDDEN' }) })]);
    const node = await post({ query: 'query($id: ID!) { node(id: $id) { id } }', variables: { id: encodeGlobalId('Tenant', 'client_2') } }, headers);
    expect(node.body.data.node).toBeNull();
    expect(node.body.errors![0]!.extensions).toMatchObject({ code: 'FORBIDDEN' });
    const entities = await post({
      query: 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Resource { resourceId } } }',
      variables: { r: [{ __typename: 'Resource', tenantId: 'client_1', resourceId: mine.id }, { __typename: 'Resource', tenantId: 'client_2', resourceId: theirs.id }] },
    }, headers);
    expect(entities.body.data._entities[0]).toMatchObject({ resourceId: mine.id });
    expect(entities.body.data._entities[1]).toBeNull();
    expect(entities.body.errors).toEqual([expect.objectContaining({ path: ['_entities', 1], extensions: expect.objectContaining({ code: 'FORBIDDEN' }) })]);
    // Not one call for client_2.
    expect(h.simulator.stats().requests.some((r: { url: string }) => r.url.includes('/client_2/'))).toBe(false);
  });

  it('updateResource without the write scope is FORBIDDEN with no upstream write; with it, it runs', async () => {
    const target = h.simulator.dataset.tenants.get('client_1')!.resources[1]!;
    const mutation = 'mutation($input: UpdateResourceInput!) { updateResource(input: $input) { resource { resourceId aliasName } userErrors { message } } }';
    const variables = { input: { tenantId: 'client_1', id: target.id, aliasName: 'renamed-by-bob' } };
    h.resetCounts();
    const refused = await post({ query: mutation, variables }, await bearer('bob'));
    expect(refused.body.errors![0]!.extensions).toMatchObject({ code: 'FORBIDDEN', reason: 'SCOPE_MISSING' });
    expect(upstreamCalls(h)).toEqual({});
    // Alice holds the write scope but no grant of client_2: refused too.
    const other = await post({ query: mutation, variables: { input: { ...variables.input, tenantId: 'client_2' } } }, await bearer('alice'));
    expect(other.body.errors![0]!.extensions).toMatchObject({ code: 'FORBIDDEN', reason: 'TENANT_NOT_GRANTED' });
    expect(upstreamCalls(h)).toEqual({});
    const done = await post({ query: mutation, variables: { input: { ...variables.input, aliasName: 'renamed-by-alice' } } }, await bearer('alice'));
    expect(done.body.errors).toBeUndefined();
    expect(done.body.data.updateResource.resource.aliasName).toBe('renamed-by-alice');
    expect(upstreamCalls(h).update).toBe(1);
  });

  it('a token without the read scope reads nothing', async () => {
    h.resetCounts();
    const { body } = await post({ query: '{ tenant(id: "client_1") { tenantId } }' }, await bearer('alice', ['inventory:write']));
    expect(body.data.tenant).toBeNull();
    expect(body.errors![0]!.extensions).toMatchObject({ code: 'FORBIDDEN', reason: 'SCOPE_MISSING', scope: 'inventory:read' });
  });
});

describe('what a refused tenant costs', () => {
  it('nothing: not estimated, not claimed from its window, its budget not told', async () => {
    h.resetCounts();
    const { body } = await post({ query: TWO_TENANTS }, { ...(await bearer('alice')), 'x-upstream-stats': '1' });
    const upstream = (body as { extensions?: { upstream?: { estimatedCalls: number; rateLimits?: Record<string, unknown> } } }).extensions!.upstream!;
    expect(upstream.estimatedCalls).toBe(1);
    expect(Object.keys(upstream.rateLimits ?? {})).not.toContain('client_2');
  });

  it('a token pasted into the input is not echoed in an error or written to a log', async () => {
    const token = (await bearer('alice')).authorization.slice(7);
    const { body } = await post({ query: 'query($id: ID!) { tenant(id: $id) { tenantId } }', variables: { id: token } }, await bearer('alice'));
    expect(body.errors?.length).toBeGreaterThan(0);
    expect(JSON.stringify(body)).not.toContain(token.slice(0, 30));
    const inText = await post({ query: `{ tenant(id: "${token}") { tenantId } }` }, await bearer('alice'));
    expect(JSON.stringify(inText.body)).not.toContain(token.slice(0, 30));
  });
});

describe('the cache serves every granted caller once, and nobody else', () => {
  it('two people granted client_1 cost the upstream once; a third without the grant is refused although the answer is cached', async () => {
    const dashboard = '{ tenant(id: "client_1") { resources(first: 20, offset: 40) { totalCount nodes { resourceId name } } } }';
    h.resetCounts();
    const first = await post({ query: dashboard }, await bearer('alice'));
    const calls = upstreamCalls(h);
    expect(calls.search).toBe(1);
    const second = await post({ query: dashboard }, await bearer('bob'));
    expect(second.body.data).toEqual(first.body.data);
    expect(upstreamCalls(h)).toEqual(calls);
    const third = await post({ query: dashboard }, await bearer('carol'));
    expect(third.body.data.tenant).toBeNull();
    expect(third.body.errors![0]!.extensions).toMatchObject({ code: 'FORBIDDEN' });
    expect(upstreamCalls(h)).toEqual(calls);
  });
});

describe('a caller is a person, not a token', () => {
  it('five refreshed tokens of one person are one caller (issuer and subject); another person is another', async () => {
    const config = loadConfig({ ...identityEnv(), INVENTORY_API_URL: 'http://127.0.0.1:9' });
    const verifier = new TokenVerifier(config.identity!, createLogger('silent'));
    verifier.start();
    for (let i = 0; i < 100 && !verifier.ready; i++) await sleep(50);
    const keys = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const verdict = await verifier.verify((await bearer('alice')).authorization);
      if (!('identity' in verdict)) throw new Error(JSON.stringify(verdict));
      keys.add(verdict.identity.callerKey);
    }
    const bob = await verifier.verify((await bearer('bob')).authorization);
    verifier.close();
    expect(keys.size).toBe(1);
    expect('identity' in bob && keys.has(bob.identity.callerKey)).toBe(false);
    // The access log names the subject, never the token.
    h.logs.length = 0;
    await post({ query: '{ tenant(id: "client_1") { tenantId } }' }, await bearer('alice'));
    const line = h.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'request');
    expect(line?.subject).toBe('alice');
  });
});

describe('keys: rotation, made-up key ids, the provider down', () => {
  it('a token signed with a key published after the gateway started verifies on its first use', async () => {
    const before = await bearer('alice');
    expect((await post({ query: '{ tenant(id: "client_1") { tenantId } }' }, before)).status).toBe(200);
    const kid = await provider.rotateKeys();
    const after = await bearer('alice');
    expect(decodeProtectedHeader(after.authorization.slice(7)).kid).toBe(kid);
    const { status, body } = await post({ query: '{ tenant(id: "client_1") { tenantId } }' }, after);
    expect(status).toBe(200);
    expect(body.data.tenant.tenantId).toBe('client_1');
  });

  it('1,000 tokens with made-up key ids cost the provider a handful of key fetches', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const fetchesBefore = provider.jwksFetches;
    const statuses = await Promise.all(Array.from({ length: 1_000 }, async (_, i) => {
      const token = await new SignJWT({ sub: `m${i}`, aud: AUDIENCE, tenants: ['*'], scope: 'inventory:read' }).setIssuer(provider.issuer).setProtectedHeader({ alg: 'RS256', kid: `forged-${i}` }).setExpirationTime('5m').sign(privateKey);
      return (await post({ query: '{ tenant(id: "client_1") { tenantId } }' }, { authorization: `Bearer ${token}` })).status;
    }));
    expect(new Set(statuses)).toEqual(new Set([401]));
    console.log(`1,000 tokens with made-up kids: ${provider.jwksFetches - fetchesBefore} key-set fetches at the provider`);
    expect(provider.jwksFetches - fetchesBefore).toBeLessThanOrEqual(5);
  });

  it('the provider stopped: keys held keep verifying; a gateway started meanwhile answers 503 until the provider is back, then serves', async () => {
    const headers = await bearer('root');
    await provider.stop();
    let late: Harness | undefined;
    try {
      expect((await post({ query: '{ tenant(id: "client_3") { tenantId } }' }, headers)).status).toBe(200);
      late = await startHarness({ simulator: SIM_AUTH, env: identityEnv() });
      const refused = await late.fetch(late.endpoint, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query: '{ tenant(id: "client_1") { tenantId } }' }) });
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { errors: { extensions: Record<string, unknown> }[] }).errors[0]!.extensions.code).toBe('IDENTITY_PROVIDER_UNAVAILABLE');
      const readyz = await late.fetch(late.endpoint.replace('/graphql', '/readyz'));
      expect(readyz.status).toBe(503);
      expect(await readyz.text()).toContain('identity provider');
      await provider.start();
      const tookMs = await ready(late);
      console.log(`a gateway started while the provider was down was ready ${tookMs} ms after the provider's return`);
      expect(tookMs).toBeLessThan(10_000);
      const served = await late.fetch(late.endpoint, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query: '{ tenant(id: "client_1") { tenantId } }' }) });
      expect(served.status).toBe(200);
    } finally {
      if (provider) await provider.start().catch(() => undefined);
      await late?.close();
    }
  });
});

describe('streams end with their token', () => {
  const LIVE = 'query Card @live { tenant(id: "client_1") { resourceTypes { name } } }';

  it('a live query over SSE opened with a token expiring in 5 s ends within a second or two of exp with UNAUTHENTICATED', async () => {
    const headers = await bearer('brief');
    const exp = JSON.parse(Buffer.from(headers.authorization.split('.')[1]!, 'base64url').toString()).exp * 1000;
    const client = createSseClient({ url: h.url, singleConnection: false, headers, retryAttempts: 0 });
    const payloads: { errors?: { extensions?: Record<string, unknown> }[]; data?: unknown }[] = [];
    let endedAt = 0;
    await new Promise<void>((resolve) => {
      client.subscribe({ query: LIVE }, { next: (p) => void payloads.push(p as never), error: () => { endedAt = Date.now(); resolve(); }, complete: () => { endedAt = Date.now(); resolve(); } });
    });
    client.dispose();
    expect(payloads[0]!.data).toBeTruthy();
    const last = payloads.at(-1)!;
    expect(last.errors![0]!.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'TOKEN_EXPIRED' });
    expect(endedAt).toBeGreaterThanOrEqual(exp - 50);
    console.log(`the SSE live query ended ${endedAt - exp} ms after its token's exp`);
    expect(endedAt - exp).toBeLessThan(2_000);
  }, 30_000);

  it('over WebSocket the connection ends at exp, and a graphql-ws client that reconnects with a fresh token carries on', async () => {
    let connections = 0;
    const client = createWsClient({
      url: h.url.replace('http', 'ws'), webSocketImpl: WebSocket, lazy: true, retryAttempts: 3, retryWait: () => sleep(200),
      connectionParams: async () => {
        connections++;
        return (await bearer('brief'));
      },
    });
    const seen: { data?: unknown; errors?: { extensions?: Record<string, unknown> }[] }[] = [];
    const dataAfterExpiry = new Promise<void>((resolve, reject) => {
      const stop = client.subscribe({ query: LIVE }, {
        next: (p) => {
          seen.push(p as never);
          if (seen.some((s) => s.errors) && (p as { data?: unknown }).data) { stop(); resolve(); }
        },
        error: reject, complete: () => undefined,
      });
    });
    await dataAfterExpiry;
    await client.dispose();
    const expired = seen.findIndex((s) => s.errors?.[0]?.extensions?.reason === 'TOKEN_EXPIRED');
    expect(expired).toBeGreaterThan(0);
    expect(seen[expired + 1]!.data).toBeTruthy();
    expect(connections).toBeGreaterThanOrEqual(2);
  }, 30_000);
});

describe('cost plans in production: for callers whose token holds the explain scope', () => {
  it('EXPLAIN off (production): refused without the scope, a plan with it, of granted tenants only', async () => {
    const prod = await startHarness({ simulator: SIM_AUTH, env: { ...identityEnv(), NODE_ENV: 'production' } });
    try {
      await ready(prod);
      const explain = async (who: string) => {
        const response = await prod.fetch(prod.endpoint, {
          method: 'POST', headers: { 'content-type': 'application/json', 'x-explain': '1', ...(await bearer(who)) }, body: JSON.stringify({ query: TWO_TENANTS }),
        });
        return { status: response.status, body: (await response.json()) as { data?: unknown; errors?: { extensions?: Record<string, unknown> }[]; extensions?: { explain?: Record<string, unknown> } } };
      };
      prod.resetCounts();
      const refused = await explain('alice');
      expect(refused.status).toBe(403);
      expect(refused.body.errors![0]!.extensions!.code).toBe('FORBIDDEN');
      const planned = await explain('planner');
      expect(planned.status).toBe(200);
      expect(planned.body.data).toBeNull();
      const text = JSON.stringify(planned.body.extensions!.explain);
      expect(text).toContain('client_1');
      expect(text).not.toContain('client_2');
      expect(upstreamCalls(prod)).toEqual({});
    } finally {
      await prod.close();
    }
  });
});

describe('production needs to know who is asking', () => {
  it('client-credentials or none without AUTH_ISSUERS does not start; AUTH=off does, on purpose', () => {
    const base = { NODE_ENV: 'production', INVENTORY_API_URL: 'https://inventory.example', ...GATEWAY_CREDENTIAL };
    expect(() => loadConfig(base)).toThrow(/AUTH_ISSUERS is required/);
    expect(() => loadConfig({ ...base, INVENTORY_AUTH_MODE: 'none' })).toThrow(/AUTH_ISSUERS is required/);
    expect(loadConfig({ ...base, AUTH: 'off' }).identityOff).toBe(true);
    expect(loadConfig({ ...base, INVENTORY_AUTH_MODE: 'passthrough' }).identity).toBeNull();
    expect(() => loadConfig({ ...base, AUTH_ISSUERS: 'http://idp.example', AUTH_AUDIENCE: 'x' })).toThrow(/https/);
    expect(() => loadConfig({ ...base, AUTH_ISSUERS: 'https://idp.example', AUTH_AUDIENCE: 'x', AUTH_ALGORITHMS: 'HS256' })).toThrow(/asymmetric/);
    expect(() => loadConfig({ ...base, AUTH_ISSUERS: 'https://idp.example', AUTH_AUDIENCE: 'x', AUTH_CLOCK_TOLERANCE_S: '61' })).toThrow(/AUTH_CLOCK_TOLERANCE_S/);
    // Development: no setting at all, as `npm start` has.
    expect(loadConfig({}).identity).toBeNull();
  });
});
