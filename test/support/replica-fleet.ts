/**
 * Gateway replicas as operators run them: gateway processes sharing one real Redis (REDIS_URL)
 * over one simulator process (the replicas are processes too: none shares a loop). Exact upstream
 * call counts come from the simulator's GET /__sim/stats. Used by replicas.test.ts (behind nginx,
 * under load) and replicas-credentials.test.ts (whose credentials reach the upstream).
 */
import { spawnWatched, waitFor } from './child-process.js';
import { startGatewayProcess, type GatewayProcess } from './gateway-process.js';
import { startRedisServer, type RedisServer } from './redis-server.js';

/** The gateway's client credentials, and two more simulator clients each scoped to one tenant. */
export const GATEWAY_CLIENT = { clientId: 'gw-client', clientSecret: 'gw-secret-value-123' };
export const READER_1 = { clientId: 'reader-1', clientSecret: 'reader-1-secret-value', tenants: ['client_1'] };
export const READER_2 = { clientId: 'reader-2', clientSecret: 'reader-2-secret-value', tenants: ['client_2'] };

export interface GraphQLAnswer {
  status: number;
  body: { data?: any; errors?: { message: string; extensions?: Record<string, unknown> }[]; extensions?: Record<string, unknown> };
}

export async function gql(url: string, query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<GraphQLAnswer> {
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

export interface SimStats { calls: Record<string, number>; totalCalls: number; tokensIssued: number; requests: { route: string; url: string; clientId?: string }[] }

export interface Replica { url: string; port: number; process: GatewayProcess }

/** What the replicas wrote (their log lines, warn and above), for failure messages. */
export const stderrOf = (replicas: Replica[]) => replicas.map((r, i) => {
  const { stdout, stderr } = r.process.output();
  return `replica ${i + 1}: ${stdout.split('\n').slice(1).join('\n').slice(-1500)}${stderr.slice(-1500)}`;
}).join('\n');

export interface Fleet {
  simUrl: string;
  redis: RedisServer;
  simStats(): Promise<SimStats>;
  simReset(): Promise<void>;
  simConfig(patch: Record<string, unknown>): Promise<void>;
  /** A REST read the simulator does not count. */
  rest<T>(path: string): Promise<T>;
  tokenOf(client: { clientId: string; clientSecret: string }): Promise<string>;
  /** `count` gateway processes on loopback ports, over this simulator and Redis. */
  startReplicas(count: number, env: Record<string, string>): Promise<Replica[]>;
  stopReplicas(replicas: Replica[]): Promise<void>;
  /** Kills whatever replicas are left, stops Redis and the simulator. */
  close(): Promise<void>;
}

/** The simulator process (with the reader clients) and a Redis, ready for replicas. */
export async function startFleet(): Promise<Fleet> {
  const simulator = spawnWatched(process.execPath, ['--import', 'tsx', 'src/simulator/main.ts'], {
    env: {
      ...process.env, SIMULATOR_PORT: '0', SIMULATOR_CLIENT_ID: GATEWAY_CLIENT.clientId, SIMULATOR_CLIENT_SECRET: GATEWAY_CLIENT.clientSecret,
      SIMULATOR_CLIENTS: JSON.stringify([READER_1, READER_2]),
      SIMULATOR_RATE_LIMIT: 'off', // the replica tests are about the shared cache and credentials, not throttling
    },
  });
  const simOutput = () => `${simulator.output().stdout}${simulator.output().stderr}`;
  let simUrl: string;
  let redis: RedisServer;
  try {
    simUrl = await waitFor('the simulator to listen', async () => /listening on (http:\/\/\S+)/.exec(simulator.output().stdout)?.[1], {
      timeoutMs: 60_000,
      intervalMs: 20,
      gaveUp: () => (simulator.running ? undefined : `exited with ${simulator.child.exitCode}: ${simOutput()}`),
    });
    redis = await startRedisServer();
  } catch (error) {
    simulator.child.kill('SIGKILL');
    throw error;
  }
  const started = new Set<GatewayProcess>();

  return {
    simUrl,
    redis,
    simStats: async () => (await (await fetch(`${simUrl}/__sim/stats`)).json()) as SimStats,
    simReset: async () => void (await (await fetch(`${simUrl}/__sim/stats/reset`, { method: 'POST' })).text()),
    async simConfig(patch) {
      const response = await fetch(`${simUrl}/__sim/config`, { method: 'POST', body: JSON.stringify(patch) });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`simulator config: HTTP ${response.status} ${text}`);
    },
    async rest<T>(path: string) {
      return (await (await fetch(`${simUrl}/api/v2/tenants/${path}`, { headers: { 'x-simulator-uncounted': '1' } })).json()) as T;
    },
    async tokenOf(client) {
      const response = await fetch(`${simUrl}/auth/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }).toString(),
      });
      if (response.status !== 200) throw new Error(`token for ${client.clientId}: HTTP ${response.status}`);
      return ((await response.json()) as { access_token: string }).access_token;
    },
    async startReplicas(count, env) {
      const processes = Array.from({ length: count }, () => {
        const p = startGatewayProcess({
          INVENTORY_API_URL: simUrl, REDIS_URL: redis.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env,
        });
        started.add(p);
        return p;
      });
      return Promise.all(processes.map(async (p) => {
        const { port } = await p.ready;
        return { url: `http://127.0.0.1:${port}/graphql`, port: Number(port), process: p };
      }));
    },
    async stopReplicas(replicas) {
      await Promise.all(replicas.map(async ({ process: p }) => {
        await p.stop(5_000);
        started.delete(p);
      }));
    },
    async close() {
      for (const p of started) if (p.running) p.child.kill('SIGKILL');
      started.clear();
      await redis.close();
      if (simulator.running) simulator.child.kill('SIGKILL');
    },
  };
}
