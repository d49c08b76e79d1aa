/**
 * How upstream calls are authorised: `none`, `passthrough` (the caller's Authorization header),
 * or `client-credentials` (an OAuth2 token the gateway obtains, caches until shortly before it
 * expires, and refreshes once for all concurrent callers).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { request, type Dispatcher } from 'undici';
import type { AuthMode } from '../config.js';
import type { Logger } from '../logger.js';
import { gatewayError } from '../core/errors.js';
import { safeReason } from './errors.js';
import type { SharedStore } from './shared-store.js';

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
  /** The fleet's store (Redis): one token request for all replicas. */
  shared?: SharedStore | null;
}

/** How often a replica waiting for another one's token request looks for the token. */
const FLEET_POLL_MS = 25;

export class ClientCredentialsAuth implements UpstreamAuth {
  readonly mode = 'client-credentials' as const;
  private cached: CachedToken | null = null;
  private pending: Promise<CachedToken> | null = null;
  /** Counts token requests, for the upstream stats and tests. */
  tokenRequests = 0;

  /** The token's key in the shared store, and the key of the lock its fetcher holds. */
  private readonly fleetKey: string;
  private readonly lockKey: string;
  /** Tokens rest in the shared store encrypted with a key derived from the client secret. */
  private readonly sealKey: Buffer;

  constructor(private readonly options: ClientCredentialsOptions) {
    options.logger.addSecret(options.clientSecret);
    const id = createHash('sha256').update(`${options.tokenUrl}\n${options.clientId}`).digest('base64url').slice(0, 22);
    this.fleetKey = `token:${id}`;
    this.lockKey = `token-lock:${id}`;
    this.sealKey = createHash('sha256').update(`inventory-gateway token\n${options.clientSecret}`).digest();
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
    await this.fetchOnce(refused);
    return true;
  }

  async check(): Promise<void> {
    await this.header();
  }

  /** Single flight: concurrent callers share one token request (with a shared store, the whole fleet does). */
  private fetchOnce(refused: string | null = null): Promise<CachedToken> {
    if (!this.pending) {
      this.pending = this.obtain(refused).then((token) => (this.cached = token)).finally(() => {
        this.pending = null;
      });
    }
    return this.pending;
  }

  /**
   * From the shared store when another replica has a token there; else this replica takes the
   * lock, requests one and stores it. While another replica holds the lock this one waits for
   * its token. A slow or failing store is tried again until the token request's own timeout has
   * passed (a fleet starting cold on busy machines is slow to answer at first); only then, or
   * when the store is not connected at all, does this replica request a token of its own.
   */
  private async obtain(refused: string | null): Promise<CachedToken> {
    const shared = this.options.shared;
    if (!shared?.connected) return this.fetchToken();
    const giveUpAt = this.now() + this.options.timeoutMs + 1_000;
    const lockId = `${process.pid}-${randomBytes(8).toString('hex')}`;
    for (;;) {
      try {
        const stored = await this.fromFleet(shared, refused);
        if (stored) return stored;
        // A lock whose reply was lost (a timeout) may still be ours: the id tells.
        const held = (await shared.lock(this.lockKey, lockId, this.options.timeoutMs + 1_000).catch(markStoreError))
          || (await shared.get(this.lockKey).catch(markStoreError)) === lockId;
        if (held) {
          try {
            // Stored by the replica that held the lock just before.
            const again = await this.fromFleet(shared, refused);
            if (again) return again;
            const token = await this.fetchToken();
            await shared.set(this.fleetKey, this.seal(token), token.expiresAt - this.now()).catch(() => undefined);
            return token;
          } finally {
            await shared.unlock(this.lockKey, lockId).catch(() => undefined);
          }
        }
      } catch (error) {
        if (!isStoreError(error)) throw error;
      }
      if (this.now() >= giveUpAt || !shared.connected) return this.fetchToken();
      await sleep(FLEET_POLL_MS);
    }
  }

  /** A usable token from the shared store; one the upstream refused is removed there. */
  private async fromFleet(shared: SharedStore, refused: string | null): Promise<CachedToken | null> {
    const raw = await shared.get(this.fleetKey).catch(markStoreError);
    const token = raw === null ? null : this.unseal(raw);
    if (!token || token.expiresAt <= this.now()) return null;
    if (token.header === refused) {
      await shared.deleteIf(this.fleetKey, raw!).catch(markStoreError);
      return null;
    }
    this.options.logger.addSecret(token.header.slice(token.header.indexOf(' ') + 1), 'token');
    return token;
  }

  private seal(token: CachedToken): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.sealKey, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(token), 'utf8'), cipher.final()]);
    return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
  }

  private unseal(raw: string): CachedToken | null {
    try {
      const [iv, tag, body] = raw.split('.').map((part) => Buffer.from(part, 'base64url'));
      const decipher = createDecipheriv('aes-256-gcm', this.sealKey, iv!);
      decipher.setAuthTag(tag!);
      const token = JSON.parse(Buffer.concat([decipher.update(body!), decipher.final()]).toString('utf8')) as CachedToken;
      return typeof token.header === 'string' && typeof token.expiresAt === 'number' ? token : null;
    } catch {
      // Another secret's token, or not one at all.
      return null;
    }
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
    logger.addSecret(b.access_token, 'token');
    const expiresIn = Number(b.expires_in);
    const ttlMs = Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn * 1000 : 300_000;
    // Refresh a little early so a token does not expire between check and use.
    const margin = Math.min(60_000, ttlMs * 0.1);
    const type = typeof b.token_type === 'string' && b.token_type.toLowerCase() !== 'bearer' ? b.token_type : 'Bearer';
    this.cached = { header: `${type} ${b.access_token}`, expiresAt: this.now() + ttlMs - margin };
    return this.cached;
  }
}

/** Shared-store failures are told apart from the token endpoint's own errors. */
class StoreError extends Error {}
const markStoreError = (error: unknown): never => {
  throw new StoreError((error as Error).message);
};
const isStoreError = (error: unknown) => error instanceof StoreError;

export function createUpstreamAuth(
  config: { authMode: AuthMode; clientId: string | null; clientSecret: string | null; tokenUrl: string | null; upstreamTimeoutMs: number },
  baseUrl: string,
  dispatcher: Dispatcher,
  logger: Logger,
  shared: SharedStore | null = null,
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
    shared,
  });
}
