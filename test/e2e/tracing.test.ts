/**
 * OpenTelemetry: the gateway exports OTLP/HTTP (JSON) to an in-test receiver. The upstream spans
 * match the simulator's request log one to one, each upstream request carried its own span's
 * traceparent, a retry is a separate attempt, and the incoming traceparent is the parent.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertNoSecrets, secretsOf, startHarness, type Harness } from '../support/harness.js';

interface OtlpValue { stringValue?: string; intValue?: string | number; boolValue?: boolean; arrayValue?: { values: OtlpValue[] } }
interface OtlpSpan { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes: { key: string; value: OtlpValue }[]; status?: { code?: number } }
interface Span { traceId: string; spanId: string; parentSpanId: string; name: string; kind: number; attrs: Record<string, unknown>; status: number }

const bodies: string[] = [];
let receiver: http.Server;
let endpoint: string;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        bodies.push(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else {
        res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  bodies.length = 0;
});

function value(v: OtlpValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return v.arrayValue.values.map(value);
  return undefined;
}

function exportedSpans(): Span[] {
  const spans: Span[] = [];
  for (const body of bodies) {
    const parsed = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
    for (const rs of parsed.resourceSpans) for (const ss of rs.scopeSpans) for (const s of ss.spans) {
      spans.push({
        traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId ?? '', name: s.name, kind: s.kind, status: s.status?.code ?? 0,
        attrs: Object.fromEntries(s.attributes.map((a) => [a.key, value(a.value)])),
      });
    }
  }
  return spans;
}

const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;
const INCOMING_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const INCOMING_SPAN = '00f067aa0ba902b7';
const NESTED = 'query Nested { tenant(id: "client_1") { resources(first: 3) { nodes { hostName applications { name } } } resourceTypes { name } } }';

describe('OTLP traces', () => {
  it('exports one span per upstream attempt, matching the simulator request log one to one, under the operation span and the incoming traceparent', async () => {
    const auth = { enabled: true, clientId: 'gw-client', clientSecret: 'gw-secret-value-123', tokenTtlSeconds: 3600, expiresInAsString: false };
    h = await startHarness({
      simulator: { auth },
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        INVENTORY_AUTH_MODE: 'client-credentials', INVENTORY_CLIENT_ID: 'gw-client', INVENTORY_CLIENT_SECRET: 'gw-secret-value-123',
      },
    });
    expect(h.tracing).not.toBeNull();
    // The first search attempt fails with 503: the retry is a second span of the same call.
    h.simulator.injectFaults({ route: 'search', kind: '503' });
    const res = await h.query(NESTED, undefined, { traceparent: `00-${INCOMING_TRACE}-${INCOMING_SPAN}-01` });
    expect(res.errors).toBeUndefined();
    const failing = await h.query('query Missing { tenant(id: "no_such_tenant") { resourceTypes { name } } }');
    expect(failing.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    await h.tracing!.forceFlush();

    const spans = exportedSpans();
    const requests = h.simulator.stats().requests.filter((r) => r.route !== 'token');
    const upstream = spans.filter((s) => s.kind === SPAN_KIND_CLIENT);
    const operations = spans.filter((s) => s.kind === SPAN_KIND_SERVER);
    expect(operations.map((s) => s.name).sort()).toEqual(['query Missing', 'query Nested']);
    // search (503, then 200), 3 x applications, resourceTypes; then resourceTypes of the missing tenant: 7.
    expect(requests).toHaveLength(7);
    expect(upstream).toHaveLength(requests.length);

    // One to one: each upstream request carried the traceparent of exactly one upstream span.
    const bySpanId = new Map(upstream.map((s) => [s.spanId, s]));
    const matched = new Set<string>();
    for (const request of requests) {
      const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(request.traceparent ?? '');
      expect(match, `traceparent of ${request.url}`).not.toBeNull();
      const span = bySpanId.get(match![2]!);
      expect(span, `the span of ${request.url}`).toBeDefined();
      expect(span!.traceId).toBe(match![1]);
      expect(span!.attrs['inventory.route']).toBe(request.route);
      expect(matched.has(span!.spanId)).toBe(false);
      matched.add(span!.spanId);
    }
    expect(matched.size).toBe(upstream.length);

    const nested = operations.find((s) => s.name === 'query Nested')!;
    expect(nested.traceId).toBe(INCOMING_TRACE);
    expect(nested.parentSpanId).toBe(INCOMING_SPAN);
    expect(nested.attrs).toMatchObject({
      'graphql.operation.name': 'Nested', 'graphql.operation.type': 'query',
      'graphql.document.hash': createHash('sha256').update(NESTED).digest('hex'),
      'gateway.upstream.calls': 6, 'gateway.upstream.retries': 1,
    });
    const nestedUpstream = upstream.filter((s) => s.parentSpanId === nested.spanId);
    expect(nestedUpstream).toHaveLength(6);
    for (const s of nestedUpstream) expect(s.traceId).toBe(INCOMING_TRACE);

    const search = nestedUpstream.filter((s) => s.attrs['inventory.route'] === 'search').sort((a, b) => Number(a.attrs['gateway.attempt']) - Number(b.attrs['gateway.attempt']));
    expect(search.map((s) => [s.attrs['gateway.attempt'], s.attrs['http.response.status_code'], s.attrs['gateway.retry_reason']])).toEqual([[1, 503, undefined], [2, 200, '503']]);
    expect(search[1]!.attrs).toMatchObject({
      'url.template': '/api/v2/tenants/{tenantId}/resources/search', 'inventory.tenant': 'client_1', 'http.request.method': 'GET',
      'http.request.resend_count': 1, 'gateway.cache': 'miss',
    });
    expect(Number(search[1]!.attrs['http.response.body.size'])).toBeGreaterThan(100);
    expect(search[0]!.status).toBe(2);

    const missing = operations.find((s) => s.name === 'query Missing')!;
    expect(missing.traceId).not.toBe(INCOMING_TRACE);
    expect(missing.parentSpanId).toBe('');
    expect(missing.attrs['graphql.error.codes']).toEqual(['NOT_FOUND']);
    expect(missing.status).toBe(2);
    expect(upstream.filter((s) => s.parentSpanId === missing.spanId).map((s) => s.attrs['http.response.status_code'])).toEqual([404]);

    // Neither the client secret nor an issued token is in any export.
    expect(h.simulator.stats().tokensIssued).toBe(1);
    assertNoSecrets(bodies, [...secretsOf(h.simulator, h.config), 'gw-secret-value-123']);
    expect(bodies.join('\n')).not.toMatch(/authorization/i);
  });

  it('sends no traceparent upstream and exports nothing when no OTLP endpoint is set', async () => {
    h = await startHarness();
    expect(h.tracing).toBeNull();
    expect((await h.query(NESTED, undefined, { traceparent: `00-${INCOMING_TRACE}-${INCOMING_SPAN}-01` })).errors).toBeUndefined();
    expect(h.simulator.stats().requests.every((r) => r.traceparent === undefined)).toBe(true);
    expect(bodies).toHaveLength(0);
  });

  it('ignores a malformed incoming traceparent (a new trace starts)', async () => {
    h = await startHarness({ env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/v1/traces` } });
    expect((await h.query('{ tenant(id: "client_1") { resourceTypes { name } } }', undefined, { traceparent: '00-zzzz-not-a-trace' })).errors).toBeUndefined();
    await h.tracing!.forceFlush();
    const [operation] = exportedSpans().filter((s) => s.kind === SPAN_KIND_SERVER);
    expect(operation?.parentSpanId).toBe('');
    expect(operation?.traceId).toMatch(/^[0-9a-f]{32}$/);
  });
});
