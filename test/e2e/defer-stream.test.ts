/**
 * @defer and @stream over real HTTP: Apollo Client 4 over multipart/mixed (its
 * Defer20220824Handler, the format Yoga's executor speaks), and SSE read by hand.
 *
 * The scenario of the issue: a page of 50 with `availability` deferred while the upstream takes
 * 500 ms per availability call. The first payload (the 50 rows with their search fields) must
 * arrive before any availability call finishes, the deferred calls must start at once (not
 * after the first payload) and must not be cut when the response head is sent (the request's
 * upstream sessions end with the stream), and the merged result must equal the plain answer.
 * Deferred work counts in the estimate, the run-time stats and admission like any other.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import fragmentMatcher from '../../schema/possible-types.json' with { type: 'json' };
import { startHarness, upstreamCalls, type Harness } from '../support/harness.js';

const FROM = '2024-01-01T00:00:00Z';
const TO = '2024-01-02T00:00:00Z';

const PLAIN = `query Page($first: Int!) {
  tenant(id: "client_1") {
    resources(first: $first) {
      nodes {
        id hostName ipAddress
        availability(from: "${FROM}", to: "${TO}") { availabilityPercent downtimeSeconds }
      }
    }
  }
}`;

const DEFERRED = `query Page($first: Int!) {
  tenant(id: "client_1") {
    resources(first: $first) {
      nodes {
        id hostName ipAddress
        ... @defer(label: "availability") {
          availability(from: "${FROM}", to: "${TO}") { availabilityPercent downtimeSeconds }
        }
      }
    }
  }
}`;

interface Row { id: string; hostName: string; ipAddress: string | null; availability?: unknown }
interface Page { tenant: { resources: { nodes: Row[] } } }

/** Apollo Client adds `__typename` to every selection; the plain answer has none. */
const withoutTypename = (value: unknown): unknown => JSON.parse(JSON.stringify(value), (key, v: unknown) => (key === '__typename' ? undefined : v));

const now = () => performance.timeOrigin + performance.now();

let h: Harness;
beforeAll(async () => {
  // One operation's slots fill the admission capacity, and nothing waits: a stream that kept its
  // slot past its end (or gave it back at the response head) shows up as OVERLOADED / no OVERLOADED.
  h = await startHarness({ env: { ADMISSION_CAPACITY: '16', ADMISSION_CAPACITY_PER_CALLER: '16', MAX_ADMISSION_WAIT_MS: '0' } });
});
afterAll(() => h.close());
beforeEach(() => {
  h.simulator.configure({ routeLatencyMs: {} });
  h.resetCounts();
});

function apollo(): ApolloClient {
  return new ApolloClient({
    link: new HttpLink({ uri: h.url }),
    cache: new InMemoryCache({ possibleTypes: fragmentMatcher.possibleTypes }),
    incrementalHandler: new Defer20220824Handler(),
  });
}

describe('@defer over multipart/mixed with Apollo Client 4', () => {
  it('answers the first payload before any deferred availability call finishes, and merges to the plain answer', async () => {
    const plain = await h.query<Page>(PLAIN, { first: 50 });
    expect(plain.errors).toBeUndefined();
    expect(plain.data!.tenant.resources.nodes).toHaveLength(50);

    h.simulator.configure({ routeLatencyMs: { availability: 500 } });
    h.resetCounts();
    const client = apollo();
    const started = now();
    const emissions: { at: number; rows: Row[]; availabilityCallsDone: number; loading: boolean }[] = [];
    const final = await new Promise<Page>((resolve, reject) => {
      const subscription = client.watchQuery<Page>({ query: gql(DEFERRED), variables: { first: 50 }, fetchPolicy: 'no-cache', notifyOnNetworkStatusChange: true }).subscribe({
        next(result) {
          if (!result.data || !(result.data as Page).tenant) return;
          const stats = h.simulator.stats();
          const startedCalls = stats.calls.availability ?? 0;
          // Every call in flight at the simulator now is an availability call (the search is done).
          emissions.push({ at: now(), rows: (result.data as Page).tenant.resources.nodes, availabilityCallsDone: startedCalls - stats.inFlight, loading: result.loading });
          if (!result.loading) {
            if (result.error) reject(result.error);
            else resolve(result.data as Page);
            subscription.unsubscribe();
          }
        },
        error: reject,
      });
    });

    const first = emissions[0]!;
    // The first payload: all 50 rows with their search fields, no availability yet.
    expect(first.loading).toBe(true);
    expect(first.rows).toHaveLength(50);
    expect(first.rows.map((r) => ({ id: r.id, hostName: r.hostName, ipAddress: r.ipAddress }))).toEqual(plain.data!.tenant.resources.nodes.map((r) => ({ id: r.id, hostName: r.hostName, ipAddress: r.ipAddress })));
    expect(first.rows.every((r) => r.availability === undefined)).toBe(true);
    // Before any availability call finished.
    expect(first.availabilityCallsDone).toBe(0);
    const availabilityStarts = h.simulator.stats().requests.filter((r) => r.route === 'availability').map((r) => r.at);
    expect(availabilityStarts).toHaveLength(50);
    const firstAvailabilityDone = Math.min(...availabilityStarts) + 500;
    expect(first.at).toBeLessThan(firstAvailabilityDone);
    // The deferred calls started at once, with the first payload (not after it was read, nor
    // after anything else): 16 of them (the per-operation in-flight limit) within 100 ms.
    expect(availabilityStarts.filter((at) => at < first.at + 100)).toHaveLength(16);
    console.log(`first payload ${Math.round(first.at - started)} ms, first availability call done >= ${Math.round(firstAvailabilityDone - started)} ms, last payload ${Math.round(emissions.at(-1)!.at - started)} ms, ${emissions.length} emissions`);

    // Deferred rows stream out as they complete (more than one incremental payload), and the
    // merged result equals the non-deferred answer: no deferred call was cut by the response head.
    // (50 calls, 16 at a time: at least one payload per wave of completions, not one at the end.)
    expect(emissions.length).toBeGreaterThanOrEqual(5);
    expect(withoutTypename(final)).toEqual(plain.data);
    expect(upstreamCalls(h)).toEqual({ search: 1, availability: 50 });
  });
});

/** Reads a text/event-stream response into its `next` payloads. */
async function sse(query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}): Promise<{ status: number; contentType: string | null; payloads: any[] }> {
  const response = await h.fetch(h.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const text = await response.text();
  const payloads = text.split('\n\n').map((block) => {
    const lines = block.split('\n');
    if (!lines.includes('event: next')) return null;
    const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
    return JSON.parse(data);
  }).filter((p) => p !== null);
  return { status: response.status, contentType: response.headers.get('content-type'), payloads };
}

/** Applies 2022 incremental payloads (`incremental: [{ path, data }]`) onto the initial data. */
function merge(payloads: any[]): any {
  const data = structuredClone(payloads[0].data);
  for (const p of payloads.slice(1)) {
    for (const inc of p.incremental ?? []) {
      let target = data;
      for (const key of inc.path) target = target[key];
      Object.assign(target, inc.data);
    }
  }
  return data;
}

describe('@defer and @stream over SSE', () => {
  it('streams deferred fields as events; the last payload carries the whole cost; the merge equals the plain answer', async () => {
    const plain = await h.query<Page>(PLAIN, { first: 10 }, { 'x-upstream-stats': '1' });
    h.resetCounts();
    const { status, contentType, payloads } = await sse(DEFERRED, { first: 10 }, { 'x-upstream-stats': '1' });
    expect(status).toBe(200);
    expect(contentType).toMatch(/^text\/event-stream/);
    expect(payloads.length).toBeGreaterThan(1);
    expect(payloads[0].hasNext).toBe(true);
    expect(payloads.at(-1).hasNext).toBe(false);
    expect(payloads.flatMap((p) => p.errors ?? []).concat(payloads.flatMap((p) => (p.incremental ?? []).flatMap((i: any) => i.errors ?? [])))).toEqual([]);
    expect(merge(payloads)).toEqual(plain.data);
    // The deferred calls are counted and estimated like the plain operation's.
    const upstream = payloads.at(-1).extensions.upstream;
    expect(upstream.totalCalls).toBe(11);
    expect(upstream.estimatedCalls).toBe((plain.extensions!.upstream as { estimatedCalls: number }).estimatedCalls);
  });

  it('streams list items with @stream', async () => {
    const query = `{ tenant(id: "client_1") { resources(first: 5) { nodes @stream(initialCount: 2) { id hostName } } } }`;
    const plain = await h.query(query.replace(' @stream(initialCount: 2)', ''));
    const { payloads } = await sse(query, {});
    expect(payloads[0].data.tenant.resources.nodes).toHaveLength(2);
    const items = payloads.slice(1).flatMap((p) => (p.incremental ?? []).flatMap((i: any) => i.items ?? []));
    expect([...payloads[0].data.tenant.resources.nodes, ...items]).toEqual((plain.data as Page).tenant.resources.nodes);
  });
});

describe('deferred work under the limits', () => {
  it('counts fields inside @defer fragments in the estimate: refused before any upstream call', async () => {
    const query = `{ tenant(id: "client_1") { resources(first: 500) { nodes { id ... @defer { applications { name } availability(from: "${FROM}", to: "${TO}") { availabilityPercent } } } } } }`;
    const { payloads } = await sse(query, {});
    expect(payloads).toHaveLength(1);
    expect(payloads[0].errors[0].extensions).toMatchObject({ code: 'OPERATION_TOO_EXPENSIVE', limitKind: 'upstreamCalls', limit: 575 });
    expect(payloads[0].errors[0].extensions.estimate).toBeGreaterThan(575);
    expect(h.simulator.stats().totalCalls).toBe(0);
  });

  it('holds the admission slot while the stream runs and gives it back when it ends', async () => {
    h.simulator.configure({ routeLatencyMs: { availability: 300 } });
    const streaming = sse(DEFERRED, { first: 16 });
    // The deferred operation holds all 16 slots (waited for on admission control's gauge, not
    // slept: a busy machine takes longer than the 150 ms that were enough on a quiet one).
    const slotsInUse = async () => Number(/^gateway_admission_in_progress (\d+)$/m.exec(await (await h.fetch(h.endpoint.replace('/graphql', '/metrics'))).text())?.[1]);
    const from = performance.now();
    while ((await slotsInUse()) < 16 && performance.now() - from < 30_000) await sleep(10);
    expect(await slotsInUse()).toBe(16);
    // Another operation is shed at once.
    const during = await h.query(PLAIN, { first: 1 });
    expect(during.errors?.[0]?.extensions?.code).toBe('OVERLOADED');
    const { payloads } = await streaming;
    expect(payloads.at(-1).hasNext).toBe(false);
    // Released at the end of the stream: the next operations are admitted.
    for (let i = 0; i < 2; i++) {
      const after = await sse(DEFERRED, { first: 2 });
      expect(after.payloads.at(-1).hasNext).toBe(false);
    }
    const plain = await h.query(PLAIN, { first: 1 });
    expect(plain.errors).toBeUndefined();
  });
});
