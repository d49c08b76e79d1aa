/** What one GraphQL operation cost upstream; shown in `extensions.upstream` when asked for. */
export type RouteName =
  | 'search' | 'minimal' | 'detail' | 'update' | 'history' | 'historyDetail' | 'antivirus'
  | 'applications' | 'resourceTypes' | 'availability';

export class OperationStats {
  readonly calls: Partial<Record<RouteName, number>> = {};
  retries = 0;
  /** Sum of the durations of upstream attempts. */
  upstreamMs = 0;
  loaderHits = 0;
  loaderMisses = 0;

  recordCall(route: RouteName, ms: number): void {
    this.calls[route] = (this.calls[route] ?? 0) + 1;
    this.upstreamMs += ms;
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
    };
  }
}
