/**
 * Live queries under misuse and faults: a @live query nobody streams, a viewer that stops
 * reading, overlapping wake-ups, oversized WebSocket messages, WebSocket operations that end.
 */
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createClient as createSseClient } from 'graphql-sse';
import { startHarness, type Harness } from '../support/harness.js';

const TENANT = 'client_1';
const resourceOf = (h: Harness, index: number) => h.simulator.dataset.tenants.get(TENANT)!.resources.filter((r) => r.shape === 'general')[index]!;
const DASHBOARD = /* GraphQL */ `
  query Dashboard @live {
    tenant(id: "client_1") { resources(first: 50) { totalCount nodes { id hostName aliasName state resourceType } } }
  }
`;
const DETAIL = /* GraphQL */ `
  query ResourceCard($id: ID!) @live {
    tenant(id: "client_1") { resource(id: $id) { id resourceId aliasName hostName state } }
  }
`;

/** Executions admitted so far: each execution of an operation, a live re-run included, is admitted once. */
const admitted = async (h: Harness) => Number(/^gateway_admission_admitted_total (\d+)$/m.exec(await (await fetch(new URL('/metrics', h.url))).text())?.[1]);

/** Waits until the condition holds (the gateway got there: an event, not a time), at most 30 s. */
async function eventually(condition: () => boolean | Promise<boolean>): Promise<void> {
  const end = performance.now() + 30_000;
  while (!(await condition())) {
    if (performance.now() > end) throw new Error(`not within 30 s: ${condition.toString()}`);
    await sleep(10);
  }
}

describe('live queries that cannot be streamed or are not read', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { MAX_LIVE_OPERATIONS: '4', MAX_LIVE_OPERATIONS_PER_CALLER: '2' } });
  });
  afterAll(() => h.close());

  it('refuses @live with BAD_USER_INPUT unless the answer can be a stream (JSON accept, GET, batch), and keeps no place open', async () => {
    const query = 'query @live { __typename }';
    const get = await fetch(`${h.url}?query=${encodeURIComponent(query)}`, { headers: { accept: 'application/json' } });
    const getBody = (await get.json()) as { errors?: { extensions?: { code?: string } }[] };
    expect(getBody.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const post = await fetch(h.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' }, body: JSON.stringify({ query }) });
    expect(((await post.json()) as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const batch = await fetch(h.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream, application/json' }, body: JSON.stringify([{ query }, { query: '{ __typename }' }]) });
    const batchBody = await batch.text();
    expect(batchBody).toContain('BAD_USER_INPUT');
    // Many more than the limits: none of them holds a place.
    for (let i = 0; i < 6; i++) await (await fetch(`${h.url}?query=${encodeURIComponent(query)}`, { headers: { accept: 'application/json' } })).text();
    expect(h.live.openOperations).toBe(0);
    // A streamed one is still served.
    const sse = createSseClient({ url: h.url, singleConnection: false, retryAttempts: 0 });
    const iterator = sse.iterate({ query })[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect((first.value as { data?: unknown }).data).toEqual({ __typename: 'Query' });
    expect(h.live.openOperations).toBe(1);
    await iterator.return?.();
    await eventually(() => h.live.openOperations === 0);
  });
});

describe('live query re-runs (at the defaults)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('run one at a time: a burst of wake-ups costs at most two executions, and the pollers stay as they were', async () => {
    const r = resourceOf(h, 6);
    const sse = createSseClient({ url: h.url, singleConnection: false, retryAttempts: 0 });
    const iterator = sse.iterate({ query: DETAIL, variables: { id: r.id } })[Symbol.asyncIterator]();
    expect(((await iterator.next()).value as { data: any }).data.tenant.resource.resourceId).toBe(r.id);
    const pollers = h.live.polls.size;
    const before = await admitted(h);
    for (let i = 0; i < 20; i++) h.live.resourceUpdated(TENANT, r.id);
    // The first re-run is admitted (waited for: a busy machine takes longer), then a second
    // long enough for any further one to show.
    await eventually(async () => (await admitted(h)) > before);
    await sleep(1_000);
    const executions = (await admitted(h)) - before;
    console.log(`20 wake-ups at once: ${executions} executions`);
    expect(executions).toBeGreaterThan(0);
    expect(executions).toBeLessThanOrEqual(2);
    expect(h.live.polls.size).toBe(pollers);
    await iterator.return?.();
    await eventually(() => h.live.openOperations === 0 && h.live.polls.size === 0);
  });

  it('keeps no result of its past executions: the heap does not grow with re-runs', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heap = async () => {
      for (let i = 0; i < 3; i++) {
        gc();
        await sleep(20);
      }
      return process.memoryUsage().heapUsed;
    };
    const sse = createSseClient({ url: h.url, singleConnection: false, retryAttempts: 0 });
    const iterator = sse.iterate({ query: DASHBOARD })[Symbol.asyncIterator]();
    expect(((await iterator.next()).value as { data: any }).data.tenant.resources.nodes).toHaveLength(50);
    const rerun = async (count: number) => {
      for (let i = 0; i < count; i++) {
        h.live.resourceUpdated(TENANT, 'any');
        await sleep(3);
      }
    };
    await rerun(200);
    const before = await heap();
    await rerun(1_500);
    const grown = (await heap()) - before;
    console.log(`heap after 1500 re-runs of a 50-resource dashboard: ${(grown / 1e6).toFixed(1)} MB more`);
    expect(grown).toBeLessThan(4e6);
    await iterator.return?.();
  }, 60_000);

  it('of a viewer that stops reading cost at most what the connection holds: its re-runs stop once the connection is full, and it gets the newest state when it reads again', async () => {
    // Full results (no patches), a few hundred resources: each payload is tens of kilobytes.
    const query = 'query Wall @live { tenant(id: "client_1") { resources(first: 500) { nodes { id resourceId hostName aliasName name ipAddress state resourceType osName serialNumber createdAt updatedAt } } } }';
    const r = resourceOf(h, 3);
    const body = JSON.stringify({ query });
    const url = new URL(h.url);
    const socket = net.connect(Number(url.port), url.hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\naccept: text/event-stream\r\nx-live-query-patch: none\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    let received = '';
    const onData = (chunk: Buffer) => { received += chunk.toString('latin1'); };
    socket.on('data', onData);
    const until = async (test: () => boolean, ms: number) => {
      const end = performance.now() + ms;
      while (!test() && performance.now() < end) await sleep(20);
      return test();
    };
    expect(await until(() => received.includes('"nodes"') && received.includes('\n\n', received.indexOf('"nodes"')), 30_000)).toBe(true);
    const payloadBytes = received.length;
    // The viewer stops reading: what the gateway sends piles up in the two sockets' buffers,
    // then the gateway must stop producing.
    socket.pause();
    socket.off('data', onData);
    const before = await admitted(h);
    const UPDATES = 150;
    for (let i = 0; i < UPDATES; i++) {
      const update = await h.query('mutation($id: ID!, $alias: String!) { updateResource(input: { tenantId: "client_1", id: $id, aliasName: $alias }) { userErrors { code } } }', { id: r.id, alias: `stalled-${i}` });
      expect(update.errors).toBeUndefined();
      await sleep(5);
    }
    await sleep(500);
    const executions = (await admitted(h)) - before - UPDATES;
    console.log(`a stalled viewer of ${payloadBytes}-byte payloads: ${executions} executions for ${UPDATES} changes`);
    expect(executions).toBeLessThan(UPDATES / 2);
    // Reading again, it catches up with the newest state.
    received = '';
    socket.on('data', onData);
    socket.resume();
    expect(await until(() => received.includes(`"stalled-${UPDATES - 1}"`), 30_000)).toBe(true);
    socket.destroy();
  }, 60_000);
});

describe('live queries with the caller\'s credential and no response cache', () => {
  let h: Harness;
  const AUTH_ON = { auth: { enabled: true, clientId: 'gw-client', clientSecret: 'gw-secret-value-123', tokenTtlSeconds: 3600, expiresInAsString: false } };
  beforeAll(async () => {
    h = await startHarness({ simulator: AUTH_ON, env: { INVENTORY_AUTH_MODE: 'passthrough', CACHE: 'false', LIVE_POLL_INTERVAL_S: '1' } });
  });
  afterAll(() => h.close());

  const token = async () => {
    const response = await fetch(`${h.simulator.url}/auth/oauth/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'gw-client', client_secret: 'gw-secret-value-123' }).toString(),
    });
    return ((await response.json()) as { access_token: string }).access_token;
  };

  it('polls each credential\'s reads with that credential: a viewer outlives another\'s refused one and still sees changes', async () => {
    const r = resourceOf(h, 8);
    const [first, second] = [await token(), await token()];
    const open = (credential: string) => createSseClient({ url: h.url, singleConnection: false, retryAttempts: 0, headers: { authorization: `Bearer ${credential}` } })
      .iterate({ query: DETAIL, variables: { id: r.id } })[Symbol.asyncIterator]();
    const a = open(first);
    expect(((await a.next()).value as { data: any }).data.tenant.resource.resourceId).toBe(r.id);
    const pollersOfOne = h.live.polls.size;
    const b = open(second);
    expect(((await b.next()).value as { data: any }).data.tenant.resource.resourceId).toBe(r.id);
    expect(h.live.polls.size).toBe(2 * pollersOfOne);
    // The first credential is refused: its viewer ends, the second's goes on with its own.
    expect(h.simulator.revokeToken(first)).toBe(true);
    const refused = await a.next();
    expect((refused.value as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    await sleep(1_500);
    const res = await fetch(`${h.simulator.url}/api/v2/tenants/${TENANT}/resources/${r.id}`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-simulator-uncounted': '1', authorization: `Bearer ${second}` }, body: JSON.stringify({ aliasName: 'after-refusal' }),
    });
    expect(res.status).toBe(200);
    // Polled every second; waited for up to 30 s (a busy machine's polls come late: what matters
    // is that the second viewer sees the change at all, its poller having outlived the first's).
    const next = await Promise.race([b.next(), sleep(30_000).then(() => null)]);
    expect((next?.value as { patch?: unknown[] } | undefined)?.patch).toEqual([{ op: 'replace', path: '/tenant/resource/aliasName', value: 'after-refusal' }]);
    await b.return?.();
  });
});

describe('live queries over WebSocket', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('refuses a message larger than MAX_BODY_BYTES (the socket closes with 1009), and takes one within it', async () => {
    const socket = new WebSocket(h.url.replace('http', 'ws'), 'graphql-transport-ws');
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const messages: string[] = [];
    socket.on('message', (data: Buffer) => messages.push(data.toString()));
    socket.send(JSON.stringify({ type: 'connection_init' }));
    await eventually(() => messages.length >= 1);
    expect(messages.map((m) => JSON.parse(m).type)).toEqual(['connection_ack']);
    const r = resourceOf(h, 5);
    socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: DETAIL, variables: { id: r.id } } }));
    await eventually(() => messages.length >= 2);
    expect(JSON.parse(messages[1]!).payload.data.tenant.resource.resourceId).toBe(r.id);
    const closed = new Promise<number>((resolve) => socket.once('close', (code: number) => resolve(code)));
    const padding = 'x'.repeat(h.config.limits.maxBodyBytes + 1);
    socket.send(JSON.stringify({ id: '2', type: 'subscribe', payload: { query: `{ __typename } # ${padding}` } }));
    expect(await closed).toBe(1009);
  });

  it('ends an operation\'s upstream work when the client completes it or goes away, not at the deadline', async () => {
    const r = resourceOf(h, 7);
    h.simulator.configure({ latencyMs: 4_000 });
    try {
      const open = async () => {
        const socket = new WebSocket(h.url.replace('http', 'ws'), 'graphql-transport-ws');
        await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
        socket.send(JSON.stringify({ type: 'connection_init' }));
        await new Promise((resolve) => socket.once('message', resolve));
        // Not live, not cached: the upstream read is under way until the client leaves.
        socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: DETAIL.replace('@live', ''), variables: { id: r.id } } }));
        const started = performance.now();
        while (h.simulator.stats().inFlight === 0 && performance.now() - started < 30_000) await sleep(20);
        expect(h.simulator.stats().inFlight).toBe(1);
        return socket;
      };
      // The upstream read ends (aborted) well before its 4 s answer would end it: within half of
      // it, which tells the two apart on any machine (it was 500 ms, a quiet machine's figure).
      const endsSoon = async () => {
        const from = performance.now();
        while (h.simulator.stats().inFlight > 0 && performance.now() - from < 10_000) await sleep(20);
        expect(h.simulator.stats().inFlight).toBe(0);
        expect(performance.now() - from).toBeLessThan(4_000 / 2);
      };
      // The client completes the operation.
      const completing = await open();
      completing.send(JSON.stringify({ id: '1', type: 'complete' }));
      await endsSoon();
      completing.close();
      // The client goes away.
      const leaving = await open();
      leaving.terminate();
      await endsSoon();
    } finally {
      h.simulator.configure({ latencyMs: 0 });
    }
  });
});
