/**
 * Staying up when the upstream does not: a circuit breaker that stops hammering a dead upstream,
 * and an operation deadline that holds (also across a GC). Retries under the process-wide budget
 * assert no latency and run with the other files: retries-under-faults.test.ts.
 * Real parts only: the simulator over loopback HTTP, a TCP proxy in front of it that can refuse
 * connections, and the gateway over HTTP.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import net from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type GraphQLResponse, type Harness } from '../support/harness.js';
import { clientLoops } from '../support/load.js';
import { describeLatency, summary } from '../support/latency.js';

let h: Harness | undefined;
let proxy: SwitchableProxy | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  await proxy?.close();
  proxy = undefined;
});

const WINDOW = 'from: "2026-10-31T00:00:00Z", to: "2026-11-01T00:00:00Z"';
/** A page of 20 with applications and availability: 1 search + 20 + 20 = 41 upstream calls. */
const PAGE_20 = `{ tenant(id: "client_1") { resources(first: 20) { nodes { id hostName applications { name } availability(${WINDOW}) { downtimeSeconds } } } } }`;
/** The same with 5 resources: 11 calls. */
const PAGE_5 = PAGE_20.replace('first: 20', 'first: 5');

/** Distinct callers, as distinct clients would be (the upstream auth mode is none: not forwarded). */
const caller = (i: number) => ({ authorization: `Bearer stay-up-client-${i}` });

const codes = (res: GraphQLResponse) => new Set((res.errors ?? []).map((e) => e.extensions?.code));

/**
 * A TCP proxy in front of the simulator that counts connection attempts and can be switched to
 * reset every connection (the upstream is down: nothing answers HTTP).
 */
class SwitchableProxy {
  readonly accepted: number[] = [];
  private mode: 'forward' | 'reset' = 'forward';
  private target = 0;
  private readonly sockets = new Set<net.Socket>();
  private readonly server = net.createServer((socket) => {
    this.accepted.push(performance.now());
    if (this.mode === 'reset') {
      socket.on('error', () => {});
      socket.resetAndDestroy();
      return;
    }
    const upstream = net.connect(this.target, '127.0.0.1');
    for (const s of [socket, upstream]) {
      this.sockets.add(s);
      s.on('error', () => { socket.destroy(); upstream.destroy(); });
      s.on('close', () => { this.sockets.delete(s); socket.destroy(); upstream.destroy(); });
    }
    socket.pipe(upstream).pipe(socket);
  });

  async listen(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  forwardTo(url: string): void {
    this.target = Number(new URL(url).port);
  }

  switch(mode: 'forward' | 'reset'): void {
    this.mode = mode;
    if (mode === 'reset') for (const s of this.sockets) s.resetAndDestroy();
  }

  connectionsBetween(from: number, to: number): number {
    return this.accepted.filter((t) => t >= from && t < to).length;
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((r) => this.server.close(() => r()));
  }
}

describe('circuit breaker', () => {
  it('during a total outage under 20 clients answers at once, probes the upstream a few times per second, logs a handful of lines, and recovers at the next probe', async () => {
    proxy = new SwitchableProxy();
    const proxyUrl = await proxy.listen();
    // Default settings; LOG_LEVEL at its default (info) for the log volume.
    // Every operation here must reach the upstream: the response cache (on by default) would answer the repeats itself.
    h = await startHarness({ upstreamUrl: proxyUrl, env: { LOG_LEVEL: 'info', CACHE: 'false' } });
    proxy.forwardTo(h.simulator.url);
    const expected = await h.query(PAGE_5);
    expect(expected.errors).toBeUndefined();
    const cooldownMs = h.config.breakerCooldownMs;

    // Each client asks the page (with its upstream cost, x-upstream-stats), then, as a baseline
    // of this machine at these moments, an operation with no upstream work at all: what "at once"
    // means here, however fast or busy the machine (issue 41: a fixed 1,000 ms failed on a machine
    // half as fast). The think time (100 ms after each) bounds the count.
    interface Answer { start: number; end: number; complete: boolean; codes: Set<unknown>; calls: number }
    const answers: Answer[] = [];
    const baseline: { start: number; end: number }[] = [];
    const testStart = performance.now();
    let stop = false;
    const clients = clientLoops(20, () => !stop && performance.now() - testStart < 100_000, async (client) => {
      const start = performance.now();
      const res = await h!.query(PAGE_5, undefined, { ...caller(client), 'x-upstream-stats': '1' });
      const calls = (res.extensions?.upstream as { totalCalls?: number } | undefined)?.totalCalls ?? -1;
      answers.push({ start, end: performance.now(), complete: res.errors === undefined && JSON.stringify(res.data) === JSON.stringify(expected.data), codes: codes(res), calls });
      // Think time: the 20 clients share this process (and its one thread) with the gateway.
      await sleep(100);
      const baseStart = performance.now();
      expect((await h!.query('{ tenant(id: "client_1") { id } }', undefined, caller(client))).errors).toBeUndefined();
      baseline.push({ start: baseStart, end: performance.now() });
      await sleep(100);
    });
    try {
      while (answers.filter((a) => a.complete).length < 20 && performance.now() - testStart < 30_000) await sleep(10);
      const before = answers.slice();
      expect(before.filter((a) => a.complete).length).toBeGreaterThanOrEqual(20);
      // The upstream answers: every answer whole, but for operations admission control shed
      // (OVERLOADED after its 5 s wait) on a machine so slow or busy that 20 clients' pages queue
      // that long; an upstream error here would be one.
      const incomplete = before.filter((a) => !a.complete);
      expect(incomplete.every((a) => a.codes.size === 1 && a.codes.has('OVERLOADED')), JSON.stringify(incomplete.map((a) => [...a.codes]))).toBe(true);
      // The slowest complete answer before the outage: what a whole page costs on this machine now.
      const slowestComplete = Math.max(...before.filter((a) => a.complete).map((a) => a.end - a.start));

      // The upstream goes away.
      const logsBefore = h.logs.length;
      const outage = performance.now();
      proxy.switch('reset');
      while (h.client.breakerState === 'closed' && performance.now() - outage < 10_000) await sleep(5);
      const opened = performance.now();
      expect(h.client.breakerState).not.toBe('closed');
      console.info(`breaker opened ${(opened - outage).toFixed(0)} ms after the outage began, after ${proxy.connectionsBetween(outage, opened)} connection attempts`);

      // Three seconds of outage with the breaker open (and at least 60 answers in it: a slow machine answers fewer per second).
      await sleep(3_000);
      const inOutage = () => answers.filter((a) => a.start >= opened);
      while (inOutage().length < 60 && performance.now() - opened < 20_000) await sleep(10);
      const recovered = performance.now();
      const during = answers.filter((a) => a.start >= opened && a.end <= recovered);
      expect(during.length).toBeGreaterThanOrEqual(60);
      // The probes' answers wait on their one attempt; every other answer is refused by the breaker.
      const refused = during.filter((a) => a.calls === 0);
      const outageLatency = summary(refused.map((a) => a.end - a.start));
      const baseLatency = summary(baseline.filter((a) => a.start >= opened && a.end <= recovered).map((a) => a.end - a.start));
      const probeMs = during.filter((a) => a.calls !== 0).map((a) => Math.round(a.end - a.start));
      console.info(`during the outage, refused by the breaker: ${describeLatency(outageLatency)}; probes: ${probeMs.join(', ')} ms; no upstream work at the same moments: ${describeLatency(baseLatency)}`);
      expect(during.every((a) => !a.complete && a.codes.has('UPSTREAM_UNAVAILABLE'))).toBe(true);
      // None waits on the upstream: an answer with no upstream attempt at all, but for the probes,
      // one per cool-down at most since the outage began (each one attempt, refused at once by the
      // dead upstream). A probe can come late on a slow machine, never early, so the count holds at
      // any speed. Without the breaker every answer makes its attempts (and retries while the
      // retry budget allows).
      const probesAllowed = Math.floor((recovered - outage) / cooldownMs) + 1;
      const probes = during.filter((a) => a.calls !== 0);
      expect(probes.every((a) => a.calls === 1), JSON.stringify(probes.map((a) => a.calls))).toBe(true);
      expect(probes.length).toBeLessThanOrEqual(probesAllowed);
      // And at once (all but the probes): no later than the machine answers an operation with no
      // upstream work at the same moments, plus less than waiting for the upstream would add: the
      // cool-down until a probe (1 s; half of it for the p99), backoff of 50 ms to 2 s between
      // retries. The baseline stretches with the machine (the page's own work costs a few times
      // the baseline's: 2-4 times at the p99, at load averages of 8 to 23); those waits do not
      // shrink. The bound was 1 s for the slowest, a quiet machine's figure; one half as fast
      // overran it (issue 41: 1,417 ms), and a probe's own attempt took that long on a loaded one.
      expect(outageLatency.p99).toBeLessThanOrEqual(baseLatency.p99 + cooldownMs / 2);
      expect(outageLatency.max).toBeLessThanOrEqual(baseLatency.max + cooldownMs);
      // Calls sent just before it opened still end: at most UPSTREAM_MAX_IN_FLIGHT of them (within a
      // few ms on a quiet machine, up to seconds on a loaded one: counted, not timed). From then on
      // only the probes reach the upstream. Without the breaker: every answer's attempts, hundreds.
      const attempts = proxy.connectionsBetween(opened, recovered);
      console.info(`connection attempts with the breaker open: ${attempts} in ${((recovered - opened) / 1000).toFixed(1)} s, ${probes.length} of them probes of operations started after it opened`);
      expect(attempts).toBeLessThanOrEqual(h.config.upstreamMaxInFlight + probesAllowed);

      // The upstream comes back.
      proxy.switch('forward');
      while (!answers.some((a) => a.complete && a.start >= recovered) && performance.now() - recovered < 20_000) await sleep(10);
      const firstComplete = Math.min(...answers.filter((a) => a.complete && a.start >= recovered).map((a) => a.end));
      console.info(`first complete answer ${(firstComplete - recovered).toFixed(0)} ms after the upstream returned (cool-down ${cooldownMs} ms, slowest complete answer before the outage ${slowestComplete.toFixed(0)} ms)`);
      // Within one cool-down (the next probe), a client's think time and the page itself, which
      // the bound allows three times over as this machine answered it before the outage (a
      // breaker that did not probe, or closed only after many cool-downs, stays beyond it).
      expect(firstComplete - recovered).toBeLessThan(cooldownMs + 200 + 3 * slowestComplete);
      expect(h.client.breakerState).toBe('closed');

      // Log volume: the state changes (and at most a summary line), not a line per failed call.
      // The access log's one line per request is not about the upstream: left out here.
      const lines = h.logs.slice(logsBefore).filter((l) => !l.includes('"msg":"request"'));
      console.info(`log lines during the outage and recovery:\n${lines.join('\n')}`);
      expect(lines.length).toBeLessThanOrEqual(5);
      expect(lines.filter((l) => l.includes('circuit breaker opened'))).toHaveLength(1);
      expect(lines.filter((l) => l.includes('circuit breaker closed'))).toHaveLength(1);
      expect(lines.join('\n')).not.toContain('127.0.0.1');
    } finally {
      stop = true;
      await clients;
    }
    // Its waits are bounded by counts of answers as well as seconds: on a slow machine they take longer.
  }, 120_000);

  it('makes /readyz fail while the breaker is open, and pass again once the upstream answers', async () => {
    proxy = new SwitchableProxy();
    const proxyUrl = await proxy.listen();
    // Every operation here must reach the upstream: the response cache (on by default) would answer the repeats itself.
    h = await startHarness({ upstreamUrl: proxyUrl, env: { LOG_LEVEL: 'info', CACHE: 'false' } });
    proxy.forwardTo(h.simulator.url);
    const readyz = () => h!.fetch(h!.endpoint.replace('/graphql', '/readyz')).then((r) => r.status);
    expect(await readyz()).toBe(200);
    proxy.switch('reset');
    // A few operations whose calls fail with their retries open it.
    for (let i = 0; i < 5 && h.client.breakerState === 'closed'; i++) await Promise.all([0, 1, 2, 3, 4].map((c) => h!.query(PAGE_5, undefined, caller(c))));
    expect(h.client.breakerState).toBe('open');
    const attempts = proxy.accepted.length;
    const started = performance.now();
    expect(await readyz()).toBe(503);
    expect(performance.now() - started).toBeLessThan(500);
    // Refused at once: no connection was attempted.
    expect(proxy.accepted.length).toBe(attempts);
    proxy.switch('forward');
    // With no GraphQL traffic at all, readiness itself probes after the cool-down.
    let status = 503;
    for (let i = 0; i < 40 && status !== 200; i++) {
      await sleep(100);
      status = await readyz();
    }
    expect(status).toBe(200);
    expect(h.client.breakerState).toBe('closed');
  });
});

describe('the operation deadline', () => {
  const gcFunction = (): (() => void) => {
    v8.setFlagsFromString('--expose-gc');
    return vm.runInNewContext('gc') as () => void;
  };

  /**
   * Collects garbage 4 times, every 300 ms (a full GC takes 50-150 ms on a busy 2-core machine:
   * the last one ends well before a 2 s deadline, so the pauses do not blur the timing).
   */
  function collectGarbageMeanwhile(gc: () => void): () => void {
    let calls = 0;
    const timer = setInterval(() => {
      gc();
      if (++calls === 4) clearInterval(timer);
    }, 300);
    return () => clearInterval(timer);
  }

  it.each([
    { forceGc: false, title: 'holds for calls queued in the operation: the answer by the deadline, UPSTREAM_TIMEOUT for what waits, nothing sent after it' },
    { forceGc: true, title: 'holds the same when garbage is collected mid-operation' },
  ])('$title', async ({ forceGc }) => {
    // 11 calls one at a time at 700 ms each would take 7.7 s; the deadline is 2 s.
    h = await startHarness({ env: { OPERATION_TIMEOUT_MS: '2000', UPSTREAM_MAX_IN_FLIGHT_PER_OPERATION: '1' } });
    expect((await h.query('{ tenant(id: "client_1") { id } }')).errors).toBeUndefined(); // warm-up, no upstream call
    h.simulator.configure({ latencyMs: 700 });
    h.resetCounts();
    const stopGc = forceGc ? collectGarbageMeanwhile(gcFunction()) : () => {};
    const startedAt = performance.timeOrigin + performance.now();
    const started = performance.now();
    let res: GraphQLResponse<any>;
    try {
      res = await h.query(PAGE_5);
    } finally {
      stopGc();
    }
    const elapsed = performance.now() - started;
    console.info(`deadline 2000 ms (gc: ${forceGc}): answered after ${elapsed.toFixed(0)} ms`);
    // By the deadline, not after the operation's whole work (11 calls of 700 ms one at a time:
    // 7.7 s). Halfway between the two leaves whatever a slow or busy machine adds to an answer
    // (the bound was the deadline + 500 ms, a quiet machine's room, which a busy one overran) and
    // still tells the deadline from its absence.
    expect(elapsed).toBeLessThanOrEqual(2_000 + (7_700 - 2_000) / 2);
    expect(res.data?.tenant?.resources?.nodes).toHaveLength(5);
    expect(res.errors!.length).toBeGreaterThanOrEqual(8);
    expect([...codes(res)]).toEqual(['UPSTREAM_TIMEOUT']);
    // Let anything that would still leave reach the simulator, then look: a call sent after the
    // answer would be due 700 ms after the last one.
    await sleep(1_000);
    const starts = h.simulator.stats().requests.map((r) => Math.round(r.at - startedAt));
    console.info(`upstream requests started at ${starts.join(', ')} ms`);
    // The search at 0, then one nested call at 700 and one at 1400 (later on a loaded machine);
    // the next would start after 2000: it must not. Counted, not timed: a request sent before the
    // deadline may reach the simulator after it on a busy machine (it did: 2,017 ms), and one
    // at a time at 700 ms each, no more than three fit before the deadline at any speed. At least
    // the search: on a busy machine with the forced collections its answer took most of the
    // deadline and no nested call was sent (the queued ones still end with UPSTREAM_TIMEOUT by it).
    expect(starts.length).toBeGreaterThanOrEqual(1);
    expect(starts.length).toBeLessThanOrEqual(3);
  });

  it('answers at the deadline although its calls wait behind another operation\'s call, also when garbage is collected meanwhile', async () => {
    // One upstream slot for the process: operation B's calls queue behind operation C's search,
    // which the upstream never answers. Only the deadline timer can answer B in time.
    h = await startHarness({ env: { OPERATION_TIMEOUT_MS: '2000', UPSTREAM_MAX_IN_FLIGHT: '1', ADMISSION_CAPACITY: '100', ADMISSION_CAPACITY_PER_CALLER: '100' } });
    expect((await h.query('{ tenant(id: "client_1") { id } }')).errors).toBeUndefined(); // warm-up, no upstream call
    h.simulator.configure({ latencyMs: 1_000 });
    h.resetCounts();
    const stopGc = collectGarbageMeanwhile(gcFunction());
    try {
      const startedAt = performance.timeOrigin + performance.now();
      const started = performance.now();
      const b = h.query(PAGE_5, undefined, caller(1)).then((res) => ({ res, elapsed: performance.now() - started }));
      await sleep(500);
      const c = h.query('{ tenant(id: "client_1") { resourceTypes { name } } }', undefined, caller(2));
      // B's search ends at 1000 and C's call takes the slot; from then on the upstream hangs.
      while (h.simulator.stats().totalCalls < 2 && performance.now() - started < 1_900) await sleep(5);
      h.simulator.configure({ hang: true });
      const { res, elapsed } = await b;
      console.info(`operation queued behind another's call: answered after ${elapsed.toFixed(0)} ms (deadline 2000 ms)`);
      // By the deadline (without it, B is never answered: the upstream hangs). Twice the deadline
      // leaves whatever a slow or busy machine adds to an answer (the bound was the deadline +
      // 500 ms, a quiet machine's room) and still tells an answer at the deadline from none.
      expect(elapsed).toBeLessThanOrEqual(2 * 2_000);
      // B's page with its nested fields timed out; on a machine so busy (and collecting garbage)
      // that B's search itself took the whole deadline, no page at all: UPSTREAM_TIMEOUT either way.
      if (res.data) expect(res.data.tenant?.resources?.nodes).toHaveLength(5);
      expect([...codes(res)]).toEqual(['UPSTREAM_TIMEOUT']);
      expect((await c).errors?.[0]?.extensions?.code).toBe('UPSTREAM_TIMEOUT');
      // B's calls were never sent: two requests in all (B's search, C's call), however late they
      // reached the simulator on a busy machine (counted, not timed against the deadline).
      await sleep(500);
      const starts = h.simulator.stats().requests.map((r) => Math.round(r.at - startedAt));
      console.info(`upstream requests started at ${starts.join(', ')} ms`);
      expect(starts).toHaveLength(2);
    } finally {
      stopGc();
    }
  });
});
