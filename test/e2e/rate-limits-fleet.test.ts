/**
 * Issue 28, "Done when": against the simulator at its documented limits (per tenant and minute:
 * 50 paginated GETs, 500 other GETs), with one gateway and with three replicas on one real Redis,
 * all at the gateway's default settings (but REDIS_TIMEOUT_MS: test/support/in-process-fleet.ts says why). One fake clock moves the simulator's windows and every
 * gateway's: three simulated minutes take seconds.
 *
 * Needs redis-server (installed by .ci/run) for the fleet cases; they are skipped, with one line,
 * when it is missing. The single gateway runs either way.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pagesFor } from '../../src/domain/paging.js';
import { hasRedis, startRedisServer, type RedisServer } from '../support/redis-server.js';
import { postGraphQL, startInProcessFleet, testClock, type GraphQLReply, type InProcessFleet, type TestClock } from '../support/in-process-fleet.js';

if (!hasRedis) console.warn('rate-limits-fleet.test.ts: the three-replica cases are skipped: redis-server not installed (apt-get install -y --no-install-recommends redis-server)');

/** A dashboard page: hosts, their applications and one availability window (one search, 2 other calls per host when cold). */
const FULL = `query Dashboard($tenant: ID!, $first: Int!, $offset: Int!, $from: DateTime!, $to: DateTime!) {
  tenant(id: $tenant) { resources(first: $first, offset: $offset) {
    nodes { id hostName applications { name } availability(from: $from, to: $to) { availabilityPercent } }
  } }
}`;
/** A host list: one search, no other call. It spends the paginated budget the dashboards leave. */
const LIST = `query Hosts($tenant: ID!, $first: Int!, $offset: Int!) {
  tenant(id: $tenant) { resources(first: $first, offset: $offset) { nodes { id hostName } } }
}`;
const SEARCH_ONLY = `query Ids($first: Int!) { tenant(id: "client_1") { resources(first: $first) { nodes { id } } } }`;

/** 10:00:00.5 UTC: each round is 1 s, so 180 rounds are exactly three upstream windows (aligned on the minute). */
const START_MS = Date.UTC(2026, 10, 26, 10, 0, 0, 500);
const ROUNDS = 180;
const FIRST_SIZES = [6, 8, 10];
const STATS = { 'x-upstream-stats': '1' };
/**
 * A workload's own timeout: 900 operations take 10-15 CPU-seconds, 25 s of wall time on a quiet
 * 2-core machine and over 60 s on one core beside busy loops. The time is not what the case
 * asserts (its clock is the test clock); the timeout only catches a hang.
 */
const WORKLOAD_TIMEOUT_MS = 240_000;

type Category = 'paginated' | 'other';
interface Ask { query: string; variables: Record<string, unknown>; first: number; full: boolean }
interface Tally { fresh: number; stale: number; refused: number; staleReasons: Record<string, number> }
/** One simulated minute: calls the simulator counted in its window, and what the operations asked (the gateway's estimates). */
interface Minute { paginated: number; other: number; asked: { paginated: number; other: number } }

let fleet: InProcessFleet | null = null;
let redis: RedisServer | null = null;
afterEach(async () => {
  await fleet?.close();
  fleet = null;
});
afterAll(async () => {
  await redis?.close();
});

/** A 24 h availability window ending `minutesBack` minutes before now: distinct per ask, so never cached. */
function window24h(clock: TestClock, minutesBack: number): { from: string; to: string } {
  const to = clock.now() - minutesBack * 60_000;
  return { from: new Date(to - 86_400_000).toISOString(), to: new Date(to).toISOString() };
}

function fullAsk(tenant: string, first: number, offset: number, window: { from: string; to: string }): Ask {
  return { query: FULL, variables: { tenant, first, offset, ...window }, first, full: true };
}

/**
 * The seconds until the simulator's window resets (the same for every category: windows are
 * aligned on the minute), which a refusal's retryAfter must match within one second.
 */
function secondsToReset(f: InProcessFleet, clock: TestClock): number {
  return f.simulator.rateLimitState('client_1').paginated.reset - clock.now() / 1000;
}

/** Checks one answer to an ask of client_1 and counts it; a refusal must find the budget short. */
function checkAnswer(f: InProcessFleet, clock: TestClock, ask: Ask, reply: GraphQLReply, tally: Tally, asked: Minute['asked']): boolean {
  const { body } = reply;
  const estimate = (body.extensions?.upstream as { estimatedCallsByCategory: Record<Category, number> }).estimatedCallsByCategory;
  asked.paginated += estimate.paginated;
  asked.other += estimate.other;
  // At most the cold cost (the pages planned, two other calls per host): an inflated estimate would hide holding back.
  expect(estimate.paginated).toBeLessThanOrEqual(pagesFor(Number(ask.variables.offset), ask.first, 500).length);
  expect(estimate.other).toBeLessThanOrEqual(ask.full ? 2 * ask.first : 0);
  if (body.errors) {
    expect(body.errors, JSON.stringify(body.errors)).toHaveLength(1);
    const extensions = body.errors[0]!.extensions ?? {};
    expect(extensions.code).toBe('RATE_LIMITED');
    expect(body.data ?? null).toBeNull();
    expect(reply.status).toBe(429);
    expect(Number(reply.retryAfter)).toBe(extensions.retryAfter);
    expect(Math.abs(Number(extensions.retryAfter) - secondsToReset(f, clock))).toBeLessThanOrEqual(1);
    // Refused whole: not one upstream call was spent on it.
    expect((body.extensions?.upstream as { totalCalls: number }).totalCalls, JSON.stringify({ errors: body.errors, upstream: body.extensions?.upstream, logs: f.logs.slice(-5) })).toBe(0);
    // Not held back: in some category the gateway's window had less left than the operation needs
    // (its own estimate, x-upstream-stats). The window is the one the gateway decided on, as the
    // refusal's x-upstream-stats reports it (`rateLimits`, read as the operation ends): the
    // upstream's remaining minus the places that operations running beside this one had claimed
    // and not yet sent. The simulator's remaining is the wrong state for this: it does not count
    // those places, whose calls are sent later (or never: a read the cache answered gives its
    // place back when its operation ends). A refusal while others hold places waits for them up
    // to MAX_ADMISSION_WAIT_MS; on a machine slow enough that they are held longer, the simulator
    // showed exactly enough left for a justified refusal (issue 41). Holding back the budget
    // (places never given back, a window read short) shows in the minutes' spent calls, below.
    const held = (body.extensions?.upstream as { rateLimits?: Record<string, Partial<Record<Category, { remaining: number }>>> }).rateLimits?.client_1 ?? {};
    const short = (['paginated', 'other'] as const).filter((c) => estimate[c] > 0 && (held[c]?.remaining ?? Infinity) < estimate[c]);
    const state = f.simulator.rateLimitState('client_1');
    expect(short, `refused while the gateway's window covered it: need ${JSON.stringify(estimate)}, the gateway's window ${JSON.stringify(held)}, the simulator's remaining ${state.paginated.remaining}/${state.other.remaining}`).not.toEqual([]);
    tally.refused++;
    return false;
  }
  const nodes = (body.data as { tenant: { resources: { nodes: Record<string, unknown>[] } } }).tenant.resources.nodes;
  expect(nodes).toHaveLength(ask.first);
  for (const node of nodes) {
    expect(typeof node.hostName).toBe('string');
    if (ask.full) {
      expect(Array.isArray(node.applications)).toBe(true);
      expect(typeof (node.availability as { availabilityPercent?: unknown } | null)?.availabilityPercent).toBe('number');
    }
  }
  const stale = body.extensions?.stale as { reason?: string; resetAt?: string; reads?: unknown[] } | undefined;
  if (stale) {
    expect(typeof stale.reason).toBe('string');
    expect(stale.reads?.length).toBeGreaterThan(0);
    if (stale.reason === 'rate-limited') expect(Math.abs(Date.parse(stale.resetAt ?? '') / 1000 - f.simulator.rateLimitState('client_1').other.reset)).toBeLessThanOrEqual(1);
    tally.stale++;
    tally.staleReasons[stale.reason!] = (tally.staleReasons[stale.reason!] ?? 0) + 1;
  } else {
    tally.fresh++;
  }
  return true;
}

/**
 * Three simulated minutes of client_1 dashboards, five to eight times its budget each minute (per
 * round: three dashboards of 6, 8 and 10 hosts, 48 other calls and 3 searches cold; a host
 * list of 20, one search; one dashboard answered before, again), spread round-robin over the
 * gateways, five at a time; and a client_2 dashboard every 10 s on the first gateway. The
 * dashboards ask more other calls per search (about 16) than the budgets' ratio (10), so the other
 * budget runs out first and the host lists spend the searches left: both can be spent on answers.
 */
async function runWorkload(f: InProcessFleet, clock: TestClock) {
  const tally: Tally = { fresh: 0, stale: 0, refused: 0, staleReasons: {} };
  const minutes: Minute[] = [];
  const answered: Ask[] = [];
  let sent = 0;
  let other = 0;
  let asked = { paginated: 0, other: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    const asks: Ask[] = FIRST_SIZES.map((first, k) => fullAsk('client_1', first, (round * 37 + k * 131) % (500 - first), window24h(clock, 3 * round + k)));
    asks.push({ query: LIST, variables: { tenant: 'client_1', first: 20, offset: (round * 53) % 480 }, first: 20, full: false });
    // An earlier dashboard again: within its search's TTL it is fresh, after it stale or refused.
    if (answered.length > 0) asks.push(answered[answered.length - 1 - (round % Math.min(answered.length, 20))]!);
    const replies = asks.map(async (ask) => {
      const url = f.urls[sent++ % f.urls.length]!;
      const reply = await postGraphQL(url, ask.query, ask.variables, STATS);
      if (checkAnswer(f, clock, ask, reply, tally, asked) && ask.full && !answered.includes(ask)) answered.push(ask);
    });
    if (round % 10 === 0) {
      replies.push((async () => {
        const reply = await postGraphQL(f.urls[0]!, FULL, fullAsk('client_2', 5, (other++ * 5) % 20, window24h(clock, round)).variables);
        expect(reply.body.errors, JSON.stringify(reply.body.errors)).toBeUndefined();
        expect(reply.body.extensions?.stale).toBeUndefined();
        expect((reply.body.data as { tenant: { resources: { nodes: unknown[] } } }).tenant.resources.nodes).toHaveLength(5);
      })());
    }
    await Promise.all(replies);
    if (round % 60 === 59) {
      // The minute's last round: what the simulator counted in this window.
      const state = f.simulator.rateLimitState('client_1');
      minutes.push({ paginated: state.paginated.limit - state.paginated.remaining, other: state.other.limit - state.other.remaining, asked });
      asked = { paginated: 0, other: 0 };
    }
    clock.advance(1_000);
  }
  return { tally, minutes };
}

/** The "Done when" of the workload, on whatever fleet ran it. */
function expectBudgetSpentOnAnswers(f: InProcessFleet, result: Awaited<ReturnType<typeof runWorkload>>): void {
  const stats = f.simulator.stats();
  console.info(`rate-limits-fleet (${f.urls.length} gateway(s)): per minute ${JSON.stringify(result.minutes)}; answers ${JSON.stringify(result.tally)}; 429s ${stats.throttled}`);
  expect(stats.throttled).toBe(0);
  expect(stats.byTenant.client_2?.paginated.throttled ?? 0).toBe(0);
  expect(result.minutes).toHaveLength(3);
  // The budget is spent, not held back: each window close to its limits.
  for (const minute of result.minutes) {
    // The workload: at least five times the tenant's budget in each category.
    expect(minute.asked.paginated).toBeGreaterThanOrEqual(5 * 50);
    expect(minute.asked.other).toBeGreaterThanOrEqual(5 * 500);
    expect(minute.paginated).toBeGreaterThanOrEqual(40);
    expect(minute.other).toBeGreaterThanOrEqual(400);
  }
  expect(result.tally.fresh).toBeGreaterThan(0);
  expect(result.tally.stale).toBeGreaterThan(0);
  expect(result.tally.refused).toBeGreaterThan(0);
}

describe('rate limits of the upstream, one gateway (documented limits, gateway defaults)', () => {
  it('a workload of five times the budget for three minutes: no 429, whole answers or one refusal, the budget spent, client_2 unaffected', async () => {
    const clock = testClock(START_MS);
    fleet = await startInProcessFleet({ replicas: 1, clock });
    expectBudgetSpentOnAnswers(fleet, await runWorkload(fleet, clock));
  }, WORKLOAD_TIMEOUT_MS);
});

describe.skipIf(!hasRedis)('rate limits of the upstream, three replicas on one Redis', () => {
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterEach(async () => {
    await redis?.flushAll();
  });

  it('a workload of five times the budget for three minutes over the replicas: no 429, whole answers or one refusal, the budget spent, client_2 unaffected', async () => {
    const clock = testClock(START_MS);
    fleet = await startInProcessFleet({ replicas: 3, clock, redisUrl: redis!.url });
    expectBudgetSpentOnAnswers(fleet, await runWorkload(fleet, clock));
  }, WORKLOAD_TIMEOUT_MS);

  it('a paginated budget a plain REST client spent: one call in all reaches the upstream (its 429 closes the window for every replica) until the reset', async () => {
    const clock = testClock(START_MS);
    const f = (fleet = await startInProcessFleet({ replicas: 3, clock, redisUrl: redis!.url }));
    for (let i = 1; i <= 50; i++) {
      const response = await fetch(`${f.simulator.url}/api/v2/tenants/client_1/resources/search?pageNo=${i}&pageSize=1`);
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    f.simulator.resetStats();
    // One after the other, each replica twice: only the first may reach the upstream.
    for (let i = 0; i < 6; i++) {
      const reply = await postGraphQL(f.urls[i % 3]!, SEARCH_ONLY, { first: 3 + i });
      expect(reply.body.errors, `replica ${i % 3}`).toHaveLength(1);
      expect(reply.body.errors![0]!.extensions?.code).toBe('RATE_LIMITED');
      expect(reply.body.data ?? null).toBeNull();
      expect(Math.abs(Number(reply.body.errors![0]!.extensions?.retryAfter) - secondsToReset(f, clock))).toBeLessThanOrEqual(1);
    }
    const stats = f.simulator.stats();
    expect(stats.byTenant.client_1?.paginated.calls ?? 0).toBe(0);
    expect(stats.totalCalls).toBeLessThanOrEqual(1);
    expect(stats.throttled).toBe(1);
    clock.advance(secondsToReset(f, clock) * 1000 + 1);
    for (let i = 0; i < 3; i++) {
      const reply = await postGraphQL(f.urls[i]!, SEARCH_ONLY, { first: 3 + i });
      expect(reply.body.errors, `replica ${i}`).toBeUndefined();
      expect((reply.body.data as { tenant: { resources: { nodes: unknown[] } } }).tenant.resources.nodes).toHaveLength(3 + i);
    }
    expect(f.simulator.stats().throttled).toBe(1);
  });
});
