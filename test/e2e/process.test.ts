/** The gateway as a process: start-up on bad settings, and SIGTERM draining in-flight requests. */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/app.js';
import { startGatewayProcess } from '../support/gateway-process.js';

const run = (env: Record<string, string>) => startGatewayProcess({ LOG_LEVEL: 'warn', ...env });

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, latencyMs: 400, rateLimit: { enabled: false } }); // about draining, not throttling
});
afterAll(() => sim.close());

describe('gateway process', () => {
  // Side by side: four independent processes that exit at start-up (one after another they took ~6 s).
  it.concurrent.for([
    ['UPSTREAM_RETRIES', 'many'],
    ['INVENTORY_AUTH_MODE', 'magic'],
    ['INVENTORY_API_URL', 'ftp://example'],
    ['PORT', '99999'],
    ['SIMULATOR_RATE_LIMIT', 'sometimes'],
  ] as const)('stops at start-up with one line naming %s', async ([name, value], { expect }) => {
    const p = run({ [name]: value });
    expect(await p.exited).toBe(1);
    const lines = p.output().stderr.split('\n').filter((l) => l.trim() && !l.includes('npm warn'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^Invalid setting: ${name}`));
  });

  it('drains an in-flight request on SIGTERM and exits 0', async () => {
    const p = run({ PORT: '0', INVENTORY_API_URL: sim.url, INVENTORY_AUTH_MODE: 'none' });
    const url = await p.ready;
    const pending = fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ tenant(id: "client_1") { resourceTypes { name } } }' }) });
    // In flight: its upstream call (400 ms) has reached the simulator (waited for, not slept: a
    // busy machine takes longer than the 150 ms that were enough on a quiet one).
    const from = performance.now();
    while (sim.stats().inFlight === 0 && performance.now() - from < 30_000) await sleep(10);
    expect(sim.stats().inFlight).toBe(1);
    p.child.kill('SIGTERM');
    const response = await pending;
    const body = (await response.json()) as { data: { tenant: { resourceTypes: unknown[] } } };
    expect(body.data.tenant.resourceTypes.length).toBeGreaterThan(0);
    expect(await p.exited).toBe(0);
  });

  it('serves GraphiQL with the example query and the embedded simulator by default', async () => {
    const p = run({ PORT: '0' });
    const url = await p.ready;
    expect(p.output().stdout).toMatch(/embedded simulator/);
    // npm start's simulator throttles at the real upstream's documented limits (issue 28).
    const simUrl = /embedded simulator at (http:\/\/[^,\s]+)/.exec(p.output().stdout)?.[1];
    expect(await (await fetch(`${simUrl}/__sim/rate-limits`)).json()).toMatchObject({
      enabled: true, windowSeconds: 60, limits: { paginated: 50, other: 500, update: 25 }, minimalCategory: 'other',
    });
    const html = await (await fetch(url, { headers: { accept: 'text/html' } })).text();
    expect(html).toContain('FirstLook');
    expect(html).not.toContain('unpkg.com');
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ tenant(id: "client_1") { resources(first: 1) { totalCount } } }' }) });
    expect(((await res.json()) as { data: { tenant: { resources: { totalCount: number } } } }).data.tenant.resources.totalCount).toBe(500);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });
});
