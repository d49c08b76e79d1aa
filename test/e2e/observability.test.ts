/**
 * Metrics at /metrics, the request id and the access log, against the gateway on a real port.
 * (Prometheus scraping it: prometheus.test.ts; the OTLP export: tracing.test.ts.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MAX_OPERATION_NAMES } from '../../src/observability/metrics.js';
import { assertNoSecrets, secretsOf, startHarness, type Harness } from '../support/harness.js';
import { sumBy } from '../support/metrics-text.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function scrape(harness: Harness): Promise<string> {
  const res = await harness.fetch(harness.endpoint.replace(/\/graphql$/, '/metrics'));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  return res.text();
}

async function post(harness: Harness, body: unknown, headers: Record<string, string> = {}) {
  return harness.fetch(harness.endpoint, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

const NESTED = `query Dashboard { tenant(id: "client_1") { resources(first: 3) { nodes { hostName applications { name } } } resourceTypes { name } } }`;

describe('/metrics', () => {
  it('counts upstream calls per route exactly as the simulator saw them, operations by name, type and outcome', async () => {
    h = await startHarness();
    await h.query(NESTED);
    await h.query('query One($t: ID!) { tenant(id: $t) { resources(first: 1) { totalCount } } }', { t: 'client_2' });
    await h.query('{ tenant(id: "client_1") { resourceTypes { name } } }');
    await h.query('{ tenant(id: "no_such_tenant") { resourceTypes { name } } }');
    await h.query('{ nope }');
    const text = await scrape(h);
    const simulated = h.simulator.stats().calls as Record<string, number>;
    expect(Object.keys(simulated).length).toBeGreaterThanOrEqual(3);
    expect(sumBy(text, 'upstream_requests_total', 'route')).toEqual(simulated);
    expect(sumBy(text, 'upstream_request_duration_seconds_count', 'route')).toEqual(simulated);
    expect(sumBy(text, 'graphql_operations_total', 'operation_name')).toMatchObject({ Dashboard: 1, One: 1, anonymous: 3 });
    expect(sumBy(text, 'graphql_operations_total', 'outcome')).toMatchObject({ ok: 3, error: 1 });
    expect(sumBy(text, 'graphql_operations_total', 'operation_type')).toMatchObject({ query: 4, unknown: 1 });
    expect(text).toMatch(/graphql_operation_duration_seconds_bucket\{le="\+Inf",operation_name="Dashboard",operation_type="query",outcome="ok"\} 1/);
    expect(text).toMatch(/graphql_operation_duration_seconds_count\{operation_name="Dashboard",operation_type="query",outcome="ok"\} 1/);
    expect(text).toMatch(/^upstream_circuit_breaker_state\{state="closed"\} 1$/m);
    expect(text).toMatch(/^upstream_in_flight 0$/m);
    expect(text).toMatch(/^upstream_scheduler_queued 0$/m);
    expect(text).toMatch(/^gateway_admission_admitted_total 4$/m);
    expect(text).toMatch(/^gateway_admission_shed_total\{reason="queue-full"\} 0$/m);
    expect(text).toMatch(/^graphql_loader_misses_total \d+$/m);
    // Route templates only: no resource id, no tenant id in any label.
    expect(text).not.toMatch(/client_1|[0-9a-f]{8}-[0-9a-f]{4}-/);
  });

  it('counts a retry by route and reason, and the attempts by status', async () => {
    h = await startHarness();
    h.simulator.injectFaults({ route: 'resourceTypes', kind: '503' });
    const res = await h.query('{ tenant(id: "client_1") { resourceTypes { name } } }');
    expect(res.errors).toBeUndefined();
    const text = await scrape(h);
    expect(sumBy(text, 'upstream_retries_total', 'reason', { route: 'resourceTypes' })).toEqual({ 503: 1 });
    expect(sumBy(text, 'upstream_requests_total', 'status', { route: 'resourceTypes' })).toEqual({ 200: 1, 503: 1 });
  });

  it('bounds the operation name label: odd names, first sightings and names past the first ' + MAX_OPERATION_NAMES + ' share one value', async () => {
    h = await startHarness();
    const gateway = h.gateway;
    const send = (i: number) =>
      Promise.resolve(gateway.fetch('http://gw/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: `query N${i} { __typename }` }) })).then((r) => r.text());
    // Each name twice: the first half of the places go to first sightings; past them, a name's
    // first sighting counts as 'other' and its second gets one of the places kept for names that recur.
    for (let round = 0; round < 2; round++) await Promise.all(Array.from({ length: MAX_OPERATION_NAMES + 20 }, (_, i) => send(i)));
    const text = await scrape(h);
    const names = sumBy(text, 'graphql_operations_total', 'operation_name');
    expect(Object.keys(names).length).toBe(MAX_OPERATION_NAMES + 1);
    expect(names.other).toBe(MAX_OPERATION_NAMES / 2 + 20 + 20);
  });

  it('carries no token or secret (client credentials, a refreshed token)', async () => {
    const auth = { enabled: true, clientId: 'gw-client', clientSecret: 'gw-secret-value-123', tokenTtlSeconds: 3600, expiresInAsString: false };
    h = await startHarness({ simulator: { auth }, env: { INVENTORY_AUTH_MODE: 'client-credentials', INVENTORY_CLIENT_ID: 'gw-client', INVENTORY_CLIENT_SECRET: 'gw-secret-value-123' } });
    expect((await h.query(NESTED)).errors).toBeUndefined();
    h.simulator.expireTokens();
    h.client.clearCache();
    expect((await h.query(NESTED)).errors).toBeUndefined();
    const text = await scrape(h);
    expect(text).toMatch(/^upstream_token_requests_total 2$/m);
    expect(sumBy(text, 'upstream_retries_total', 'reason')['token-refresh']).toBeGreaterThanOrEqual(1);
    assertNoSecrets([text], [...secretsOf(h.simulator, h.config), 'gw-secret-value-123']);
  });

  it('counts no operation for the GraphiQL page, /healthz or /metrics itself', async () => {
    h = await startHarness();
    const page = await h.fetch(h.endpoint, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    await page.text();
    await (await h.fetch(h.endpoint.replace(/\/graphql$/, '/healthz'))).text();
    await scrape(h);
    const text = await scrape(h);
    expect(sumBy(text, 'graphql_operations_total', 'operation_name')).toEqual({});
    // The access log is of GraphQL requests: Yoga serves the page before any plugin sees the request.
    expect(h.logs.filter((l) => l.includes('"msg":"request"'))).toHaveLength(0);
  });

  it('is off with METRICS=false', async () => {
    h = await startHarness({ env: { METRICS: 'false' } });
    const res = await h.fetch(h.endpoint.replace(/\/graphql$/, '/metrics'));
    expect(res.status).toBe(404);
    await res.text();
  });
});

describe('request id and access log', () => {
  it('keeps a safe incoming x-request-id, returns it, and puts it in error extensions and the access log', async () => {
    h = await startHarness();
    const res = await post(h, { query: '{ tenant(id: "no_such_tenant") { resourceTypes { name } } }', operationName: null }, { 'x-request-id': 'req-42.abc:XYZ_1' });
    expect(res.headers.get('x-request-id')).toBe('req-42.abc:XYZ_1');
    const body = (await res.json()) as { errors: { extensions: Record<string, unknown> }[] };
    expect(body.errors[0]?.extensions).toMatchObject({ code: 'NOT_FOUND', requestId: 'req-42.abc:XYZ_1' });
    const line = h.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'request' && l.requestId === 'req-42.abc:XYZ_1');
    expect(line).toMatchObject({ level: 'info', method: 'POST', status: 200, upstreamCalls: 1, upstreamRetries: 0, errorCodes: ['NOT_FOUND'] });
    expect(typeof line?.durationMs).toBe('number');
  });

  it.each([
    ['too long', 'a'.repeat(129)],
    ['unsafe characters', 'abc def<script>'],
    ['a header injection attempt', 'abc%0d%0aSet-Cookie:x'],
    ['empty', ''],
  ])('replaces an incoming x-request-id that is %s with a generated one', async (_, incoming) => {
    h = await startHarness();
    const res = await post(h, { query: 'query Named { __typename }' }, { 'x-request-id': incoming });
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    await res.text();
    const line = h.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'request');
    expect(line).toMatchObject({ requestId: id, operationName: 'Named', status: 200, upstreamCalls: 0, errorCodes: [] });
  });

  it('logs a batch as one line naming its operations, and counts each operation', async () => {
    h = await startHarness();
    const res = await post(h, [
      { query: 'query First { tenant(id: "client_2") { resourceTypes { name } } }' },
      { query: 'query Second { tenant(id: "no_such_tenant") { resourceTypes { name } } }' },
    ]);
    const id = res.headers.get('x-request-id');
    const body = (await res.json()) as { errors?: { extensions: Record<string, unknown> }[] }[];
    expect(body[1]?.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND', requestId: id });
    const line = h.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'request');
    expect(line).toMatchObject({ requestId: id, operations: ['First', 'Second'], upstreamCalls: 2, errorCodes: ['NOT_FOUND'] });
    const text = await scrape(h);
    expect(sumBy(text, 'graphql_operations_total', 'operation_name', { outcome: 'ok' })).toEqual({ First: 1 });
    expect(sumBy(text, 'graphql_operations_total', 'operation_name', { outcome: 'partial' })).toEqual({ Second: 1 });
  });

  it('answers a parse error with the request id too (one access log line per request)', async () => {
    h = await startHarness();
    const res = await post(h, { query: '{ tenant(' });
    const id = res.headers.get('x-request-id');
    const body = (await res.json()) as { errors: { extensions: Record<string, unknown> }[] };
    expect(body.errors[0]?.extensions).toMatchObject({ code: 'GRAPHQL_PARSE_FAILED', requestId: id });
    expect(h.logs.filter((l) => l.includes('"msg":"request"'))).toHaveLength(1);
  });
});

describe('operations over WebSocket', () => {
  it('are observed as requests: errors carry a request id, each operation is counted, and one access log line (WS, 101) is written when it ends', async () => {
    h = await startHarness();
    const socket = new WebSocket(h.url.replace('http', 'ws'), 'graphql-transport-ws');
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const messages: { id?: string; type: string; payload?: any }[] = [];
    socket.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString())));
    const ended = async (id: string) => {
      const end = performance.now() + 5_000;
      while (!messages.some((m) => m.id === id && (m.type === 'complete' || m.type === 'error')) && performance.now() < end) await new Promise((r) => setTimeout(r, 20));
      return messages.filter((m) => m.id === id);
    };
    socket.send(JSON.stringify({ type: 'connection_init' }));
    await new Promise((resolve) => socket.once('message', resolve));
    socket.send(JSON.stringify({ id: 'a', type: 'subscribe', payload: { query: 'query Types { tenant(id: "client_1") { resourceTypes { name } } }' } }));
    socket.send(JSON.stringify({ id: 'b', type: 'subscribe', payload: { query: 'query Broken { tenant(id: "client_1") { nope } }' } }));
    socket.send(JSON.stringify({ id: 'c', type: 'subscribe', payload: { query: 'query Missing { tenant(id: "no_such_tenant") { resourceTypes { name } } }' } }));
    const [a, b, c] = [await ended('a'), await ended('b'), await ended('c')];
    expect(a.map((m) => m.type)).toEqual(['next', 'complete']);
    expect(a[0]!.payload.data.tenant.resourceTypes.length).toBeGreaterThan(0);
    expect(b[0]!.type).toBe('error');
    expect(b[0]!.payload[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(c[0]!.payload.errors[0].extensions.code).toBe('NOT_FOUND');
    const brokenId = b[0]!.payload[0].extensions.requestId as string;
    const missingId = c[0]!.payload.errors[0].extensions.requestId as string;
    expect(brokenId).toMatch(/^[0-9a-f-]{36}$/);
    expect(missingId).toMatch(/^[0-9a-f-]{36}$/);
    socket.close();
    await new Promise((r) => setTimeout(r, 100));
    const lines = h.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request' && l.method === 'WS');
    expect(lines).toHaveLength(3);
    expect(lines.find((l) => l.operationName === 'Types')).toMatchObject({ status: 101, path: '/graphql', upstreamCalls: 1, errorCodes: [] });
    expect(lines.find((l) => l.requestId === brokenId)).toMatchObject({ status: 101, errorCodes: ['GRAPHQL_VALIDATION_FAILED'] });
    expect(lines.find((l) => l.requestId === missingId)).toMatchObject({ status: 101, operationName: 'Missing', upstreamCalls: 1, errorCodes: ['NOT_FOUND'] });
    const text = await scrape(h);
    expect(sumBy(text, 'graphql_operations_total', 'outcome', { operation_name: 'Types' })).toEqual({ ok: 1 });
    expect(sumBy(text, 'graphql_operations_total', 'outcome', { operation_name: 'Missing' })).toEqual({ partial: 1 });
  });

  it('logs a live operation once, when the client completes it, with the calls of all its runs and its time to first result as latency; a reused id is a new operation; a document that does not say which operation to run is refused', async () => {
    h = await startHarness();
    const resource = h.simulator.dataset.tenants.get('client_1')!.resources.find((r) => r.shape === 'general')!;
    // A proxy's x-request-id on the upgrade names the connection, not each operation.
    const socket = new WebSocket(h.url.replace('http', 'ws'), 'graphql-transport-ws', { headers: { 'x-request-id': 'conn-1' } });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const messages: { id?: string; type: string; payload?: any }[] = [];
    socket.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString())));
    const waitFor = async (test: () => boolean) => {
      const end = performance.now() + 5_000;
      while (!test() && performance.now() < end) await new Promise((r) => setTimeout(r, 20));
      expect(test()).toBe(true);
    };
    socket.send(JSON.stringify({ type: 'connection_init' }));
    await waitFor(() => messages.some((m) => m.type === 'connection_ack'));
    socket.send(JSON.stringify({ id: 'L', type: 'subscribe', payload: { query: 'query Card($id: ID!) @live { tenant(id: "client_1") { resource(id: $id) { id aliasName } } }', variables: { id: resource.id } } }));
    await waitFor(() => messages.some((m) => m.id === 'L' && m.type === 'next'));
    const update = await h.query('mutation($id: ID!) { updateResource(input: { tenantId: "client_1", id: $id, aliasName: "seen-live" }) { userErrors { code } } }', { id: resource.id });
    expect(update.errors).toBeUndefined();
    await waitFor(() => messages.filter((m) => m.id === 'L' && m.type === 'next').length === 2);
    expect(messages.filter((m) => m.id === 'L')[1]!.payload.patch).toEqual([{ op: 'replace', path: '/tenant/resource/aliasName', value: 'seen-live' }]);
    await new Promise((r) => setTimeout(r, 300));
    socket.send(JSON.stringify({ id: 'L', type: 'complete' }));
    socket.send(JSON.stringify({ id: 'L', type: 'subscribe', payload: { query: 'query Again { __typename }' } }));
    socket.send(JSON.stringify({ id: 'M', type: 'subscribe', payload: { query: 'query A { __typename } query B { __typename }' } }));
    await waitFor(() => messages.some((m) => m.id === 'M' && m.type === 'error') && messages.some((m) => m.id === 'L' && m.type === 'complete'));
    // Which of its operations to run is not said: refused before it runs, as over HTTP.
    expect(messages.find((m) => m.id === 'M')!.payload[0].extensions.code).toBe('OPERATION_RESOLUTION_FAILURE');
    socket.close();
    await new Promise((r) => setTimeout(r, 200));
    const lines = h.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request' && l.method === 'WS');
    expect(lines).toHaveLength(3);
    const card = lines.find((l) => l.operationName === 'Card')!;
    // Two runs, each reading the detail (the update dropped the cached one).
    expect(card).toMatchObject({ status: 101, upstreamCalls: 2, errorCodes: [] });
    expect(card.durationMs as number).toBeGreaterThan(300);
    expect(lines.find((l) => l.operationName === 'Again')).toMatchObject({ upstreamCalls: 0, errorCodes: [] });
    expect(lines.find((l) => (l.errorCodes as string[]).includes('OPERATION_RESOLUTION_FAILURE'))).toBeDefined();
    const ids = lines.map((l) => l.requestId);
    expect(new Set(ids).size).toBe(3);
    expect(ids).not.toContain('conn-1');
    const text = await scrape(h);
    expect(sumBy(text, 'graphql_operations_total', 'outcome', { operation_name: 'Card' })).toEqual({ ok: 1 });
    // The latency metric is the time to the first result, not the operation's life.
    const latency = sumBy(text, 'graphql_operation_duration_seconds_sum', 'operation_name', { operation_name: 'Card' }).Card!;
    expect(latency * 1000).toBeLessThan((card.durationMs as number) - 250);
  });
});
