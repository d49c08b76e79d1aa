/**
 * Who a request comes from, in the three senses the gateway needs. All start from the
 * Authorization header, but their digests differ on purpose and must stay so:
 * - callerKey: admission control's fairness key. It never leaves the process, so a plain SHA-256
 *   of the raw header suffices; without a header it falls back to the client's socket address.
 * - cacheScope: whose response-cache entries an answer may use. The scope is written into the
 *   shared store (Redis), so it is an HMAC under the cache's secret: someone reading Redis cannot
 *   test a guessed token against it. Outside passthrough all callers share the gateway's scope.
 * - budgetCaller: whose share of the rate-limit windows a call spends, written to Redis too: an
 *   HMAC of callerKey.
 */
import { createHash, createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Caller: a digest of the Authorization header when there is one, else the client's socket address. */
export function callerKey(ctx: { request?: Request; req?: IncomingMessage }): string {
  const authorization = ctx.request?.headers.get('authorization');
  if (authorization) return `auth:${createHash('sha256').update(authorization).digest('base64url').slice(0, 22)}`;
  const address = ctx.req?.socket?.remoteAddress;
  return address ? `addr:${address}` : 'anonymous';
}

/**
 * A caller as the rate-limit windows name it: written to Redis (the replicas share the callers'
 * shares), so an HMAC of callerKey under the secret it is given (the cache's, like the cache scope;
 * server/operation-context.ts passes a fixed one when the cache is off).
 */
export function budgetCaller(key: string, secret: string): string {
  const known = `${secret}\0${key}`;
  let caller = budgetCallers.get(known);
  if (caller === undefined) {
    caller = createHmac('sha256', secret).update(key).digest('base64url').slice(0, 16);
    if (budgetCallers.size >= BUDGET_CALLERS_MAX) budgetCallers.clear();
    budgetCallers.set(known, caller);
  }
  return caller;
}
/** HMACs already made (one per request otherwise, for the same few callers); emptied when full. */
const budgetCallers = new Map<string, string>();
const BUDGET_CALLERS_MAX = 10_000;

/**
 * The scope of a caller's entries: in passthrough an HMAC of the credential (never the
 * credential), in the other modes the gateway's own identity.
 */
export function cacheScope(mode: 'none' | 'passthrough' | 'client-credentials', authorization: string | null, secret: string): string | null {
  if (mode !== 'passthrough') return 'gw';
  const credential = authorization?.trim();
  if (!credential) return null;
  return createHmac('sha256', secret).update(credential).digest('base64url').slice(0, 32);
}
