/**
 * What the log says about upstream failures: failed calls are one debug line each, and at warn one
 * summary line at most every FAILURE_SUMMARY_INTERVAL_MS (the first failure after a quiet interval
 * is reported at once); the circuit breaker's opening and closing at warn and info.
 */
import type { Logger } from '../logger.js';
import type { BreakerStateChange } from './breaker.js';
import type { GatewayErrorCode } from '../core/errors.js';
import type { UpstreamError } from './errors.js';
import type { RouteName } from '../core/routes.js';

const FAILURE_SUMMARY_INTERVAL_MS = 10_000;

/** Why a failing call was not tried again. */
export type GaveUp = 'not-retryable' | 'retries' | 'retry-budget' | 'circuit-open' | 'deadline' | 'retry-after';

export class FailureLog {
  private lastSummary = -Infinity;
  private count = 0;
  private byCode: Partial<Record<GatewayErrorCode, number>> = {};
  private byReason: Partial<Record<GaveUp, number>> = {};

  constructor(private readonly logger: Logger, private readonly now: () => number) {}

  /** A call that failed for good (after its retries, if any). */
  note(route: RouteName, error: UpstreamError, attempts: number, gaveUp: GaveUp): void {
    this.logger.debug('upstream call failed', { route, code: error.code, status: error.status, attempts, gaveUp });
    this.count++;
    this.byCode[error.code] = (this.byCode[error.code] ?? 0) + 1;
    this.byReason[gaveUp] = (this.byReason[gaveUp] ?? 0) + 1;
    const now = this.now();
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

export function logBreakerChange(logger: Logger, change: BreakerStateChange, cooldownMs: number): void {
  if (change.to === 'open' && change.from === 'closed') {
    logger.warn('upstream circuit breaker opened: calls are refused until a probe succeeds', { consecutiveFailures: change.consecutiveFailures, cooldownMs });
  } else if (change.to === 'closed') {
    logger.info('upstream circuit breaker closed: the inventory API answers again', { openForMs: change.openForMs, failedProbes: change.failedProbes });
  } else {
    // Probing (half-open) and a failed probe (open again) repeat every cool-down: debug only.
    logger.debug('upstream circuit breaker state', { from: change.from, to: change.to, failedProbes: change.failedProbes });
  }
}
