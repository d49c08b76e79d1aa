/**
 * Admission control and load shedding, over HTTP against the simulator as a real server:
 * overload is answered at once with 503 + Retry-After + OVERLOADED, never after the operation
 * deadline; /healthz and `{ __typename }` stay fast; a heavy caller does not starve a light one.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { clientLoops } from '../support/load.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** One search, then a detail (for status) and the applications per resource: 17 calls, two rounds. */
const NESTED = '{ tenant(id: "client_1") { resources(first: 8) { nodes { __typename id hostName status applications { name } } } } }';
/** One upstream call. */
const CHEAP = '{ tenant(id: "client_1") { resourceTypes { name } } }';

interface Answer { status: number; ms: number; retryAfter: string | null; codes: string[]; data: boolean }

async function post(url: string, query: string, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }), signal });
  const body = (await response.json()) as { data?: unknown; errors?: { extensions?: { code?: string } }[] };
  return {
    status: response.status,
    ms: performance.now() - started,
    retryAfter: response.headers.get('retry-after'),
    codes: (body.errors ?? []).map((e) => String(e.extensions?.code)),
    data: body.data != null && !body.errors,
  };
}

/** Waits until the condition holds (checked every 10 ms), at most 30 s. */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  const started = performance.now();
  while (!(await condition())) {
    if (performance.now() - started > 30_000) throw new Error(`not within 30 s: ${condition.toString()}`);
    await sleep(10);
  }
}

function p99(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
}


describe('admission control at default settings', () => {
  it('answers an open-loop overload of a slow upstream within the deadline, sheds the excess at once, keeps /healthz fast and memory bounded', async () => {
    // Every operation here must reach the upstream: the response cache (on by default) would answer the repeats itself.
    h = await startHarness({ simulator: { latencyMs: 2000 }, env: { LOG_LEVEL: 'info', CACHE: 'false' } });
    const deadlineMs = h.config.operationTimeoutMs;
    expect(deadlineMs).toBe(30_000);
    const base = h.url.replace(/\/graphql$/, '');
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    let heapPeak = heapBefore;

    // Probes: /healthz and an operation with no upstream work, each on its own loop.
    const healthz: number[] = [];
    const typename: number[] = [];
    let probing = true;
    const probe = (samples: number[], call: () => Promise<unknown>) => clientLoops(1, () => probing, async () => {
      const started = performance.now();
      await call();
      samples.push(performance.now() - started);
      await sleep(50);
    });
    const probes = Promise.all([
      probe(healthz, async () => expect((await fetch(`${base}/healthz`)).status).toBe(200)),
      probe(typename, async () => expect((await post(h!.url, '{ __typename }')).data).toBe(true)),
    ]);

    // Open loop: 10 operations per second for 7 s whatever the answers (capacity is about 1/s:
    // 4 operations of 16 slots for one caller, 4 s each), so the queue's wait bound (5 s) is
    // reached and the excess shed while arrivals go on.
    const answers: Promise<Answer>[] = [];
    const arrivals = setInterval(() => {
      answers.push(post(h!.url, NESTED));
      heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
    }, 100);
    await sleep(7_000);
    clearInterval(arrivals);
    const all = await Promise.race([Promise.all(answers), sleep(deadlineMs * 1.1).then(() => null)]);
    probing = false;
    await probes;
    expect(all, 'every request answered').not.toBeNull();
    const results = all!;

    const ok = results.filter((a) => a.status === 200 && a.data);
    const shed = results.filter((a) => a.status === 503);
    gc();
    const heapAfter = process.memoryUsage().heapUsed;
    const mib = (n: number) => Math.round((n / 2 ** 20) * 10) / 10;
    console.log(JSON.stringify({
      requests: results.length, ok: ok.length, shed: shed.length, shedShare: Math.round((shed.length / results.length) * 100) / 100,
      maxAnswerMs: Math.round(Math.max(...results.map((a) => a.ms))), maxShedMs: Math.round(Math.max(...shed.map((a) => a.ms))),
      healthzP99: Math.round(p99(healthz) * 10) / 10, typenameP99: Math.round(p99(typename) * 10) / 10, probes: healthz.length,
      heapBeforeMiB: mib(heapBefore), heapPeakMiB: mib(heapPeak), heapAfterMiB: mib(heapAfter),
    }));
    const timedOut = results.filter((a) => a.codes.includes('UPSTREAM_TIMEOUT'));
    for (const a of results) {
      expect(a.ms).toBeLessThan(deadlineMs * 1.1);
      expect(a.status === 200 && a.data || a.status === 503 || a.codes.includes('UPSTREAM_TIMEOUT'), JSON.stringify(a)).toBe(true);
    }
    const waitMs = h.config.maxAdmissionWaitMs;
    for (const a of shed) {
      expect(a.codes).toEqual(['OVERLOADED']);
      expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
      // Shed when the wait bound is reached (5 s), not held on to the deadline (30 s): the bound is
      // halfway between the two (it was the wait bound + 1 s, which a machine half as fast and
      // busy overran: a shed answer is late by whatever the machine adds, not by seconds of design).
      expect(a.ms).toBeLessThan(waitMs + (deadlineMs - waitMs) / 2);
    }
    // What is admitted finishes: the upstream is never handed more than it can do by the deadline.
    expect(timedOut).toHaveLength(0);
    expect(ok.length).toBeGreaterThanOrEqual(8);
    expect(shed.length).toBeGreaterThan(0);
    // Never behind the queue: behind it a probe would wait for the operations queued ahead of it,
    // up to the wait bound (5 s), or be shed (its status and data are checked as it is answered).
    // Half that bound separates the two on any machine; the 500 ms it was is a quiet machine's
    // figure, which one half as fast and busy overran (issue 41: 512 ms at a load average of 20).
    expect(p99(healthz)).toBeLessThan(waitMs / 2);
    expect(p99(typename)).toBeLessThan(waitMs / 2);

    expect(heapPeak - heapBefore).toBeLessThan(150 * 2 ** 20);
    expect(heapAfter - heapBefore).toBeLessThan(20 * 2 ** 20);
  }, 60_000);

  it('admits a light caller promptly while a heavy caller floods the gateway with expensive operations', async () => {
    // Every operation here must reach the upstream: the response cache (on by default) would answer the repeats itself.
    h = await startHarness({ simulator: { latencyMs: 300 }, env: { CACHE: 'false' } });
    // 40 concurrent operations of 41 estimated calls (16 slots each) from one caller.
    const heavyQuery = '{ tenant(id: "client_1") { resources(first: 20) { nodes { __typename id applications { name } } } } }';
    const heavy = Array.from({ length: 40 }, () => post(h!.url, heavyQuery, { authorization: 'Bearer heavy-caller' }));
    await sleep(100);
    const light: Answer[] = [];
    for (let i = 0; i < 8; i++) light.push(await post(h.url, CHEAP, { authorization: 'Bearer light-caller' }));
    const heavyAnswers = await Promise.all(heavy);
    for (const a of light) {
      // Admitted, not shed: behind the heavy caller's queue (36 operations waiting, four at a time
      // admitted, each a second or more) it would wait the whole wait bound and be shed.
      expect(a.data, JSON.stringify(a)).toBe(true);
      // And before that bound: one upstream call of 300 ms, plus at most one more for a free
      // upstream slot, plus what the machine adds. The bound was 1.5 s, a quiet machine's figure
      // with room; one half as fast and busy took 3.2 s (issue 41). The wait bound itself is what
      // separates admitted at once from queued behind the heavy caller, at any speed.
      expect(a.ms).toBeLessThan(h.config.maxAdmissionWaitMs);
    }
    // The heavy caller was indeed over its share: some of its operations waited or were shed.
    expect(heavyAnswers.some((a) => a.status === 503 || a.ms > 2_000)).toBe(true);
    console.log(JSON.stringify({ lightMaxMs: Math.round(Math.max(...light.map((a) => a.ms))), heavyOk: heavyAnswers.filter((a) => a.data).length, heavyShed: heavyAnswers.filter((a) => a.status === 503).length }));
  }, 60_000);
});

describe('admission control settings', () => {
  it('sheds at once when the queue is full, and a client that gives up while waiting frees its place', async () => {
    h = await startHarness({
      simulator: { latencyMs: 800 },
      env: { ADMISSION_CAPACITY: '16', ADMISSION_CAPACITY_PER_CALLER: '16', MAX_ADMISSION_QUEUE: '2', MAX_ADMISSION_WAIT_MS: '8000' },
    });
    /** Admission control's gauges (its slots in use, operations waiting), from /metrics. */
    const admission = async () => {
      const text = await (await h!.fetch(h!.endpoint.replace('/graphql', '/metrics'))).text();
      const gauge = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
      return { inProgress: gauge('gateway_admission_in_progress'), queued: gauge('gateway_admission_queued') };
    };
    const running = post(h.url, NESTED); // takes all 16 slots for about 2.4 s (three rounds of 0.8 s)
    // Event order, not sleeps: each step waits until the gateway shows the state it needs (a
    // slow machine takes longer to get there).
    await until(async () => (await admission()).inProgress === 16);
    const gone = new AbortController();
    const abandoned = [post(h.url, CHEAP, {}, gone.signal), post(h.url, CHEAP, {}, gone.signal)].map((p) => p.catch(() => null));
    await until(async () => (await admission()).queued === 2);
    // The queue is full: shed at once.
    const full = await post(h.url, CHEAP);
    expect(full.status).toBe(503);
    expect(full.codes).toEqual(['OVERLOADED']);
    expect(full.retryAfter).toBe('8');
    // At once, not after the 8 s wait. Half the wait separates the two on any machine (it was
    // 1 s, a quiet machine's figure with room).
    expect(full.ms).toBeLessThan(8_000 / 2);
    // The two waiting clients go away: their places are free again, so the next two wait and are served.
    gone.abort();
    await Promise.all(abandoned);
    await until(async () => (await admission()).queued === 0);
    const next = await Promise.all([post(h.url, CHEAP), post(h.url, CHEAP)]);
    expect((await running).data).toBe(true);
    for (const a of next) expect(a.data, JSON.stringify(a)).toBe(true);
    // Operations without upstream work never wait.
    expect((await post(h.url, '{ __typename }')).data).toBe(true);
  }, 60_000);
});
