/**
 * The one composition root: settings -> connection pool -> (Redis) -> upstream auth -> client ->
 * GraphQL gateway. `npm start` (main.ts), the test harness and the bench build a gateway only
 * through here, so a new collaborator is wired once.
 */
import type { GatewayConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { GatewayMetrics } from '../observability/metrics.js';
import type { Tracing } from '../observability/tracing.js';
import { createUpstreamAuth } from '../upstream/auth.js';
import { createDispatcher, UpstreamClient } from '../upstream/client.js';
import { RedisStore } from '../upstream/shared-store.js';
import { createGateway, type Gateway, type Lifecycle } from './yoga.js';
import { AdmissionController } from './limits/admission.js';
import { LiveQueries } from './live/live-query.js';
import { PollLeases } from '../upstream/poll-leases.js';
import { connectUpdates } from './live/live-updates.js';
import { serveWebSocket, type WebSocketEndpoint } from './edge/websocket.js';
import type http from 'node:http';
import type { Timers } from '../core/timers.js';
import { TokenVerifier } from '../identity/verifier.js';
import { Authentication } from './edge/authentication.js';

export interface AssembleOptions {
  config: GatewayConfig;
  /** The upstream's base URL: config.inventoryApiUrl, or the embedded simulator's. */
  baseUrl: string;
  logger: Logger;
  /** OpenTelemetry tracing made from the environment (src/observability/tracing.ts); null: off. */
  tracing?: Tracing | null;
  /** Prometheus also gets the process's own metrics (CPU, heap, event loop): one such registry per process. */
  processMetrics?: boolean;
  /** Set on SIGTERM: /readyz then answers 503 at once. */
  lifecycle?: Lifecycle;
  /**
   * With REDIS_URL: how long to wait for Redis before answering. Replicas starting together meet
   * there for the first token; a Redis not there in time is not waited for (the in-process cache
   * answers, and the store logs it).
   */
  redisWaitMs?: number;
  /** Epoch milliseconds (cache ages, the upstream's rate-limit resets); Date.now by default (tests move it). */
  wallClock?: () => number;
  /** Timers of background work on that clock (live polls); the process's own by default. */
  timers?: Timers;
}

export interface AssembledGateway {
  /** The request handler (node:http or fetch). */
  gateway: Gateway;
  /** Live queries (open operations, pollers). */
  live: LiveQueries;
  /** GraphQL over WebSocket on this server's /graphql; ended by close(). */
  serveWebSocket(server: http.Server): void;
  /** Ends every live query (SSE and WebSocket) and closes the sockets: the start of a drain. */
  endLiveOperations(): Promise<void>;
  client: UpstreamClient;
  metrics: GatewayMetrics | null;
  /** The replicas' shared level (REDIS_URL); null: in process only. */
  shared: RedisStore | null;
  /** The upstream connection pool's counts per origin (connections held, in use), for the bench's connection-reuse line. */
  poolStats(): unknown;
  /** Ends background work and closes the pool, Redis and the trace exporter; `cut`: requests were cut, so the pool is destroyed, not drained. */
  close(options?: { cut?: boolean }): Promise<void>;
}

export async function assembleGateway(options: AssembleOptions): Promise<AssembledGateway> {
  const { config, baseUrl, logger, tracing = null } = options;
  const dispatcher = createDispatcher(config);
  const metrics = config.metrics ? new GatewayMetrics({ processMetrics: options.processMetrics ?? false }) : null;
  const shared = config.redis ? new RedisStore({ ...config.redis, logger }) : null;
  if (shared && options.redisWaitMs) await shared.whenConnected(options.redisWaitMs);
  const auth = createUpstreamAuth(config, baseUrl, dispatcher, logger, shared);
  const client = new UpstreamClient({ baseUrl, auth, settings: config, logger, dispatcher, shared, telemetry: { metrics, tracing }, wallClock: options.wallClock });
  const admission = new AdmissionController(config);
  const live = new LiveQueries({ config, client, admission, logger, wallClock: options.wallClock, timers: options.timers, fleet: shared ? new PollLeases(shared, logger) : null });
  const disconnectUpdates = connectUpdates(live, client, shared, logger);
  // Inbound identity (AUTH_ISSUERS): the providers' keys are fetched in the background; until they are held, tokens get 503.
  const verifier = config.identity ? new TokenVerifier(config.identity, logger) : null;
  verifier?.start();
  const authentication = new Authentication(verifier, config.identity, metrics);
  const gateway = createGateway({ config, client, logger, lifecycle: options.lifecycle, admission, live, authentication });
  const webSockets: WebSocketEndpoint[] = [];
  const endLiveOperations = async () => {
    disconnectUpdates();
    await live.close();
    await Promise.allSettled(webSockets.map((endpoint) => endpoint.close()));
  };
  return {
    gateway,
    live,
    serveWebSocket(server) {
      webSockets.push(serveWebSocket(server, gateway, config, authentication));
    },
    client,
    metrics,
    shared,
    poolStats: () => dispatcher.stats,
    endLiveOperations,
    async close({ cut = false } = {}) {
      // Live streams end first (they would hold their responses open), then the sockets.
      await endLiveOperations();
      verifier?.close();
      await Promise.allSettled([tracing?.shutdown(), client.close(), cut ? dispatcher.destroy() : dispatcher.close(), shared?.close()]);
    },
  };
}
