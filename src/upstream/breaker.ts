/**
 * A circuit breaker on the upstream (one per UpstreamClient). It opens on a run of consecutive
 * failures (connection errors, per-attempt timeouts, 5xx); while open, calls are refused at once
 * without touching the network. After a cool-down it is half-open: one call goes through as a
 * probe; its success closes the breaker, its failure opens it again for another cool-down.
 *
 * The run length is chosen so that random faults do not open it: at a fault rate p, a given call
 * starts a run of k failures with probability (1-p)·p^k, so over N calls the expected number of
 * such runs is about N·(1-p)·p^k. At p = 0.3 and k = 20 that is 2.4e-11 per call: once in about
 * 4·10^10 calls. A dead upstream produces such a run within a couple of operations.
 */
import { UpstreamError } from './errors.js';

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerOptions {
  /** Consecutive failures that open the breaker; 0 disables it. */
  failureThreshold: number;
  /** How long it stays open before letting a probe through. */
  cooldownMs: number;
  now?: () => number;
  onStateChange?: (change: BreakerStateChange) => void;
}

export interface BreakerStateChange {
  from: BreakerState;
  to: BreakerState;
  /** Consecutive failures that opened it (to 'open' from 'closed'). */
  consecutiveFailures: number;
  /** How long it had been open or half-open (to 'closed'), in ms. */
  openForMs: number;
  /** Probes that failed during this opening (to 'closed' and to 'open' from 'half-open'). */
  failedProbes: number;
}

/** Permission to send one call; report its outcome with success, failure or release. */
export interface BreakerPermit {
  readonly probe: boolean;
  settled: boolean;
}

/** A call refused because the breaker is open: no request was sent. */
export class CircuitOpenError extends UpstreamError {
  constructor(what: string) {
    super(`The inventory API is unavailable (failing repeatedly); ${what} was not requested`, 'UPSTREAM_UNAVAILABLE', null, false, true);
  }
}

export class CircuitBreaker {
  private current: BreakerState = 'closed';
  private consecutiveFailures = 0;
  private openedAt = 0;
  private retryAt = 0;
  private probeInFlight = false;
  private failedProbes = 0;
  private readonly now: () => number;
  /** Calls refused while open or half-open, since the start. */
  rejected = 0;

  constructor(private readonly options: BreakerOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  get enabled(): boolean {
    return this.options.failureThreshold > 0;
  }

  /** The state as of now: an open breaker whose cool-down is over reads as half-open. */
  get state(): BreakerState {
    if (this.current === 'open' && this.now() >= this.retryAt) return 'half-open';
    return this.current;
  }

  /** Whether a retry is worth waiting for: not while the breaker refuses calls. */
  get isClosed(): boolean {
    return this.current === 'closed';
  }

  /** A permit to send one call now, or null: refused (open, or half-open with its probe out). */
  acquire(): BreakerPermit | null {
    if (!this.enabled || this.current === 'closed') return { probe: false, settled: false };
    if (this.current === 'open') {
      if (this.now() < this.retryAt) {
        this.rejected++;
        return null;
      }
      this.transition('half-open');
    }
    if (this.probeInFlight) {
      this.rejected++;
      return null;
    }
    this.probeInFlight = true;
    return { probe: true, settled: false };
  }

  /** The upstream answered (anything but a 5xx). */
  success(permit: BreakerPermit): void {
    if (permit.settled) return;
    permit.settled = true;
    if (permit.probe) {
      this.probeInFlight = false;
      if (this.current === 'half-open') this.transition('closed');
      return;
    }
    // A call admitted before the breaker opened says nothing about the upstream now.
    if (this.current === 'closed') this.consecutiveFailures = 0;
  }

  /** Connection error, per-attempt timeout or 5xx. */
  failure(permit: BreakerPermit): void {
    if (permit.settled) return;
    permit.settled = true;
    if (permit.probe) {
      this.probeInFlight = false;
      if (this.current === 'half-open') {
        this.failedProbes++;
        this.open();
      }
      return;
    }
    if (this.current !== 'closed' || !this.enabled) return;
    this.consecutiveFailures++;
    if (this.consecutiveFailures >= this.options.failureThreshold) this.open();
  }

  /** The call ended without telling anything about the upstream (aborted by the gateway). */
  release(permit: BreakerPermit): void {
    if (permit.settled) return;
    permit.settled = true;
    if (permit.probe) this.probeInFlight = false;
  }

  private open(): void {
    this.retryAt = this.now() + this.options.cooldownMs;
    this.transition('open');
  }

  private transition(to: BreakerState): void {
    const from = this.current;
    if (from === to) return;
    const now = this.now();
    const change: BreakerStateChange = {
      from,
      to,
      consecutiveFailures: this.consecutiveFailures,
      openForMs: from === 'closed' ? 0 : Math.round(now - this.openedAt),
      failedProbes: this.failedProbes,
    };
    this.current = to;
    if (from === 'closed') this.openedAt = now;
    if (to === 'closed') {
      this.consecutiveFailures = 0;
      this.failedProbes = 0;
    }
    this.options.onStateChange?.(change);
  }
}
