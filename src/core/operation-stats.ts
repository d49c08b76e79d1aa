/** What one GraphQL operation cost upstream; shown in `extensions.upstream` when asked for. */
import type { RouteName } from './routes.js';

export type { RouteName };

/** revalidating: within stale-while-revalidate; upstream-error: the upstream failed; rate-limited: the tenant's rate-limit budget could not cover the read. */
export type StaleReason = 'revalidating' | 'upstream-error' | 'rate-limited';

/** An answer served from the response cache after its TTL (reported in `extensions.stale`). */
export interface StaleRead {
  route: RouteName;
  tenantId: string;
  resourceId?: string;
  ageMs: number;
  reason: StaleReason;
  /** rate-limited: when the tenant's window resets (ISO 8601). */
  resetAt?: string;
}

export class OperationStats {
  readonly calls: Partial<Record<RouteName, number>> = {};
  retries = 0;
  /** Sum of the durations of upstream attempts. */
  upstreamMs = 0;
  loaderHits = 0;
  loaderMisses = 0;
  /** Reads answered by the response cache, reads it sent upstream, reads that shared another operation's call. */
  cacheHits = 0;
  cacheMisses = 0;
  coalesced = 0;
  readonly staleReads: StaleRead[] = [];

  noteStale(read: StaleRead): void {
    this.staleReads.push(read);
  }

  recordCall(route: RouteName, ms: number): void {
    this.calls[route] = (this.calls[route] ?? 0) + 1;
    this.upstreamMs += ms;
  }

  /** Adds another execution's counts (a live query's re-runs, to the operation's own). */
  add(other: OperationStats): void {
    for (const [route, count] of Object.entries(other.calls) as [RouteName, number][]) this.calls[route] = (this.calls[route] ?? 0) + count;
    this.retries += other.retries;
    this.upstreamMs += other.upstreamMs;
    this.loaderHits += other.loaderHits;
    this.loaderMisses += other.loaderMisses;
    this.cacheHits += other.cacheHits;
    this.cacheMisses += other.cacheMisses;
    this.coalesced += other.coalesced;
  }

  get totalCalls(): number {
    return Object.values(this.calls).reduce((a, b) => a + (b ?? 0), 0);
  }

  toJSON() {
    return {
      calls: { ...this.calls },
      totalCalls: this.totalCalls,
      retries: this.retries,
      upstreamMs: Math.round(this.upstreamMs * 10) / 10,
      loaderHits: this.loaderHits,
      loaderMisses: this.loaderMisses,
      cacheHits: this.cacheHits,
      cacheMisses: this.cacheMisses,
      coalesced: this.coalesced,
      staleReads: this.staleReads.length,
    };
  }
}
