/**
 * Redis commands per operation (issue 39, item 4): two replicas at their defaults on one real
 * redis-server (test/support/redis-server.ts) over the simulator at its documented limits. Redis
 * shows every command it runs (MONITOR), those a script runs inside too: the commands a replica
 * sends are its requests (at most its round trips: auto-pipelining sends concurrent ones
 * together), the scripts' own are the work Redis does for them.
 *
 * Rows: a cold dashboard page on replica 1 (one search and 20 applications: every read misses),
 * the same page on replica 2 (answered from Redis), and one rate-budget claim and one settle alone.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { assembleGateway, type AssembledGateway } from '../src/server/assemble.js';
import { startSimulator } from '../src/simulator/app.js';
import { RedisWindows } from '../src/upstream/rate-budget-redis.js';
import { RedisStore } from '../src/upstream/shared-store.js';
import { hasRedis, startRedisServer, type RedisServer } from '../test/support/redis-server.js';

const PAGE = '{ tenant(id: "client_1") { resources(first: 20) { nodes { id hostName applications { name } } } } }';
export interface CommandCount { sent: number; inScripts: number; byCommand: Record<string, number> }

/**
 * Every command Redis runs while `work` runs, through MONITOR: a line per command, marked `lua`
 * when a script ran it (commandstats cannot tell a script's GET from a replica's).
 */
async function counted(redis: RedisServer, work: () => Promise<unknown>): Promise<CommandCount> {
  const socket = net.connect(redis.port, '127.0.0.1');
  let text = '';
  socket.on('data', (chunk: Buffer) => { text += chunk.toString('utf8'); });
  socket.write('MONITOR\r\n');
  await new Promise<void>((resolve) => { const check = () => (text.startsWith('+OK') ? resolve() : setTimeout(check, 5)); check(); });
  await work();
  // Writes the work did not await (a settle after the answer, a lock's release) land within this pause.
  await new Promise((resolve) => setTimeout(resolve, 300));
  socket.destroy();
  const byCommand: Record<string, number> = {};
  let sent = 0;
  let inScripts = 0;
  for (const line of text.split('\r\n').slice(1)) {
    const match = /^\+[\d.]+ \[\d+ ([^\]]+)\] "([^"]+)"/.exec(line);
    if (!match) continue;
    const fromScript = match[1] === 'lua';
    const name = `${match[2]!.toLowerCase()}${fromScript ? ' (script)' : ''}`;
    byCommand[name] = (byCommand[name] ?? 0) + 1;
    if (fromScript) inScripts++;
    else sent++;
  }
  return { sent, inScripts, byCommand };
}

async function replica(simulatorUrl: string, redisUrl: string): Promise<{ url: string; close(): Promise<void> }> {
  const config = loadConfig({ INVENTORY_API_URL: simulatorUrl, INVENTORY_AUTH_MODE: 'none', LOG_LEVEL: 'error', REDIS_URL: redisUrl });
  const assembled: AssembledGateway = await assembleGateway({ config, baseUrl: simulatorUrl, logger: createLogger('error'), redisWaitMs: 5_000 });
  const server = http.createServer(assembled.gateway);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await assembled.close();
    },
  };
}

async function ask(url: string, query: string): Promise<void> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
  const body = (await response.json()) as { errors?: unknown[] };
  if (body.errors) throw new Error(`gateway errors: ${JSON.stringify(body.errors).slice(0, 300)}`);
}

/** The figures: per operation, per claim and per settle. */
export async function redisCommands(): Promise<Record<'coldPage' | 'pageFromRedis' | 'claim' | 'settle', CommandCount> | null> {
  if (!hasRedis) return null;
  const redis = await startRedisServer();
  const simulator = await startSimulator({ port: 0, rateLimit: {} });
  const replicas = [await replica(simulator.url, redis.url), await replica(simulator.url, redis.url)];
  const store = new RedisStore({ url: redis.url, keyPrefix: 'bench:', timeoutMs: 2_000, logger: createLogger('error') });
  try {
    await store.whenConnected(5_000);
    const windows = new RedisWindows(store, { defaults: { paginated: 50, other: 500, update: 25 }, windowS: 60, backgroundShare: 0.5, callerShare: 0.5 }, createLogger('error'));
    const nowS = Math.floor(Date.now() / 1000);
    // The scripts are known to Redis from here on (the first run of each sends its text once).
    await windows.claim([{ tenant: 't', category: 'other', n: 1 }], { caller: 'warm-up', share: 0.5 }, nowS);
    await windows.settle('t', 'other', 1, 'warm-up', false, { category: 'other', announcement: { limit: 500, remaining: 499, reset: nowS + 30 }, throttled: false }, nowS);
    await ask(replicas[0]!.url, '{ tenant(id: "client_2") { resources(first: 1) { nodes { id } } } }');
    await ask(replicas[1]!.url, '{ tenant(id: "client_2") { resources(first: 1) { nodes { id } } } }');
    const coldPage = await counted(redis, () => ask(replicas[0]!.url, PAGE));
    const pageFromRedis = await counted(redis, () => ask(replicas[1]!.url, PAGE));
    const claim = await counted(redis, () => windows.claim([{ tenant: 't', category: 'other', n: 20 }], { caller: 'someone', share: 0.5 }, nowS));
    const settle = await counted(redis, () => windows.settle('t', 'other', 1, 'someone', false, { category: 'other', announcement: { limit: 500, remaining: 478, reset: nowS + 30 }, throttled: false }, nowS));
    return { coldPage, pageFromRedis, claim, settle };
  } finally {
    await store.close();
    for (const r of replicas) await r.close();
    await simulator.close();
    await redis.close();
  }
}

export async function redisCommandsRow(log: (line: string) => void): Promise<void> {
  const figures = await redisCommands();
  if (!figures) {
    log('Redis commands per operation: skipped (redis-server not installed)');
    return;
  }
  log('Redis commands per operation (two replicas, one redis-server; sent = requests of the replicas, in scripts = run by scripts)');
  for (const [name, count] of Object.entries(figures)) {
    const detail = Object.entries(count.byCommand).map(([command, calls]) => `${command} ${calls}`).join(', ');
    log(`  ${name.padEnd(14)} sent ${String(count.sent).padStart(3)}  in scripts ${String(count.inScripts).padStart(3)}   (${detail})`);
  }
}
