/**
 * What the simulator counts for tests and benchmarks: calls per route, requests in flight,
 * injected faults, tokens issued, throttling, and a capped log of the most recent requests.
 */
import type { RouteName } from './routes.js';
import type { FailureKind, RateCategory } from './settings.js';

const REQUEST_LOG_CAP = 5000;
/** Tenants whose rate counts are itemized in byTenant; the counts of any further ones go to OTHER_TENANTS. */
const TENANTS_ITEMIZED = 10_000;
const OTHER_TENANTS = '(other tenants)';

export interface LoggedRequest { method: string; route: RouteName | 'unknown'; url: string; at: number; traceparent?: string; clientId?: string }

export interface SimulatorStats {
  calls: Partial<Record<RouteName, number>>;
  totalCalls: number;
  inFlight: number;
  maxInFlight: number;
  faults: Record<FailureKind | 'hang', number>;
  tokensIssued: number;
  /** Requests answered 429 by the rate limits (not the scripted or drawn 429 faults, which are in `faults`). */
  throttled: number;
  throttledByRoute: Partial<Record<RouteName, number>>;
  /** Per tenant and rate-limit category: requests counted against the budget, and requests throttled (the first 10,000 tenants; then '(other tenants)'). */
  byTenant: Record<string, Record<RateCategory, RateCount>>;
  /** Most recent requests (method, route, path with query, the client whose valid token it carried), oldest first, capped. */
  requests: LoggedRequest[];
}

export interface RateCount { calls: number; throttled: number }

export interface StatsRoom {
  /** The live figures, for answering GET /__sim/stats without a copy. */
  current(): Readonly<SimulatorStats>;
  /** A copy the caller may keep. */
  snapshot(): SimulatorStats;
  /** Zero everything but the requests still in flight, which will still finish. */
  reset(): void;
  logRequest(entry: LoggedRequest): void;
  /** Counts a call of a route as started; the returned function counts it finished (once, however often called). */
  begin(route: RouteName): () => void;
  faultInjected(kind: FailureKind | 'hang'): void;
  tokenIssued(): void;
  /** A request the rate limits counted (admitted) or throttled. */
  rateLimited(route: RouteName, tenantId: string, category: RateCategory, admitted: boolean): void;
}

const emptyStats = (): SimulatorStats => ({
  calls: {}, totalCalls: 0, inFlight: 0, maxInFlight: 0, faults: { '503': 0, drop: 0, '429': 0, hang: 0 }, tokensIssued: 0,
  // Keyed by tenant ids from request paths: no prototype for one of them to name.
  throttled: 0, throttledByRoute: {}, byTenant: Object.create(null) as SimulatorStats['byTenant'], requests: [],
});

export function createStats(): StatsRoom {
  let stats = emptyStats();
  /** Tenants itemized in stats.byTenant. */
  let itemized = 0;
  return {
    current: () => stats,
    snapshot: () => structuredClone(stats),
    reset() {
      const inFlight = stats.inFlight;
      stats = emptyStats();
      itemized = 0;
      stats.inFlight = inFlight;
    },
    logRequest(entry) {
      stats.requests.push(entry);
      if (stats.requests.length > REQUEST_LOG_CAP) stats.requests.splice(0, stats.requests.length - REQUEST_LOG_CAP);
    },
    begin(route) {
      stats.calls[route] = (stats.calls[route] ?? 0) + 1;
      stats.totalCalls++;
      stats.inFlight++;
      stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
      let finished = false;
      return () => {
        if (finished) return;
        finished = true;
        // The figures of now: after a reset the call is carried over in the new inFlight.
        stats.inFlight--;
      };
    },
    faultInjected(kind) {
      stats.faults[kind]++;
    },
    tokenIssued() {
      stats.tokensIssued++;
    },
    rateLimited(route, tenantId, category, admitted) {
      // Itemized for the first tenants only: callers that invent tenant ids must not grow it for ever.
      if (!(tenantId in stats.byTenant) && itemized++ >= TENANTS_ITEMIZED) tenantId = OTHER_TENANTS;
      const counts = (stats.byTenant[tenantId] ??= {
        paginated: { calls: 0, throttled: 0 }, other: { calls: 0, throttled: 0 }, update: { calls: 0, throttled: 0 },
      })[category];
      if (admitted) { counts.calls++; return; }
      counts.throttled++;
      stats.throttled++;
      stats.throttledByRoute[route] = (stats.throttledByRoute[route] ?? 0) + 1;
    },
  };
}
