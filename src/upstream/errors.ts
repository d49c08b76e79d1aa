/**
 * Upstream failures as GraphQL errors with the codes of the design notes. Messages name the
 * operation and the status, never the upstream URL, a token or a body that could hold secrets.
 */
import { GraphQLError } from 'graphql';
import type { GatewayErrorCode } from '../core/errors.js';

export class UpstreamError extends GraphQLError {
  constructor(
    message: string,
    readonly code: GatewayErrorCode,
    readonly status: number | null,
    /** Worth another attempt (connection errors, 429, 502-504). */
    readonly retryable: boolean,
    /** The request provably never reached the upstream, so even a POST may be retried. */
    readonly notSent = false,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message, { extensions: { code, ...(status !== null ? { upstreamStatus: status } : {}) } });
  }

  /**
   * The operation stopped for reasons of its own (its client left, its deadline or call budget ran
   * out): it says nothing about the upstream, so operations sharing the call try on their own.
   */
  local = false;

  /**
   * The gateway's own rate-limit budget refused the call (nothing was sent): not an upstream
   * failure (no failure log, no breaker), and an operation sharing the call may be covered by its
   * own claim, so it calls on its own. The cache may still answer it stale.
   */
  budgetRefusal = false;
}

/** An UpstreamError about the operation itself, not the upstream (see UpstreamError.local). */
export function operationStop(message: string, code: GatewayErrorCode): UpstreamError {
  const error = new UpstreamError(message, code, null, false);
  error.local = true;
  return error;
}

/** A 2xx answer whose body is not the documented shape. */
export function unexpectedShape(what: string): UpstreamError {
  return new UpstreamError(`The inventory API sent an unexpected shape for ${what}`, 'UPSTREAM_BAD_RESPONSE', 200, false);
}

export class UpstreamNotFound extends UpstreamError {
  /** The upstream said the tenant itself is unknown (a 404 on a record read is otherwise about the record). */
  readonly tenantUnknown: boolean;

  constructor(what: string, reason: string | null = null) {
    super(`${what} was not found`, 'NOT_FOUND', 404, false);
    this.tenantUnknown = reason !== null && /\btenant\b/i.test(reason);
  }
}

/**
 * A call the tenant's rate-limit budget cannot cover (or a 429): RATE_LIMITED with the seconds
 * until the upstream's window resets. Not the operation's own stop: the response cache may serve
 * a stale answer in its place (flagged `rate-limited`).
 */
export function rateLimited(message: string, reset: ResetTime, status: number | null = null): UpstreamError {
  const error = new UpstreamError(message, 'RATE_LIMITED', status, false, status === null, reset.untilMs);
  error.budgetRefusal = status === null;
  error.extensions.retryAfter = Math.max(1, Math.ceil(reset.untilMs / 1000));
  error.extensions.resetAt = new Date(reset.atMs).toISOString();
  return error;
}

/** When a rate-limit window resets: epoch milliseconds, and how long from now. */
export interface ResetTime {
  atMs: number;
  untilMs: number;
}

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);

/** Retry-After: delta seconds or an HTTP date. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  if (/^\d+(\.\d+)?$/.test(text.trim())) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** An error status from the upstream, with a short reason from its body when it has one. */
export function errorForStatus(status: number, what: string, reason: string | null, retryAfterMs: number | null): UpstreamError {
  const detail = reason ? `: ${reason}` : '';
  if (status === 404) return new UpstreamNotFound(what, reason);
  if (status === 400 || status === 422) return new UpstreamError(`The inventory API rejected the request for ${what}${detail}`, 'BAD_USER_INPUT', status, false);
  if (status === 401) return new UpstreamError(`The inventory API did not accept the credentials for ${what}`, 'UNAUTHENTICATED', status, false);
  if (status === 403) return new UpstreamError(`Not allowed to read ${what}`, 'FORBIDDEN', status, false);
  if (status === 429) return new UpstreamError(`The inventory API is rate limiting requests for ${what}`, 'RATE_LIMITED', status, true, false, retryAfterMs);
  if (status === 504) return new UpstreamError(`The inventory API timed out on ${what}`, 'UPSTREAM_TIMEOUT', status, true);
  return new UpstreamError(`The inventory API failed on ${what} (status ${status})`, 'UPSTREAM_UNAVAILABLE', status, RETRYABLE_STATUS.has(status));
}

/** Reasons from an error body are kept short and stripped of anything URL- or token-like. */
export function safeReason(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const b = body as Record<string, unknown>;
  const text = [b.message, b.error_description, b.error].find((v): v is string => typeof v === 'string' && v.trim() !== '');
  if (!text) return null;
  return text
    .replace(/https?:\/\/\S+/gi, '[url]')
    .replace(/bearer\s+\S+/gi, 'Bearer [redacted]')
    .replace(/[\u0000-\u001f]/g, ' ')
    .slice(0, 200);
}
