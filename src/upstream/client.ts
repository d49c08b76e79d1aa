/**
 * InventoryClient: the one place that talks to the upstream REST API. undici keep-alive pool,
 * per-attempt timeouts, an operation deadline (a timer the session owns), retries with
 * exponential backoff and jitter for idempotent calls (honouring Retry-After up to a cap) under a
 * process-wide retry budget, a circuit breaker on the upstream, bounded fair concurrency, and
 * abort when the GraphQL client goes away. It returns parsed JSON; mapping happens in src/domain.
 */
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { Agent, request, type Dispatcher } from 'undici';
import type { GatewayConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { UpstreamAuth } from './auth.js';
import { CircuitBreaker, CircuitOpenError, type BreakerState, type BreakerStateChange } from './breaker.js';
import { cacheScope } from '../core/caller.js';
import { gatewayError, type GatewayErrorCode } from '../core/errors.js';
import { errorForStatus, operationStop, parseRetryAfter, safeReason, UpstreamError } from './errors.js';
import { ResponseCache, type CacheRequest, type Fetched } from './response-cache.js';
import type { SharedStore } from './shared-store.js';
import { RetryBudget } from './retry-budget.js';
import { FairScheduler, type Lane } from './scheduler.js';
import { OperationStats, type RouteName } from '../core/operation-stats.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import { ROOT_CONTEXT as ROOT, SpanKind, SpanStatusCode, trace, type Context, type Tracing } from '../observability/tracing.js';

/**
 * The settings the client reads; maxUpstreamCallsPerOperation is the hard stop behind the cost
 * estimate. The budget and breaker settings fall back to the defaults of src/config.ts.
 */
export type ClientSettings = Pick<GatewayConfig, 'upstreamTimeoutMs' | 'operationTimeoutMs' | 'upstreamRetries' | 'maxRetryAfterMs' | 'upstreamMaxInFlight' | 'upstreamMaxInFlightPerOperation'>
  & Partial<Pick<GatewayConfig, 'maxUpstreamCallsPerOperation' | 'retryBudgetPercent' | 'retryBudgetMinPerSecond' | 'breakerFailureThreshold' | 'breakerCooldownMs' | 'cache'>>;

export interface InventoryClientOptions {
  baseUrl: string;
  auth: UpstreamAuth;
  settings: ClientSettings;
  logger: Logger;
  dispatcher?: Dispatcher;
  /** Metrics and traces of each upstream attempt (src/observability); both optional. */
  telemetry?: UpstreamTelemetry;
  /** The fleet's shared level (Redis) under the response cache; absent: in-process only. */
  shared?: SharedStore | null;
}

export interface UpstreamTelemetry {
  metrics?: GatewayMetrics | null;
  tracing?: Tracing | null;
}

/** Route templates (span attribute url.template): never an id. */
export const ROUTE_TEMPLATES: Record<RouteName, string> = {
  search: '/api/v2/tenants/{tenantId}/resources/search',
  minimal: '/api/v2/tenants/{tenantId}/resources/minimal',
  detail: '/api/v2/tenants/{tenantId}/resources/{resourceId}',
  update: '/api/v2/tenants/{tenantId}/resources/{resourceId}',
  history: '/api/v2/tenants/{tenantId}/history/resources',
  historyDetail: '/api/v2/tenants/{tenantId}/history/resources/{resourceId}',
  antivirus: '/api/v2/tenants/{tenantId}/resources/antivirus/search',
  applications: '/api/v2/tenants/{tenantId}/resources/{resourceId}/applications',
  resourceTypes: '/api/v2/tenants/{tenantId}/resourceType/minimal',
  availability: '/api/v2/tenants/{tenantId}/resources/{resourceId}/availability',
};

/** Why an attempt is a retry: the failed attempt's HTTP status, else timeout or connection. */
export function retryReason(error: UpstreamError): string {
  if (error.status !== null) return String(error.status);
  return error.code === 'UPSTREAM_TIMEOUT' ? 'timeout' : 'connection';
}

export type QueryValue = string | number | boolean | undefined | null;

export interface SessionOptions {
  /** The caller's Authorization header, for passthrough. */
  authorization: string | null;
  /** Aborts when the GraphQL client disconnects. */
  signal?: AbortSignal;
  stats?: OperationStats;
  /** The operation's trace context: upstream spans are its children. */
  trace?: Context;
}

const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const BACKOFF_BASE_MS = 50;
const BACKOFF_CAP_MS = 2_000;
/** How long after the operation deadline an attempt's own timeout ends it if the deadline timer did not. */
const DEADLINE_BACKSTOP_MS = 1_000;
/** Failed calls are logged one by one at debug, and summed up at warn at most this often. */
const FAILURE_SUMMARY_INTERVAL_MS = 10_000;
/**
 * The abort reason of every session that ends (each request's): made once, as a DOMException
 * captures a stack trace when made. It never leaves the client: what was cut short by it is
 * reported as the session's own error (stopError).
 */
const OPERATION_ENDED = new DOMException('The operation ended', 'AbortError');

export function createDispatcher(settings: ClientSettings): Agent {
  return new Agent({
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 60_000,
    connections: settings.upstreamMaxInFlight,
    pipelining: 1,
    connect: { timeout: Math.min(settings.upstreamTimeoutMs, 10_000) },
  });
}

/** Path segments are encoded, and ids that could walk the path ('.', '..') are refused outright. */
export function pathSegment(value: string): string {
  if (value === '' || value === '.' || value === '..') throw gatewayError('BAD_USER_INPUT', 'Invalid path segment');
  return encodeURIComponent(value);
}

export function encodeQuery(query: Record<string, QueryValue>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    // encodeURIComponent turns '+' into %2B and ' ' into %20, as the upstream requires.
    parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

export class InventoryClient {
  readonly scheduler: FairScheduler;
  readonly dispatcher: Dispatcher;
  /** Opens on a run of upstream failures; refuses calls at once while open. One per client. */
  readonly breaker: CircuitBreaker;
  /** Process-wide: retries may add only a share of the first attempts. */
  readonly retryBudget: RetryBudget;
  /** Parsed once: each call then dispatches by origin and path without parsing a URL. */
  readonly origin: string;
  readonly basePath: string;
  readonly host: string;
  private readonly ownsDispatcher: boolean;
  private readonly failures: FailureLog;
  /** The upstream response cache (settings.cache), or null when it is off. */
  readonly cache: ResponseCache | null;

  constructor(readonly options: InventoryClientOptions) {
    const { settings, logger } = options;
    const base = new URL(options.baseUrl);
    this.origin = base.origin;
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.host = base.hostname;
    this.scheduler = new FairScheduler(settings.upstreamMaxInFlight);
    this.ownsDispatcher = !options.dispatcher;
    this.dispatcher = options.dispatcher ?? createDispatcher(settings);
    this.retryBudget = new RetryBudget({ percent: settings.retryBudgetPercent ?? 50, minPerSecond: settings.retryBudgetMinPerSecond ?? 10 });
    const cooldownMs = settings.breakerCooldownMs ?? 1_000;
    this.breaker = new CircuitBreaker({
      failureThreshold: settings.breakerFailureThreshold ?? 20,
      cooldownMs,
      onStateChange: (change) => logBreakerChange(logger, change, cooldownMs),
    });
    this.failures = new FailureLog(logger);
    this.cache = settings.cache ? new ResponseCache({ settings: settings.cache, shared: options.shared, logger, metrics: options.telemetry?.metrics }) : null;
  }

  /** closed, open (calls refused at once) or half-open (one probe call allowed). */
  get breakerState(): BreakerState {
    return this.breaker.state;
  }

  session(options: SessionOptions): InventorySession {
    return new InventorySession(this, options);
  }

  /**
   * Readiness: the upstream answers HTTP at all (below 500), and (client-credentials) a token can
   * be had. Fails at once while the breaker is open; once its cool-down is over this request is
   * the probe, so an idle gateway that reports not ready still finds out when the upstream is back.
   */
  async probe(): Promise<void> {
    const permit = this.breaker.acquire();
    if (!permit) throw new Error('The inventory API circuit breaker is open');
    try {
      const response = await request(`${this.options.baseUrl}/`, {
        dispatcher: this.dispatcher,
        method: 'GET',
        headersTimeout: this.options.settings.upstreamTimeoutMs,
        bodyTimeout: this.options.settings.upstreamTimeoutMs,
      });
      await response.body.dump();
      if (response.statusCode >= 500) throw new Error(`The inventory API answered ${response.statusCode}`);
      this.breaker.success(permit);
    } catch (error) {
      this.breaker.failure(permit);
      throw error;
    }
    await this.options.auth.check();
  }

  /** @internal A call that failed for good (after its retries, if any). */
  noteFailure(route: RouteName, error: UpstreamError, attempts: number, gaveUp: GaveUp): void {
    this.failures.note(route, error, attempts, gaveUp);
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}

function logBreakerChange(logger: Logger, change: BreakerStateChange, cooldownMs: number): void {
  if (change.to === 'open' && change.from === 'closed') {
    logger.warn('upstream circuit breaker opened: calls are refused until a probe succeeds', { consecutiveFailures: change.consecutiveFailures, cooldownMs });
  } else if (change.to === 'closed') {
    logger.info('upstream circuit breaker closed: the inventory API answers again', { openForMs: change.openForMs, failedProbes: change.failedProbes });
  } else {
    // Probing (half-open) and a failed probe (open again) repeat every cool-down: debug only.
    logger.debug('upstream circuit breaker state', { from: change.from, to: change.to, failedProbes: change.failedProbes });
  }
}

/** Why a failing call was not tried again. */
type GaveUp = 'not-retryable' | 'retries' | 'retry-budget' | 'circuit-open' | 'deadline' | 'retry-after';

/**
 * Failed calls are one debug line each; at warn, one summary line at most every
 * FAILURE_SUMMARY_INTERVAL_MS (the first failure after a quiet interval is reported at once).
 */
class FailureLog {
  private lastSummary = -Infinity;
  private count = 0;
  private byCode: Partial<Record<GatewayErrorCode, number>> = {};
  private byReason: Partial<Record<GaveUp, number>> = {};

  constructor(private readonly logger: Logger) {}

  note(route: RouteName, error: UpstreamError, attempts: number, gaveUp: GaveUp): void {
    this.logger.debug('upstream call failed', { route, code: error.code, status: error.status, attempts, gaveUp });
    this.count++;
    this.byCode[error.code] = (this.byCode[error.code] ?? 0) + 1;
    this.byReason[gaveUp] = (this.byReason[gaveUp] ?? 0) + 1;
    const now = performance.now();
    if (now - this.lastSummary < FAILURE_SUMMARY_INTERVAL_MS) return;
    this.logger.warn('upstream calls failed', {
      failed: this.count,
      byCode: this.byCode,
      gaveUp: this.byReason,
      sinceMs: Number.isFinite(this.lastSummary) ? Math.round(now - this.lastSummary) : 0,
    });
    this.lastSummary = now;
    this.count = 0;
    this.byCode = {};
    this.byReason = {};
  }
}

interface Call {
  route: RouteName;
  method: 'GET' | 'POST';
  tenantId: string;
  /** The record the call is about, when it is about one (cache invalidation). */
  resourceId?: string;
  /** Below /api/v2/tenants/{tenantId}, already encoded. */
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** Used in messages: "resource abc", "the resource search". */
  what: string;
}

type StopKind = 'deadline' | 'client' | 'closed';

export class InventorySession {
  readonly stats: OperationStats;
  private readonly lane: Lane;
  /**
   * Aborts every queued and running call of the operation: at the deadline (the session's own
   * timer), when the GraphQL client disconnects, or on close().
   */
  private readonly controller = new AbortController();
  private readonly signal: AbortSignal;
  private readonly clientSignal: AbortSignal | undefined;
  /** performance.now() at which the operation's upstream work must stop. */
  readonly deadline: number;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly detachClient: () => void;
  private closed = false;
  /** Requests sent so far, counted before they leave (the budget must hold for concurrent calls). */
  private dispatched = 0;
  /** Whose cached answers this operation may see (src/upstream/response-cache.ts); null: none. */
  private readonly cacheScope: string | null;
  /** Passthrough: the scope is the caller's credential, whose entries need a recent proof (credential-proof.ts). */
  private readonly credentialScope: boolean;
  /** Tenants for which the upstream accepted this operation's credential during the operation. */
  private readonly provenTenants = new Set<string>();

  constructor(private readonly client: InventoryClient, private readonly options: SessionOptions) {
    const { settings } = client.options;
    this.stats = options.stats ?? new OperationStats();
    this.deadline = performance.now() + settings.operationTimeoutMs;
    this.signal = this.controller.signal;
    // Every queued and running upstream call listens on this signal; dozens at once are expected.
    setMaxListeners(0, this.signal);
    const controller = this.controller;
    // Yoga's request.signal (whatwg-node) stops updating its own `aborted` once a native signal
    // depends on it, so the disconnect is read from a native copy (held by this session).
    const clientSignal = options.signal ? AbortSignal.any([options.signal]) : undefined;
    this.clientSignal = clientSignal;
    const onClientAbort = () => controller.abort(clientSignal?.reason);
    // Node keeps a composite signal with an abort listener alive until it aborts: the listener
    // goes at the deadline or on close(), so a finished request's signal is not held forever.
    this.detachClient = () => clientSignal?.removeEventListener('abort', onClientAbort);
    if (clientSignal?.aborted) controller.abort(clientSignal.reason);
    else clientSignal?.addEventListener('abort', onClientAbort, { once: true });
    // The deadline is a timer held here, not AbortSignal.timeout(): inside AbortSignal.any a
    // timeout signal can be garbage-collected before it fires (nodejs/node#57736). The timer
    // holds only the controller, and is unref'd so a session never holds the process open.
    const detachClient = this.detachClient;
    this.timer = setTimeout(() => {
      detachClient();
      controller.abort(new DOMException('The operation deadline passed', 'TimeoutError'));
    }, settings.operationTimeoutMs);
    this.timer.unref();
    // A queued call is checked once more when its turn comes: past the deadline it is not sent.
    this.lane = client.scheduler.lane(settings.upstreamMaxInFlightPerOperation, { expired: () => this.stopKind() ?? undefined });
    this.cacheScope = settings.cache ? cacheScope(client.options.auth.mode, options.authorization, settings.cache.scopeSecret) : null;
    this.credentialScope = this.cacheScope !== null && client.options.auth.mode === 'passthrough';
  }

  /**
   * Ends the operation's upstream work: clears the deadline timer and aborts whatever is still
   * queued or running (nothing more is sent). Call it once the operation's response is complete.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.clearTimer();
    this.detachClient();
    if (!this.signal.aborted) this.controller.abort(OPERATION_ENDED);
  }

  /** Why no more upstream calls may start for this operation, or null. */
  private stopKind(): StopKind | null {
    if (this.clientSignal?.aborted) return 'client';
    if (this.closed) return 'closed';
    if (this.signal.aborted || performance.now() >= this.deadline) return 'deadline';
    return null;
  }

  private stopError(kind: StopKind, call: Pick<Call, 'what'>): UpstreamError {
    if (kind === 'client') return operationStop('The client closed the request', 'CLIENT_CLOSED_REQUEST');
    if (kind === 'closed') return operationStop(`The operation ended before ${call.what} completed`, 'CLIENT_CLOSED_REQUEST');
    return operationStop(`The operation deadline passed before ${call.what} completed`, 'UPSTREAM_TIMEOUT');
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  // ---- the ten endpoints -------------------------------------------------------------

  async search(tenantId: string, query: { pageNo: number; pageSize: number; sortName?: string; isDescendingOrder?: boolean; queryString?: string; includeStatus?: boolean }) {
    return this.get({ route: 'search', tenantId, path: '/resources/search', query, what: 'the resource search' });
  }
  async minimal(tenantId: string, query: { state?: string; locationId?: number; deviceGroupId?: number; deviceTypeId?: number; queryString?: string }) {
    return this.get({ route: 'minimal', tenantId, path: '/resources/minimal', query, what: 'the minimal resource list' });
  }
  async detail(tenantId: string, resourceId: string) {
    return this.get({ route: 'detail', tenantId, resourceId, path: `/resources/${pathSegment(resourceId)}`, what: `resource ${resourceId}` });
  }
  /** The update, then (whatever its outcome) the cached reads it may have changed are dropped everywhere. */
  async update(tenantId: string, resourceId: string, body: Record<string, unknown>) {
    try {
      return (await this.send({ route: 'update', method: 'POST', tenantId, resourceId, path: `/resources/${pathSegment(resourceId)}`, body, what: `the update of resource ${resourceId}` })).value;
    } finally {
      await this.client.cache?.invalidateResource(tenantId, resourceId);
    }
  }
  async history(tenantId: string, query: { pageNo: number; pageSize: number; queryString: string }) {
    return this.get({ route: 'history', tenantId, path: '/history/resources', query, what: 'the decommissioned resource list' });
  }
  async historyDetail(tenantId: string, resourceId: string, additionalInfo: boolean) {
    return this.get({
      route: 'historyDetail', tenantId, resourceId, path: `/history/resources/${pathSegment(resourceId)}`,
      query: additionalInfo ? { additionalInfo: true } : {}, what: `decommissioned resource ${resourceId}`,
    });
  }
  async antivirus(tenantId: string, query: { pageNo: number; pageSize: number; sortName: string; isDescendingOrder: boolean; queryString?: string }) {
    return this.get({ route: 'antivirus', tenantId, path: '/resources/antivirus/search', query, what: 'the antivirus list' });
  }
  async applications(tenantId: string, resourceId: string) {
    return this.get({ route: 'applications', tenantId, resourceId, path: `/resources/${pathSegment(resourceId)}/applications`, what: `the applications of resource ${resourceId}` });
  }
  async resourceTypes(tenantId: string) {
    return this.get({ route: 'resourceTypes', tenantId, path: '/resourceType/minimal', what: 'the resource types' });
  }
  async availability(tenantId: string, resourceId: string, startTime: number, endTime: number) {
    return this.get({
      route: 'availability', tenantId, resourceId, path: `/resources/${pathSegment(resourceId)}/availability`,
      query: { startTime: String(startTime), endTime: String(endTime) }, what: `the availability of resource ${resourceId}`,
    });
  }

  // ---- transport ---------------------------------------------------------------------

  /** A read: through the response cache when it is on (and this caller has a scope), else upstream. */
  private async get(fields: Omit<Call, 'method'>): Promise<unknown> {
    const call: Call = { ...fields, method: 'GET' };
    const cache = this.client.cache;
    if (!cache || this.cacheScope === null) return (await this.send(call)).value;
    const path = this.pathOf(call);
    const request: CacheRequest = {
      route: call.route, tenantId: call.tenantId, resourceId: call.resourceId, path, scope: this.cacheScope,
      windowEnd: call.route === 'availability' ? Number(call.query?.endTime) : undefined,
      credential: this.credentialScope,
    };
    const stats = this.stats;
    return cache.read(request, {
      fetch: () => this.send(call, path),
      refresh: () => {
        // A background session: it outlives this operation's response, with its own deadline.
        const background = new InventorySession(this.client, { authorization: this.options.authorization });
        return background.send(call, path).finally(() => background.close());
      },
      wait: (pending) => this.waitFor(pending, call),
      proven: () => this.provenTenants.has(call.tenantId),
      noteProven: () => this.provenTenants.add(call.tenantId),
      hit: () => stats.cacheHits++,
      miss: () => stats.cacheMisses++,
      coalesced: () => stats.coalesced++,
      stale: (ageMs, reason) => stats.noteStale({ route: call.route, tenantId: call.tenantId, resourceId: call.resourceId, ageMs, reason }),
    });
  }

  /** Another operation's call, or this operation's stop error if it stops first. */
  private waitFor<T>(pending: Promise<T>, call: Call): Promise<T> {
    const kind = this.stopKind();
    if (kind) return Promise.reject(this.stopError(kind, call));
    return new Promise<T>((resolve, reject) => {
      const signal = this.signal;
      const onAbort = () => reject(this.stopError(this.stopKind() ?? 'closed', call));
      signal.addEventListener('abort', onAbort, { once: true });
      pending.then(
        (value) => { signal.removeEventListener('abort', onAbort); resolve(value); },
        (error: unknown) => { signal.removeEventListener('abort', onAbort); reject(error); },
      );
    });
  }

  private pathOf(call: Call): string {
    return `${this.client.basePath}/api/v2/tenants/${pathSegment(call.tenantId)}${call.path}${encodeQuery(call.query ?? {})}`;
  }

  /** `path`: the call's encoded path and query, when the caller has it already. */
  private async send(call: Call, path = this.pathOf(call)): Promise<Fetched> {
    const { settings, auth } = this.client.options;
    const { breaker, retryBudget } = this.client;
    const idempotent = call.method === 'GET';
    let refreshedAuth = false;
    /** Attempts made so far (a retry after a token refresh included), and why the next one is made. */
    let tries = 0;
    let reason: string | null = null;
    for (let attempt = 0; ; attempt++) {
      this.throwIfStopped(call);
      const authorization = auth.mode === 'none' ? null : await auth.header(this.options.authorization);
      try {
        const number = ++tries;
        const why = reason;
        const fetched = await this.lane.run(() => this.attempt(call, path, authorization, attempt === 0, number, why), this.signal);
        if (this.credentialScope) this.credentialAccepted(call.tenantId);
        return fetched;
      } catch (raw) {
        const error = this.classify(raw, call);
        if (error.code === 'UNAUTHENTICATED' && error.status === 401 && !refreshedAuth && (await auth.refresh(authorization))) {
          refreshedAuth = true;
          reason = 'token-refresh';
          attempt--;
          continue;
        }
        // A 403 to an update may only mean the credential cannot write: reads are refused by reads.
        if (this.credentialScope && (error.status === 401 || (error.status === 403 && idempotent)) && !error.local) {
          await this.client.cache?.credentialRefused(this.cacheScope!, call.tenantId, error.status);
        }
        reason = retryReason(error);
        const fail = (gaveUp: GaveUp): UpstreamError => {
          if (error.code !== 'NOT_FOUND' && error.code !== 'CLIENT_CLOSED_REQUEST') this.client.noteFailure(call.route, error, attempt + 1, gaveUp);
          return error;
        };
        if (!(error.retryable && (idempotent || error.notSent))) throw fail(error instanceof CircuitOpenError ? 'circuit-open' : 'not-retryable');
        if (attempt >= settings.upstreamRetries) throw fail('retries');
        // While the breaker refuses calls, waiting to retry would only delay the same answer.
        if (!breaker.isClosed) throw fail('circuit-open');
        let waitMs = Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
        if (error.retryAfterMs !== null) {
          if (error.retryAfterMs > settings.maxRetryAfterMs) throw fail('retry-after');
          waitMs = Math.max(waitMs, error.retryAfterMs);
        }
        if (performance.now() + waitMs >= this.deadline) throw fail('deadline');
        if (!retryBudget.tryRetry()) throw fail('retry-budget');
        this.stats.retries++;
        await this.sleep(waitMs);
      }
    }
  }

  private credentialAccepted(tenantId: string): void {
    this.provenTenants.add(tenantId);
    this.client.cache?.credentialAccepted(this.cacheScope!, tenantId);
  }

  private throwIfStopped(call: Call): void {
    const kind = this.stopKind();
    if (kind) throw this.stopError(kind, call);
  }

  /** Waits ms, or less when the operation stops meanwhile. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const signal = this.signal;
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
    });
  }

  /**
   * One upstream request, and the one place it is observed: a client span (child of the
   * operation's span, its traceparent sent upstream), the request and retry metrics.
   * `number` counts the call's attempts from 1; `retryOf` says why this one is a retry.
   */
  private async attempt(call: Call, path: string, authorization: string | null, first: boolean, number: number, retryOf: string | null): Promise<Fetched> {
    const { settings, telemetry } = this.client.options;
    // The lane checked the deadline when this call's turn came; this is the last check before sending.
    this.throwIfStopped(call);
    const budget = settings.maxUpstreamCallsPerOperation;
    if (budget !== undefined && this.dispatched >= budget) {
      throw operationStop(`The operation reached its budget of ${budget} upstream calls`, 'OPERATION_TOO_EXPENSIVE');
    }
    const permit = this.client.breaker.acquire();
    if (!permit) throw new CircuitOpenError(call.what);
    this.dispatched++;
    if (first) this.client.retryBudget.recordRequest();
    // The deadline timer ends the attempt at the deadline (with everything else of the operation).
    // undici's own timeouts tick in ~0.5 s steps and may fire up to 0.5 s early, so near the
    // deadline the per-attempt timeout is set a second past it, as a backstop only: an attempt
    // never times out on its own just before the deadline, freeing a slot for a call that would
    // then be sent with no time left.
    const remaining = Math.max(1, this.deadline - performance.now());
    const timeout = Math.min(settings.upstreamTimeoutMs, remaining + DEADLINE_BACKSTOP_MS);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (authorization) headers.authorization = authorization;
    let payload: string | undefined;
    if (call.body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(call.body);
    }
    const tracing = telemetry?.tracing;
    const span = tracing?.tracer.startSpan(`${call.method} ${call.route}`, {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': call.method,
        'url.template': ROUTE_TEMPLATES[call.route],
        'server.address': this.client.host,
        'inventory.route': call.route,
        'inventory.tenant': call.tenantId,
        'gateway.attempt': number,
        'http.request.resend_count': number - 1,
        // Cache hits make no call: every upstream call is a miss.
        'gateway.cache': 'miss',
        ...(retryOf ? { 'gateway.retry_reason': retryOf } : {}),
      },
    }, this.options.trace);
    if (span && tracing) tracing.inject(trace.setSpan(this.options.trace ?? ROOT, span), headers);
    if (retryOf && telemetry?.metrics) telemetry.metrics.retry(call.route, retryOf);
    const started = performance.now();
    let text: string | undefined;
    let status = 0;
    let retryAfter: string | string[] | undefined;
    try {
      const response = await this.client.dispatcher.request({
        origin: this.client.origin,
        path,
        method: call.method,
        headers,
        body: payload,
        signal: this.signal,
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
      text = await response.body.text();
      status = response.statusCode;
      retryAfter = response.headers['retry-after'];
    } catch (error) {
      // Our own abort (deadline, disconnect) says nothing about the upstream.
      if (this.signal.aborted) this.client.breaker.release(permit);
      else this.client.breaker.failure(permit);
      if (span) {
        span.setAttribute('error.type', (error as { code?: string }).code ?? (error as Error).name ?? 'Error');
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      throw error;
    } finally {
      const ms = performance.now() - started;
      this.stats.recordCall(call.route, ms);
      telemetry?.metrics?.upstreamRequest(call.route, call.method, status, ms / 1000);
      if (span) {
        if (status) span.setAttribute('http.response.status_code', status);
        if (text !== undefined && span.isRecording()) span.setAttribute('http.response.body.size', Buffer.byteLength(text));
        if (status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      }
    }
    if (status >= 500) this.client.breaker.failure(permit);
    else this.client.breaker.success(permit);
    if (status >= 200 && status < 300) {
      if (text.trim() === '') return { value: null, text };
      try {
        return { value: JSON.parse(text) as unknown, text };
      } catch {
        throw new UpstreamError(`The inventory API sent a response for ${call.what} that is not JSON`, 'UPSTREAM_BAD_RESPONSE', status, false);
      }
    }
    let body: unknown = null;
    try { body = JSON.parse(text); } catch { /* error bodies need not be JSON */ }
    throw errorForStatus(status, call.what, safeReason(body), parseRetryAfter(retryAfter));
  }

  private classify(raw: unknown, call: Call): UpstreamError {
    if (raw instanceof UpstreamError) return raw;
    const kind = this.stopKind();
    if (kind) return this.stopError(kind, call);
    const code = (raw as { code?: string }).code ?? '';
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      return new UpstreamError(`The inventory API did not answer ${call.what} in time`, 'UPSTREAM_TIMEOUT', null, true);
    }
    return new UpstreamError(`Could not reach the inventory API for ${call.what}`, 'UPSTREAM_UNAVAILABLE', null, true, NOT_SENT_CODES.has(code));
  }
}
