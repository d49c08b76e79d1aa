/**
 * The credentials of a fleet of gateway replicas sharing one real Redis, over one simulator
 * process (test/support/replica-fleet.ts):
 *
 * - client credentials: one token for the whole fleet, fetched once;
 * - passthrough: a caller never gets what another caller's credentials could read.
 *
 * No time bound is asserted here, so these run with the other files (replicas.test.ts, behind
 * nginx and under load, runs alone). Needs the Debian package redis-server (installed by
 * .ci/run); skipped, with one line, when it is missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertNoSecrets } from '../support/harness.js';
import { hasRedis } from '../support/redis-server.js';
import { GATEWAY_CLIENT, READER_1, READER_2, gql, startFleet, stderrOf, type Fleet, type Replica } from '../support/replica-fleet.js';

if (!hasRedis) console.warn('replicas-credentials.test.ts skipped: redis-server not installed (apt-get install -y --no-install-recommends redis-server)');

let fleet: Fleet;
const simStats = () => fleet.simStats();
const simReset = () => fleet.simReset();
const simConfig = (patch: Record<string, unknown>) => fleet.simConfig(patch);
const tokenOf = (client: { clientId: string; clientSecret: string }) => fleet.tokenOf(client);
const startReplicas = (count: number, env: Record<string, string>) => fleet.startReplicas(count, env);
const stopReplicas = (replicas: Replica[]) => fleet.stopReplicas(replicas);

describe.skipIf(!hasRedis)('three gateway replicas sharing one Redis: credentials', () => {
  beforeAll(async () => {
    fleet = await startFleet();
  }, 60_000);

  afterAll(() => fleet?.close(), 30_000);

  describe('(c) client credentials: one token for the fleet', () => {
    let replicas: Replica[] = [];

    beforeAll(async () => {
      await simConfig({ auth: { enabled: true } });
      await fleet.redis.flushAll();
      await simReset();
      replicas = await startReplicas(3, {
        INVENTORY_AUTH_MODE: 'client-credentials', INVENTORY_CLIENT_ID: GATEWAY_CLIENT.clientId, INVENTORY_CLIENT_SECRET: GATEWAY_CLIENT.clientSecret,
      });
    }, 90_000);

    afterAll(() => stopReplicas(replicas), 30_000);

    it('60 concurrent queries over three fresh replicas with an empty token store: all answered, one token issued', async () => {
      const answers = await Promise.all(Array.from({ length: 60 }, (_, i) =>
        gql(replicas[i % 3]!.url, `{ tenant(id: "client_1") { resources(first: ${1 + Math.floor(i / 3)}) { totalCount nodes { id } } } }`)));
      for (const [i, answer] of answers.entries()) {
        expect(answer.body.errors, `query ${i}: ${stderrOf(replicas)}`).toBeUndefined();
        expect(answer.body.data.tenant.resources.totalCount).toBe(500);
        expect(answer.body.data.tenant.resources.nodes).toHaveLength(1 + Math.floor(i / 3));
      }
      const stats = await simStats();
      expect(stats.tokensIssued, stderrOf(replicas)).toBe(1);
      expect(stats.calls.token).toBe(1);
      assertNoSecrets(replicas.flatMap((r) => [r.process.output().stdout, r.process.output().stderr]), [GATEWAY_CLIENT.clientSecret]);
    });
  });

  describe('(d) passthrough: callers with differently scoped credentials', () => {
    let replicas: Replica[] = [];
    let tokenA = '';
    let tokenB = '';
    const PAGE_1 = '{ tenant(id: "client_1") { resources(first: 5) { totalCount nodes { id hostName } } } }';
    const PAGE_2 = '{ tenant(id: "client_2") { resources(first: 5) { totalCount nodes { id hostName } } } }';

    beforeAll(async () => {
      await simConfig({ auth: { enabled: true } });
      await fleet.redis.flushAll();
      replicas = await startReplicas(3, { INVENTORY_AUTH_MODE: 'passthrough' });
      tokenA = await tokenOf(READER_1);
      tokenB = await tokenOf(READER_2);
    }, 90_000);

    afterAll(() => stopReplicas(replicas), 30_000);

    /** `reader` reads `query` through replica 1, then `other` asks it through replicas 1, 2 and 3. */
    async function crossRead(query: string, reader: { token: string; clientId: string }, other: { token: string; clientId: string }) {
      await simReset();
      const own = await gql(replicas[0]!.url, query, {}, { authorization: `Bearer ${reader.token}` });
      expect(own.body.errors).toBeUndefined();
      const nodes = own.body.data.tenant.resources.nodes as { id: string; hostName: string }[];
      expect(nodes).toHaveLength(5);
      expect((await simStats()).requests.map((r) => r.clientId)).toEqual([reader.clientId]);

      await simReset();
      for (const [i, r] of replicas.entries()) {
        const answer = await gql(r.url, query, {}, { authorization: `Bearer ${other.token}` });
        expect(answer.body.data, `replica ${i + 1}`).toBeNull();
        expect(answer.body.errors?.map((e) => [e.extensions?.code, e.extensions?.upstreamStatus, e.message]), `replica ${i + 1}`).toEqual([
          ['FORBIDDEN', 403, expect.stringMatching(/^Not allowed to read /)],
        ]);
        const text = JSON.stringify(answer.body);
        for (const n of nodes) expect(text).not.toContain(n.hostName);
      }
      // Every upstream call made for the other caller carried the other caller's credentials.
      const requests = (await simStats()).requests;
      expect(requests.length).toBeGreaterThanOrEqual(1);
      expect(new Set(requests.map((r) => r.clientId))).toEqual(new Set([other.clientId]));

      // And the reader still gets its own answer, through any replica.
      for (const r of replicas) expect((await gql(r.url, query, {}, { authorization: `Bearer ${reader.token}` })).body).toEqual(own.body);
    }

    it('B never gets what A read (client_1), through any replica: FORBIDDEN', async () => {
      await crossRead(PAGE_1, { token: tokenA, clientId: READER_1.clientId }, { token: tokenB, clientId: READER_2.clientId });
    });

    it('and the reverse: A never gets what B read (client_2)', async () => {
      await crossRead(PAGE_2, { token: tokenB, clientId: READER_2.clientId }, { token: tokenA, clientId: READER_1.clientId });
    });

    it('keeps the callers\' tokens out of Redis keys and out of the replicas\' logs', async () => {
      const keys = (await fleet.redis.command('KEYS', '*')) as string[];
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) {
        expect(key).not.toContain(tokenA);
        expect(key).not.toContain(tokenB);
        expect(key).not.toMatch(/sim-token-/);
      }
      const logs = replicas.flatMap((r) => [r.process.output().stdout, r.process.output().stderr]);
      assertNoSecrets(logs, [tokenA, tokenB, READER_1.clientSecret, READER_2.clientSecret, GATEWAY_CLIENT.clientSecret]);
    });
  });
});
