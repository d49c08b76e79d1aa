/**
 * Prometheus metrics (prom-client), served at /metrics. One registry per gateway (not the
 * process-global one), so that several gateways in one process (tests) keep their own counts.
 *
 * Label values are bounded: routes are the client's route names (templates, never ids),
 * statuses are HTTP status codes, operation names are kept only when they look like a GraphQL
 * name, for at most MAX_OPERATION_NAMES names ('other' for the rest): half of the places go to
 * names at their first sighting, the other half only to names seen again, so one-off names (a
 * scanner's) cannot take the places of the names that recur. (With trusted documents only the
 * manifest's operations run: only their names reach a label.)
 * Gauges of the scheduler, breaker, admission control and token requests are read at scrape time.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const MAX_OPERATION_NAMES = 200;
/** Names seen once, remembered until their second sighting; the oldest are forgotten first. */
const MAX_CANDIDATE_NAMES = 10_000;
const NAME = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/;

/**
 * The readings metrics take from parts above this layer, declared here so that metrics need not
 * import them: the circuit breaker's state and admission control's counts (src/upstream/breaker.ts
 * and src/server/limits/admission.ts satisfy these shapes as they are).
 */
export type BreakerReading = 'closed' | 'open' | 'half-open';
export interface AdmissionReading {
  inProgress: number;
  queued: number;
  admitted: number;
  /** Operations shed, by reason. */
  shed: Readonly<Record<string, number>>;
}

/** Live queries (src/server/live/live-query.ts): open operations, shared pollers, polls made. */
export interface LiveReading {
  operations: number;
  pollers: number;
  polls: number;
  /** With Redis: the reads this replica polls for the fleet. */
  leases: number;
}

/** What the metrics read at scrape time; set by createGateway. */
export interface MetricSources {
  breakerState(): BreakerReading;
  schedulerQueued(): number;
  schedulerInFlight(): number;
  tokenRequests(): number;
  admission(): AdmissionReading;
  live(): LiveReading;
  /** Bytes held by the response cache's in-process level (0 when it is off). */
  cacheMemoryBytes(): number;
  /** Estimated bytes the document cache holds (parsed documents and their compiled code: src/server/document-cache.ts). */
  documentCacheBytes(): number;
  /** Whether the shared store (Redis) is in use now; null when none is configured. */
  sharedStoreAvailable(): boolean | null;
  /** The upstream's rate limits (src/upstream/rate-budget.ts): remaining per category, and 429s of its throttle. */
  rateLimitRemaining(): { category: string; tenant: string; remaining: number }[];
  rateLimitThrottled(): Readonly<Record<string, number>>;
}

export type OperationOutcome = 'ok' | 'partial' | 'error';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly operationNames = new Set<string>();
  private readonly candidateNames = new Set<string>();
  private sources: MetricSources | null = null;
  private readonly operations: Counter<'operation_name' | 'operation_type' | 'outcome'>;
  private readonly operationSeconds: Histogram<'operation_name' | 'operation_type' | 'outcome'>;
  private readonly upstreamRequests: Counter<'route' | 'method' | 'status'>;
  private readonly cacheReads: Counter<'route' | 'result'>;
  private readonly upstreamSeconds: Histogram<'route' | 'status'>;
  private readonly retries: Counter<'route' | 'reason'>;
  private readonly loaderHits: Counter;
  private readonly rateLimitedOperations: Counter<'outcome'>;
  private readonly loaderMisses: Counter;
  private readonly authRefusals: Counter<'reason'>;

  constructor(options: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry });
    this.operations = new Counter({ name: 'graphql_operations_total', help: 'GraphQL operations by name, type and outcome (ok, partial: data and errors, error: no data).', labelNames: ['operation_name', 'operation_type', 'outcome'], registers });
    this.operationSeconds = new Histogram({ name: 'graphql_operation_duration_seconds', help: 'GraphQL operation latency, from the request to the result.', labelNames: ['operation_name', 'operation_type', 'outcome'], buckets: LATENCY_BUCKETS, registers });
    this.upstreamRequests = new Counter({ name: 'upstream_requests_total', help: 'Upstream HTTP requests (each attempt) by route template, method and HTTP status (0: no response).', labelNames: ['route', 'method', 'status'], registers });
    this.upstreamSeconds = new Histogram({ name: 'upstream_request_duration_seconds', help: 'Upstream request latency per attempt, by route template and HTTP status.', labelNames: ['route', 'status'], buckets: LATENCY_BUCKETS, registers });
    this.retries = new Counter({ name: 'upstream_retries_total', help: 'Upstream retries by route and the reason of the failed attempt (HTTP status, timeout, connection).', labelNames: ['route', 'reason'], registers });
    this.loaderHits = new Counter({ name: 'graphql_loader_hits_total', help: 'DataLoader hits: records served from the per-operation loaders without an upstream call.', registers });
    this.cacheReads = new Counter({ name: 'upstream_cache_reads_total', help: 'Upstream reads through the response cache by route and result: hit, miss (sent upstream), stale (served after its TTL), coalesced (shared an identical call in flight), awaited (answered by another replica\'s call, with Redis).', labelNames: ['route', 'result'], registers });
    this.authRefusals = new Counter({ name: 'gateway_auth_refusals_total', help: 'Requests refused by inbound identity, by reason: a token refused (TOKEN_MISSING, TOKEN_EXPIRED, BAD_SIGNATURE...: HTTP 401), IDENTITY_PROVIDER_UNAVAILABLE (no keys yet: 503), and FORBIDDEN fields (TENANT_NOT_GRANTED, SCOPE_MISSING).', labelNames: ['reason'], registers });
    this.loaderMisses = new Counter({ name: 'graphql_loader_misses_total', help: 'DataLoader misses: loads that went upstream.', registers });
    // collect() runs with the metric as `this`: the sources are read through this closure.
    const source = (): MetricSources | null => this.sources;
    new Gauge({
      name: 'upstream_circuit_breaker_state', help: 'Circuit breaker: 1 for the current state (closed, open, half-open), 0 for the others.', labelNames: ['state'], registers,
      collect() {
        const state = source()?.breakerState() ?? 'closed';
        for (const s of ['closed', 'open', 'half-open'] as const) this.set({ state: s }, s === state ? 1 : 0);
      },
    });
    new Gauge({ name: 'upstream_scheduler_queued', help: 'Upstream calls waiting for a slot in the fair scheduler.', registers, collect() { this.set(source()?.schedulerQueued() ?? 0); } });
    new Gauge({ name: 'upstream_cache_memory_bytes', help: 'Bytes held by the response cache in process (its LRU bound is CACHE_MAX_BYTES).', registers, collect() { this.set(source()?.cacheMemoryBytes() ?? 0); } });
    new Gauge({ name: 'gateway_document_cache_bytes', help: 'Estimated heap held by the document cache: parsed documents and their compiled code (its LRU bound is DOCUMENT_CACHE_MAX_BYTES).', registers, collect() { this.set(source()?.documentCacheBytes() ?? 0); } });
    new Gauge({ name: 'upstream_cache_shared_available', help: 'The shared cache level (Redis) is in use: 1; unreachable (the in-process level answers alone) or no REDIS_URL: 0.', registers, collect() { this.set(source()?.sharedStoreAvailable() ? 1 : 0); } });
    new Gauge({ name: 'upstream_in_flight', help: 'Upstream calls in flight.', registers, collect() { this.set(source()?.schedulerInFlight() ?? 0); } });
    new Counter({
      name: 'upstream_token_requests_total', help: 'Token requests to the OAuth2 token endpoint (client-credentials mode): the first token and every refresh.', registers,
      collect() { this.reset(); this.inc(source()?.tokenRequests() ?? 0); },
    });
    new Gauge({ name: 'gateway_admission_in_progress', help: 'Upstream call slots claimed by admitted operations.', registers, collect() { this.set(source()?.admission().inProgress ?? 0); } });
    new Gauge({ name: 'gateway_live_operations', help: 'Open live queries (@live).', registers, collect() { this.set(source()?.live().operations ?? 0); } });
    new Gauge({ name: 'gateway_live_pollers', help: 'Distinct upstream reads polled for the open live queries (one poller each, shared by their viewers).', registers, collect() { this.set(source()?.live().pollers ?? 0); } });
    new Gauge({ name: 'gateway_live_poll_leases', help: 'With Redis: the live reads this replica polls for the whole fleet (the others hear its answers).', registers, collect() { this.set(source()?.live().leases ?? 0); } });
    new Counter({ name: 'gateway_live_polls_total', help: 'Polls made for live queries.', registers, collect() { this.reset(); this.inc(source()?.live().polls ?? 0); } });
    this.rateLimitedOperations = new Counter({ name: 'gateway_rate_limited_operations_total', help: 'Operations the tenant\'s upstream rate-limit budget could not cover, by outcome: cached (answered from the cache, flagged stale where stale), refused (one RATE_LIMITED error).', labelNames: ['outcome'], registers });
    new Gauge({
      name: 'upstream_rate_limit_remaining', help: 'Upstream calls left in the current rate-limit window, by category (paginated, other, update) and tenant: the tenants listed in RATE_LIMIT_METRIC_TENANTS, and "lowest", the least of all tenants.', labelNames: ['category', 'tenant'], registers,
      collect() {
        this.reset();
        for (const { category, tenant, remaining } of source()?.rateLimitRemaining() ?? []) this.set({ category, tenant }, remaining);
      },
    });
    new Counter({
      name: 'upstream_throttled_total', help: 'Answers of the upstream refusing a call for its rate limit (429), by category.', labelNames: ['category'], registers,
      collect() {
        this.reset();
        for (const [category, n] of Object.entries(source()?.rateLimitThrottled() ?? {})) this.inc({ category }, n);
      },
    });
    new Gauge({ name: 'gateway_admission_queued', help: 'Operations waiting for admission.', registers, collect() { this.set(source()?.admission().queued ?? 0); } });
    new Counter({ name: 'gateway_admission_admitted_total', help: 'Operations admitted.', registers, collect() { this.reset(); this.inc(source()?.admission().admitted ?? 0); } });
    new Counter({
      name: 'gateway_admission_shed_total', help: 'Operations shed by admission control, by reason.', labelNames: ['reason'], registers,
      collect() {
        this.reset();
        const shed = source()?.admission().shed;
        for (const [reason, n] of Object.entries(shed ?? {})) this.inc({ reason }, n);
      },
    });
  }

  /** A request or field refused by inbound identity (src/server/edge/authentication.ts), by reason. */
  authRefusal(reason: string): void {
    this.authRefusals.inc({ reason });
  }

  /** An operation the rate-limit budget could not cover: answered from the cache, or refused (RATE_LIMITED). */
  rateLimitedOperation(outcome: 'cached' | 'refused'): void {
    this.rateLimitedOperations.inc({ outcome });
  }

  setSources(sources: MetricSources): void {
    this.sources = sources;
  }

  /** A bounded label value for a client-chosen operation name. */
  operationLabel(name: string | null | undefined): string {
    if (!name) return 'anonymous';
    if (!NAME.test(name)) return 'invalid';
    if (this.operationNames.has(name)) return name;
    if (this.operationNames.size >= MAX_OPERATION_NAMES) return 'other';
    if (!this.candidateNames.delete(name) && this.operationNames.size >= MAX_OPERATION_NAMES / 2) {
      if (this.candidateNames.size >= MAX_CANDIDATE_NAMES) this.candidateNames.delete(this.candidateNames.values().next().value!);
      this.candidateNames.add(name);
      return 'other';
    }
    this.operationNames.add(name);
    return name;
  }

  operation(name: string | null | undefined, type: string, outcome: OperationOutcome, seconds: number): void {
    const labels = { operation_name: this.operationLabel(name), operation_type: type, outcome };
    this.operations.inc(labels);
    this.operationSeconds.observe(labels, seconds);
  }

  /** Bound children per route, method and status: the hot path (one call per upstream attempt) hashes no labels. */
  private readonly upstreamChildren = new Map<string, { count: { inc(): void }; seconds: { observe(v: number): void } }>();

  upstreamRequest(route: string, method: string, status: number, seconds: number): void {
    const key = `${route} ${method} ${status}`;
    let child = this.upstreamChildren.get(key);
    if (!child) {
      const s = String(status);
      child = { count: this.upstreamRequests.labels({ route, method, status: s }), seconds: this.upstreamSeconds.labels({ route, status: s }) };
      this.upstreamChildren.set(key, child);
    }
    child.count.inc();
    child.seconds.observe(seconds);
  }

  retry(route: string, reason: string): void {
    this.retries.inc({ route, reason });
  }

  cacheRead(route: string, result: 'hit' | 'miss' | 'stale' | 'coalesced' | 'awaited'): void {
    this.cacheReads.inc({ route, result });
  }

  loader(hits: number, misses: number): void {
    if (hits > 0) this.loaderHits.inc(hits);
    if (misses > 0) this.loaderMisses.inc(misses);
  }

  async text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
