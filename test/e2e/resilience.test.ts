/** Faults upstream: retries, Retry-After, deadlines, disconnects, and the error contract. */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startHarness, upstreamCalls, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const NESTED = `{ tenant(id: "client_1") { resources(first: 5) { nodes { id hostName applications { name } availability(from: "2026-10-31T00:00:00Z", to: "2026-11-01T00:00:00Z") { downtimeSeconds } } } } }`;

describe('retries', () => {
  it('waits for Retry-After before retrying a 429', async () => {
    h = await startHarness();
    h.simulator.injectFaults({ route: 'resourceTypes', kind: '429', retryAfterSeconds: 1 });
    const res = await h.query('{ tenant(id: "client_1") { resourceTypes { name } } }');
    expect(res.errors).toBeUndefined();
    const [first, second] = h.simulator.stats().requests.filter((r) => r.route === 'resourceTypes');
    const gap = second!.at - first!.at;
    expect(gap).toBeGreaterThanOrEqual(990);
    // Not a second wait (or a backoff on top): room above it for a loaded machine's timers.
    expect(gap).toBeLessThan(1900);
  });

  it('answers RATE_LIMITED when Retry-After is beyond the cap, without waiting', async () => {
    h = await startHarness({ env: { UPSTREAM_MAX_RETRY_AFTER_MS: '2000' } });
    h.simulator.injectFaults({ route: 'resourceTypes', kind: '429', retryAfterSeconds: 30 });
    const started = performance.now();
    const res = await h.query('{ tenant(id: "client_1") { resourceTypes { name } } }');
    // Below the 2 s cap: it did not wait even up to the cap.
    expect(performance.now() - started).toBeLessThan(1900);
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED', upstreamStatus: 429 });
  });

  it('does not retry the update POST after it reached the upstream', async () => {
    h = await startHarness();
    h.simulator.configure({ faultMethods: ['POST'] });
    h.simulator.injectFaults({ route: 'update', kind: '503' });
    const id = h.simulator.dataset.tenants.get('client_1')!.resources[0]!.id;
    const res = await h.query(`mutation { updateResource(input: { tenantId: "client_1", id: "${id}", aliasName: "x" }) { userErrors { code } } }`);
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', upstreamStatus: 503 });
    expect(upstreamCalls(h)).toEqual({ update: 1 });
  });

  it('gives up after the configured retries with UPSTREAM_UNAVAILABLE', async () => {
    h = await startHarness({ env: { UPSTREAM_RETRIES: '2' } });
    h.simulator.injectFaults(...Array.from({ length: 3 }, () => ({ route: 'resourceTypes' as const, kind: '503' as const })));
    const res = await h.query('{ tenant(id: "client_1") { resourceTypes { name } } }');
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', upstreamStatus: 503 });
    expect(upstreamCalls(h)).toEqual({ resourceTypes: 3 });
  });
});

describe('deadlines and disconnects', () => {
  it('answers UPSTREAM_TIMEOUT at the operation deadline when the upstream never answers', async () => {
    h = await startHarness({ env: { OPERATION_TIMEOUT_MS: '1500', UPSTREAM_TIMEOUT_MS: '1000' } });
    h.simulator.configure({ hang: true });
    const started = performance.now();
    const res = await h.query('{ tenant(id: "client_1") { resourceTypes { name } } }');
    const elapsed = performance.now() - started;
    expect(res.errors?.[0]?.extensions?.code).toBe('UPSTREAM_TIMEOUT');
    // By the deadline, not after 10 retries of 1 s attempts (11 s and more). Halfway between the
    // two leaves whatever a slow or busy machine adds to an answer (the bound was the deadline +
    // 500 ms, a quiet machine's room) and still tells the deadline from its absence.
    expect(elapsed).toBeLessThanOrEqual(1_500 + (11_000 - 1_500) / 2);
    expect(elapsed).toBeGreaterThanOrEqual(1000);
  });

  it('has a 30 s operation deadline and a 10 s attempt timeout by default', () => {
    const config = loadConfig({});
    expect([config.operationTimeoutMs, config.upstreamTimeoutMs, config.upstreamRetries]).toEqual([30_000, 10_000, 10]);
  });

  /**
   * An upstream that never answers: UPSTREAM_TIMEOUT by the deadline, and no attempt started after
   * it. Without the deadline the answer would come after 11 attempts of a third of it each (the
   * defaults' proportions): half the deadline late still tells the two apart, and leaves whatever
   * a slow or busy machine adds to an answer (the bound was the deadline + 500 ms or 1.5 s, a
   * quiet machine's room).
   */
  async function holdsTheDeadline(env: Record<string, string>, deadlineMs: number): Promise<void> {
    const lateByMs = deadlineMs / 2;
    h = await startHarness({ env });
    expect(h.config.operationTimeoutMs).toBe(deadlineMs);
    h.simulator.configure({ hang: true });
    const startedAt = performance.timeOrigin + performance.now();
    const started = performance.now();
    const res = await h.query('{ tenant(id: "client_1") { resourceTypes { name } } }');
    const elapsed = performance.now() - started;
    expect(res.errors?.[0]?.extensions?.code).toBe('UPSTREAM_TIMEOUT');
    expect(elapsed).toBeGreaterThanOrEqual(deadlineMs - 100);
    expect(elapsed).toBeLessThanOrEqual(deadlineMs + lateByMs);
    // A fourth attempt would be due as the third times out (at about the deadline), after a
    // backoff of at most 2 s.
    await sleep(Math.min(deadlineMs / 3, 3_000));
    const starts = h.simulator.stats().requests.map((r) => Math.round(r.at - startedAt));
    console.info(`deadline ${deadlineMs} ms: answered after ${Math.round(elapsed)} ms, attempts at ${starts.join(', ')} ms`);
    // The attempts at about 0, 1/3 and 2/3 of the deadline; none once it has passed. Counted, not
    // timed: an attempt sent before the deadline may reach the simulator after it on a busy
    // machine, and no more than three attempts of a third of the deadline fit before it.
    expect(starts.length).toBeGreaterThanOrEqual(2);
    expect(starts.length).toBeLessThanOrEqual(3);
  }

  it('holds the deadline against attempts that time out: the answer comes by then with UPSTREAM_TIMEOUT, and nothing is sent upstream after it', async () => {
    // The defaults' proportions (three attempts fit, a fourth would start after the deadline) at a tenth of the time.
    await holdsTheDeadline({ OPERATION_TIMEOUT_MS: '3000', UPSTREAM_TIMEOUT_MS: '1000' }, 3_000);
  });

  it('holds the default 30 s deadline (10 s attempts, 10 retries) the same way, in real time', async () => {
    await holdsTheDeadline({}, 30_000);
  }, 90_000);

  it('leaves no upstream call running when the client disconnects', async () => {
    h = await startHarness();
    h.simulator.configure({ latencyMs: 5000 });
    const controller = new AbortController();
    const pending = fetch(h.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: NESTED.replace('first: 5', 'first: 1') }), signal: controller.signal }).catch(() => null);
    // Wait until the search is in flight upstream.
    while (h.simulator.stats().inFlight === 0) await sleep(10);
    controller.abort();
    const aborted = performance.now();
    await pending;
    while (h.simulator.stats().inFlight > 0 && performance.now() - aborted < 5_000) await sleep(5);
    expect(h.simulator.stats().inFlight).toBe(0);
    // Ended at once, not after the upstream's 5 s: halfway between the two leaves whatever a slow
    // or busy machine adds (the bound was 1 s, a quiet machine's room).
    expect(performance.now() - aborted).toBeLessThan(5_000 / 2);
    // Nothing further was started after the disconnect.
    await sleep(200);
    expect(h.simulator.stats().totalCalls).toBe(1);
    // A disconnect is the client's doing, not an upstream failure (nor a deadline).
    expect(h.logs.filter((line) => line.includes('upstream call failed'))).toEqual([]);
  });
});

describe('error contract', () => {
  it('nulls only the failing nested field, with its error and path', async () => {
    h = await startHarness({ env: { UPSTREAM_RETRIES: '0' } });
    h.simulator.injectFaults({ route: 'applications', kind: '503' });
    const res = await h.query('{ tenant(id: "client_1") { resources(first: 3) { nodes { id applications { name } } } resourceTypes { name } } }');
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0]!.extensions).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', upstreamStatus: 503 });
    const path = res.errors![0]!.path!;
    expect(path.slice(0, 4)).toEqual(['tenant', 'resources', 'nodes', path[3]]);
    expect(path[4]).toBe('applications');
    const nodes = res.data!.tenant.resources.nodes;
    expect(nodes.filter((n: { applications: unknown }) => n.applications === null)).toHaveLength(1);
    expect(nodes.filter((n: { applications: unknown }) => Array.isArray(n.applications))).toHaveLength(2);
    expect(res.data!.tenant.resourceTypes.length).toBeGreaterThan(0);
  });

  it('keeps sibling root data when one list fails', async () => {
    h = await startHarness({ env: { UPSTREAM_RETRIES: '0' } });
    h.simulator.injectFaults({ route: 'search', kind: '503' });
    const res = await h.query('{ tenant(id: "client_1") { resources(first: 3) { totalCount } resourceTypes { name } } }');
    expect(res.data!.tenant.resources).toBeNull();
    expect(res.data!.tenant.resourceTypes.length).toBeGreaterThan(0);
  });

  it('maps an upstream response that is not JSON to UPSTREAM_BAD_RESPONSE', async () => {
    const http = await import('node:http');
    const bad = http.createServer((_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('<html>oops</html>'); });
    await new Promise<void>((r) => bad.listen(0, '127.0.0.1', r));
    h = await startHarness({ upstreamUrl: `http://127.0.0.1:${(bad.address() as { port: number }).port}` });
    const res = await h.query('{ tenant(id: "client_1") { resourceTypes { name } } }');
    expect(res.errors?.[0]?.extensions?.code).toBe('UPSTREAM_BAD_RESPONSE');
    await new Promise((r) => bad.close(r));
  });

  it('maps an unreachable upstream to UPSTREAM_UNAVAILABLE without leaking where it is', async () => {
    h = await startHarness({ upstreamUrl: 'http://127.0.0.1:9', env: { UPSTREAM_RETRIES: '1' } });
    const res = await h.query('{ tenant(id: "client_1") { resourceTypes { name } } }');
    expect(res.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    const text = JSON.stringify(res);
    expect(text).not.toContain('127.0.0.1');
    expect(text).not.toMatch(/stack|ECONNREFUSED|at .*\.ts/);
  });

  it('strips URLs and tokens from an upstream rejection it passes on', async () => {
    const http = await import('node:http');
    const rejecting = http.createServer((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'bad request, see https://admin:hunter2@internal.example/debug with Bearer abc.def.ghi' }));
    });
    await new Promise<void>((r) => rejecting.listen(0, '127.0.0.1', r));
    h = await startHarness({ upstreamUrl: `http://127.0.0.1:${(rejecting.address() as { port: number }).port}` });
    const res = await h.query('{ tenant(id: "client_1") { resourceTypes { name } } }');
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', upstreamStatus: 400 });
    expect(res.errors?.[0]?.message).toContain('bad request, see [url]');
    expect(JSON.stringify(res)).not.toMatch(/hunter2|abc\.def|internal\.example/);
    await new Promise((r) => rejecting.close(r));
  });
});
