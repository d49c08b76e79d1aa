/**
 * Latency samples and their percentiles, for bounds relative to a baseline measured in the same
 * test on the same machine at the same moments (issue 41): how long the machine takes to answer an
 * operation with no upstream work at all says what "at once" means there. A fixed number of
 * milliseconds is right on one machine and wrong on one half as fast, or busy with other work.
 */

/** The p-th percentile (0-1) of the samples (nearest rank), 0 for none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return 0;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

export interface LatencySummary {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

export function summary(samples: readonly number[]): LatencySummary {
  return { n: samples.length, p50: percentile(samples, 0.5), p99: percentile(samples, 0.99), max: samples.length ? Math.max(...samples) : 0 };
}

/** A summary as one line of a test's log. */
export function describeLatency(s: LatencySummary): string {
  return `${s.n} answers, p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms, slowest ${s.max.toFixed(1)} ms`;
}
