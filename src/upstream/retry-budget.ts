/**
 * A process-wide retry budget, in the manner of Finagle's RetryBudget, Envoy's retry budgets and
 * gRPC retry throttling: retries may add at most `percent` % of the first attempts made over a
 * sliding window, plus a small reserve of `minPerSecond` retries per second so that a quiet
 * process can still retry. Random faults are absorbed (at a fault rate p a call needs p/(1-p)
 * retries on average: 0.43 at 30%, within a 50% budget), while a failing upstream sees at most
 * (1 + percent/100) times the calls a healthy one would, instead of (1 + retries) times.
 */

export interface RetryBudgetOptions {
  /** Retries allowed per 100 first attempts within the window. */
  percent: number;
  /** Retries always allowed per second of the window, whatever the traffic. */
  minPerSecond: number;
  /** Length of the sliding window. */
  windowMs?: number;
  /** Monotonic clock in ms (tests inject one). */
  now?: () => number;
}

const BUCKETS = 10;
export const DEFAULT_RETRY_BUDGET_WINDOW_MS = 10_000;

export class RetryBudget {
  readonly percent: number;
  readonly minPerSecond: number;
  readonly windowMs: number;
  private readonly bucketMs: number;
  private readonly now: () => number;
  /** Per bucket: the bucket number it currently counts for, first attempts and retries. */
  private readonly epochs = new Array<number>(BUCKETS).fill(-1);
  private readonly requests = new Array<number>(BUCKETS).fill(0);
  private readonly retries = new Array<number>(BUCKETS).fill(0);
  /** Retries refused since the start (for metrics and logs). */
  refused = 0;

  constructor(options: RetryBudgetOptions) {
    this.percent = options.percent;
    this.minPerSecond = options.minPerSecond;
    this.windowMs = options.windowMs ?? DEFAULT_RETRY_BUDGET_WINDOW_MS;
    this.bucketMs = this.windowMs / BUCKETS;
    this.now = options.now ?? (() => performance.now());
  }

  /** A first attempt was sent: it earns `percent`/100 of a retry. */
  recordRequest(): void {
    this.requests[this.bucket()]!++;
  }

  /** Takes one retry from the budget; false (and nothing taken) when the budget is spent. */
  tryRetry(): boolean {
    const index = this.bucket();
    const { requests, retries } = this.totals();
    if (retries + 1 > this.allowance(requests)) {
      this.refused++;
      return false;
    }
    this.retries[index]!++;
    return true;
  }

  /** First attempts and retries within the window, and how many more retries it allows. */
  snapshot(): { requests: number; retries: number; available: number } {
    this.bucket();
    const { requests, retries } = this.totals();
    return { requests, retries, available: Math.max(0, Math.floor(this.allowance(requests) - retries)) };
  }

  private allowance(requests: number): number {
    return (requests * this.percent) / 100 + (this.minPerSecond * this.windowMs) / 1000;
  }

  private totals(): { requests: number; retries: number } {
    let requests = 0;
    let retries = 0;
    for (let i = 0; i < BUCKETS; i++) {
      requests += this.requests[i]!;
      retries += this.retries[i]!;
    }
    return { requests, retries };
  }

  /** The index of the current bucket, after clearing buckets that fell out of the window. */
  private bucket(): number {
    const epoch = Math.floor(this.now() / this.bucketMs);
    for (let i = 0; i < BUCKETS; i++) {
      if (this.epochs[i] !== -1 && this.epochs[i]! <= epoch - BUCKETS) {
        this.epochs[i] = -1;
        this.requests[i] = 0;
        this.retries[i] = 0;
      }
    }
    const index = epoch % BUCKETS;
    if (this.epochs[index] !== epoch) {
      this.epochs[index] = epoch;
      this.requests[index] = 0;
      this.retries[index] = 0;
    }
    return index;
  }
}
