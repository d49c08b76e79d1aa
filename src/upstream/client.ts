/**
 * InventoryClient: the one place that talks to the upstream REST API. undici keep-alive pool,
 * per-attempt timeouts, an operation deadline, retries with exponential backoff and jitter for
 * idempotent calls (honouring Retry-After up to a cap), bounded fair concurrency, and abort when
 * the GraphQL client goes away. It returns parsed JSON; mapping happens in src/domain.
 */
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { Agent, request, type Dispatcher } from 'undici';
import type { GatewayConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { UpstreamAuth } from './auth.js';
import { errorForStatus, gatewayError, parseRetryAfter, safeReason, UpstreamError } from './errors.js';
import { FairScheduler, type Lane } from './scheduler.js';
import { OperationStats, type RouteName } from './stats.js';

/** The settings the client reads; maxUpstreamCallsPerOperation is the hard stop behind the cost estimate. */
export type ClientSettings = Pick<GatewayConfig, 'upstreamTimeoutMs' | 'operationTimeoutMs' | 'upstreamRetries' | 'maxRetryAfterMs' | 'upstreamMaxInFlight' | 'upstreamMaxInFlightPerOperation'>
  & Partial<Pick<GatewayConfig, 'maxUpstreamCallsPerOperation'>>;

export interface InventoryClientOptions {
  baseUrl: string;
  auth: UpstreamAuth;
  settings: ClientSettings;
  logger: Logger;
  dispatcher?: Dispatcher;
}

export type QueryValue = string | number | boolean | undefined | null;

export interface SessionOptions {
  /** The caller's Authorization header, for passthrough. */
  authorization: string | null;
  /** Aborts when the GraphQL client disconnects. */
  signal?: AbortSignal;
  stats?: OperationStats;
}

const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const BACKOFF_BASE_MS = 50;
const BACKOFF_CAP_MS = 2_000;

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
  /** Parsed once: each call then dispatches by origin and path without parsing a URL. */
  readonly origin: string;
  readonly basePath: string;
  private readonly ownsDispatcher: boolean;

  constructor(readonly options: InventoryClientOptions) {
    const base = new URL(options.baseUrl);
    this.origin = base.origin;
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.scheduler = new FairScheduler(options.settings.upstreamMaxInFlight);
    this.ownsDispatcher = !options.dispatcher;
    this.dispatcher = options.dispatcher ?? createDispatcher(options.settings);
  }

  session(options: SessionOptions): InventorySession {
    return new InventorySession(this, options);
  }

  /** Readiness: the upstream answers HTTP at all, and (client-credentials) a token can be had. */
  async probe(): Promise<void> {
    const response = await request(`${this.options.baseUrl}/`, {
      dispatcher: this.dispatcher,
      method: 'GET',
      headersTimeout: this.options.settings.upstreamTimeoutMs,
      bodyTimeout: this.options.settings.upstreamTimeoutMs,
    });
    await response.body.dump();
    await this.options.auth.check();
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}

interface Call {
  route: RouteName;
  method: 'GET' | 'POST';
  tenantId: string;
  /** Below /api/v2/tenants/{tenantId}, already encoded. */
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** Used in messages: "resource abc", "the resource search". */
  what: string;
}

export class InventorySession {
  readonly stats: OperationStats;
  private readonly lane: Lane;
  private readonly signal: AbortSignal;
  private readonly clientSignal: AbortSignal | undefined;
  private readonly deadline: number;
  /** Requests sent so far, counted before they leave (the budget must hold for concurrent calls). */
  private dispatched = 0;

  constructor(private readonly client: InventoryClient, private readonly options: SessionOptions) {
    const { settings } = client.options;
    this.stats = options.stats ?? new OperationStats();
    this.lane = client.scheduler.lane(settings.upstreamMaxInFlightPerOperation);
    this.deadline = performance.now() + settings.operationTimeoutMs;
    const deadlineSignal = AbortSignal.timeout(settings.operationTimeoutMs);
    // Yoga's request.signal (whatwg-node) stops updating its own `aborted` once a native signal
    // depends on it, so the disconnect is read from a native copy.
    this.clientSignal = options.signal ? AbortSignal.any([options.signal]) : undefined;
    this.signal = this.clientSignal ? AbortSignal.any([this.clientSignal, deadlineSignal]) : deadlineSignal;
    // Every queued and running upstream call listens on this signal; dozens at once are expected.
    setMaxListeners(0, this.signal);
  }

  // ---- the ten endpoints -------------------------------------------------------------

  async search(tenantId: string, query: { pageNo: number; pageSize: number; sortName?: string; isDescendingOrder?: boolean; queryString?: string; includeStatus?: boolean }) {
    return this.get({ route: 'search', tenantId, path: '/resources/search', query, what: 'the resource search' });
  }
  async minimal(tenantId: string, query: { state?: string; locationId?: number; deviceGroupId?: number; deviceTypeId?: number; queryString?: string }) {
    return this.get({ route: 'minimal', tenantId, path: '/resources/minimal', query, what: 'the minimal resource list' });
  }
  async detail(tenantId: string, resourceId: string) {
    return this.get({ route: 'detail', tenantId, path: `/resources/${pathSegment(resourceId)}`, what: `resource ${resourceId}` });
  }
  async update(tenantId: string, resourceId: string, body: Record<string, unknown>) {
    return this.send({ route: 'update', method: 'POST', tenantId, path: `/resources/${pathSegment(resourceId)}`, body, what: `the update of resource ${resourceId}` });
  }
  async history(tenantId: string, query: { pageNo: number; pageSize: number; queryString: string }) {
    return this.get({ route: 'history', tenantId, path: '/history/resources', query, what: 'the decommissioned resource list' });
  }
  async historyDetail(tenantId: string, resourceId: string, additionalInfo: boolean) {
    return this.get({
      route: 'historyDetail', tenantId, path: `/history/resources/${pathSegment(resourceId)}`,
      query: additionalInfo ? { additionalInfo: true } : {}, what: `decommissioned resource ${resourceId}`,
    });
  }
  async antivirus(tenantId: string, query: { pageNo: number; pageSize: number; sortName: string; isDescendingOrder: boolean; queryString?: string }) {
    return this.get({ route: 'antivirus', tenantId, path: '/resources/antivirus/search', query, what: 'the antivirus list' });
  }
  async applications(tenantId: string, resourceId: string) {
    return this.get({ route: 'applications', tenantId, path: `/resources/${pathSegment(resourceId)}/applications`, what: `the applications of resource ${resourceId}` });
  }
  async resourceTypes(tenantId: string) {
    return this.get({ route: 'resourceTypes', tenantId, path: '/resourceType/minimal', what: 'the resource types' });
  }
  async availability(tenantId: string, resourceId: string, startTime: number, endTime: number) {
    return this.get({
      route: 'availability', tenantId, path: `/resources/${pathSegment(resourceId)}/availability`,
      query: { startTime: String(startTime), endTime: String(endTime) }, what: `the availability of resource ${resourceId}`,
    });
  }

  // ---- transport ---------------------------------------------------------------------

  private get(call: Omit<Call, 'method'>): Promise<unknown> {
    return this.send({ ...call, method: 'GET' });
  }

  private async send(call: Call): Promise<unknown> {
    const { settings, auth, logger } = this.client.options;
    const idempotent = call.method === 'GET';
    const path = `${this.client.basePath}/api/v2/tenants/${pathSegment(call.tenantId)}${call.path}${encodeQuery(call.query ?? {})}`;
    let refreshedAuth = false;
    for (let attempt = 0; ; attempt++) {
      this.throwIfStopped(call);
      const authorization = auth.mode === 'none' ? null : await auth.header(this.options.authorization);
      try {
        return await this.lane.run(() => this.attempt(call, path, authorization), this.signal);
      } catch (raw) {
        const error = this.classify(raw, call);
        if (error.code === 'UNAUTHENTICATED' && error.status === 401 && !refreshedAuth && (await auth.refresh(authorization))) {
          refreshedAuth = true;
          attempt--;
          continue;
        }
        const mayRetry = error.retryable && (idempotent || error.notSent) && attempt < settings.upstreamRetries;
        if (!mayRetry) {
          if (error.code !== 'NOT_FOUND' && error.code !== 'CLIENT_CLOSED_REQUEST') {
            logger.warn('upstream call failed', { route: call.route, code: error.code, status: error.status, attempts: attempt + 1 });
          }
          throw error;
        }
        let waitMs = Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
        if (error.retryAfterMs !== null) {
          if (error.retryAfterMs > settings.maxRetryAfterMs) throw error;
          waitMs = Math.max(waitMs, error.retryAfterMs);
        }
        if (performance.now() + waitMs >= this.deadline) throw error;
        this.stats.retries++;
        await this.sleep(waitMs);
      }
    }
  }

  private throwIfStopped(call: Call): void {
    if (!this.signal.aborted) return;
    if (this.clientSignal?.aborted) throw new UpstreamError('The client closed the request', 'CLIENT_CLOSED_REQUEST', null, false);
    throw new UpstreamError(`The operation deadline passed before ${call.what} completed`, 'UPSTREAM_TIMEOUT', null, false);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      this.signal.addEventListener('abort', done, { once: true });
      function done() {
        clearTimeout(timer);
        resolve();
      }
    });
  }

  private async attempt(call: Call, path: string, authorization: string | null): Promise<unknown> {
    const { settings } = this.client.options;
    const budget = settings.maxUpstreamCallsPerOperation;
    if (budget !== undefined && this.dispatched >= budget) {
      throw new UpstreamError(`The operation reached its budget of ${budget} upstream calls`, 'OPERATION_TOO_EXPENSIVE', null, false);
    }
    this.dispatched++;
    const remaining = Math.max(1, this.deadline - performance.now());
    const timeout = Math.min(settings.upstreamTimeoutMs, remaining);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (authorization) headers.authorization = authorization;
    let payload: string | undefined;
    if (call.body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(call.body);
    }
    const started = performance.now();
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
      const text = await response.body.text();
      const status = response.statusCode;
      if (status >= 200 && status < 300) {
        if (text.trim() === '') return null;
        try {
          return JSON.parse(text) as unknown;
        } catch {
          throw new UpstreamError(`The inventory API sent a response for ${call.what} that is not JSON`, 'UPSTREAM_BAD_RESPONSE', status, false);
        }
      }
      let body: unknown = null;
      try { body = JSON.parse(text); } catch { /* error bodies need not be JSON */ }
      throw errorForStatus(status, call.what, safeReason(body), parseRetryAfter(response.headers['retry-after']));
    } finally {
      this.stats.recordCall(call.route, performance.now() - started);
    }
  }

  private classify(raw: unknown, call: Call): UpstreamError {
    if (raw instanceof UpstreamError) return raw;
    if (this.signal.aborted) {
      if (this.clientSignal?.aborted) return new UpstreamError('The client closed the request', 'CLIENT_CLOSED_REQUEST', null, false);
      return new UpstreamError(`The operation deadline passed before ${call.what} completed`, 'UPSTREAM_TIMEOUT', null, false);
    }
    const code = (raw as { code?: string }).code ?? '';
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      return new UpstreamError(`The inventory API did not answer ${call.what} in time`, 'UPSTREAM_TIMEOUT', null, true);
    }
    return new UpstreamError(`Could not reach the inventory API for ${call.what}`, 'UPSTREAM_UNAVAILABLE', null, true, NOT_SENT_CODES.has(code));
  }
}
