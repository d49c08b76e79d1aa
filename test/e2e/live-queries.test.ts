/**
 * Live queries (`@live`) end to end, with the real clients: graphql-sse (distinct connections,
 * as Yoga serves SSE), graphql-ws over `ws`, and urql with the live-query JSON Patch applied.
 * Changes are made at the simulator (its own REST update, not through the gateway) or through
 * updateResource; upstream costs are the simulator's counts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { applyJSONPatch, applyLiveQueryJSONPatch } from '@n1ru4l/graphql-live-query-patch-json-patch';
import { Client as UrqlClient, fetchExchange } from '@urql/core';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import WebSocket from 'ws';
import { startHarness, upstreamCalls, type Harness } from '../support/harness.js';
import { hasRedis, startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startGatewayProcess } from '../support/gateway-process.js';
import { startSimulator } from '../../src/simulator/app.js';
import { testClock, type TestClock } from '../support/test-clock.js';

interface Payload {
  data?: Record<string, any> | null;
  patch?: any[];
  revision?: number;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
  extensions?: Record<string, any>;
}

/** Reads a stream one payload at a time, each with a deadline. */
/**
 * A stream's payloads one by one. The timeout of next() only keeps a lost payload from hanging
 * the test: generous, since how soon a payload comes on a slow or busy machine is not what a case
 * asserts (each says what separates its feature: no poll ran, the test clock's periods, counts).
 */
function reader(iterable: AsyncIterable<unknown>) {
  const iterator = iterable[Symbol.asyncIterator]();
  return {
    async next(timeoutMs = 30_000): Promise<Payload | 'done'> {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no payload within ${timeoutMs} ms`)), timeoutMs)));
      try {
        const next = await Promise.race([iterator.next(), timeout]);
        return next.done ? 'done' : (next.value as Payload);
      } finally {
        clearTimeout(timer);
      }
    },
    /** Resolves false when nothing arrives within ms. */
    async nothingWithin(ms: number): Promise<boolean> {
      try {
        await this.next(ms);
        return false;
      } catch {
        return true;
      }
    },
    close: () => iterator.return?.(),
  };
}

/**
 * The next payload while the test clock passes, poll by poll, for at most `maxMs` of it: the
 * payload and when, on the clock, it came (a poll's timer fires, its read is answered, the woken
 * viewers re-run; each poll is given a few real seconds to deliver before the clock moves on).
 */
async function nextAsClockPasses(stream: ReturnType<typeof reader>, clock: TestClock, maxMs: number): Promise<{ payload: Payload; afterMs: number }> {
  const start = clock.now();
  let arrived = false;
  const next = stream.next(600_000).finally(() => (arrived = true));
  while (!arrived && (await clock.step(start + maxMs))) {
    for (let waited = 0; !arrived && waited < 3_000; waited += 10) await sleep(10);
  }
  if (!arrived) throw new Error(`no payload within ${maxMs} ms on the test clock`);
  return { payload: (await next) as Payload, afterMs: clock.now() - start };
}

/** Waits until the condition holds (the gateway got there: an event, not a time), at most 30 s. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  const end = performance.now() + 30_000;
  while (!condition()) {
    if (performance.now() > end) throw new Error(`not within 30 s: ${what}`);
    await sleep(10);
  }
}

const TENANT = 'client_1';
const resourceOf = (h: Harness, index: number) => h.simulator.dataset.tenants.get(TENANT)!.resources.filter((r) => r.shape === 'general')[index]!;

const DETAIL = /* GraphQL */ `
  query ResourceCard($id: ID!) @live {
    tenant(id: "client_1") { resource(id: $id) { id resourceId aliasName hostName state } }
  }
`;
const DASHBOARD = /* GraphQL */ `
  query Dashboard @live {
    tenant(id: "client_1") { resources(first: 20) { totalCount nodes { id hostName aliasName state } } }
  }
`;

/** A change made at the upstream itself (the simulator's REST update), not through the gateway. */
async function changeAtUpstream(h: Harness, id: string, aliasName: string): Promise<void> {
  const res = await fetch(`${h.simulator.url}/api/v2/tenants/${TENANT}/resources/${id}`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-simulator-uncounted': '1' }, body: JSON.stringify({ aliasName }),
  });
  expect(res.status).toBe(200);
}

// Over HTTP: a viewer that goes away is a closed connection, which is what ends its operation.
const sseClient = (h: Harness, headers: Record<string, string> = {}) => createSseClient({ url: h.url, singleConnection: false, headers, retryAttempts: 0 });
const wsClient = (h: Harness) => createWsClient({ url: h.url.replace('http', 'ws'), webSocketImpl: WebSocket, retryAttempts: 0, lazy: true });

describe('live queries at their default poll periods (change arrival)', () => {
  let h: Harness;
  // Polls on a test clock: "within two poll periods" is counted in polls, not in a busy machine's
  // seconds, so the defaults (a resource's detail every 30 s, a search every 5 s) cost no waiting.
  const clock = testClock(Date.UTC(2026, 10, 26, 12, 0, 0));
  /** The default poll period of a live resource card (its detail read) and of a dashboard (its search read). */
  const period = (read: 'detail' | 'search') => h.config.live.pollIntervalMs[read];
  beforeAll(async () => {
    h = await startHarness({ clock: clock.now, timers: clock.timers });
  });
  afterAll(() => h.close());

  it('over SSE (graphql-sse): the full result, then a JSON Patch within two poll periods of a change at the upstream; the patch applied equals the full result', async () => {
    const r = resourceOf(h, 1);
    const stream = reader(sseClient(h).iterate({ query: DETAIL, variables: { id: r.id } }));
    const first = (await stream.next()) as Payload;
    expect(first.revision).toBe(1);
    expect(first.data!.tenant.resource.resourceId).toBe(r.id);
    await changeAtUpstream(h, r.id, 'live-alias-1');
    const { payload: second, afterMs } = await nextAsClockPasses(stream, clock, 2 * period('detail'));
    console.log(`change at the upstream reached the SSE viewer after ${afterMs} ms of the test clock (period ${period('detail')} ms)`);
    expect(afterMs).toBeLessThanOrEqual(2 * period('detail'));
    expect(second.revision).toBe(2);
    expect(second.data).toBeUndefined();
    expect(second.patch).toEqual([{ op: 'replace', path: '/tenant/resource/aliasName', value: 'live-alias-1' }]);
    const patched = applyJSONPatch(structuredClone(first.data!), second.patch as never);
    const full = await h.query(DETAIL.replace('@live', ''), { id: r.id });
    expect(patched).toEqual(full.data);
    await stream.close();
  });

  it('over WebSocket (graphql-ws): a change at the upstream arrives within two poll periods', async () => {
    const r = resourceOf(h, 2);
    const client = wsClient(h);
    const stream = reader(client.iterate({ query: DETAIL, variables: { id: r.id } }));
    const first = (await stream.next()) as Payload;
    expect(first.data!.tenant.resource.resourceId).toBe(r.id);
    await changeAtUpstream(h, r.id, 'ws-alias');
    const { payload: second, afterMs } = await nextAsClockPasses(stream, clock, 2 * period('detail'));
    expect(afterMs).toBeLessThanOrEqual(2 * period('detail'));
    expect(applyJSONPatch(structuredClone(first.data!), second.patch as never)).toEqual((await h.query(DETAIL.replace('@live', ''), { id: r.id })).data);
    await stream.close();
    await client.dispose();
  });

  it('with urql and the live-query patch applied, a client sees each new full result', async () => {
    const r = resourceOf(h, 3);
    const sse = sseClient(h);
    // urql's subscription forwarding over graphql-sse, with the JSON patches applied on the way.
    const { subscriptionExchange } = await import('@urql/core');
    const client = new UrqlClient({
      url: h.url,
      exchanges: [subscriptionExchange({
        enableAllOperations: true,
        forwardSubscription: (request) => ({
          subscribe: (sink) => {
            const patched = applyLiveQueryJSONPatch(sse.iterate({ query: request.query ?? '', variables: request.variables as Record<string, unknown> }) as never);
            let stopped = false;
            const iterator = (patched as AsyncIterable<any>)[Symbol.asyncIterator]();
            void (async () => {
              for (;;) {
                const next = await iterator.next();
                if (next.done || stopped) break;
                sink.next(next.value);
              }
              sink.complete();
            })();
            return { unsubscribe: () => { stopped = true; void iterator.return?.(); } };
          },
        }),
      }), fetchExchange],
    });
    const seen: (string | null)[] = [];
    const subscription = client.query(DETAIL, { id: r.id }).subscribe((result) => {
      if (result.data) seen.push(result.data.tenant.resource.aliasName);
    });
    const until = async (predicate: () => boolean, ms: number) => {
      const end = performance.now() + ms;
      while (!predicate() && performance.now() < end) await sleep(25);
    };
    await until(() => seen.length >= 1, 5_000);
    expect(seen).toHaveLength(1);
    await changeAtUpstream(h, r.id, 'urql-alias');
    const changedAt = clock.now();
    while (!seen.includes('urql-alias') && (await clock.step(changedAt + 2 * period('detail')))) await until(() => seen.includes('urql-alias'), 3_000);
    expect(seen.at(-1)).toBe('urql-alias');
    subscription.unsubscribe();
  });

  it('100 viewers of one dashboard cost the upstream the polls of one, and nothing once the last leaves', async () => {
    const measure = async (viewers: number) => {
      const streams = Array.from({ length: viewers }, () => reader(sseClient(h).iterate({ query: DASHBOARD })));
      const firsts = await Promise.all(streams.map((s) => s.next()));
      for (const first of firsts) expect((first as Payload).data!.tenant.resources.nodes).toHaveLength(20);
      const pollers = h.live.polls.size;
      h.simulator.resetStats();
      await clock.pass(3 * period('search') + 300);
      const calls = h.simulator.stats().totalCalls;
      return { streams, pollers, calls };
    };
    const one = await measure(1);
    await one.streams[0]!.close();
    await eventually(() => h.live.polls.size === 0, 'the poller gone with its viewer');
    const hundred = await measure(100);
    expect(h.live.openOperations).toBe(100);
    // One search read: one poller whatever the number of viewers, about one poll a period.
    console.log(`live dashboard, ${period('search')} ms period, ${3 * period('search') + 300} ms of the test clock: 1 viewer ${one.calls} upstream calls (${one.pollers} poller), 100 viewers ${hundred.calls} calls (${hundred.pollers} poller)`);
    expect(hundred.pollers).toBe(1);
    const metrics = await (await fetch(new URL('/metrics', h.url))).text();
    expect(metrics).toMatch(/^gateway_live_operations 100$/m);
    expect(metrics).toMatch(/^gateway_live_pollers 1$/m);
    expect(one.pollers).toBe(1);
    expect(hundred.calls).toBeGreaterThanOrEqual(2);
    expect(hundred.calls).toBeLessThanOrEqual(one.calls + 1);
    await Promise.all(hundred.streams.map((s) => s.close()));
    await eventually(() => h.live.openOperations === 0 && h.live.polls.size === 0, 'every viewer and the poller gone');
    h.simulator.resetStats();
    await clock.pass(2 * period('search') + 200);
    expect(upstreamCalls(h)).toEqual({});
    // 100 SSE streams in this process: a slow machine takes tens of seconds to open them.
  }, 120_000);

  it('a resource that disappears upstream becomes null for its viewers', async () => {
    const stack = await startHarness({ clock: clock.now, timers: clock.timers });
    try {
      const gone = stack.simulator.dataset.tenants.get(TENANT)!.resources.at(-1)!;
      const stream = reader(sseClient(stack).iterate({ query: DETAIL, variables: { id: gone.id } }));
      const first = (await stream.next()) as Payload;
      expect(first.data!.tenant.resource.resourceId).toBe(gone.id);
      // A smaller data set: the last resources are no more (the detail answers 404).
      stack.simulator.configure({ size: 10 });
      const { payload: next } = await nextAsClockPasses(stream, clock, 2 * stack.config.live.pollIntervalMs.detail);
      // Here the full result is the smaller payload.
      expect(next.patch).toBeUndefined();
      expect(next.data).toEqual({ tenant: { resource: null } });
      await stream.close();
    } finally {
      await stack.close();
    }
  });

  it('an upstream outage keeps the last result and flags it stale; after recovery changes flow again', async () => {
    const r = resourceOf(h, 4);
    const stream = reader(sseClient(h).iterate({ query: DETAIL, variables: { id: r.id } }));
    const first = (await stream.next()) as Payload;
    expect(first.extensions?.stale).toBeUndefined();
    h.simulator.configure({ failureRate: 1, failureKinds: ['503'] });
    const { payload: stale } = await nextAsClockPasses(stream, clock, 2 * period('detail'));
    // The data stands (an empty patch), the payload says it is stale because the upstream fails.
    expect(stale.patch).toEqual([]);
    expect(stale.extensions!.stale.reason).toBe('upstream-error');
    expect(stale.extensions!.stale.reads[0].fields).toContain('Tenant.resource');
    h.simulator.configure({ failureRate: 0 });
    await changeAtUpstream(h, r.id, 'after-outage');
    // Backed off behind the failures, the poller finds the upstream again and the change arrives.
    let recovered: Payload | undefined;
    for (let i = 0; i < 3 && !recovered?.patch?.some((p) => p.value === 'after-outage'); i++) recovered = (await nextAsClockPasses(stream, clock, 8 * period('detail'))).payload;
    expect(recovered!.patch).toContainEqual({ op: 'replace', path: '/tenant/resource/aliasName', value: 'after-outage' });
    expect(recovered!.extensions?.stale).toBeUndefined();
    await stream.close();
  }, 60_000);
});

describe('live queries at the default poll period', () => {
  let h: Harness;
  const clock = testClock(Date.UTC(2026, 10, 26, 12, 0, 0));
  beforeAll(async () => {
    h = await startHarness({ clock: clock.now, timers: clock.timers });
  });
  afterAll(() => h.close());

  it('polls each read at its cache TTL, at least 2 s', () => {
    expect(h.config.live.pollIntervalMs.detail).toBe(30_000);
    expect(h.config.live.pollIntervalMs.search).toBe(5_000);
    expect(h.config.live.pollIntervalMs.resourceTypes).toBe(3_600_000);
  });

  it('a change at the upstream reaches a dashboard viewer within two of its default poll periods (the search\'s: 5 s)', async () => {
    const period = h.config.live.pollIntervalMs.search;
    const stream = reader(sseClient(h).iterate({ query: 'query Wall @live { tenant(id: "client_1") { resources(first: 20) { nodes { resourceId aliasName } } } }' }));
    const first = (await stream.next()) as Payload;
    const changed = first.data!.tenant.resources.nodes[0].resourceId as string;
    await changeAtUpstream(h, changed, 'seen-at-the-default-period');
    const { payload: second, afterMs } = await nextAsClockPasses(stream, clock, 2 * period);
    console.log(`change at the upstream reached the dashboard viewer after ${afterMs} ms of the test clock (default period ${period} ms)`);
    expect(afterMs).toBeLessThanOrEqual(2 * period);
    expect(second.patch).toEqual([{ op: 'replace', path: '/tenant/resources/nodes/0/aliasName', value: 'seen-at-the-default-period' }]);
    await stream.close();
  });

  it('an updateResource through the gateway reaches a WebSocket viewer without waiting for a poll', async () => {
    const r = resourceOf(h, 5);
    const client = wsClient(h);
    const stream = reader(client.iterate({ query: DETAIL, variables: { id: r.id } }));
    const first = (await stream.next()) as Payload;
    expect(first.data!.tenant.resource.aliasName).not.toBe('via-gateway');
    const pollsBefore = h.live.polls.polls;
    const updatedAt = performance.now();
    const update = await h.query(`mutation($id: ID!) { updateResource(input: { tenantId: "client_1", id: $id, aliasName: "via-gateway" }) { userErrors { code } } }`, { id: r.id });
    expect(update.errors).toBeUndefined();
    const second = (await stream.next()) as Payload;
    console.log(`updateResource reached the WebSocket viewer after ${Math.round(performance.now() - updatedAt)} ms`);
    expect(applyJSONPatch(structuredClone(first.data!), second.patch as never)).toEqual((await h.query(DETAIL.replace('@live', ''), { id: r.id })).data);
    // No poll brought it: none ran (the polls' timers are on the test clock, which did not move).
    // This separates the push from its absence on any machine; the 1 s bound it had was a quiet
    // machine's figure for the same thing.
    expect(h.live.polls.polls).toBe(pollsBefore);
    await stream.close();
    await client.dispose();
  });

  it('sends the full result in every payload to a client that asks for no patches (GraphiQL)', async () => {
    const r = resourceOf(h, 6);
    const stream = reader(sseClient(h, { 'x-live-query-patch': 'none' }).iterate({ query: DETAIL, variables: { id: r.id } }));
    await stream.next();
    await h.query(`mutation($id: ID!) { updateResource(input: { tenantId: "client_1", id: $id, aliasName: "full-again" }) { userErrors { code } } }`, { id: r.id });
    const second = (await stream.next()) as Payload;
    expect(second.patch).toBeUndefined();
    expect(second.data!.tenant.resource.aliasName).toBe('full-again');
    await stream.close();
  });

  it('ends open streams (SSE and WebSocket) when the gateway drains', async () => {
    const r = resourceOf(h, 7);
    const sse = reader(sseClient(h).iterate({ query: DETAIL, variables: { id: r.id } }));
    const client = wsClient(h);
    const ws = reader(client.iterate({ query: DETAIL, variables: { id: r.id } }));
    await sse.next();
    await ws.next();
    expect(h.live.openOperations).toBe(2);
    const started = performance.now();
    const ending = h.endLiveOperations();
    expect(await sse.next()).toBe('done');
    await expect(ws.next()).rejects.toThrow();
    await ending;
    // Ended by the drain, not left to the client: without it the streams stay open for good. The
    // bound was 2 s, a quiet machine's figure; half the drain's grace period tells the two apart
    // on any machine.
    expect(performance.now() - started).toBeLessThan(h.config.shutdownGraceMs / 2);
    expect(h.live.openOperations).toBe(0);
    expect(h.live.polls.size).toBe(0);
    await client.dispose();
  });
});

describe('bounds and credentials', () => {
  const stacks: Harness[] = [];
  afterAll(async () => {
    for (const h of stacks) await h.close();
  });

  it('refuses live queries beyond MAX_LIVE_OPERATIONS_PER_CALLER and MAX_LIVE_OPERATIONS with OVERLOADED, and holds no admission slot while waiting', async () => {
    const h = await startHarness({ env: { MAX_LIVE_OPERATIONS: '3', MAX_LIVE_OPERATIONS_PER_CALLER: '2' } });
    stacks.push(h);
    const r = resourceOf(h, 9);
    const open = (caller: string) => reader(sseClient(h, { authorization: `Bearer ${caller}` }).iterate({ query: DETAIL, variables: { id: r.id } }));
    const a1 = open('a');
    const a2 = open('a');
    expect(((await a1.next()) as Payload).data).toBeTruthy();
    expect(((await a2.next()) as Payload).data).toBeTruthy();
    const a3 = (await open('a').next()) as Payload;
    expect(a3.errors?.[0]?.extensions?.code).toBe('OVERLOADED');
    expect(a3.errors?.[0]?.message).toMatch(/this caller/);
    const b1 = open('b');
    expect(((await b1.next()) as Payload).data).toBeTruthy();
    const c1 = (await open('c').next()) as Payload;
    expect(c1.errors?.[0]?.extensions?.code).toBe('OVERLOADED');
    expect(c1.errors?.[0]?.message).toMatch(/the gateway/);
    expect(h.live.openOperations).toBe(3);
    // Waiting for a change claims no admission slot.
    const metrics = await (await fetch(new URL('/metrics', h.url))).text();
    expect(metrics).toMatch(/^gateway_admission_in_progress 0$/m);
    // A closed one frees its place.
    await a1.close();
    await eventually(() => h.live.openOperations === 2, 'the closed one gone');
    expect(((await open('a').next()) as Payload).data).toBeTruthy();
  });

  it('puts off re-runs that admission refuses: every viewer of a wall woken at once gets the change, none an error', async () => {
    // One execution at a time, no waiting: a burst of re-runs is refused at once except one.
    const h = await startHarness({ env: { ADMISSION_CAPACITY: '16', ADMISSION_CAPACITY_PER_CALLER: '16', MAX_ADMISSION_WAIT_MS: '0' } });
    stacks.push(h);
    const r = resourceOf(h, 12);
    const viewers = [];
    for (let i = 0; i < 20; i++) {
      const viewer = reader(sseClient(h, { authorization: `Bearer viewer-${i}` }).iterate({ query: DETAIL, variables: { id: r.id } }));
      expect(((await viewer.next()) as Payload).data!.tenant.resource.resourceId).toBe(r.id);
      viewers.push(viewer);
    }
    const update = await h.query(`mutation($id: ID!) { updateResource(input: { tenantId: "client_1", id: $id, aliasName: "wall" }) { userErrors { code } } }`, { id: r.id });
    expect(update.errors).toBeUndefined();
    const next = (await Promise.all(viewers.map((v) => v.next()))) as Payload[];
    for (const payload of next) {
      expect(payload.errors).toBeUndefined();
      expect(payload.patch).toEqual([{ op: 'replace', path: '/tenant/resource/aliasName', value: 'wall' }]);
    }
    const metrics = await (await fetch(new URL('/metrics', h.url))).text();
    // Refused re-runs did happen (and were retried).
    expect(Number(/^gateway_admission_shed_total\{reason="queue-full"\} (\d+)$/m.exec(metrics)?.[1] ?? 0)).toBeGreaterThan(0);
    await Promise.all(viewers.map((v) => v.close()));
  });

  it('a live query refused before it runs (too expensive) holds no place among the open ones', async () => {
    const h = await startHarness({ env: { MAX_UPSTREAM_CALLS: '2', MAX_LIVE_OPERATIONS: '1', MAX_LIVE_OPERATIONS_PER_CALLER: '1' } });
    stacks.push(h);
    for (let i = 0; i < 3; i++) {
      const refused = (await reader(sseClient(h).iterate({ query: DASHBOARD.replace('nodes { id hostName aliasName state }', 'nodes { id applications { name } }') })).next()) as Payload;
      expect(refused.errors?.[0]?.extensions?.code).toBe('OPERATION_TOO_EXPENSIVE');
    }
    expect(h.live.openOperations).toBe(0);
    const r = resourceOf(h, 13);
    const stream = reader(sseClient(h).iterate({ query: DETAIL, variables: { id: r.id } }));
    expect(((await stream.next()) as Payload).data!.tenant.resource.resourceId).toBe(r.id);
    await stream.close();
  });

  it('with TRUSTED_DOCUMENTS, runs over WebSocket only a manifest\'s document, by hash', async () => {
    const h = await startHarness({ env: { TRUSTED_DOCUMENTS: 'test/__generated__/persisted-documents.json' } });
    stacks.push(h);
    const [hash, document] = [...h.config.trustedDocuments!.entries()].find(([, d]) => d.startsWith('query FirstLook'))!;
    const client = wsClient(h);
    const first = async (payload: { query: string; extensions?: Record<string, unknown> }) => {
      try {
        for await (const result of client.iterate(payload)) return result;
      } catch (errors) {
        return { errors: errors as { extensions?: Record<string, unknown> }[] };
      }
    };
    const sent = await first({ query: document });
    expect(sent?.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    const byHash = await first({ query: '', extensions: { persistedQuery: { version: 1, sha256Hash: hash } } });
    expect(byHash?.errors).toBeUndefined();
    expect((byHash as { data?: any } | undefined)?.data.tenant.resources.nodes).toHaveLength(5);
    await client.dispose();
  });

  it('refuses a WebSocket from a page of another origin (no CORS_ORIGINS), and takes its own and non-browser ones', async () => {
    const h = await startHarness();
    stacks.push(h);
    const origin = new URL(h.url).origin;
    const opened = async (headers: Record<string, string>) => {
      const client = createWsClient({
        url: h.url.replace('http', 'ws'), retryAttempts: 0, lazy: true,
        webSocketImpl: class extends WebSocket { constructor(url: string, protocols: string[]) { super(url, protocols, { headers }); } },
      });
      try {
        for await (const result of client.iterate({ query: '{ __typename }' })) return result.data?.__typename;
      } catch (error) {
        return (error as { code?: number }).code;
      } finally {
        await client.dispose();
      }
    };
    expect(await opened({ origin: 'https://evil.example' })).toBe(4403);
    expect(await opened({ origin })).toBe('Query');
    expect(await opened({})).toBe('Query');
  });

  it('answers bad input over WebSocket with coded GraphQL errors: syntax, unknown field, @live with @defer, a bad argument', async () => {
    const h = await startHarness();
    stacks.push(h);
    const client = wsClient(h);
    const codeOf = async (query: string): Promise<unknown> => {
      try {
        for await (const result of client.iterate({ query })) return result.errors?.[0]?.extensions?.code;
      } catch (errors) {
        return (errors as { extensions?: { code?: string } }[])[0]?.extensions?.code;
      }
    };
    expect(await codeOf('query Q @live { tenant(')).toBe('GRAPHQL_PARSE_FAILED');
    expect(await codeOf('query Q @live { nope }')).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(await codeOf('query Q @live { tenant(id: "client_1") { ... @defer { resourceTypes { name } } } }')).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(await codeOf('query Q @live { tenant(id: "bad id!") { resourceTypes { name } } }')).toBe('BAD_USER_INPUT');
    await client.dispose();
  });

  it('ends a live query with UNAUTHENTICATED (data null) once the upstream refuses its credential', async () => {
    const AUTH_ON = { auth: { enabled: true, clientId: 'gw-client', clientSecret: 'gw-secret-value-123', tokenTtlSeconds: 3600, expiresInAsString: false } };
    const h = await startHarness({ simulator: AUTH_ON, env: { INVENTORY_AUTH_MODE: 'passthrough', LIVE_POLL_INTERVAL_S: '1' } });
    stacks.push(h);
    const tokenResponse = await fetch(`${h.simulator.url}/auth/oauth/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'gw-client', client_secret: 'gw-secret-value-123' }).toString(),
    });
    const token = ((await tokenResponse.json()) as { access_token: string }).access_token;
    const r = resourceOf(h, 10);
    const stream = reader(sseClient(h, { authorization: `Bearer ${token}` }).iterate({ query: DETAIL, variables: { id: r.id } }));
    expect(((await stream.next()) as Payload).data!.tenant.resource.resourceId).toBe(r.id);
    expect(h.simulator.revokeToken(token)).toBe(true);
    const refused = (await stream.next()) as Payload;
    expect(refused.data).toBeNull();
    expect(refused.errors?.map((e) => e.extensions?.code)).toContain('UNAUTHENTICATED');
    expect(await stream.next()).toBe('done');
    await eventually(() => h.live.openOperations === 0 && h.live.polls.size === 0, 'the ended query and its poller gone');
  });
});

if (!hasRedis) console.warn('live-queries.test.ts: the replicas test is skipped: redis-server is not installed (apt-get install -y redis-server)');

describe.skipIf(!hasRedis)('two replicas sharing a Redis', () => {
  let redis: RedisServer;
  let a: Harness;
  let b: Harness;
  beforeAll(async () => {
    redis = await startRedisServer();
    a = await startHarness({ env: { REDIS_URL: redis.url } });
    b = await startHarness({ env: { REDIS_URL: redis.url }, upstreamUrl: a.simulator.url });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await redis?.close();
  });

  it('an update through one replica reaches a viewer of the other without waiting for a poll; only the viewer\'s replica polls', async () => {
    const r = resourceOf(a, 11);
    const client = wsClient(b);
    const stream = reader(client.iterate({ query: DETAIL, variables: { id: r.id } }));
    const first = (await stream.next()) as Payload;
    expect(first.data!.tenant.resource.resourceId).toBe(r.id);
    expect(b.live.polls.size).toBe(1);
    expect(a.live.polls.size).toBe(0);
    const updatedAt = performance.now();
    const update = await a.query(`mutation($id: ID!) { updateResource(input: { tenantId: "client_1", id: $id, aliasName: "from-replica-a" }) { userErrors { code } } }`, { id: r.id });
    expect(update.errors).toBeUndefined();
    const second = (await stream.next()) as Payload;
    const afterMs = performance.now() - updatedAt;
    console.log(`an update through replica a reached a viewer of replica b after ${Math.round(afterMs)} ms`);
    expect(second.patch).toEqual([{ op: 'replace', path: '/tenant/resource/aliasName', value: 'from-replica-a' }]);
    // No poll brought it: replica b ran none, and it came well within the poll period (30 s),
    // where a poll would have brought it. The bound was 1 s, a quiet machine's figure; the count
    // and half the period separate the push from its absence on any machine.
    expect(b.live.polls.polls).toBe(0);
    expect(afterMs).toBeLessThan(b.config.live.pollIntervalMs.detail / 2);
    await stream.close();
    await client.dispose();
  });
});

describe('the gateway process', () => {
  it('ends open live streams (SSE and WebSocket) on SIGTERM and exits 0 within the drain', async () => {
    const simulator = await startSimulator({ port: 0, rateLimit: { enabled: false } }); // about SIGTERM, not throttling
    try {
      const p = startGatewayProcess({ LOG_LEVEL: 'warn', PORT: '0', INVENTORY_API_URL: simulator.url, INVENTORY_AUTH_MODE: 'none' });
      // A failing assertion before the SIGTERM must not leave the process running.
      onTestFinished(() => void p.child.kill('SIGKILL'));
      const url = (await p.ready).href;
      const id = simulator.dataset.tenants.get(TENANT)!.resources[0]!.id;
      const sse = reader(createSseClient({ url, singleConnection: false, retryAttempts: 0 }).iterate({ query: DETAIL, variables: { id } }));
      const client = createWsClient({ url: url.replace('http', 'ws'), webSocketImpl: WebSocket, retryAttempts: 0, lazy: true });
      const ws = reader(client.iterate({ query: DETAIL, variables: { id } }));
      expect(((await sse.next()) as Payload).data!.tenant.resource.resourceId).toBe(id);
      expect(((await ws.next()) as Payload).data!.tenant.resource.resourceId).toBe(id);
      const started = performance.now();
      p.child.kill('SIGTERM');
      expect(await sse.next()).toBe('done');
      await expect(ws.next()).rejects.toThrow();
      expect(await p.exited).toBe(0);
      // The default drain (SHUTDOWN_GRACE_MS) is 35 s: live streams do not wait for it. Half of it
      // tells the two apart on any machine (the bound was 5 s, a quiet machine's figure).
      expect(performance.now() - started).toBeLessThan(35_000 / 2);
      await client.dispose();
    } finally {
      await simulator.close();
    }
  }, 60_000);
});
