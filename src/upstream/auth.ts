/**
 * How upstream calls are authorised: `none`, `passthrough` (the caller's Authorization header),
 * or `client-credentials` (an OAuth2 token the gateway obtains, caches until shortly before it
 * expires, and refreshes once for all concurrent callers).
 */
import { request, type Dispatcher } from 'undici';
import type { AuthMode } from '../config.js';
import type { Logger } from '../logger.js';
import { gatewayError, safeReason } from './errors.js';

export interface UpstreamAuth {
  readonly mode: AuthMode;
  /** The Authorization header for an upstream call, or null for none. Throws UNAUTHENTICATED when there can be none. */
  header(callerAuthorization: string | null): Promise<string | null>;
  /** Called after a 401 with the header that was refused; true when a retry may succeed. */
  refresh(refused: string | null): Promise<boolean>;
  /** Readiness: can a header be produced at all? */
  check(): Promise<void>;
  /** Token requests made so far (client credentials); absent where none are made. */
  readonly tokenRequests?: number;
}

export const noAuth: UpstreamAuth = {
  mode: 'none',
  header: async () => null,
  refresh: async () => false,
  check: async () => undefined,
};

export const passthroughAuth: UpstreamAuth = {
  mode: 'passthrough',
  async header(callerAuthorization) {
    if (!callerAuthorization || !/^\S+\s+\S+/.test(callerAuthorization.trim())) {
      throw gatewayError('UNAUTHENTICATED', 'An Authorization header is required: the gateway forwards it to the inventory API');
    }
    return callerAuthorization.trim();
  },
  refresh: async () => false,
  check: async () => undefined,
};

interface CachedToken { header: string; expiresAt: number }

export interface ClientCredentialsOptions {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  dispatcher: Dispatcher;
  timeoutMs: number;
  logger: Logger;
  now?: () => number;
}

export class ClientCredentialsAuth implements UpstreamAuth {
  readonly mode = 'client-credentials' as const;
  private cached: CachedToken | null = null;
  private pending: Promise<CachedToken> | null = null;
  /** Counts token requests, for the upstream stats and tests. */
  tokenRequests = 0;

  constructor(private readonly options: ClientCredentialsOptions) {
    options.logger.addSecret(options.clientSecret);
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  async header(): Promise<string> {
    if (this.cached && this.cached.expiresAt > this.now()) return this.cached.header;
    return (await this.fetchOnce()).header;
  }

  async refresh(refused: string | null): Promise<boolean> {
    // A token newer than the refused one is already here: another caller refreshed it.
    if (this.cached && this.cached.header !== refused) return true;
    // The first caller to see a 401 for this token drops it; concurrent ones share its request.
    this.cached = null;
    await this.fetchOnce();
    return true;
  }

  async check(): Promise<void> {
    await this.header();
  }

  /** Single flight: concurrent callers share one token request. */
  private fetchOnce(): Promise<CachedToken> {
    if (!this.pending) {
      this.pending = this.fetchToken().finally(() => {
        this.pending = null;
      });
    }
    return this.pending;
  }

  private async fetchToken(): Promise<CachedToken> {
    const { tokenUrl, clientId, clientSecret, dispatcher, timeoutMs, logger } = this.options;
    this.tokenRequests++;
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
    let status: number;
    let body: unknown;
    try {
      const response = await request(tokenUrl, {
        dispatcher,
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      status = response.statusCode;
      body = await response.body.json().catch(() => null);
    } catch (error) {
      logger.warn('token request failed', { error });
      throw gatewayError('UPSTREAM_UNAVAILABLE', 'Could not reach the token endpoint of the inventory API');
    }
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    if (status < 200 || status >= 300 || typeof b.access_token !== 'string' || b.access_token === '') {
      const reason = safeReason(body);
      logger.warn('token request refused', { status, reason });
      if (status >= 500) throw gatewayError('UPSTREAM_UNAVAILABLE', `The token endpoint failed (status ${status})`);
      throw gatewayError('UNAUTHENTICATED', `The inventory API refused the gateway's client credentials${reason ? `: ${reason}` : ''}`);
    }
    logger.addSecret(b.access_token);
    const expiresIn = Number(b.expires_in);
    const ttlMs = Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn * 1000 : 300_000;
    // Refresh a little early so a token does not expire between check and use.
    const margin = Math.min(60_000, ttlMs * 0.1);
    const type = typeof b.token_type === 'string' && b.token_type.toLowerCase() !== 'bearer' ? b.token_type : 'Bearer';
    this.cached = { header: `${type} ${b.access_token}`, expiresAt: this.now() + ttlMs - margin };
    return this.cached;
  }
}

export function createUpstreamAuth(
  config: { authMode: AuthMode; clientId: string | null; clientSecret: string | null; tokenUrl: string | null; upstreamTimeoutMs: number },
  baseUrl: string,
  dispatcher: Dispatcher,
  logger: Logger,
): UpstreamAuth {
  if (config.authMode === 'none') return noAuth;
  if (config.authMode === 'passthrough') return passthroughAuth;
  return new ClientCredentialsAuth({
    tokenUrl: config.tokenUrl ?? `${baseUrl}/auth/oauth/token`,
    clientId: config.clientId ?? '',
    clientSecret: config.clientSecret ?? '',
    dispatcher,
    timeoutMs: config.upstreamTimeoutMs,
    logger,
  });
}
