/**
 * Inbound identity at the HTTP edge: every GraphQL request (POST, GET, batches, SSE) carries a
 * token from one of the configured OpenID issuers, judged before its body is parsed; a refused one
 * is HTTP 401 with `WWW-Authenticate: Bearer` and one UNAUTHENTICATED error naming the reason
 * (never the token), and costs nothing upstream. WebSocket operations are judged by the same
 * `authenticate` (src/server/edge/websocket.ts). What the caller may do once known is the rule in
 * src/identity/access.ts; its streams end when its token does (endWithToken).
 */
import { GraphQLError, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { IdentitySettings } from '../../identity/settings.js';
import type { GatewayContext } from '../../context.js';
import { TenantAccess, type Identity } from '../../identity/access.js';
import type { RefusalReason, TokenVerifier } from '../../identity/verifier.js';
import type { GatewayMetrics } from '../../observability/metrics.js';

const MESSAGES: Record<RefusalReason, string> = {
  TOKEN_MISSING: 'Sign in: send a bearer token in the Authorization header.',
  TOKEN_MALFORMED: 'The Authorization header does not carry a well-formed bearer token.',
  TOKEN_EXPIRED: 'The token has expired: sign in again or refresh it.',
  TOKEN_NOT_YET_VALID: 'The token is not valid yet.',
  BAD_SIGNATURE: 'The token\'s signature does not verify.',
  WRONG_ISSUER: 'The token comes from an issuer this gateway does not accept.',
  WRONG_AUDIENCE: 'The token is not meant for this gateway (audience).',
  ALGORITHM_NOT_ALLOWED: 'The token is signed with an algorithm this gateway does not accept.',
  UNKNOWN_KEY: 'The token is signed with a key its issuer does not publish.',
  CLAIMS_INVALID: 'The token\'s claims do not name a caller (subject, expiry) or its grants are malformed.',
};

/** The refusal of a token: 401 over HTTP (Yoga reads extensions.http; it is not sent to the client). */
export function unauthenticated(reason: RefusalReason): GraphQLError {
  const challenge = reason === 'TOKEN_MISSING' ? 'Bearer' : `Bearer error="invalid_token", error_description="${reason}"`;
  return new GraphQLError(MESSAGES[reason], { extensions: { code: 'UNAUTHENTICATED', reason, http: { status: 401, headers: { 'WWW-Authenticate': challenge } } } });
}

/** The issuer's keys are not loaded yet: 503, not 401 (the token may be fine) and not 500. */
function providerUnavailable(): GraphQLError {
  return new GraphQLError('The identity provider has not answered yet, so tokens cannot be verified; retry shortly.', {
    extensions: { code: 'IDENTITY_PROVIDER_UNAVAILABLE', retryAfterSeconds: 1, http: { status: 503, headers: { 'Retry-After': '1' } } },
  });
}

export class Authentication {
  private readonly identities = new WeakMap<Request, Identity>();

  /** verifier null: no inbound identity (every request may do everything). */
  constructor(private readonly verifier: TokenVerifier | null, private readonly settings: IdentitySettings | null, private readonly metrics: GatewayMetrics | null) {}

  get enabled(): boolean {
    return this.verifier !== null;
  }

  /** Judges the request's token: null when it may go on (its identity is then known), else the refusal. */
  async authenticate(request: Request): Promise<GraphQLError | null> {
    if (!this.verifier) return null;
    const verdict = await this.verifier.verify(request.headers.get('authorization'));
    if ('identity' in verdict) {
      this.identities.set(request, verdict.identity);
      return null;
    }
    const refusal = 'refused' in verdict ? unauthenticated(verdict.refused) : providerUnavailable();
    this.metrics?.authRefusal('refused' in verdict ? verdict.refused : 'IDENTITY_PROVIDER_UNAVAILABLE');
    return refusal;
  }

  identityOf(request: Request | undefined): Identity | null {
    return request ? (this.identities.get(request) ?? null) : null;
  }

  /** What the request's caller may do: everything without inbound identity, nothing without a verified token. */
  accessOf(request: Request | undefined): TenantAccess {
    if (!this.verifier || !this.settings) return TenantAccess.unrestricted;
    const identity = this.identityOf(request);
    return identity ? TenantAccess.of(identity, this.settings) : TenantAccess.nobody(this.settings);
  }

  /** /readyz: not ready until every issuer's keys are held. */
  waitingFor(): string[] {
    return this.verifier?.waitingFor() ?? [];
  }

  /** The Yoga plugin: the token judged before the body is parsed; FORBIDDEN fields counted. */
  plugin(): Plugin<GatewayContext> {
    return {
      onRequestParse: async ({ request }) => {
        const refusal = await this.authenticate(request);
        if (refusal) throw refusal;
      },
      onExecute: () => {
        const metrics = this.metrics;
        if (!metrics) return undefined;
        return {
          onExecuteDone: ({ result }) => {
            if (Symbol.asyncIterator in Object(result)) return;
            for (const error of (result as ExecutionResult).errors ?? []) {
              if (error.extensions?.code === 'FORBIDDEN') metrics.authRefusal(String(error.extensions.reason ?? 'FORBIDDEN'));
            }
          },
        };
      },
    };
  }
}

/** setTimeout's longest delay (about 24.8 days); a later expiry is re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The error a stream ends with when its token expires (the same reason as a refused expired token, without the HTTP status). */
export function tokenExpired(): GraphQLError {
  return new GraphQLError(MESSAGES.TOKEN_EXPIRED, { extensions: { code: 'UNAUTHENTICATED', reason: 'TOKEN_EXPIRED' } });
}

/** Calls `then` at the epoch millisecond `at` (or at once when it is past); returns the cancel. */
export function atTime(at: number, then: () => void): () => void {
  let timer: NodeJS.Timeout;
  const arm = () => {
    const left = at - Date.now();
    if (left <= 0) return then();
    timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
  };
  arm();
  return () => clearTimeout(timer);
}

/**
 * The results of a stream until the token's expiry; then one UNAUTHENTICATED (TOKEN_EXPIRED)
 * payload and the end (the source is closed: its live polls and sessions end with it).
 */
function untilExpiry(source: AsyncIterableIterator<ExecutionResult>, expiresAtMs: number): AsyncIterableIterator<ExecutionResult> {
  let expire!: () => void;
  const expired = new Promise<'expired'>((resolve) => (expire = () => resolve('expired')));
  const cancel = atTime(expiresAtMs, expire);
  let done = false;
  const finish = async () => {
    done = true;
    cancel();
    await source.return?.();
  };
  return {
    async next() {
      if (done) return { done: true, value: undefined };
      const outcome = await Promise.race([source.next(), expired]);
      if (outcome === 'expired') {
        void finish();
        return { done: false, value: { errors: [tokenExpired()] } };
      }
      if (outcome.done) {
        done = true;
        cancel();
      }
      return outcome;
    },
    async return() {
      await finish();
      return { done: true, value: undefined };
    },
    async throw(error) {
      await finish();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/**
 * Streams end with their token (as Apollo Router ends subscriptions): a live query or a deferred
 * answer over SSE or multipart ends at the token's `exp` with one UNAUTHENTICATED error. Over
 * WebSocket the connection ends instead (src/server/edge/websocket.ts), so that graphql-ws clients
 * reconnect with a fresh token and carry on.
 */
export function streamsEndWithTokenPlugin(): Plugin<GatewayContext> {
  return {
    onExecute: ({ args }) => {
      const ctx = args.contextValue as GatewayContext & { overWebSocket?: boolean };
      const expiresAtMs = ctx.identity?.expiresAtMs;
      if (expiresAtMs === undefined || ctx.overWebSocket) return undefined;
      return {
        onExecuteDone: ({ result, setResult }) => {
          if (!(Symbol.asyncIterator in Object(result))) return;
          setResult(untilExpiry(result as AsyncIterableIterator<ExecutionResult>, expiresAtMs) as never);
        },
      };
    },
  };
}
