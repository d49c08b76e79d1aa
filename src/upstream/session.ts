/**
 * The per-operation session: the ten endpoints of the route table, each a read through the
 * response cache (src/upstream/cached-read.ts) or an update, sent by the retry loop (retry.ts)
 * and its attempts (attempt.ts). Each stage sees only its own small view of the operation
 * (RetryOperation, CachedReadOperation); the operation's stop (deadline, disconnect, close) is
 * operation-stop.ts, its places in the rate-limit windows operation-budget.ts.
 */
import type { Call } from './attempt.js';
import { cachedRead, credentialHooks, revalidatedRead, type CachedReadOperation } from './cached-read.js';
import type { UpstreamParts } from './parts.js';
import type { UpstreamError } from './errors.js';
import { BACKGROUND, type ClaimAs, type Want } from './rate-budget.js';
import { cacheScope } from '../core/caller.js';
import type { Fetched } from './cache-entry.js';
import { OperationBudget } from './operation-budget.js';
import { OperationStop } from './operation-stop.js';
import { sendWithRetries, type RetryOperation } from './retry.js';
import { routePath, type QueryValue } from './route-path.js';
import { ROUTES, type RouteName } from '../core/routes.js';
import { OperationStats } from '../core/operation-stats.js';
import type { Context } from '../observability/tracing.js';
import { TenantAccess, type TenantAction } from '../identity/access.js';

export interface SessionOptions {
  /** The caller's Authorization header, for passthrough. */
  authorization: string | null;
  /** Aborts when the GraphQL client disconnects: a native signal (src/server/edge/client-signal.ts makes one of Yoga's). */
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
  /** What the caller may do to which tenant (src/identity/access.ts): checked before the cache and every call. */
  access?: TenantAccess;
}

/** A read as a live query's poller repeats it (src/upstream/live-polls.ts). */
export interface UpstreamRead {
  route: RouteName;
  tenantId: string;
  resourceId?: string;
  query: Record<string, QueryValue>;
  windowEnd?: number;
}

export class UpstreamSession {
  readonly stats: OperationStats;
  /** Whose share of the tenants' rate-limit windows the calls spend (budgetCaller; BACKGROUND: background work). */
  readonly caller: string;
  private readonly authorization: string | null;
  private readonly stop: OperationStop;
  private readonly budget: OperationBudget;
  /** Requests sent so far: only the attempts count them (noteDispatch), the call budget reads them. */
  private dispatched = 0;
  /** Whose cached answers this operation may see (cacheScope() in src/core/caller.ts); null: the cache is not used. */
  private readonly cacheScope: string | null;
  /** Passthrough: the cache scope is the caller's own credential, whose entries need a recent proof. */
  private readonly ownCredential: boolean;
  /** Tenants for which the upstream accepted this operation's credential during the operation. */
  private readonly provenTenants = new Set<string>();
  private readonly onRead: SessionOptions['onRead'];
  private readonly access: TenantAccess;
  /** What the retry loop and each attempt see of the operation. */
  private readonly forCalls: RetryOperation;
  /** What a read through the response cache sees of it. */
  private readonly forCache: CachedReadOperation | null;

  constructor(private readonly parts: UpstreamParts, options: SessionOptions) {
    const { settings } = parts;
    this.stats = options.stats ?? new OperationStats();
    this.authorization = options.authorization;
    this.onRead = options.onRead;
    this.access = options.access ?? TenantAccess.unrestricted;
    this.caller = options.caller ?? 'gateway';
    const stop = (this.stop = new OperationStop(parts.now, settings.operationTimeoutMs, options.signal));
    const scope = settings.cache && parts.cache ? cacheScope(parts.auth.mode, options.authorization, settings.cache.scopeSecret) : null;
    this.cacheScope = scope;
    this.ownCredential = scope !== null && parts.auth.mode === 'passthrough';
    this.budget = new OperationBudget(parts.budget, this.caller, (tenantId) => this.sharesBudgetOf(tenantId), () => stop.closed);
    const budget = this.budget;
    const proven = this.provenTenants;
    const hooks = this.ownCredential && parts.cache && scope !== null ? credentialHooks(parts.cache, scope, proven) : undefined;
    this.forCalls = {
      signal: stop.signal,
      deadline: stop.deadline,
      stats: this.stats,
      trace: options.trace,
      authorization: options.authorization,
      // A queued call is checked once more when its turn comes: past the deadline it is not sent.
      lane: parts.scheduler.lane(settings.upstreamMaxInFlightPerOperation, { expired: () => stop.kind() ?? undefined }),
      dispatchedCalls: () => this.dispatched,
      noteDispatch: () => void this.dispatched++,
      stopped: (what) => stop.stopped(what),
      onAbort: (abort) => stop.onAbort(abort),
      sleep: (ms) => stop.sleep(ms),
      spend: (call) => budget.spend(call),
      unspend: (call, charge) => budget.unspend(call, charge),
      credentialAccepted: hooks?.credentialAccepted,
      credentialRefused: hooks?.credentialRefused,
    };
    this.forCache = scope === null ? null : {
      stats: this.stats,
      cacheScope: scope,
      ownCredential: this.ownCredential,
      send: (call) => this.send(call),
      sendInBackground: (call) => this.sendInBackground(call),
      waitFor: (pending, call) => stop.waitFor(pending, call.what),
      proven: (tenantId) => proven.has(tenantId),
      noteProven: (tenantId) => void proven.add(tenantId),
      polledEvery: options.polledEvery,
    };
  }

  /**
   * The caller's right to act on the tenant (src/identity/access.ts), or a FORBIDDEN error: every
   * read and update passes here before the cache and the upstream; the data source asks too for
   * what it answers without a call (a tenant by id) and before an update's input is looked at.
   */
  authorize(tenantId: string, action: TenantAction): void {
    this.access.require(tenantId, action);
  }

  /** Aborts every queued and running call of the operation when its upstream work stops. */
  get signal(): AbortSignal {
    return this.stop.signal;
  }

  /**
   * Ends the operation's upstream work: clears the deadline timer and aborts whatever is still
   * queued or running (nothing more is sent). Call it once the operation's response is complete.
   */
  close(): void {
    if (this.stop.closed) return;
    this.stop.close();
    this.budget.refundAll();
  }

  /**
   * Whether this operation's reservations go to the fleet's windows: not while the caller's own
   * credential (passthrough) was never accepted by the upstream for the tenant, so a guessed token
   * writes nothing to Redis.
   */
  sharesBudgetOf(tenantId: string): boolean {
    return !this.ownCredential || this.provenTenants.has(tenantId) || (this.cacheScope !== null && this.parts.cache?.credentialKnown(this.cacheScope, tenantId) === true);
  }

  /**
   * How this operation's claims on these tenants' windows are made: as which caller, and in the
   * fleet's windows only when every tenant's are shared (a claim takes its windows at once).
   */
  claimAs(tenantIds: Iterable<string>): ClaimAs {
    let shared = true;
    for (const tenantId of tenantIds) shared &&= this.sharesBudgetOf(tenantId);
    return { shared, caller: this.caller };
  }

  /** The operation's claim on the tenants' windows (the rate-limit plugin made it): its calls spend it first. */
  addClaims(wants: readonly Want[], shared: boolean): void {
    this.budget.addClaims(wants, shared);
  }

  /** From now on the operation sends nothing upstream: its reads come from the cache or fail with this refusal. */
  answerFromCacheOnly(refusal: (call: Call) => UpstreamError): void {
    this.budget.answerFromCacheOnly(refusal);
  }

  private send(call: Call): Promise<Fetched> {
    return sendWithRetries(this.parts, this.forCalls, call);
  }

  private sendInBackground(call: Call): Promise<Fetched> {
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
    const value = !this.forCache || !this.parts.cache ? (await this.send(call)).value : await cachedRead(this.parts.cache, this.forCache, call);
    this.onRead?.({ route, tenantId, resourceId, query, windowEnd }, value, call.path);
    return value;
  }

  /**
   * A live poll of a read: the upstream's answer now; with the cache on, it becomes the fresh
   * entry. `since` (epoch ms): another replica's answer stored since then will do (with Redis).
   */
  async poll(read: UpstreamRead, since?: number): Promise<Fetched> {
    const call = this.call(read.route, read.tenantId, read.resourceId, read.query, read.windowEnd);
    if (!this.forCache || !this.parts.cache) return this.send(call);
    return revalidatedRead(this.parts.cache, this.forCache, call, since);
  }

  private call(route: RouteName, tenantId: string, resourceId: string | undefined, query: Record<string, QueryValue>, windowEnd?: number, body?: unknown): Call {
    const spec = ROUTES[route];
    this.authorize(tenantId, spec.method === 'GET' ? 'read' : 'write');
    const path = `${this.parts.basePath}${routePath(route, tenantId, resourceId, query)}`;
    const call: Call = { route, method: spec.method, tenantId, resourceId, path, body, what: spec.what(resourceId ?? '') };
    if (windowEnd !== undefined) call.windowEnd = windowEnd;
    return call;
  }
}

