/**
 * Issue 29, "people first" and "fair among callers", at the simulator's documented limits and the
 * gateway's defaults: one caller looping heavy dashboards cannot lock another caller of the same
 * tenant out, and its excess is refused with RATE_LIMITED and retryAfter.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';

const PAGE = `query Page($offset: Int!, $first: Int!, $from: DateTime!, $to: DateTime!) {
  tenant(id: "client_1") {
    resources(first: $first, offset: $offset) { nodes { id hostName applications { name } availability(from: $from, to: $to) { availabilityPercent } } }
  }
}`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function page(h: Harness, caller: string, variables: Record<string, unknown>) {
  const response = await h.fetch(h.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', authorization: `Bearer ${caller}`, 'x-upstream-stats': '1' },
    body: JSON.stringify({ query: PAGE, variables }),
  });
  return { status: response.status, body: (await response.json()) as { data?: any; errors?: any[]; extensions?: any } };
}

describe('fair among callers of one tenant (documented limits, gateway defaults)', () => {
  it('keeps every page of a light caller complete while a heavy caller loops dashboards; the heavy one gets RATE_LIMITED for its excess', async () => {
    let now = Date.UTC(2026, 10, 26, 11, 0, 2);
    h = await startHarness({ simulator: { rateLimit: {} }, clock: () => now });
    const window = (n: number) => ({ from: new Date(now - (n + 1) * 3_600_000).toISOString(), to: new Date(now - n * 3_600_000).toISOString() });
    let heavyRound = 0;
    const heavy: Awaited<ReturnType<typeof page>>[] = [];
    const light: typeof heavy = [];
    // Three simulated 10 s steps: the light caller opens a 10-host page at each; between them the
    // heavy caller sends 25-host pages (51 calls each), four at a time, sixteen rounds: alone it would spend the whole window.
    for (let step = 0; step < 3; step++) {
      light.push(await page(h, 'light-caller', { offset: step * 10, first: 10, ...window(step) }));
      for (let round = 0; round < 16; round++) {
        const batch = Array.from({ length: 4 }, () => page(h!, 'heavy-caller', { offset: (heavyRound++ % 20) * 25, first: 25, ...window(100 + heavyRound) }));
        heavy.push(...(await Promise.all(batch)));
      }
      now += 10_000;
    }
    for (const answer of light) {
      expect(answer.body.errors).toBeUndefined();
      expect(answer.body.data.tenant.resources.nodes).toHaveLength(10);
    }
    const refused = heavy.filter((a) => a.body.errors);
    const reset = h.simulator.rateLimitState('client_1').other.reset;
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      expect(answer.body.errors).toHaveLength(1);
      expect(answer.body.errors![0].extensions.code).toBe('RATE_LIMITED');
      expect(answer.body.errors![0].extensions.retryAfter).toBeGreaterThan(0);
      expect(Date.parse(answer.body.errors![0].extensions.resetAt) / 1000).toBe(reset);
    }
    // The heavy caller had its share of the window (half), not all of it; nothing was refused upstream.
    const spent = h.simulator.stats().byTenant.client_1!.other.calls;
    expect(spent).toBeLessThanOrEqual(500);
    const heavyCalls = heavy.reduce((sum, a) => sum + (a.body.extensions?.upstream?.callsByCategory.other ?? 0), 0);
    expect(heavyCalls).toBeLessThanOrEqual(250);
    expect(heavyCalls).toBeGreaterThan(150);
    expect(h.simulator.stats().throttled).toBe(0);
  });
});
