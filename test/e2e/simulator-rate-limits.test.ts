/**
 * The simulator throttles as the real upstream documents it (issue 28), at the documented limits:
 * per tenant, per category (paginated 50, other 500, update 25), fixed windows aligned on the minute.
 * Real HTTP against startSimulator; the rate limits' clock is injected and moved, never slept on.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { DEFAULT_SIMULATOR_SETTINGS, startSimulator, type Simulator } from '../../src/simulator/app.js';

const T = '/api/v2/tenants';
const SEARCH = `${T}/client_1/resources/search?pageSize=1`;
const MINUTE_MS = 60_000;
/** 1.8e9 s is a whole number of minutes: each test starts 17.5 s into a fresh minute of its own. */
const EPOCH_MS = 1_800_000_000_000;
let hour = 0;
let clock = EPOCH_MS;
let minuteStart = EPOCH_MS;

let sim: Simulator;
// Many requests at once over a few connections (Promise.all of 500 queues here, not in 500 sockets).
const agent = new Agent({ connections: 16 });

interface Answer { status: number; headers: Record<string, string | string[] | undefined>; text: string }

async function call(path: string, init: { method?: 'GET' | 'POST'; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const response = await request(`${sim.url}${path}`, {
    dispatcher: agent,
    method: init.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...init.headers },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}
const times = (n: number, path: string, init?: Parameters<typeof call>[1]) => Promise.all(Array.from({ length: n }, () => call(path, init)));
const limitHeaders = (a: Answer) => [a.headers['x-ratelimit-limit'], a.headers['x-ratelimit-remaining'], a.headers['x-ratelimit-reset']];
/** The reset of the minute the clock is in, UTC epoch seconds, as the header says it. */
const boundary = () => String((minuteStart + MINUTE_MS) / 1000);
const resourceIds = (tenant: string) => sim.dataset.tenants.get(tenant)!.resources.map((r) => r.id);
const config = async (patch: unknown) => {
  const response = await fetch(`${sim.url}/__sim/config`, { method: 'POST', body: JSON.stringify(patch) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

beforeAll(async () => {
  sim = await startSimulator({ port: 0, now: () => clock });
});
afterAll(async () => {
  await sim.close();
  await agent.close();
});
beforeEach(() => {
  // A fresh window of every tenant, without the reset under test: the clock moves on an hour.
  hour++;
  minuteStart = EPOCH_MS + hour * 3_600_000;
  clock = minuteStart + 17_500;
  sim.configure({ rateLimit: DEFAULT_SIMULATOR_SETTINGS.rateLimit, auth: { ...sim.settings.auth, enabled: false } });
  sim.resetStats();
});

describe('headers', () => {
  it('every API answer says its category limit, what is left after it and the aligned reset, 404s included', async () => {
    const [id] = resourceIds('client_1');
    expect(limitHeaders(await call(SEARCH))).toEqual(['50', '49', boundary()]);
    expect(limitHeaders(await call(`${T}/client_1/resources/${id}`))).toEqual(['500', '499', boundary()]);
    const unknown = await call(`${T}/client_1/resources/no-such-resource`);
    expect(unknown.status).toBe(404);
    expect(limitHeaders(unknown)).toEqual(['500', '498', boundary()]);
    const update = await call(`${T}/client_1/resources/${id}`, { method: 'POST', body: { aliasName: 'rate-limited' } });
    expect(update.status).toBe(200);
    expect(limitHeaders(update)).toEqual(['25', '24', boundary()]);
    const refused = await call(`${T}/client_1/resources/${id}`, { method: 'POST', body: { nonsense: true } });
    expect(refused.status).toBe(400);
    expect(limitHeaders(refused)).toEqual(['25', '23', boundary()]);
  });

  it('the admin surface, the token endpoint and uncounted requests carry none and spend nothing', async () => {
    const admin = await call('/__sim/stats');
    const token = await call('/auth/oauth/token', { method: 'POST', body: {} });
    const uncounted = await call(SEARCH, { headers: { 'x-simulator-uncounted': '1' } });
    for (const answer of [admin, token, uncounted]) expect(answer.headers['x-ratelimit-limit']).toBeUndefined();
    expect(sim.rateLimitState('client_1').paginated.remaining).toBe(50);
  });

  it('with the limits lifted (rateLimit.enabled false) there are no headers and no 429', async () => {
    sim.configure({ rateLimit: { enabled: false } });
    const answers = await times(60, SEARCH);
    expect(answers.map((a) => a.status)).toEqual(Array(60).fill(200));
    expect(answers[0]!.headers['x-ratelimit-limit']).toBeUndefined();
  });
});

describe('throttling at the documented limits', () => {
  it('answers the 51st search of a minute 429 with the exact body, no Retry-After, and does not count it', async () => {
    expect((await times(50, SEARCH)).map((a) => a.status)).toEqual(Array(50).fill(200));
    const throttled = await call(SEARCH);
    expect(throttled.status).toBe(429);
    expect(throttled.text).toBe('{"error":"throttled","error_description":"Too Many Requests"}');
    expect(throttled.headers['retry-after']).toBeUndefined();
    expect(limitHeaders(throttled)).toEqual(['50', '0', boundary()]);
    expect((await call(SEARCH)).status).toBe(429);
    // The two refused searches spent nothing: one more allowed is one more answered.
    sim.configure({ rateLimit: { limits: { paginated: 51 } } });
    const last = await call(SEARCH);
    expect(last.status).toBe(200);
    expect(limitHeaders(last)).toEqual(['51', '0', boundary()]);
  });

  it('allows 500 other GETs and 25 updates a minute, each category on its own', async () => {
    const ids = resourceIds('client_1');
    const details = await Promise.all(Array.from({ length: 500 }, (_, i) => call(`${T}/client_1/resources/${ids[i % ids.length]}`)));
    expect(details.filter((a) => a.status === 200)).toHaveLength(500);
    expect((await call(`${T}/client_1/resources/${ids[0]}/applications`)).status).toBe(429);
    const updates = await times(25, `${T}/client_1/resources/${ids[1]}`, { method: 'POST', body: { aliasName: 'batch' } });
    expect(updates.filter((a) => a.status === 200)).toHaveLength(25);
    const over = await call(`${T}/client_1/resources/${ids[1]}`, { method: 'POST', body: { aliasName: 'one-too-many' } });
    expect([over.status, over.text]).toEqual([429, '{"error":"throttled","error_description":"Too Many Requests"}']);
    expect(sim.dataset.tenants.get('client_1')!.resources[1]!.aliasName).toBe('batch');
    expect(limitHeaders(await call(SEARCH))).toEqual(['50', '49', boundary()]);
  });

  it('counts per tenant: client_1 spent, client_2 untouched', async () => {
    await times(50, SEARCH);
    expect((await call(SEARCH)).status).toBe(429);
    const other = await call(`${T}/client_2/resources/search?pageSize=1`);
    expect(other.status).toBe(200);
    expect(limitHeaders(other)).toEqual(['50', '49', boundary()]);
    expect(sim.rateLimitState('client_2').paginated.remaining).toBe(49);
  });

  it('counts the history and antivirus lists as paginated, the minimal listing as other unless configured paginated', async () => {
    const history = await call(`${T}/client_1/history/resources?pageSize=1&queryString=${encodeURIComponent('state:DECOMMISSIONED')}`);
    expect([history.status, ...limitHeaders(history)]).toEqual([200, '50', '49', boundary()]);
    const antivirus = await call(`${T}/client_1/resources/antivirus/search?pageSize=1`);
    expect([antivirus.status, ...limitHeaders(antivirus)]).toEqual([200, '50', '48', boundary()]);
    const minimal = await call(`${T}/client_1/resources/minimal`);
    expect([minimal.status, ...limitHeaders(minimal)]).toEqual([200, '500', '499', boundary()]);
    expect((await config({ rateLimit: { minimalCategory: 'paginated' } })).status).toBe(200);
    expect(limitHeaders(await call(`${T}/client_1/resources/minimal`))).toEqual(['50', '47', boundary()]);
  });

  it('a fresh window begins at the aligned boundary, and its reset is the next one', async () => {
    await times(50, SEARCH);
    clock = minuteStart + MINUTE_MS - 1;
    expect((await call(SEARCH)).status).toBe(429);
    clock = minuteStart + MINUTE_MS;
    const next = await call(SEARCH);
    expect([next.status, ...limitHeaders(next)]).toEqual([200, '50', '49', String((minuteStart + 2 * MINUTE_MS) / 1000)]);
    // Another width: windows on multiples of 10 s of the epoch.
    sim.configure({ rateLimit: { windowSeconds: 10 } });
    clock = minuteStart + MINUTE_MS + 23_400;
    expect(limitHeaders(await call(SEARCH))).toEqual(['50', '49', String((minuteStart + MINUTE_MS + 30_000) / 1000)]);
  });

  it('does not count a request auth refuses (401), and counts one it admits before answering it', async () => {
    sim.configure({ auth: { enabled: true } });
    const anonymous = await call(SEARCH);
    expect(anonymous.status).toBe(401);
    expect(limitHeaders(anonymous)).toEqual(['50', '50', boundary()]);
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: sim.settings.auth.clientId, client_secret: sim.settings.auth.clientSecret });
    const token = (await (await fetch(`${sim.url}/auth/oauth/token`, { method: 'POST', body: form })).json()) as { access_token: string };
    const missing = await call(`${T}/client_1/resources/no-such-resource`, { headers: { authorization: `Bearer ${token.access_token}` } });
    expect([missing.status, ...limitHeaders(missing)]).toEqual([404, '500', '499', boundary()]);
    expect(sim.rateLimitState('client_1').paginated.remaining).toBe(50);
  });

  it('neither counts nor throttles uncounted requests, and leaves scripted 429 faults as they were', async () => {
    await times(50, SEARCH);
    expect((await call(SEARCH, { headers: { 'x-simulator-uncounted': '1' } })).status).toBe(200);
    sim.configure({ rateLimit: { limits: { paginated: 60 } } });
    sim.injectFaults({ route: 'search', kind: '429', retryAfterSeconds: 2 });
    const fault = await call(SEARCH);
    expect([fault.status, fault.headers['retry-after'], fault.headers['x-ratelimit-limit']]).toEqual([429, '2', undefined]);
    expect(sim.rateLimitState('client_1').paginated.remaining).toBe(10);
  });
});

describe('figures and controls', () => {
  it('stats count throttled answers and per-tenant calls; resetStats zeroes them and keeps the windows', async () => {
    await times(52, SEARCH);
    await call(`${T}/client_2/resources/minimal`);
    const stats = sim.stats();
    expect(stats.throttled).toBe(2);
    expect(stats.throttledByRoute).toEqual({ search: 2 });
    expect(stats.byTenant).toEqual({
      client_1: { paginated: { calls: 50, throttled: 2 }, other: { calls: 0, throttled: 0 }, update: { calls: 0, throttled: 0 } },
      client_2: { paginated: { calls: 0, throttled: 0 }, other: { calls: 1, throttled: 0 }, update: { calls: 0, throttled: 0 } },
    });
    expect(stats.calls.search).toBe(52);
    sim.resetStats();
    expect(sim.stats()).toMatchObject({ throttled: 0, throttledByRoute: {}, byTenant: {} });
    expect((await call(SEARCH)).status).toBe(429);
  });

  it('GET /__sim/rate-limits shows the settings and the current windows; POST /__sim/rate-limits/reset refills them', async () => {
    await times(3, SEARCH);
    await call(`${T}/client_2/resources/${resourceIds('client_2')[0]}`, { method: 'POST', body: { aliasName: 'x' } });
    const reset = Number(boundary());
    const view = (await (await fetch(`${sim.url}/__sim/rate-limits`)).json()) as Record<string, unknown>;
    expect(view).toEqual({
      enabled: true, windowSeconds: 60, limits: { paginated: 50, other: 500, update: 25 }, minimalCategory: 'other',
      tenants: {
        client_1: { paginated: { limit: 50, remaining: 47, reset }, other: { limit: 500, remaining: 500, reset }, update: { limit: 25, remaining: 25, reset } },
        client_2: { paginated: { limit: 50, remaining: 50, reset }, other: { limit: 500, remaining: 500, reset }, update: { limit: 25, remaining: 24, reset } },
        client_3: { paginated: { limit: 50, remaining: 50, reset }, other: { limit: 500, remaining: 500, reset }, update: { limit: 25, remaining: 25, reset } },
      },
    });
    expect(sim.rateLimitState('client_1')).toEqual((view.tenants as Record<string, unknown>).client_1);
    expect((await fetch(`${sim.url}/__sim/rate-limits/reset`, { method: 'POST' })).status).toBe(200);
    expect(sim.rateLimitState('client_1').paginated.remaining).toBe(50);
    expect(sim.rateLimitState('client_2').update.remaining).toBe(25);
  });

  it('POST /__sim/config takes part of rateLimit and refuses nonsense with 400, changing nothing', async () => {
    const partial = await config({ rateLimit: { limits: { paginated: 5 } } });
    expect(partial.status).toBe(200);
    expect(partial.body.rateLimit).toEqual({ enabled: true, windowSeconds: 60, limits: { paginated: 5, other: 500, update: 25 }, minimalCategory: 'other' });
    expect(limitHeaders(await call(SEARCH))).toEqual(['5', '4', boundary()]);
    for (const rateLimit of [
      { enabled: 'yes' }, { windowSeconds: 0 }, { windowSeconds: 1.5 }, { limits: { paginated: -1 } }, { limits: { search: 5 } },
      { limits: 50 }, { minimalCategory: 'update' }, { burst: 10 }, 'on',
    ]) {
      const refused = await config({ rateLimit, seed: 1 });
      expect([rateLimit, refused.status]).toEqual([rateLimit, 400]);
    }
    expect(sim.settings.rateLimit).toEqual({ enabled: true, windowSeconds: 60, limits: { paginated: 5, other: 500, update: 25 }, minimalCategory: 'other' });
    expect(sim.settings.seed).toBe(DEFAULT_SIMULATOR_SETTINGS.seed);
  });
});
