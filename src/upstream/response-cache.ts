/**
 * The upstream response cache: between the loaders and the wire, at the level of upstream GETs,
 * so differently shaped operations that need the same record share it.
 *
 * - Keys are scoped: by the digest of the caller's credential in passthrough, by the gateway's
 *   own identity otherwise; the tenant and the record are in the request path.
 * - A TTL per route (src/config.ts), then stale-while-revalidate (the stale entry is served and
 *   one background call refreshes it) and stale-if-error (served while the upstream fails).
 * - Invalidation by generation: a key carries the current generation token of what it depends on
 *   (what the route table's dependenciesOf names: the resource, or the tenant's lists).
 *   updateResource replaces those tokens before it returns, so no later read can reach an older
 *   entry on any replica: with Redis the tokens live there and every dependent read looks them up.
 * - Two levels: an in-process LRU bounded by bytes, then Redis (SharedStore) when configured.
 *   Redis failing or slow only costs hits: the in-process level answers on its own.
 * - Coalescing: identical GETs in flight at the same time (same scope, same generation) share one
 *   upstream call; with Redis, across the fleet too (fleet-fetch.ts: a miss another replica is
 *   already calling for waits for its answer, a stale entry is refreshed by one replica).
 * - Passthrough: a caller's entries are served only while the upstream accepted its credential
 *   within CACHE_CREDENTIAL_RECHECK_S (credential-proof.ts); a 401 or 403 replaces the scope's
 *   generation (here and in Redis), so none of its entries is served again, stale or not.
 */
import { LRUCache } from 'lru-cache';
import type { CacheSettings, CachedRoute } from '../config.js';
import type { Logger } from '../logger.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import { CredentialProofs } from './credential-proof.js';
import { UpstreamError } from './errors.js';
import {
  credentialGeneration, deepFreeze, deserialize, ENTRY_OVERHEAD_BYTES, HEAP_BYTES_PER_TEXT_BYTE, isOutage, dependencyGeneration, serialize, type CacheReadIo, type CacheRequest, type Entry, type Fetched,
} from './cache-entry.js';
import type { SharedStore } from './shared-store.js';
import { tenantPathPrefix } from './route-path.js';
import { Generations } from './cache-generations.js';
import { CacheCalls } from './cache-calls.js';
import type { RouteName } from '../core/operation-stats.js';
import { dependenciesOf, staleAfterUpdate } from '../core/routes.js';

/** A proving read that ended without an answer from the upstream (its waiters check again). */
const PROOF_ABANDONED = new Error('The read proving the credential ended without an answer');

export interface ResponseCacheOptions {
  settings: CacheSettings;
  shared?: SharedStore | null;
  logger: Logger;
  metrics?: GatewayMetrics | null;
  now?: () => number;
}

export class ResponseCache {
  private readonly settings: CacheSettings;
  private readonly memory: LRUCache<string, Entry>;
  private readonly generations: Generations;
  private readonly calls: CacheCalls;
  readonly shared: SharedStore | null;
  private readonly now: () => number;
  /** Hits, misses and the rest since start (bench and tests read them); awaited: answered by another replica's call. */
  readonly counts = { hit: 0, miss: 0, stale: 0, coalesced: 0, awaited: 0 };

  /** Passthrough: when the upstream last accepted each caller's credential. */
  private readonly proofs: CredentialProofs;

  constructor(private readonly options: ResponseCacheOptions) {
    this.settings = options.settings;
    this.shared = options.shared ?? null;
    this.calls = new CacheCalls(this.shared, { remember: (key, entry) => this.remember(key, entry), count: (route, result) => this.count(route, result), logger: options.logger });
    this.now = options.now ?? Date.now;
    // Generation tokens live past every entry that can carry them (twice the longest lifetime).
    this.generations = new Generations(this.shared, 2 * this.lifetimeMs(Math.max(...Object.values(this.settings.ttlMs))));
    this.memory = new LRUCache<string, Entry>({
      maxSize: this.settings.maxBytes,
      sizeCalculation: (entry, key) => Math.max(1, entry.text.length * HEAP_BYTES_PER_TEXT_BYTE + key.length + ENTRY_OVERHEAD_BYTES),
    });
    this.proofs = new CredentialProofs(this.settings.credentialRecheckMs, this.now);
    this.shared?.onReconnect(() => this.afterReconnect());
  }

  /** How long a fresh answer of this request is served; 0: not cached. */
  ttlMs(request: CacheRequest): number {
    const ttl = this.settings.ttlMs;
    if (request.route === 'availability' && request.windowEnd !== undefined && request.windowEnd * 1000 <= this.now()) return ttl.availabilityPast;
    return request.route in ttl ? ttl[request.route as CachedRoute] : 0;
  }

  /** The generations a request depends on: updateResource replaces them. */
  private dependencies(request: CacheRequest): string[] {
    // A refused credential replaces these (credentialRefused): all its tenants, or the one refused.
    const credential = request.credential ? [credentialGeneration(request.scope), credentialGeneration(request.scope, request.tenantId)] : [];
    return [...credential, ...dependenciesOf(request.route, request.tenantId, request.resourceId).map(dependencyGeneration)];
  }

  /** A cached answer when there is a usable one, else the upstream's (shared with identical calls in flight). */
  async read(request: CacheRequest, io: CacheReadIo): Promise<unknown> {
    const ttl = this.ttlMs(request);
    if (ttl <= 0) return (await io.fetch()).value;
    // Unproven credential: this read goes upstream (and refreshes its entry), or waits for the one that does.
    const proving = request.credential && !io.proven() ? await this.proofs.awaitProof(request.scope, request.tenantId, io) : null;
    try {
      const { key, generational } = await this.keyOf(request);
      const entry = await this.lookup(key, generational);
      const now = this.now();
      if (entry && !proving && (now < entry.freshUntil || now < entry.storedAt + (request.polledEveryMs ?? 0))) {
        io.hit();
        this.count(request.route, 'hit');
        return entry.value;
      }
      if (entry && !proving && now < entry.freshUntil + this.settings.staleWhileRevalidateMs) {
        this.calls.refresh({ key, generational, route: request.route }, async () => this.store(key, await io.refresh(), ttl, generational), entry);
        io.stale(now - entry.storedAt, 'revalidating');
        this.count(request.route, 'stale');
        return entry.value;
      }
      try {
        // A proving read must reach the upstream itself: no other replica's answer will do.
        const loaded = await this.load(key, request, io, ttl, generational, proving ? null : (found) => this.now() < found.freshUntil);
        if (proving) {
          io.noteProven();
          proving(null);
        }
        return loaded.value;
      } catch (error) {
        proving?.(error);
        // A credential refused since its last acceptance never gets a stale answer either.
        const refused = request.credential === true && this.proofs.isRefused(request.scope, request.tenantId);
        if (entry && !refused && isOutage(error) && now < entry.freshUntil + this.settings.staleIfErrorMs) {
          const rateLimited = (error as UpstreamError).code === 'RATE_LIMITED';
          io.stale(this.now() - entry.storedAt, rateLimited ? 'rate-limited' : 'upstream-error', rateLimited ? (error as UpstreamError).extensions.resetAt as string | undefined : undefined);
          this.count(request.route, 'stale');
          return entry.value;
        }
        throw error;
      }
    } finally {
      // Never left pending (the waiters would wait for nothing): they check again.
      proving?.(PROOF_ABANDONED);
    }
  }

  /**
   * A live query's poll: the upstream's answer now, whatever the entry's age (shared with a call
   * in flight for the same key, or with Redis another replica's answered since it was asked;
   * `since`: answered since then), stored as the fresh entry, so the operations it wakes read it
   * from here. The poller hashes its value (as the first read of it was hashed).
   */
  async revalidate(request: CacheRequest, io: CacheReadIo, since?: number): Promise<Fetched> {
    const ttl = this.ttlMs(request);
    if (ttl <= 0) return io.fetch();
    const { key, generational } = await this.keyOf(request);
    const asked = since ?? this.now();
    return this.load(key, request, io, ttl, generational, (found) => found.storedAt >= asked);
  }

  /** The entry's key: readers and live polls must agree on it, or a poll refreshes an entry nobody reads. */
  private async keyOf(request: CacheRequest): Promise<{ key: string; generational: boolean }> {
    const dependencies = this.dependencies(request);
    return { key: `${request.scope}:${await this.generations.current(dependencies)}:${request.path}`, generational: dependencies.length > 0 };
  }

  /** The upstream accepted this credential for the tenant before (and did not refuse it since). */
  credentialKnown(scope: string, tenantId: string): boolean {
    return this.proofs.known(scope, tenantId);
  }

  /** Passthrough: the upstream answered a call carrying this credential with a 2xx. */
  credentialAccepted(scope: string, tenantId: string): void {
    this.proofs.accepted(scope, tenantId);
  }

  /**
   * Passthrough: the upstream refused the credential (401: for every tenant; 403: for this one).
   * Its entries can no longer be reached on any replica (new generation, here and in Redis), and
   * the ones held here are dropped.
   */
  async credentialRefused(scope: string, tenantId: string, status: 401 | 403): Promise<void> {
    const everyTenant = status === 401;
    const wasAccepted = this.proofs.refused(scope, everyTenant ? null : tenantId);
    // A credential never accepted here has nothing to drop here; another replica may have kept some.
    if (wasAccepted) {
      const tenantPath = everyTenant ? '' : tenantPathPrefix(tenantId);
      for (const key of this.memory.keys()) {
        if (key.startsWith(`${scope}:`) && key.includes(tenantPath)) this.memory.delete(key);
      }
    }
    const generation = everyTenant ? credentialGeneration(scope) : credentialGeneration(scope, tenantId);
    // Only a credential accepted here can have entries written from here; any other (a guessed
    // token) costs no write to Redis: it is refused in process (isRefused) and proven on each read.
    if (wasAccepted) await this.generations.replace([generation]);
    else this.generations.replaceHere(generation);
  }

  /**
   * After updateResource: new generations for what the update makes stale (the route table says
   * what), here and in the shared store, before the mutation answers.
   */
  async invalidateResource(tenantId: string, resourceId: string): Promise<void> {
    await this.generations.replace(staleAfterUpdate(tenantId, resourceId).map(dependencyGeneration));
  }

  /** Drops everything held in process (tests, and operators through a restart). */
  clear(): void {
    this.memory.clear();
    this.generations.clear();
    this.proofs.clear();
  }

  get memoryBytes(): number {
    return this.memory.calculatedSize;
  }

  // ---- internals ----------------------------------------------------------------------------

  /** Entries outlive their TTL by the longest stale window. */
  private lifetimeMs(ttl: number): number {
    return ttl + Math.max(this.settings.staleWhileRevalidateMs, this.settings.staleIfErrorMs);
  }

  /** The entry held here, or in the shared store when that one is newer (another replica refreshed it). */
  private async lookup(key: string, generational: boolean): Promise<Entry | undefined> {
    const local = this.memory.get(key);
    if (local && this.now() < local.freshUntil) return local;
    if (!this.shared?.available) return local;
    try {
      const raw = await this.shared.get(key);
      const entry = raw === null ? null : deserialize(raw, generational);
      if (!entry || (local && entry.storedAt <= local.storedAt)) return local;
      this.remember(key, entry);
      return entry;
    } catch {
      return local;
    }
  }

  private remember(key: string, entry: Entry): void {
    const ttl = entry.freshUntil - entry.storedAt;
    this.memory.set(key, entry, { ttl: Math.max(1, this.lifetimeMs(ttl) - (this.now() - entry.storedAt)) });
  }

  private async store(key: string, fetched: Fetched, ttl: number, generational: boolean): Promise<Entry> {
    const storedAt = this.now();
    const entry: Entry = { value: deepFreeze(fetched.value), text: fetched.text, storedAt, freshUntil: storedAt + ttl, generational };
    this.remember(key, entry);
    // Awaited (bounded by the store's timeout): the next replica asked must find it.
    if (this.shared?.available) await this.shared.set(key, serialize(entry), this.lifetimeMs(ttl)).catch(() => undefined);
    return entry;
  }

  private load(key: string, request: CacheRequest, io: CacheReadIo, ttl: number, generational: boolean, fleetMay: ((found: Entry) => boolean) | null): Promise<Entry> {
    return this.calls.load({ key, generational, route: request.route }, io, async () => this.store(key, await io.fetch(), ttl, generational), fleetMay);
  }

  /** The shared store may have lost generations (restart) or missed ours: forget what depends on them. */
  private afterReconnect(): void {
    for (const [key, entry] of this.memory.entries()) if (entry.generational) this.memory.delete(key);
    this.generations.resync();
  }

  private count(route: RouteName, result: 'hit' | 'miss' | 'stale' | 'coalesced' | 'awaited'): void {
    this.counts[result]++;
    this.options.metrics?.cacheRead(route, result);
  }
}

