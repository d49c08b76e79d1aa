/**
 * UpstreamClient: the process-wide parts of talking to the upstream REST API: the undici
 * keep-alive pool, the fair scheduler, the retry budget, the circuit breaker, the response cache,
 * the rate-limit budget and the upstream credential. Each GraphQL operation gets a session (src/upstream/session.ts),
 * whose calls go through the stages: cached-read.ts, retry.ts, attempt.ts. It returns parsed JSON;
 * mapping happens in src/domain.
 */
import { performance } from 'node:perf_hooks';
import { Agent, type Dispatcher } from 'undici';
import { dispatchText } from './attempt.js';
import type { Logger } from '../logger.js';
import type { UpstreamAuth } from './auth.js';
import { CircuitBreaker, type BreakerState } from './breaker.js';
import { FailureLog, logBreakerChange } from './failure-log.js';
import { ResponseCache } from './response-cache.js';
import type { SharedStore } from './shared-store.js';
import { RetryBudget } from './retry-budget.js';
import { RateBudget } from './rate-budget.js';
import { FairScheduler } from './scheduler.js';
import { UpstreamSession, type SessionOptions } from './session.js';
import type { GatewayMetrics, MetricSources } from '../observability/metrics.js';
import type { Tracing } from '../observability/tracing.js';

export { UpstreamSession, type SessionOptions } from './session.js';
import type { ClientSettings, UpstreamParts, UpstreamTelemetry } from './parts.js';

export interface UpstreamClientOptions {
  baseUrl: string;
  auth: UpstreamAuth;
  settings: ClientSettings;
  logger: Logger;
  /** The connection pool; absent: the client makes (and closes) its own. */
  dispatcher?: Dispatcher;
  /** Metrics and traces of each upstream attempt (src/observability); both optional. */
  telemetry?: UpstreamTelemetry;
  /** The fleet's shared level (Redis) under the response cache; absent: in-process only. */
  shared?: SharedStore | null;
  /** Monotonic milliseconds (deadlines, durations, breaker and retry budget); performance.now by default. */
  now?: () => number;
  /** Epoch milliseconds (the response cache's entry ages); Date.now by default. */
  wallClock?: () => number;
  /** Backoff jitter in [0, 1); Math.random by default. */
  random?: () => number;
}

export function createDispatcher(settings: Pick<ClientSettings, 'upstreamMaxInFlight' | 'upstreamTimeoutMs'>): Agent {
  return new Agent({
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 60_000,
    connections: settings.upstreamMaxInFlight,
    pipelining: 1,
    connect: { timeout: Math.min(settings.upstreamTimeoutMs, 10_000) },
  });
}

/** A readiness probe belongs to no operation: nothing aborts it but its own timeouts. */
const NO_OPERATION = { signal: new AbortController().signal, onAbort: () => () => undefined };

export class UpstreamClient {
  private readonly parts: UpstreamParts;
  private readonly ownsDispatcher: boolean;
  private readonly shared: SharedStore | null;
  private readonly updateListeners = new Set<(tenantId: string, resourceId: string) => void>();

  constructor(options: UpstreamClientOptions) {
    const { settings, logger } = options;
    const base = new URL(options.baseUrl);
    const now = options.now ?? (() => performance.now());
    this.shared = options.shared ?? null;
    this.ownsDispatcher = !options.dispatcher;
    this.parts = {
      settings,
      dispatcher: options.dispatcher ?? createDispatcher(settings),
      origin: base.origin,
      basePath: base.pathname.replace(/\/+$/, ''),
      host: base.hostname,
      auth: options.auth,
      scheduler: new FairScheduler(settings.upstreamMaxInFlight),
      retryBudget: new RetryBudget({ percent: settings.retryBudgetPercent, minPerSecond: settings.retryBudgetMinPerSecond, now }),
      budget: new RateBudget({
        settings: settings.rateLimits,
        shared: options.shared,
        logger,
        now: options.wallClock,
      }),
      breaker: new CircuitBreaker({
        failureThreshold: settings.breakerFailureThreshold,
        cooldownMs: settings.breakerCooldownMs,
        now,
        onStateChange: (change) => logBreakerChange(logger, change, settings.breakerCooldownMs),
      }),
      cache: settings.cache ? new ResponseCache({ settings: settings.cache, shared: options.shared, logger, metrics: options.telemetry?.metrics, now: options.wallClock }) : null,
      failures: new FailureLog(logger, now),
      metrics: options.telemetry?.metrics ?? null,
      tracing: options.telemetry?.tracing ?? null,
      now,
      random: options.random ?? Math.random,
      resourceUpdated: (tenantId, resourceId) => {
        for (const listener of this.updateListeners) listener(tenantId, resourceId);
      },
    };
  }

  /** Calls the listener after each update made through this process; returns its removal. */
  onResourceUpdated(listener: (tenantId: string, resourceId: string) => void): () => void {
    this.updateListeners.add(listener);
    return () => this.updateListeners.delete(listener);
  }

  session(options: SessionOptions): UpstreamSession {
    return new UpstreamSession(this.parts, options);
  }

  /** closed, open (calls refused at once) or half-open (one probe call allowed). */
  get breakerState(): BreakerState {
    return this.parts.breaker.state;
  }

  /** The upstream's rate limits as known to this replica (and the fleet, with Redis). */
  get budget(): RateBudget {
    return this.parts.budget;
  }

  get metrics(): GatewayMetrics | null {
    return this.parts.metrics;
  }

  get tracing(): Tracing | null {
    return this.parts.tracing;
  }

  /** The gauges /metrics reads from the client (all but admission). */
  metricSources(): Omit<MetricSources, 'admission' | 'live' | 'documentCacheBytes'> {
    const { breaker, scheduler, auth, cache } = this.parts;
    const shared = this.shared;
    return {
      breakerState: () => breaker.state,
      schedulerQueued: () => scheduler.queued,
      schedulerInFlight: () => scheduler.inFlight,
      tokenRequests: () => auth.tokenRequests ?? 0,
      cacheMemoryBytes: () => cache?.memoryBytes ?? 0,
      sharedStoreAvailable: () => (shared ? shared.available : null),
      rateLimitRemaining: () => this.parts.budget.remainingReadings(this.parts.settings.rateLimits?.metricTenants ?? []),
      rateLimitThrottled: () => this.parts.budget.throttled,
    };
  }

  /** A resource the upstream no longer has (a live poll's 404): cached reads of it and its tenant's lists are dropped everywhere. */
  async resourceGone(tenantId: string, resourceId: string): Promise<void> {
    await this.parts.cache?.invalidateResource(tenantId, resourceId);
  }

  /** Empties the response cache's in-process level (tests and the bench start cold). */
  clearCache(): void {
    this.parts.cache?.clear();
  }

  /** Bytes held by the response cache's in-process level (0 when it is off). */
  cacheMemoryBytes(): number {
    return this.parts.cache?.memoryBytes ?? 0;
  }

  /** The response cache's hit, miss, stale and coalesced counts so far (zeros when it is off). */
  cacheCounts(): { hit: number; miss: number; stale: number; coalesced: number } {
    return { ...(this.parts.cache?.counts ?? { hit: 0, miss: 0, stale: 0, coalesced: 0 }) };
  }

  /**
   * Readiness: the upstream answers HTTP at all (below 500), and (client-credentials) a token can
   * be had. Fails at once while the breaker is open; once its cool-down is over this request is
   * the probe, so an idle gateway that reports not ready still finds out when the upstream is back.
   */
  async readiness(): Promise<void> {
    const { breaker, dispatcher, settings, auth, origin, basePath } = this.parts;
    const permit = breaker.acquire();
    if (!permit) throw new Error('The inventory API circuit breaker is open');
    try {
      // The same dispatch as every upstream call (attempt.ts), outside any operation.
      const { status } = await dispatchText(dispatcher, {
        origin, path: `${basePath}/`, method: 'GET', headersTimeout: settings.upstreamTimeoutMs, bodyTimeout: settings.upstreamTimeoutMs,
      }, NO_OPERATION);
      if (status >= 500) throw new Error(`The inventory API answered ${status}`);
      breaker.success(permit);
    } catch (error) {
      breaker.failure(permit);
      throw error;
    }
    await auth.check();
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.parts.dispatcher.close();
  }
}
