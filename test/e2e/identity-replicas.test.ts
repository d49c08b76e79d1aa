/**
 * Sign-in across replicas (issue 38): three gateways on one real redis-server share cached
 * answers among everyone granted the tenant, and never hand one to a caller without the grant,
 * fresh or stale. Needs the Debian package redis-server (installed by .ci/run); skipped, with one
 * line, without it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasRedis, startRedisServer, type RedisServer } from '../support/redis-server.js';
import { postGraphQL, startInProcessFleet, testClock, type InProcessFleet } from '../support/in-process-fleet.js';
import { AUDIENCE, startOpenIdProvider, type OpenIdProvider } from '../support/openid-provider.js';

if (!hasRedis) console.warn('identity-replicas.test.ts skipped: redis-server not installed (apt-get install -y --no-install-recommends redis-server)');

describe.skipIf(!hasRedis)('three replicas on one Redis, callers signed in', () => {
  const clock = testClock(Date.UTC(2026, 10, 28, 12, 0, 0));
  let redis: RedisServer;
  let provider: OpenIdProvider;
  let fleet: InProcessFleet;
  const token = async (who: string) => ({ authorization: `Bearer ${await provider.token(who)}` });
  const calls = () => fleet.simulator.stats().calls as Record<string, number>;

  beforeAll(async () => {
    redis = await startRedisServer();
    provider = await startOpenIdProvider([
      { clientId: 'alice', tenants: ['client_1'], scopes: ['inventory:read'] },
      { clientId: 'bob', tenants: ['client_1'], scopes: ['inventory:read'] },
      { clientId: 'carol', tenants: ['client_2'], scopes: ['inventory:read'] },
    ]);
    fleet = await startInProcessFleet({ replicas: 3, clock, redisUrl: redis.url, env: { AUTH_ISSUERS: provider.issuer, AUTH_AUDIENCE: AUDIENCE } });
    // Each replica serves once its provider's keys are held.
    for (const url of fleet.urls) {
      for (let i = 0; i < 150; i++) {
        if ((await fetch(url.replace('/graphql', '/readyz'))).status === 200) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }, 60_000);
  afterAll(async () => {
    await fleet?.close();
    await provider?.close();
    await redis?.close();
  });

  it('two granted people on two replicas cost one upstream read; a third without the grant is refused on the third replica, fresh and stale', async () => {
    const page = '{ tenant(id: "client_1") { resources(first: 10, offset: 30) { nodes { resourceId name } } } }';
    const first = await postGraphQL(fleet.urls[0]!, page, {}, await token('alice'));
    expect(first.body.errors).toBeUndefined();
    const after = { ...calls() };
    expect(after.search).toBe(1);
    const second = await postGraphQL(fleet.urls[1]!, page, {}, await token('bob'));
    expect(second.body.data).toEqual(first.body.data);
    expect(calls()).toEqual(after);
    const refused = await postGraphQL(fleet.urls[2]!, page, {}, await token('carol'));
    expect(refused.body.data?.tenant ?? null).toBeNull();
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN' });
    expect(calls()).toEqual(after);
    // Past the search's TTL the entry is stale (served while one refresh runs): still nothing for carol.
    clock.advance(6_000);
    const stale = await postGraphQL(fleet.urls[2]!, page, {}, await token('carol'));
    expect(stale.body.data?.tenant ?? null).toBeNull();
    expect(stale.body.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN' });
    const bobStale = await postGraphQL(fleet.urls[2]!, page, {}, await token('bob'));
    expect(bobStale.body.data).toEqual(first.body.data);
  });
});
