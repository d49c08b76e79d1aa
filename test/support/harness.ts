/**
 * A real stack for tests: the simulator as an HTTP server, the real undici client, and the
 * gateway. Tests reach the gateway in process (`query`, `execute`, `fetch` on `endpoint`: its own
 * fetch handler, the same Yoga pipeline without a socket) unless the HTTP server is what they
 * test: for those it also listens on `url` (127.0.0.1, port 0): raw sockets, WebSocket, SSE
 * clients over HTTP, other client libraries, browsers.
 */
import http from 'node:http';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import type { AddressInfo } from 'node:net';
import { loadConfig, type GatewayConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startSimulator, type Simulator, type StartSimulatorOptions } from '../../src/simulator/app.js';
import type { UpstreamClient } from '../../src/upstream/client.js';
import { assembleGateway } from '../../src/server/assemble.js';
import { wholeBodies } from '../../src/server/edge/http-server.js';
import type { Gateway } from '../../src/server/yoga.js';
import { capturedLogLines } from './log-capture.js';
import type { GatewayMetrics } from '../../src/observability/metrics.js';
import { createTracing, type Tracing } from '../../src/observability/tracing.js';
import type { LiveQueries } from '../../src/server/live/live-query.js';
import type { Timers } from '../../src/core/timers.js';

export interface GraphQLResponse<T = Record<string, unknown>> {
  data?: T | null;
  errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }[];
  extensions?: Record<string, unknown>;
}

export interface Harness {
  simulator: Simulator;
  gateway: Gateway;
  config: GatewayConfig;
  client: UpstreamClient;
  /** The gateway on a real port. */
  url: string;
  /** The in-process address of /graphql, for `fetch` (no port). */
  endpoint: string;
  /** The gateway's own fetch handler: a request to `endpoint` (or any path beside it) answered in process, no socket. */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
  logs: string[];
  metrics: GatewayMetrics | null;
  /** Set when the env names an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT...). */
  tracing: Tracing | null;
  /** Live queries (open operations, pollers); WebSocket is served on `url` too. */
  live: LiveQueries;
  /** Ends every live query and closes the WebSockets (what main.ts does on SIGTERM). */
  endLiveOperations(): Promise<void>;
  query<T = any>(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<GraphQLResponse<T>>;
  /** A codegen-typed operation from test/operations: result and variables are checked by tsc. */
  execute<R, V>(document: TypedDocumentNode<R, V>, variables: V, headers?: Record<string, string>): Promise<GraphQLResponse<R>>;
  /** Raw REST call to the simulator, for comparing the gateway's answers with the upstream's. */
  rest<T = any>(path: string): Promise<T>;
  /**
   * Starts a measurement of what operations cost upstream: the simulator's counts back to zero
   * and the gateway's response cache empty, so the next operation shows its cold cost.
   */
  resetCounts(): void;
  close(): Promise<void>;
}

export interface HarnessOptions {
  simulator?: StartSimulatorOptions;
  env?: Record<string, string>;
  /** Point the gateway at another upstream (e.g. a server feeding odd records). */
  upstreamUrl?: string;
  /** Epoch milliseconds of both the simulator and the gateway (rate-limit windows, cache ages): tests move it. */
  clock?: () => number;
  /** Timers on that clock for the gateway's background work (live polls): test-clock.ts's. */
  timers?: Timers;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  // The simulator throttles as the real upstream does (50 searches a minute per tenant...). Tests of other
  // features lift its limits, so that a file's many calls on one tenant are not answered 429; a test of the
  // rate limits passes `simulator.rateLimit` (even `{}`) and runs at the documented ones (issue 28).
  const simulator = await startSimulator({ port: 0, ...options.simulator, rateLimit: options.simulator?.rateLimit ?? { enabled: false }, ...(options.clock ? { now: options.clock } : {}) });
  const baseUrl = options.upstreamUrl ?? simulator.url;
  const config = loadConfig({ INVENTORY_API_URL: baseUrl, INVENTORY_AUTH_MODE: 'none', LOG_LEVEL: 'debug', ...options.env });
  const logs: string[] = [];
  const logger = createLogger(config.logLevel, (line) => {
    logs.push(line);
    capturedLogLines.push(line);
  });
  const tracing = createTracing(options.env ?? {});
  const assembled = await assembleGateway({ config, baseUrl, logger, tracing, wallClock: options.clock, timers: options.timers });
  const { gateway, client, metrics } = assembled;
  const server = http.createServer(wholeBodies(config.limits.maxBodyBytes, (req, res) => void gateway(req, res)));
  assembled.serveWebSocket(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  const endpoint = 'http://gateway.in-process/graphql';
  const inProcess: Harness['fetch'] = async (input, init) => (input instanceof Request ? gateway.fetch(input) : gateway.fetch(String(input), init ?? {}));
  const harness: Harness = {
    simulator,
    gateway,
    config,
    client,
    url,
    endpoint,
    fetch: inProcess,
    logs,
    metrics,
    tracing,
    live: assembled.live,
    endLiveOperations: assembled.endLiveOperations,
    async query(query, variables, headers = {}) {
      const response = await inProcess(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...headers },
        body: JSON.stringify({ query, variables }),
      });
      return (await response.json()) as never;
    },
    execute(document, variables, headers) {
      return harness.query(print(document), variables as Record<string, unknown>, headers);
    },
    async rest(path) {
      const response = await fetch(`${simulator.url}/api/v2/tenants/${path}`, { headers: { 'x-simulator-uncounted': '1' } });
      return (await response.json()) as never;
    },
    resetCounts() {
      simulator.resetStats();
      client.clearCache();
    },
    async close() {
      assertNoSecrets(logs, secretsOf(simulator, config));
      await assembled.endLiveOperations();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await assembled.close();
      await simulator.close();
    },
  };
  return harness;
}

/** Upstream calls the simulator saw since the last reset, by route. */
export function upstreamCalls(h: Harness): Record<string, number> {
  return h.simulator.stats().calls as Record<string, number>;
}

/** Every secret a test stack knows of: configured client secrets and the synthetic checks' credentials. */
export function secretsOf(simulator: Simulator, config: GatewayConfig): string[] {
  const secrets = [config.clientSecret, simulator.settings.auth.clientSecret, ...(simulator.settings.auth.clients ?? []).map((c) => c.clientSecret)];
  for (const tenant of simulator.dataset.tenants.values()) {
    for (const r of tenant.resources) {
      const c = r.synthetic?.credential;
      if (c) secrets.push(String(c.oauthClientKey ?? ''), String(c.oauthClientSecret ?? ''));
    }
  }
  return secrets.filter((s): s is string => typeof s === 'string' && s.length >= 6);
}

/** Logs written while a stack ran must not contain a secret or a token. */
export function assertNoSecrets(lines: string[], secrets: string[]): void {
  const text = lines.join('\n');
  const leaks = secrets.filter((secret) => text.includes(secret)).map((s) => `${s.slice(0, 4)}...`);
  if (/sim-token-[0-9a-f]{8}/.test(text)) leaks.push('an issued access token');
  if (/bearer\s+(?!\[redacted\])\S+/i.test(text)) leaks.push('an Authorization header value');
  if (leaks.length > 0) throw new Error(`secrets in the logs: ${leaks.join(', ')}`);
}
