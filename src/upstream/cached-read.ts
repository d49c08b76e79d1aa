/**
 * A read through the response cache: the cache request of a call (its scope, path, window), and
 * what the cache may do for it: the operation's own upstream call, a background refresh in a
 * session of its own (it outlives the operation's response), waiting for another operation's
 * call, and the operation's cache statistics. Storage and policy are src/upstream/response-cache.ts.
 */
import type { Call } from './attempt.js';
import type { CacheReadIo, CacheRequest, Fetched } from './cache-entry.js';
import type { ResponseCache } from './response-cache.js';
import type { RetryScope } from './retry.js';
import type { OperationStats } from '../core/operation-stats.js';

/** What a cached read needs of its operation (src/upstream/session.ts). */
export interface CachedReadScope {
  readonly stats: OperationStats;
  /** Whose cached answers this operation may see. */
  readonly cacheScope: string;
  /** Passthrough: the scope is the caller's credential, whose entries need a recent proof. */
  readonly credentialScope: boolean;
  /** This operation's upstream call. */
  send(call: Call): Promise<Fetched>;
  /** The same call in a background session of its own, closed when done. */
  sendInBackground(call: Call): Promise<Fetched>;
  /** Another operation's call, or this operation's stop error if it stops first. */
  waitFor<T>(pending: Promise<T>, call: Call): Promise<T>;
  /** Tenants for which the upstream accepted this operation's credential during the operation. */
  readonly provenTenants: Set<string>;
  /** A live query's re-run: how often a read's path is polled (ms), when it is. */
  polledEvery?(path: string): number | undefined;
}

function cacheRequest(scope: CachedReadScope, call: Call): CacheRequest {
  return {
    route: call.route, tenantId: call.tenantId, resourceId: call.resourceId, path: call.path, scope: scope.cacheScope,
    windowEnd: call.windowEnd, credential: scope.credentialScope, polledEveryMs: scope.polledEvery?.(call.path),
  };
}

export function cachedRead(cache: ResponseCache, scope: CachedReadScope, call: Call): Promise<unknown> {
  return cache.read(cacheRequest(scope, call), readIo(scope, call));
}

/** A live poll: the upstream's answer now, refreshing the cache entry the operations read. */
export function revalidatedRead(cache: ResponseCache, scope: CachedReadScope, call: Call): Promise<Fetched> {
  return cache.revalidate(cacheRequest(scope, call), readIo(scope, call));
}

function readIo(scope: CachedReadScope, call: Call): CacheReadIo {
  const stats = scope.stats;
  return {
    fetch: () => scope.send(call),
    refresh: () => scope.sendInBackground(call),
    wait: (pending) => scope.waitFor(pending, call),
    proven: () => scope.provenTenants.has(call.tenantId),
    noteProven: () => scope.provenTenants.add(call.tenantId),
    hit: () => stats.cacheHits++,
    miss: () => stats.cacheMisses++,
    coalesced: () => stats.coalesced++,
    stale: (ageMs, reason, resetAt) => stats.noteStale({ route: call.route, tenantId: call.tenantId, resourceId: call.resourceId, ageMs, reason, ...(resetAt ? { resetAt } : {}) }),
  };
}

/** Passthrough: what the retry loop reports of the caller's credential, kept by the cache (credential-proof.ts). */
export function credentialHooks(cache: ResponseCache, scope: Pick<CachedReadScope, 'cacheScope' | 'provenTenants'>): Pick<RetryScope, 'credentialAccepted' | 'credentialRefused'> {
  return {
    credentialAccepted(tenantId) {
      scope.provenTenants.add(tenantId);
      cache.credentialAccepted(scope.cacheScope, tenantId);
    },
    credentialRefused: (tenantId, status) => cache.credentialRefused(scope.cacheScope, tenantId, status),
  };
}
