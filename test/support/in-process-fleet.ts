/**
 * One simulator and N gateways in this process (assembleGateway, each behind its own node:http
 * server), all on one settable clock and, with `redisUrl`, one Redis: replicas as the fleet runs
 * them, but with a clock the test moves, so minutes of rate-limit windows pass in seconds.
 * Nothing lifts the simulator's limits: `rateLimit: {}` keeps the documented ones.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { assembleGateway, type AssembledGateway } from '../../src/server/assemble.js';
import { startSimulator, type Simulator } from '../../src/simulator/app.js';
import { capturedLogLines } from './log-capture.js';

import type { TestClock } from './test-clock.js';

export { testClock, type TestClock } from './test-clock.js';

export interface InProcessFleet {
  simulator: Simulator;
  /** Each replica's /graphql URL. */
  urls: string[];
  logs: string[];
  close(): Promise<void>;
}

export async function startInProcessFleet(options: { replicas: number; clock: TestClock; redisUrl?: string; env?: Record<string, string> }): Promise<InProcessFleet> {
  const simulator = await startSimulator({ port: 0, rateLimit: {}, now: options.clock.now });
  const logs: string[] = [];
  const started: { assembled: AssembledGateway; server: http.Server }[] = [];
  const urls: string[] = [];
  // Only the upstream, its auth and the shared Redis are set (and `env`, when a test says why): every other setting is the gateway's default.
  const env = { INVENTORY_API_URL: simulator.url, INVENTORY_AUTH_MODE: 'none', LOG_LEVEL: 'warn', ...(options.redisUrl ? { REDIS_URL: options.redisUrl } : {}), ...options.env };
  for (let i = 0; i < options.replicas; i++) {
    const config = loadConfig(env);
    const logger = createLogger(config.logLevel, (line) => { logs.push(line); capturedLogLines.push(line); });
    // Wait for Redis: a replica that starts before it connects would count its first claims alone.
    const assembled = await assembleGateway({ config, baseUrl: simulator.url, logger, wallClock: options.clock.now, redisWaitMs: 5_000 });
    const server = http.createServer(assembled.gateway);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    started.push({ assembled, server });
    urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`);
  }
  return {
    simulator,
    urls,
    logs,
    async close() {
      for (const { assembled, server } of started) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await assembled.close();
      }
      await simulator.close();
    },
  };
}

export interface GraphQLReply {
  status: number;
  retryAfter: string | null;
  body: {
    data?: Record<string, unknown> | null;
    errors?: { message: string; extensions?: Record<string, unknown> }[];
    extensions?: Record<string, unknown>;
  };
}

export async function postGraphQL(url: string, query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}): Promise<GraphQLReply> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as GraphQLReply['body'] };
}
