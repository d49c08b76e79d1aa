/**
 * The retry loop of one call: a refused token is refreshed once; idempotent calls (and calls that
 * provably never left) are tried again with exponential backoff and jitter, honouring Retry-After
 * up to a cap, while the breaker is closed, the deadline leaves time and the process-wide retry
 * budget allows. Calls wait for their turn in the operation's lane of the fair scheduler.
 */
import { CircuitOpenError } from './breaker.js';
import type { UpstreamError } from './errors.js';
import { attempt, classifyFailure, type AttemptOperation, type Call } from './attempt.js';
import type { UpstreamParts } from './parts.js';
import type { GaveUp } from './failure-log.js';
import type { Fetched } from './cache-entry.js';
import type { Lane } from './scheduler.js';

const BACKOFF_BASE_MS = 50;
const BACKOFF_CAP_MS = 2_000;

/** What the retry loop needs of its operation (src/upstream/session.ts). */
export interface RetryOperation extends AttemptOperation {
  /** The caller's Authorization header, for passthrough. */
  readonly authorization: string | null;
  readonly lane: Lane;
  /** Waits ms, or less when the operation stops meanwhile. */
  sleep(ms: number): Promise<void>;
  /** The upstream accepted the caller's own credential for the tenant (passthrough). */
  credentialAccepted?(tenantId: string): void;
  /** The upstream refused the caller's credential (401) or its access (403 to a read). */
  credentialRefused?(tenantId: string, status: 401 | 403): Promise<void>;
}

/** Why an attempt is a retry: the failed attempt's HTTP status, else timeout or connection. */
export function retryReason(error: UpstreamError): string {
  if (error.status !== null) return String(error.status);
  return error.code === 'UPSTREAM_TIMEOUT' ? 'timeout' : 'connection';
}

/** The call's answer, or the error of its last attempt once no retry is left or allowed. */
export async function sendWithRetries(parts: UpstreamParts, operation: RetryOperation, call: Call): Promise<Fetched> {
  const { settings, auth, breaker, retryBudget } = parts;
  const idempotent = call.method === 'GET';
  let refreshedAuth = false;
  /** Attempts made so far (a retry after a token refresh included), and why the next one is made. */
  let tries = 0;
  let reason: string | null = null;
  for (let retry = 0; ; retry++) {
    const stop = operation.stopped(call.what);
    if (stop) throw stop;
    const authorization = auth.mode === 'none' ? null : await auth.header(operation.authorization);
    try {
      const number = ++tries;
      const retryOf = reason;
      const first = retry === 0;
      const fetched = await operation.lane.run(() => attempt(parts, operation, { call, authorization, number, retryOf, first }), operation.signal);
      operation.credentialAccepted?.(call.tenantId);
      return fetched;
    } catch (raw) {
      const error = classifyFailure(raw, operation, call.what);
      if (error.code === 'UNAUTHENTICATED' && error.status === 401 && !refreshedAuth && (await auth.refresh(authorization))) {
        refreshedAuth = true;
        reason = 'token-refresh';
        retry--;
        continue;
      }
      // A 403 to an update may only mean the credential cannot write: reads are refused by reads.
      if (operation.credentialRefused && (error.status === 401 || (error.status === 403 && idempotent)) && !error.local) {
        await operation.credentialRefused(call.tenantId, error.status);
      }
      reason = retryReason(error);
      const fail = (gaveUp: GaveUp): UpstreamError => {
        // The budget's own refusals never reached the upstream: they are not its failures.
        if (error.code !== 'NOT_FOUND' && error.code !== 'CLIENT_CLOSED_REQUEST' && !error.budgetRefusal) parts.failures.note(call.route, error, retry + 1, gaveUp);
        return error;
      };
      if (!(error.retryable && (idempotent || error.notSent))) throw fail(error instanceof CircuitOpenError ? 'circuit-open' : 'not-retryable');
      if (retry >= settings.upstreamRetries) throw fail('retries');
      // While the breaker refuses calls, waiting to retry would only delay the same answer.
      if (!breaker.isClosed) throw fail('circuit-open');
      let waitMs = parts.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retry);
      if (error.retryAfterMs !== null) {
        if (error.retryAfterMs > settings.maxRetryAfterMs) throw fail('retry-after');
        waitMs = Math.max(waitMs, error.retryAfterMs);
      }
      if (parts.now() + waitMs >= operation.deadline) throw fail('deadline');
      if (!retryBudget.tryRetry()) throw fail('retry-budget');
      operation.stats.retries++;
      await operation.sleep(waitMs);
    }
  }
}
