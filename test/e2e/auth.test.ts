/** Upstream auth modes against the simulator with its token enforcement on. */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const AUTH_ON = { auth: { enabled: true, clientId: 'gw-client', clientSecret: 'gw-secret-value-123', tokenTtlSeconds: 3600, expiresInAsString: false } };
const QUERY = '{ tenant(id: "client_1") { resourceTypes { name } } }';

async function simulatorToken(sim: Harness['simulator']): Promise<string> {
  const res = await fetch(`${sim.url}/auth/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'gw-client', client_secret: 'gw-secret-value-123' }).toString(),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

describe('passthrough', () => {
  it('answers UNAUTHENTICATED without an upstream call when the caller sends no Authorization', async () => {
    h = await startHarness({ simulator: AUTH_ON, env: { INVENTORY_AUTH_MODE: 'passthrough' } });
    const res = await h.query(QUERY);
    expect(res.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(h.simulator.stats().totalCalls).toBe(0);
  });

  it('forwards the caller token, and maps a refused one to UNAUTHENTICATED', async () => {
    h = await startHarness({ simulator: AUTH_ON, env: { INVENTORY_AUTH_MODE: 'passthrough' } });
    const token = await simulatorToken(h.simulator);
    const ok = await h.query(QUERY, undefined, { authorization: `Bearer ${token}` });
    expect(ok.errors).toBeUndefined();
    const wrong = await h.query(QUERY, undefined, { authorization: 'Bearer not-a-real-token' });
    expect(wrong.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', upstreamStatus: 401 });
    expect(JSON.stringify(wrong)).not.toContain('not-a-real-token');
  });
});

describe('client-credentials', () => {
  const env = { INVENTORY_AUTH_MODE: 'client-credentials', INVENTORY_CLIENT_ID: 'gw-client', INVENTORY_CLIENT_SECRET: 'gw-secret-value-123' };

  it('gets a token once and reuses it', async () => {
    h = await startHarness({ simulator: AUTH_ON, env });
    const results = await Promise.all(Array.from({ length: 20 }, () => h!.query(QUERY)));
    expect(results.every((r) => !r.errors)).toBe(true);
    expect(h.simulator.stats().tokensIssued).toBe(1);
  });

  it('answers UNAUTHENTICATED with bad client secrets, naming no secret', async () => {
    h = await startHarness({ simulator: AUTH_ON, env: { ...env, INVENTORY_CLIENT_SECRET: 'wrong-secret-456' } });
    const res = await h.query(QUERY);
    expect(res.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(res.errors?.[0]?.message).toMatch(/refused the gateway's client credentials/);
    expect(JSON.stringify(res)).not.toContain('wrong-secret-456');
    expect(h.simulator.stats().calls.resourceTypes).toBeUndefined();
  });

  it('refreshes once for 50 concurrent queries after the upstream expired the token', async () => {
    h = await startHarness({ simulator: AUTH_ON, env });
    await h.query(QUERY);
    h.simulator.expireTokens();
    h.resetCounts();
    const results = await Promise.all(Array.from({ length: 50 }, () => h!.query(QUERY)));
    expect(results.filter((r) => r.errors)).toEqual([]);
    expect(h.simulator.stats().tokensIssued).toBe(1);
  });

  it('refreshes once for 50 concurrent queries when its cached token runs out, reading expires_in sent as a string', async () => {
    h = await startHarness({ simulator: { auth: { ...AUTH_ON.auth, tokenTtlSeconds: 1, expiresInAsString: true } }, env });
    await h.query(QUERY);
    await sleep(1100);
    h.resetCounts();
    const results = await Promise.all(Array.from({ length: 50 }, () => h!.query(QUERY)));
    expect(results.filter((r) => r.errors)).toEqual([]);
    expect(h.simulator.stats().tokensIssued).toBe(1);
    // Refreshed before use: no call was refused (a refused one would be sent again). The 50
    // identical reads in flight at once share one call.
    expect(h.simulator.stats().calls.resourceTypes).toBe(1);
  });

  it('keeps secrets and tokens out of the logs', async () => {
    h = await startHarness({ simulator: AUTH_ON, env });
    await h.query(QUERY);
    h.simulator.expireTokens();
    h.client.clearCache();
    await h.query(QUERY);
    const issued = h.simulator.stats().tokensIssued;
    expect(issued).toBe(2);
    const logs = h.logs.join('\n');
    expect(logs).not.toContain('gw-secret-value-123');
    expect(logs).not.toMatch(/sim-token-[0-9a-f]{8}/);
  });
});

describe('health', () => {
  it('/healthz answers while the process is up; /readyz checks the upstream and the token', async () => {
    h = await startHarness({ simulator: AUTH_ON, env: { INVENTORY_AUTH_MODE: 'client-credentials', INVENTORY_CLIENT_ID: 'gw-client', INVENTORY_CLIENT_SECRET: 'gw-secret-value-123' } });
    const base = h.url.replace('/graphql', '');
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    // One health route pair: Yoga's default /health is not another one.
    expect((await fetch(`${base}/health`)).status).toBe(404);
    await h.close();
    // The upstream no longer accepts the gateway's secret: not ready.
    h = await startHarness({ simulator: { auth: { ...AUTH_ON.auth, clientSecret: 'rotated' } }, env: { INVENTORY_AUTH_MODE: 'client-credentials', INVENTORY_CLIENT_ID: 'gw-client', INVENTORY_CLIENT_SECRET: 'gw-secret-value-123' } });
    const notReady = await h.fetch(`${h.endpoint.replace('/graphql', '')}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.text()).not.toContain('gw-secret');
  });

  it('/readyz is 503 when the upstream cannot be reached', async () => {
    h = await startHarness({ upstreamUrl: 'http://127.0.0.1:9' });
    expect((await h.fetch(`${h.endpoint.replace('/graphql', '')}/readyz`)).status).toBe(503);
    expect((await h.fetch(`${h.endpoint.replace('/graphql', '')}/healthz`)).status).toBe(200);
  });
});
