/**
 * A read through the response cache: the cache request of a call (its scope, path, window), and
 * what the cache may do for it: the operation's own upstream call, a background refresh in a
 * session of its own (it outlives the operation's response), waiting for another operation's
 * call, and the operation's cache statistics. Storage and policy are src/upstream/response-cache.ts.
 */
import type { Call } from './attempt.js';
import type { CacheReadIo, CacheRequest, Fetched } from './cache-entry.js';
import type { ResponseCache } from './response-cache.js';
import type { RetryOperation } from './retry.js';
import type { OperationStats } from '../core/operation-stats.js';

/** What a cached read needs of its operation (src/upstream/session.ts). */
export interface CachedReadOperation {
  readonly stats: OperationStats;
  /** Whose cached answers this operation may see. */
  readonly cacheScope: string;
  /** Passthrough: the cache scope is the caller's own credential, whose entries need a recent proof. */
  readonly ownCredential: boolean;
  /** This operation's upstream call. */
  send(call: Call): Promise<Fetched>;
  /** The same call in a background session of its own, closed when done. */
  sendInBackground(call: Call): Promise<Fetched>;
  /** Another operation's call, or this operation's stop error if it stops first. */
  waitFor<T>(pending: Promise<T>, call: Call): Promise<T>;
  /** Whether the upstream accepted this operation's credential for the tenant during the operation. */
  proven(tenantId: string): boolean;
  noteProven(tenantId: string): void;
  /** A live query's re-run: how often a read's path is polled (ms), when it is. */
  readonly polledEvery?: (path: string) => number | undefined;
}

function cacheRequest(operation: CachedReadOperation, call: Call): CacheRequest {
  return {
    route: call.route, tenantId: call.tenantId, resourceId: call.resourceId, path: call.path, scope: operation.cacheScope,
    windowEnd: call.windowEnd, credential: operation.ownCredential, polledEveryMs: operation.polledEvery?.(call.path),
  };
}

export function cachedRead(cache: ResponseCache, operation: CachedReadOperation, call: Call): Promise<unknown> {
  return cache.read(cacheRequest(operation, call), readIo(operation, call));
}

/** A live poll: the upstream's answer now (or one stored `since`), refreshing the cache entry the operations read. */
export function revalidatedRead(cache: ResponseCache, operation: CachedReadOperation, call: Call, since?: number): Promise<Fetched> {
  return cache.revalidate(cacheRequest(operation, call), readIo(operation, call), since);
}

function readIo(operation: CachedReadOperation, call: Call): CacheReadIo {
  const stats = operation.stats;
  return {
    fetch: () => operation.send(call),
    refresh: () => operation.sendInBackground(call),
    wait: (pending) => operation.waitFor(pending, call),
    proven: () => operation.proven(call.tenantId),
    noteProven: () => operation.noteProven(call.tenantId),
    hit: () => stats.cacheHits++,
    miss: () => stats.cacheMisses++,
    coalesced: () => stats.coalesced++,
    stale: (ageMs, reason, resetAt) => stats.noteStale({ route: call.route, tenantId: call.tenantId, resourceId: call.resourceId, ageMs, reason, ...(resetAt ? { resetAt } : {}) }),
  };
}

/** Passthrough: what the retry loop reports of the caller's credential, kept by the cache (credential-proof.ts). */
export function credentialHooks(cache: ResponseCache, cacheScope: string, provenTenants: Set<string>): Pick<RetryOperation, 'credentialAccepted' | 'credentialRefused'> {
  return {
    credentialAccepted(tenantId) {
      provenTenants.add(tenantId);
      cache.credentialAccepted(cacheScope, tenantId);
    },
    credentialRefused: (tenantId, status) => cache.credentialRefused(cacheScope, tenantId, status),
  };
}
