/**
 * What the stages of an upstream call (session, cached read, retry, attempt) use of the client:
 * its settings and its process-wide parts. Declared here, below both, so the stages do not
 * import the client that builds them.
 */
import type { Dispatcher } from 'undici';
import type { GatewayConfig } from '../config.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { Tracing } from '../observability/tracing.js';
import type { UpstreamAuth } from './auth.js';
import type { CircuitBreaker } from './breaker.js';
import type { FailureLog } from './failure-log.js';
import type { ResponseCache } from './response-cache.js';
import type { RateBudget } from './rate-budget.js';
import type { RetryBudget } from './retry-budget.js';
import type { FairScheduler } from './scheduler.js';

/** The settings the client reads (src/config.ts); maxUpstreamCallsPerOperation is the hard stop behind the cost estimate. */
export type ClientSettings = Pick<GatewayConfig,
  | 'upstreamTimeoutMs' | 'operationTimeoutMs' | 'upstreamRetries' | 'maxRetryAfterMs' | 'upstreamMaxInFlight' | 'upstreamMaxInFlightPerOperation'
  | 'maxUpstreamCallsPerOperation' | 'retryBudgetPercent' | 'retryBudgetMinPerSecond' | 'breakerFailureThreshold' | 'breakerCooldownMs' | 'cache'
  | 'rateLimits'>;

export interface UpstreamTelemetry {
  metrics?: GatewayMetrics | null;
  tracing?: Tracing | null;
}

/** The process-wide parts the stages of a call use (session, retry, attempt). */
export interface UpstreamParts {
  readonly settings: ClientSettings;
  readonly dispatcher: Dispatcher;
  /** Parsed once: each call then dispatches by origin and path without parsing a URL. */
  readonly origin: string;
  readonly basePath: string;
  readonly host: string;
  readonly auth: UpstreamAuth;
  readonly scheduler: FairScheduler;
  /** Process-wide: retries may add only a share of the first attempts. */
  readonly retryBudget: RetryBudget;
  /** The upstream's rate limits per tenant and category: a call they cannot cover is not sent. */
  readonly budget: RateBudget;
  /** Opens on a run of upstream failures; refuses calls at once while open. */
  readonly breaker: CircuitBreaker;
  /** The upstream response cache (settings.cache), or null when it is off. */
  readonly cache: ResponseCache | null;
  readonly failures: FailureLog;
  readonly metrics: GatewayMetrics | null;
  readonly tracing: Tracing | null;
  now(): number;
  random(): number;
  /** After an update through this process: the live queries that read the resource re-run. */
  resourceUpdated(tenantId: string, resourceId: string): void;
}
