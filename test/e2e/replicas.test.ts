/**
 * Several gateway replicas as operators run them: three gateway processes sharing one real Redis
 * (REDIS_URL), behind a real nginx running the committed deploy/nginx/gateway.conf, over one
 * simulator process. Exact upstream call counts come from the simulator's GET /__sim/stats.
 *
 * - the shared response cache: what one replica read, the others answer with no upstream call;
 *   an update through one replica is seen at once through the others;
 * - nginx: keep-alive to the replicas, closed by nginx before the replicas' own 5 s timeout;
 * - a Redis outage and a replica's SIGTERM under load through nginx: not one failed request;
 * - client credentials: one token for the whole fleet, fetched once;
 * - passthrough: a caller never gets what another caller's credentials could read.
 *
 * Needs the Debian packages redis-server and nginx (installed by .ci/run); skipped, with one
 * line, when either is missing. Runs alone (LOAD_TESTS in vitest.config.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnWatched, waitFor, type WatchedProcess } from '../support/child-process.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { assertNoSecrets } from '../support/harness.js';
import { establishedTo, hasNginx, startNginx, type Nginx } from '../support/nginx.js';
import { hasRedis, startRedisServer, type RedisServer } from '../support/redis-server.js';
import { clientLoops, forMs } from '../support/load.js';

const missing = [hasRedis ? null : 'redis-server', hasNginx ? null : 'nginx'].filter(Boolean).join(' ');
if (missing) console.warn(`replicas.test.ts skipped: ${missing} not installed (apt-get install -y --no-install-recommends ${missing})`);


/** The signal that ends a replica in the rotation case (SIGKILL here makes that case fail: requests in flight are lost). */
const ROTATION_SIGNAL: NodeJS.Signals = 'SIGTERM';

/** The gateway's client credentials, and two more simulator clients each scoped to one tenant. */
const GATEWAY_CLIENT = { clientId: 'gw-client', clientSecret: 'gw-secret-value-123' };
const READER_1 = { clientId: 'reader-1', clientSecret: 'reader-1-secret-value', tenants: ['client_1'] };
const READER_2 = { clientId: 'reader-2', clientSecret: 'reader-2-secret-value', tenants: ['client_2'] };

const FROM = '2024-01-01T00:00:00Z';
const TO = '2024-01-02T00:00:00Z';
/** A dashboard: a page of 20 with applications and the availability of a day long past. */
const DASHBOARD = `query Dashboard { tenant(id: "client_1") { resources(first: 20) { totalCount nodes {
  id hostName applications { name } availability(from: "${FROM}", to: "${TO}") { availabilityPercent downtimeSeconds }
} } } }`;
const READ = 'query Read($id: ID!) { tenant(id: "client_1") { resource(id: $id) { resourceId aliasName } } }';
const UPDATE = 'mutation Update($input: UpdateResourceInput!) { updateResource(input: $input) { resource { resourceId aliasName } userErrors { code } } }';
const LOOKUP = 'query Lookup($id: ID!) { tenant(id: "client_1") { resource(id: $id) { resourceId hostName } } }';

interface GraphQLAnswer {
  status: number;
  body: { data?: any; errors?: { message: string; extensions?: Record<string, unknown> }[]; extensions?: Record<string, unknown> };
}

async function gql(url: string, query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<GraphQLAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) as GraphQLAnswer['body'] };
  } catch {
    return { status: response.status, body: { errors: [{ message: `not JSON: ${text.slice(0, 200)}` }] } };
  }
}

// ---------------------------------------------------------------------------------------------
// The simulator, as a process of its own (the replicas are processes too: none shares a loop).

interface SimStats { calls: Record<string, number>; totalCalls: number; tokensIssued: number; requests: { route: string; url: string; clientId?: string }[] }

let simUrl = '';
let simulator: WatchedProcess | null = null;

async function startSimulatorProcess(): Promise<string> {
  const sim = spawnWatched(process.execPath, ['--import', 'tsx', 'src/simulator/main.ts'], {
    env: {
      ...process.env, SIMULATOR_PORT: '0', SIMULATOR_CLIENT_ID: GATEWAY_CLIENT.clientId, SIMULATOR_CLIENT_SECRET: GATEWAY_CLIENT.clientSecret,
      SIMULATOR_CLIENTS: JSON.stringify([READER_1, READER_2]),
    },
  });
  simulator = sim;
  const output = () => `${sim.output().stdout}${sim.output().stderr}`;
  return waitFor('the simulator to listen', async () => /listening on (http:\/\/\S+)/.exec(sim.output().stdout)?.[1], {
    timeoutMs: 30_000,
    intervalMs: 20,
    gaveUp: () => (sim.running ? undefined : `exited with ${sim.child.exitCode}: ${output()}`),
  });
}

const simStats = async () => (await (await fetch(`${simUrl}/__sim/stats`)).json()) as SimStats;
const simReset = async () => void (await (await fetch(`${simUrl}/__sim/stats/reset`, { method: 'POST' })).text());
async function simConfig(patch: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${simUrl}/__sim/config`, { method: 'POST', body: JSON.stringify(patch) });
  expect(response.status).toBe(200);
  await response.text();
}
/** A REST read the simulator does not count. */
async function rest<T>(path: string): Promise<T> {
  return (await (await fetch(`${simUrl}/api/v2/tenants/${path}`, { headers: { 'x-simulator-uncounted': '1' } })).json()) as T;
}
async function tokenOf(client: { clientId: string; clientSecret: string }): Promise<string> {
  const response = await fetch(`${simUrl}/auth/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }).toString(),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

// ---------------------------------------------------------------------------------------------
// Replicas: gateway processes on loopback ports.

interface Replica { url: string; port: number; process: GatewayProcess }
const replicasStarted = new Set<GatewayProcess>();
const nginxStarted: Nginx[] = [];
let redis: RedisServer | null = null;

async function startReplicas(count: number, env: Record<string, string>): Promise<Replica[]> {
  const processes = Array.from({ length: count }, () => {
    const p = startGatewayProcess({
      INVENTORY_API_URL: simUrl, REDIS_URL: redis!.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env,
    });
    replicasStarted.add(p);
    return p;
  });
  return Promise.all(processes.map(async (p) => {
    const { port } = await p.ready;
    return { url: `http://127.0.0.1:${port}/graphql`, port: Number(port), process: p };
  }));
}

async function stopReplicas(replicas: Replica[]): Promise<void> {
  await Promise.all(replicas.map(async ({ process: p }) => {
    await p.stop(5_000);
    replicasStarted.delete(p);
  }));
}

/** What the replicas wrote (their log lines, warn and above), for failure messages. */
const stderrOf = (replicas: Replica[]) => replicas.map((r, i) => {
  const { stdout, stderr } = r.process.output();
  return `replica ${i + 1}: ${stdout.split('\n').slice(1).join('\n').slice(-1500)}${stderr.slice(-1500)}`;
}).join('\n');

// ---------------------------------------------------------------------------------------------
// Load: `clients` loops of requests through one URL for `ms`, each answer checked.

interface LoadResult { requests: number; failures: string[]; slowestMs: number }
async function load(url: string, options: { clients: number; ms: number; next: (i: number) => { variables: Record<string, unknown>; check: (a: GraphQLAnswer) => string | null }; query: string }): Promise<LoadResult> {
  let index = 0;
  const failures: string[] = [];
  let slowestMs = 0;
  await clientLoops(options.clients, forMs(options.ms), async () => {
    const { variables, check } = options.next(index++);
    const started = performance.now();
    try {
      const answer = await gql(url, options.query, variables);
      const problem = answer.status !== 200 ? `HTTP ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}` : check(answer);
      if (problem) failures.push(problem);
    } catch (error) {
      failures.push(`request failed: ${String(error)} ${String((error as { cause?: unknown }).cause ?? '')}`);
    }
    slowestMs = Math.max(slowestMs, performance.now() - started);
  });
  return { requests: index, failures, slowestMs };
}

// ---------------------------------------------------------------------------------------------

describe.skipIf(missing !== '')('three gateway replicas behind nginx, sharing one Redis', () => {
  beforeAll(async () => {
    simUrl = await startSimulatorProcess();
    redis = await startRedisServer();
  }, 60_000);

  afterAll(async () => {
    for (const p of replicasStarted) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    replicasStarted.clear();
    await Promise.all(nginxStarted.map((n) => n.stop()));
    await redis?.close();
    if (simulator?.running) simulator.child.kill('SIGKILL');
  }, 30_000);

  describe('auth none: the shared cache, nginx, a Redis outage, a rotation', () => {
    let replicas: Replica[] = [];
    let nginx: Nginx | null = null;
    let resources: { id: string; hostName: string }[] = [];

    beforeAll(async () => {
      await simConfig({ auth: { enabled: false }, latencyMs: 0 });
      await redis!.flushAll();
      replicas = await startReplicas(3, { INVENTORY_AUTH_MODE: 'none' });
      nginx = await startNginx({ replicas: replicas.map((r) => r.url) });
      nginxStarted.push(nginx);
      const page = await rest<{ results: { id: string; hostName: string }[] }>('client_1/resources/search?pageSize=500&sortName=hostName&isDescendingOrder=false');
      resources = page.results.map((r) => ({ id: r.id, hostName: r.hostName }));
      expect(resources).toHaveLength(500);
    }, 90_000);

    afterAll(async () => {
      await nginx?.stop();
      await stopReplicas(replicas);
    }, 30_000);

    it('(a) a dashboard read through replica 1 costs nothing upstream when replicas 2 and 3 answer it', async () => {
      const [r1, r2, r3] = replicas;
      await simReset();
      const first = await gql(r1!.url, DASHBOARD);
      expect(first.status).toBe(200);
      expect(first.body.errors, stderrOf(replicas)).toBeUndefined();
      expect(first.body.data.tenant.resources.totalCount).toBe(500);
      expect(first.body.data.tenant.resources.nodes).toHaveLength(20);
      expect((await simStats()).calls).toEqual({ search: 1, applications: 20, availability: 20 });

      await simReset();
      const second = await gql(r2!.url, DASHBOARD);
      const third = await gql(r3!.url, DASHBOARD, {}, { 'x-upstream-stats': '1' });
      expect((await simStats()).totalCalls).toBe(0);
      expect(second.body).toEqual(first.body);
      expect(third.body.data).toEqual(first.body.data);
      expect(third.body.errors).toBeUndefined();
      expect((third.body.extensions?.upstream as { totalCalls?: number } | undefined)?.totalCalls).toBe(0);
    });

    it('(b) an update through replica 1 is read at once through replicas 2 and 3, which had the old value cached', async () => {
      const [r1, r2, r3] = replicas;
      const id = resources[7]!.id;
      const original = (await gql(r2!.url, READ, { id })).body.data.tenant.resource;
      expect(original.resourceId).toBe(id);
      expect((await gql(r3!.url, READ, { id })).body.data.tenant.resource).toEqual(original);

      for (let round = 1; round <= 5; round++) {
        const aliasName = `replica-alias-${round}`;
        // Replicas 2 and 3 hold the value before this update.
        for (const r of [r2!, r3!]) expect((await gql(r.url, READ, { id })).body.data.tenant.resource.aliasName).not.toBe(aliasName);
        await simReset();
        const updated = await gql(r1!.url, UPDATE, { input: { tenantId: 'client_1', id, aliasName } });
        expect(updated.body, `round ${round}`).toEqual({ data: { updateResource: { resource: { resourceId: id, aliasName }, userErrors: [] } } });
        for (const [name, r] of [['replica 2', r2!], ['replica 3', r3!], ['replica 1', r1!], ['replica 2 again', r2!]] as const) {
          const read = await gql(r.url, READ, { id });
          expect(read.body, `round ${round}, ${name}`).toEqual({ data: { tenant: { resource: { resourceId: id, aliasName } } } });
        }
        expect(await gql(nginx!.url, READ, { id })).toEqual({ status: 200, body: { data: { tenant: { resource: { resourceId: id, aliasName } } } } });
        const { calls } = await simStats();
        // One update; the detail read again at most twice (the mutation's own read, and one refill
        // that every other replica then shares), never once per replica.
        expect(calls.update, `round ${round}`).toBe(1);
        expect(calls.detail ?? 0, `round ${round}: ${JSON.stringify(calls)}`).toBeLessThanOrEqual(2);
      }
    });

    it('nginx keeps one connection per replica open and reuses it (keepalive, HTTP/1.1, no Connection: close)', async () => {
      await sleep(4_500); // nginx's idle connections from the earlier tests are closed
      for (const r of replicas) expect(establishedTo(r.port)).toBe(0);
      for (let i = 0; i < 30; i++) {
        const answer = await gql(nginx!.url, LOOKUP, { id: resources[i % 3]!.id });
        expect(answer.body.data.tenant.resource.resourceId).toBe(resources[i % 3]!.id);
      }
      // One worker, one request at a time, round-robin: each replica served 10 on one connection.
      expect(replicas.map((r) => establishedTo(r.port))).toEqual([1, 1, 1]);
      const upstreams = nginx!.accessLog().slice(-30).map((line) => /upstream=(\S+)/.exec(line)?.[1]);
      expect(new Set(upstreams)).toEqual(new Set(replicas.map((r) => `127.0.0.1:${r.port}`)));
    });

    it('nginx closes an idle connection to a replica before the replica would (keepalive_timeout 4s < the replica\'s 5 s + 1 s)', async () => {
      const [r1] = replicas;
      for (let i = 0; i < 3; i++) await gql(nginx!.url, LOOKUP, { id: resources[i]!.id });
      // A keep-alive connection of our own straight to replica 1, opened at the same time: the
      // replica's own idle timeout.
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const own = await new Promise<{ port: number; closed: Promise<number> }>((resolve, reject) => {
        const request = http.request(r1!.url.replace('/graphql', '/healthz'), { agent }, (response) => {
          response.resume();
          response.on('end', () => {
            const socket = request.socket!;
            const at = performance.now();
            resolve({ port: socket.localPort!, closed: new Promise((done) => socket.once('close', () => done(performance.now() - at))) });
          });
        });
        request.on('error', reject);
        request.end();
      });
      try {
        expect(replicas.map((r) => establishedTo(r.port, [own.port]))).toEqual([1, 1, 1]);
        await sleep(4_600);
        // nginx has closed its idle connections; the replica still holds ours.
        expect(replicas.map((r) => establishedTo(r.port, [own.port]))).toEqual([0, 0, 0]);
        expect(establishedTo(r1!.port)).toBe(1);
        // The replica closes ours later: Node advertises "Keep-Alive: timeout=5" and closes after
        // 5 s plus a 1 s buffer (Node 20.20 and 24). Had nginx kept its connections that long, a
        // request written as the replica closed one would be lost (a POST is not passed on: 502).
        const closedAfter = await Promise.race([own.closed, sleep(4_000).then(() => Infinity)]);
        expect(closedAfter).toBeGreaterThan(4_900);
        expect(closedAfter).toBeLessThan(7_000);
      } finally {
        agent.destroy();
      }
    });

    /** 20 clients looking resources up through nginx for `ms`, every `stride`-th resource in turn, each answer checked. */
    const lookupLoad = (ms: number, stride: number) => load(nginx!.url, {
      clients: 20, ms, query: LOOKUP,
      next: (i) => {
        const r = resources[(i * stride) % resources.length]!;
        return { variables: { id: r.id }, check: (a) => (a.body.errors ? JSON.stringify(a.body.errors).slice(0, 300) : a.body.data?.tenant?.resource?.hostName === r.hostName ? null : `wrong answer for ${r.id}: ${JSON.stringify(a.body).slice(0, 200)}`) };
      },
    });

    it('(f) Redis stopped and started again under a 20-client load through nginx: no request fails; then Redis is shared again', async () => {
      await simConfig({ latencyMs: 10 });
      try {
        const run = lookupLoad(5_000, 7);
        await sleep(1_000);
        await redis!.stop();
        await sleep(2_000);
        await redis!.start();
        const result = await run;
        expect(result.failures.slice(0, 5), stderrOf(replicas)).toEqual([]);
        expect(result.requests).toBeGreaterThan(100);
      } finally {
        await simConfig({ latencyMs: 0 });
      }

      // Back: a query no replica has seen costs its calls once, through replica 1; replica 2 then
      // answers it from Redis. (The replicas reconnect on their own: a few attempts are allowed.)
      const [r1, r2] = replicas;
      let outcome: { first: Record<string, number>; second: Record<string, number> } | undefined;
      for (let attempt = 0; attempt < 20; attempt++) {
        const query = `{ tenant(id: "client_2") { resources(first: ${31 + attempt}) { nodes { id hostName } } } }`;
        await simReset();
        const first = await gql(r1!.url, query);
        expect(first.body.errors).toBeUndefined();
        const afterFirst = (await simStats()).calls;
        await simReset();
        const second = await gql(r2!.url, query);
        expect(second.body).toEqual(first.body);
        outcome = { first: afterFirst, second: (await simStats()).calls };
        if (Object.keys(outcome.second).length === 0) break;
        await sleep(500);
      }
      expect(outcome).toEqual({ first: { search: 1 }, second: {} });
    }, 60_000);

    it('(f2) Redis hanging for 2 s under a 20-client load through nginx: no request fails, none waits long', async () => {
      await simConfig({ latencyMs: 10 });
      try {
        const run = lookupLoad(4_000, 11);
        await sleep(1_000);
        redis!.pause();
        await sleep(2_000);
        redis!.resume();
        const result = await run;
        expect(result.failures.slice(0, 5), stderrOf(replicas)).toEqual([]);
        expect(result.requests).toBeGreaterThan(100);
        // A hanging Redis costs a read at most REDIS_TIMEOUT_MS (250 ms) before the replica stops asking it for a while.
        expect(result.slowestMs).toBeLessThan(1_500);
      } finally {
        redis!.resume();
        await simConfig({ latencyMs: 0 });
      }
    }, 30_000);

    it(`(e) ${ROTATION_SIGNAL} to one replica under a 20-client load through nginx: no request fails, the replica exits 0`, async () => {
      const victim = replicas[2]!;
      await simConfig({ latencyMs: 20 });
      const logBefore = nginx!.accessLog().length;
      let signalledAt = Infinity;
      const answeredAt: number[] = [];
      try {
        const run = load(nginx!.url, {
          clients: 20, ms: 4_000, query: LOOKUP,
          next: (i) => {
            // Ids from the far end of the list first, so most lookups are not in any cache yet.
            const r = resources[resources.length - 1 - (i % resources.length)]!;
            return {
              variables: { id: r.id },
              check: (a) => {
                answeredAt.push(performance.now());
                if (a.body.errors) return JSON.stringify(a.body.errors).slice(0, 300);
                return a.body.data?.tenant?.resource?.hostName === r.hostName ? null : `wrong answer for ${r.id}: ${JSON.stringify(a.body).slice(0, 200)}`;
              },
            };
          },
        });
        await sleep(1_500);
        victim.process.child.kill(ROTATION_SIGNAL);
        signalledAt = performance.now();
        const result = await run;
        expect(result.failures.slice(0, 5), stderrOf(replicas)).toEqual([]);
        expect(answeredAt.filter((t) => t > signalledAt).length).toBeGreaterThan(100);
        expect(await victim.process.exited).toBe(0);
      } finally {
        await simConfig({ latencyMs: 0 });
      }
      const lines = nginx!.accessLog().slice(logBefore);
      const victimAddress = `127.0.0.1:${victim.port}`;
      expect(lines.filter((l) => l.includes(`upstream=${victimAddress} `)).length).toBeGreaterThan(20);
      // nginx found the victim's listener closed and passed those requests (never sent) on.
      expect(lines.some((l) => new RegExp(`upstream=${victimAddress}, \\S+ upstream_status=502, 200`).test(l)), lines.filter((l) => !/ 200 /.test(l)).slice(0, 5).join('\n')).toBe(true);
      expect(lines.every((l) => /"POST \/graphql HTTP\/1\.1" 200 /.test(l))).toBe(true);
    }, 60_000);
  });

  describe('(c) client credentials: one token for the fleet', () => {
    let replicas: Replica[] = [];

    beforeAll(async () => {
      await simConfig({ auth: { enabled: true } });
      await redis!.flushAll();
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
      await redis!.flushAll();
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
      const keys = (await redis!.command('KEYS', '*')) as string[];
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
