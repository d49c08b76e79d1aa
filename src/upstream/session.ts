/**
 * The per-operation session: the operation's deadline (a timer the session owns), the GraphQL
 * client's disconnect, close(); and the ten endpoints of the route table, each a read through the
 * response cache (src/upstream/cached-read.ts) or an update, sent by the retry loop (retry.ts).
 */
import { setMaxListeners } from 'node:events';
import type { Call } from './attempt.js';
import { cachedRead, credentialHooks, revalidatedRead, type CachedReadScope } from './cached-read.js';
import type { UpstreamParts } from './parts.js';
import { operationStop, rateLimited, type UpstreamError } from './errors.js';
import { BACKGROUND, type Charge, type ClaimAs, type Want } from './rate-budget.js';
import { windowKey } from './rate-window.js';
import type { RateCategory } from '../core/routes.js';
import { cacheScope } from '../core/caller.js';
import type { Fetched } from './cache-entry.js';
import { sendWithRetries, type RetryScope } from './retry.js';
import { routePath, type QueryValue } from './route-path.js';
import { ROUTES, type RouteName } from '../core/routes.js';
import type { Lane } from './scheduler.js';
import { OperationStats } from '../core/operation-stats.js';
import type { Context } from '../observability/tracing.js';

export interface SessionOptions {
  /** The caller's Authorization header, for passthrough. */
  authorization: string | null;
  /** Aborts when the GraphQL client disconnects: a native signal (src/server/client-signal.ts makes one of Yoga's). */
  signal?: AbortSignal;
  stats?: OperationStats;
  /** The operation's trace context: upstream spans are its children. */
  trace?: Context;
  /** Told of each read the operation made (a live query's pollers are made from them). */
  onRead?: (read: UpstreamRead, value: unknown, path: string) => void;
  /** Whose share of the tenants' rate-limit windows the calls spend (budgetCaller; BACKGROUND: background work). */
  caller?: string;
  /** A live query's re-run: how often a read's path is polled (ms); the cache keeps its entry fresh that long. */
  polledEvery?: (path: string) => number | undefined;
}

/** A read as a live query's poller repeats it (src/upstream/live-polls.ts). */
export interface UpstreamRead {
  route: RouteName;
  tenantId: string;
  resourceId?: string;
  query: Record<string, QueryValue>;
  windowEnd?: number;
}

/**
 * The abort reason of every session that ends (each request's): made once, as a DOMException
 * captures a stack trace when made. It never leaves the session: what was cut short by it is
 * reported as the session's own error (stopped()).
 */
const OPERATION_ENDED = new DOMException('The operation ended', 'AbortError');

type StopKind = 'deadline' | 'client' | 'closed';

export class UpstreamSession implements RetryScope, CachedReadScope {
  readonly stats: OperationStats;
  readonly authorization: string | null;
  readonly trace: Context | undefined;
  readonly lane: Lane;
  /** Aborts every queued and running call of the operation: at the deadline, when the GraphQL client disconnects, or on close(). */
  private readonly controller = new AbortController();
  readonly signal: AbortSignal;
  private readonly clientSignal: AbortSignal | undefined;
  /** parts.now() at which the operation's upstream work must stop. */
  readonly deadline: number;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly detachClient: () => void;
  private closed = false;
  dispatched = 0;
  /** Whose cached answers this operation may see (cacheScope() in src/core/caller.ts); meaningful only when `cached`. */
  readonly cacheScope: string;
  /** The cache is on and this caller has a scope (passthrough without a credential has none). */
  private readonly cached: boolean;
  readonly credentialScope: boolean;
  readonly provenTenants = new Set<string>();
  /** The aborts of the operation's requests in flight, called by the signal's one listener (onAbort). */
  private readonly inFlightAborts = new Set<(reason: Error) => void>();
  readonly credentialAccepted?: (tenantId: string) => void;
  readonly credentialRefused?: (tenantId: string, status: 401 | 403) => Promise<void>;
  private readonly onRead: SessionOptions['onRead'];
  readonly caller: string;
  readonly polledEvery: ((path: string) => number | undefined) | undefined;
  /** Calls claimed of the tenants' rate-limit windows before the operation ran and not sent yet, by category and tenant. */
  private readonly claims = new Map<string, { tenant: string; charge: Charge; n: number }>();
  /** Set when the budget could not cover the operation: it may answer only from the cache, and this is each call's refusal. */
  private upstreamRefusal: ((call: Call) => UpstreamError) | null = null;

  constructor(private readonly parts: UpstreamParts, options: SessionOptions) {
    const { settings } = parts;
    this.stats = options.stats ?? new OperationStats();
    this.authorization = options.authorization;
    this.trace = options.trace;
    this.onRead = options.onRead;
    this.caller = options.caller ?? 'gateway';
    this.polledEvery = options.polledEvery;
    this.deadline = parts.now() + settings.operationTimeoutMs;
    this.signal = this.controller.signal;
    // Queued upstream calls listen on this signal; dozens at once are expected.
    setMaxListeners(0, this.signal);
    const inFlightAborts = this.inFlightAborts;
    this.signal.addEventListener('abort', () => {
      const reason = this.signal.reason as Error;
      for (const abort of [...inFlightAborts]) abort(reason);
      inFlightAborts.clear();
    }, { once: true });
    const controller = this.controller;
    const clientSignal = options.signal;
    this.clientSignal = clientSignal;
    const onClientAbort = () => controller.abort(clientSignal?.reason);
    // The listener goes at the deadline or on close(): the client's signal holds nothing of a finished operation.
    const detachClient = () => clientSignal?.removeEventListener('abort', onClientAbort);
    this.detachClient = detachClient;
    if (clientSignal?.aborted) controller.abort(clientSignal.reason);
    else clientSignal?.addEventListener('abort', onClientAbort, { once: true });
    // The deadline is a timer held here, not AbortSignal.timeout(): inside AbortSignal.any a
    // timeout signal can be garbage-collected before it fires (nodejs/node#57736). The timer
    // holds only the controller, and is unref'd so a session never holds the process open.
    this.timer = setTimeout(() => {
      detachClient();
      controller.abort(new DOMException('The operation deadline passed', 'TimeoutError'));
    }, settings.operationTimeoutMs);
    this.timer.unref();
    // A queued call is checked once more when its turn comes: past the deadline it is not sent.
    this.lane = parts.scheduler.lane(settings.upstreamMaxInFlightPerOperation, { expired: () => this.stopKind() ?? undefined });
    const scope = settings.cache ? cacheScope(parts.auth.mode, options.authorization, settings.cache.scopeSecret) : null;
    this.cached = parts.cache !== null && scope !== null;
    this.cacheScope = scope ?? '';
    this.credentialScope = scope !== null && parts.auth.mode === 'passthrough';
    const hooks = this.credentialScope && parts.cache ? credentialHooks(parts.cache, this) : undefined;
    this.credentialAccepted = hooks?.credentialAccepted;
    this.credentialRefused = hooks?.credentialRefused;
  }

  /**
   * Ends the operation's upstream work: clears the deadline timer and aborts whatever is still
   * queued or running (nothing more is sent). Call it once the operation's response is complete.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.refundClaims();
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.detachClient();
    if (!this.signal.aborted) this.controller.abort(OPERATION_ENDED);
  }

  /**
   * Whether this operation's reservations go to the fleet's windows: not while the caller's own
   * credential (passthrough) was never accepted by the upstream for the tenant, so a guessed token
   * writes nothing to Redis.
   */
  sharesBudgetOf(tenantId: string): boolean {
    return !this.credentialScope || this.provenTenants.has(tenantId) || this.parts.cache?.credentialKnown(this.cacheScope, tenantId) === true;
  }

  /** How this operation's claims on a tenant's windows are made: where, and as which caller. */
  claimAs(tenantId: string): ClaimAs {
    return { shared: this.sharesBudgetOf(tenantId), caller: this.caller };
  }

  /** The operation's claim on the tenants' windows (the rate-limit plugin made it): its calls spend it first. */
  addClaims(wants: readonly Want[], shared: boolean): void {
    for (const want of wants) {
      const key = claimKey(want.category, want.tenant, shared);
      const known = this.claims.get(key);
      if (known) known.n += want.n;
      else this.claims.set(key, { tenant: want.tenant, charge: { category: want.category, shared, caller: this.caller }, n: want.n });
    }
  }

  /** From now on the operation sends nothing upstream: its reads come from the cache or fail with this refusal. */
  answerFromCacheOnly(refusal: (call: Call) => UpstreamError): void {
    this.upstreamRefusal = refusal;
  }

  private refundClaims(): void {
    for (const { tenant, charge, n } of this.claims.values()) this.parts.budget.refund(tenant, charge, n);
    this.claims.clear();
  }

  /**
   * A call about to be sent takes its place in the tenant's window: from the operation's claim,
   * else one reserved now; refused (RATE_LIMITED) when the window has no room, so it is never
   * sent. Returns where it was charged (null: not budgeted).
   */
  spend(call: Call): Charge | null | Promise<Charge | null> {
    if (this.upstreamRefusal) throw this.upstreamRefusal(call);
    const { budget } = this.parts;
    const category = budget.categoryOf(call.route);
    if (!budget.tracks(category)) return null;
    for (const shared of [true, false]) {
      const claimed = this.claims.get(claimKey(category, call.tenantId, shared));
      if (claimed && claimed.n > 0) {
        claimed.n--;
        return claimed.charge;
      }
    }
    const as = this.claimAs(call.tenantId);
    return budget.claim([{ tenant: call.tenantId, category, n: 1 }], as).then((outcome) => {
      if (outcome.ok) return { category, shared: outcome.shared, caller: as.caller };
      throw rateLimited(`The inventory API's budget of ${category} calls for tenant ${call.tenantId} is spent until its window resets`, budget.resetOf(outcome.window));
    });
  }

  /** A call that spent its place and was not sent after all gives it back (returned with the claims when the operation ends). */
  unspend(call: Call, charge: Charge): void {
    // A closed session refunds nothing later: its place goes back now.
    if (this.closed) this.parts.budget.refund(call.tenantId, charge, 1);
    else this.addClaims([{ tenant: call.tenantId, category: charge.category, n: 1 }], charge.shared);
  }

  /** Why no more upstream calls may start for this operation, or null. */
  private stopKind(): StopKind | null {
    if (this.clientSignal?.aborted) return 'client';
    if (this.closed) return 'closed';
    if (this.signal.aborted || this.parts.now() >= this.deadline) return 'deadline';
    return null;
  }

  stopped(what: string): UpstreamError | null {
    const kind = this.stopKind();
    return kind ? stopError(kind, what) : null;
  }

  /** Another operation's call, or this operation's stop error if it stops first. */
  waitFor<T>(pending: Promise<T>, call: Call): Promise<T> {
    const stop = this.stopped(call.what);
    if (stop) return Promise.reject(stop);
    return new Promise<T>((resolve, reject) => {
      const signal = this.signal;
      const onAbort = () => reject(stopError(this.stopKind() ?? 'closed', call.what));
      signal.addEventListener('abort', onAbort, { once: true });
      pending.then(
        (value) => { signal.removeEventListener('abort', onAbort); resolve(value); },
        (error: unknown) => { signal.removeEventListener('abort', onAbort); reject(error); },
      );
    });
  }

  onAbort(abort: (reason: Error) => void): () => void {
    const aborts = this.inFlightAborts;
    aborts.add(abort);
    return () => aborts.delete(abort);
  }

  /** Waits ms, or less when the operation stops meanwhile. */
  sleep(ms: number): Promise<void> {
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

  send(call: Call): Promise<Fetched> {
    return sendWithRetries(this.parts, this, call);
  }

  sendInBackground(call: Call): Promise<Fetched> {
    // A background session: it outlives this operation's response, with its own deadline.
    const background = new UpstreamSession(this.parts, { authorization: this.authorization, caller: BACKGROUND });
    return background.send(call).finally(() => background.close());
  }

  // ---- the ten endpoints (src/upstream/routes.ts) -------------------------------------

  search(tenantId: string, query: { pageNo: number; pageSize: number; sortName?: string; isDescendingOrder?: boolean; queryString?: string; includeStatus?: boolean }) {
    return this.read('search', tenantId, undefined, query);
  }
  minimal(tenantId: string, query: { state?: string; locationId?: number; deviceGroupId?: number; deviceTypeId?: number; queryString?: string }) {
    return this.read('minimal', tenantId, undefined, query);
  }
  detail(tenantId: string, resourceId: string) {
    return this.read('detail', tenantId, resourceId);
  }
  history(tenantId: string, query: { pageNo: number; pageSize: number; queryString: string }) {
    return this.read('history', tenantId, undefined, query);
  }
  historyDetail(tenantId: string, resourceId: string, additionalInfo: boolean) {
    return this.read('historyDetail', tenantId, resourceId, additionalInfo ? { additionalInfo: true } : {});
  }
  antivirus(tenantId: string, query: { pageNo: number; pageSize: number; sortName: string; isDescendingOrder: boolean; queryString?: string }) {
    return this.read('antivirus', tenantId, undefined, query);
  }
  applications(tenantId: string, resourceId: string) {
    return this.read('applications', tenantId, resourceId);
  }
  resourceTypes(tenantId: string) {
    return this.read('resourceTypes', tenantId);
  }
  availability(tenantId: string, resourceId: string, startTime: number, endTime: number) {
    return this.read('availability', tenantId, resourceId, { startTime: String(startTime), endTime: String(endTime) }, endTime);
  }

  /**
   * The update, then (whatever its outcome) the cached reads it may have changed are dropped
   * everywhere and the live queries that read them are told.
   */
  async update(tenantId: string, resourceId: string, body: Record<string, unknown>): Promise<unknown> {
    try {
      return (await this.send(this.call('update', tenantId, resourceId, {}, undefined, body))).value;
    } finally {
      await this.parts.cache?.invalidateResource(tenantId, resourceId);
      this.parts.resourceUpdated(tenantId, resourceId);
    }
  }

  /** A read: through the response cache when it is on (and this caller has a scope), else upstream. */
  private async read(route: RouteName, tenantId: string, resourceId?: string, query: Record<string, QueryValue> = {}, windowEnd?: number): Promise<unknown> {
    const call = this.call(route, tenantId, resourceId, query, windowEnd);
    const value = !this.cached || !this.parts.cache ? (await this.send(call)).value : await cachedRead(this.parts.cache, this, call);
    this.onRead?.({ route, tenantId, resourceId, query, windowEnd }, value, call.path);
    return value;
  }

  /** A live poll of a read: the upstream's answer now; with the cache on, it becomes the fresh entry. */
  async poll(read: UpstreamRead): Promise<Fetched> {
    const call = this.call(read.route, read.tenantId, read.resourceId, read.query, read.windowEnd);
    if (!this.cached || !this.parts.cache) return this.send(call);
    return revalidatedRead(this.parts.cache, this, call);
  }

  private call(route: RouteName, tenantId: string, resourceId: string | undefined, query: Record<string, QueryValue>, windowEnd?: number, body?: unknown): Call {
    const spec = ROUTES[route];
    const path = `${this.parts.basePath}${routePath(route, tenantId, resourceId, query)}`;
    const call: Call = { route, method: spec.method, tenantId, resourceId, path, body, what: spec.what(resourceId ?? '') };
    if (windowEnd !== undefined) call.windowEnd = windowEnd;
    return call;
  }
}

/** A claim's place: its window, in the fleet's windows or this replica's. */
const claimKey = (category: RateCategory, tenantId: string, shared: boolean) => `${windowKey(tenantId, category)}\u0000${shared ? 's' : 'l'}`;

function stopError(kind: StopKind, what: string): UpstreamError {
  if (kind === 'client') return operationStop('The client closed the request', 'CLIENT_CLOSED_REQUEST');
  if (kind === 'closed') return operationStop(`The operation ended before ${what} completed`, 'CLIENT_CLOSED_REQUEST');
  return operationStop(`The operation deadline passed before ${what} completed`, 'UPSTREAM_TIMEOUT');
}
