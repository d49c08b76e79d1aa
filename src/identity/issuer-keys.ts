/**
 * One OpenID issuer's signing keys: its discovery document (`/.well-known/openid-configuration`)
 * names the key set (`jwks_uri`), which jose's remote key set fetches, caches and re-fetches when
 * a token names a key it does not hold (at most once per cooldown, one fetch for all waiting).
 *
 * What the provider's outages do: until the first key set arrives the issuer is unavailable (the
 * gateway answers 503, /readyz says so) and discovery is retried in the background with a growing
 * pause, so it serves within seconds of the provider's return; once keys are held they keep
 * verifying whatever the provider does (the cache never expires by age: a refresh that fails keeps
 * the keys it had).
 */
import { createRemoteJWKSet, errors, type JWTVerifyGetKey } from 'jose';
import type { Logger } from '../logger.js';

/** Between two fetches of a key set for unknown key ids: a flood of made-up `kid`s costs one fetch per cooldown. */
export const KEY_FETCH_COOLDOWN_MS = 2_000;
/** Keys held are refreshed this often (a key the provider withdrew stops verifying then). */
const REFRESH_MS = 10 * 60_000;
const FETCH_TIMEOUT_MS = 5_000;
/** Discovery retries: the first after this, doubling up to the most. */
const RETRY_FIRST_MS = 250;
const RETRY_MOST_MS = 2_000;

export class IssuerUnavailable extends Error {}

type RemoteKeySet = ReturnType<typeof createRemoteJWKSet>;

export class IssuerKeys {
  private keySet: RemoteKeySet | null = null;
  private retryMs = RETRY_FIRST_MS;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private down = false;

  constructor(readonly issuer: string, private readonly logger: Logger) {}

  /** Whether keys are held (tokens of this issuer can be verified). */
  get ready(): boolean {
    return this.keySet !== null;
  }

  /** Starts discovery now, and retries it until it succeeds; then refreshes the keys now and then. */
  start(): void {
    void this.discover();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** The key resolver for jose's jwtVerify. */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    const keySet = this.keySet;
    if (!keySet) throw new IssuerUnavailable(this.issuer);
    try {
      return await keySet(header, token);
    } catch (error) {
      // A key published after the last fetch, within the cooldown: wait for its end once, then
      // one fetch (shared by everyone waiting) looks again, so a freshly rotated key verifies on first use.
      if (!(error instanceof errors.JWKSNoMatchingKey) || !keySet.coolingDown) throw error;
      const until = Date.now() + KEY_FETCH_COOLDOWN_MS;
      while (keySet.coolingDown && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
      return await keySet(header, token);
    }
  };

  private async discover(): Promise<void> {
    if (this.closed) return;
    try {
      const url = `${this.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
      const response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'manual', headers: { accept: 'application/json' } });
      if (response.status !== 200) throw new Error(`discovery answered HTTP ${response.status}`);
      const document = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
      if (document.issuer !== this.issuer) throw new Error('the discovery document names another issuer');
      if (typeof document.jwks_uri !== 'string') throw new Error('the discovery document has no jwks_uri');
      const keySet = createRemoteJWKSet(new URL(document.jwks_uri), { cooldownDuration: KEY_FETCH_COOLDOWN_MS, cacheMaxAge: Infinity, timeoutDuration: FETCH_TIMEOUT_MS });
      await keySet.reload();
      if (this.closed) return;
      this.keySet = keySet;
      this.retryMs = RETRY_FIRST_MS;
      if (this.down) this.logger.info('identity provider reachable again: its keys are loaded', { issuer: this.issuer });
      else this.logger.info('identity provider keys loaded', { issuer: this.issuer });
      this.down = false;
      this.schedule(REFRESH_MS, () => this.refresh());
    } catch (error) {
      if (!this.down) this.logger.warn('identity provider unreachable: its tokens are answered 503 until its keys can be loaded', { issuer: this.issuer, error: (error as Error).message });
      this.down = true;
      this.schedule(this.retryMs, () => this.discover());
      this.retryMs = Math.min(this.retryMs * 2, RETRY_MOST_MS);
    }
  }

  private async refresh(): Promise<void> {
    try {
      await this.keySet?.reload();
    } catch (error) {
      // The keys held stay: jose replaces them only with a fetched set.
      this.logger.warn('identity provider keys could not be refreshed; the keys held keep verifying', { issuer: this.issuer, error: (error as Error).message });
    }
    this.schedule(REFRESH_MS, () => this.refresh());
  }

  private schedule(ms: number, work: () => Promise<void>): void {
    if (this.closed) return;
    this.timer = setTimeout(() => void work(), ms);
    this.timer.unref();
  }
}
