/**
 * What the response cache keeps and under which names: entries (and their form in the shared
 * store), the generation keys entries depend on, which upstream failures a stale entry may stand
 * in for, and what a read asks of the cache and gives it (CacheRequest, CacheReadIo). Used by
 * response-cache.ts.
 */
import { UpstreamError } from './errors.js';
import type { RouteName, StaleReason } from '../core/operation-stats.js';

export interface CacheRequest {
  route: RouteName;
  tenantId: string;
  /** The record the read is about, when it is about one. */
  resourceId?: string;
  /** The encoded upstream path with its query: with the scope, the entry's identity. */
  path: string;
  /** From cacheScope() in src/core/caller.ts. */
  scope: string;
  /** Availability: the end of the window (epoch seconds); a window over is immutable. */
  windowEnd?: number;
  /** The scope is the caller's own credential (passthrough): served only while it is proven. */
  credential?: boolean;
  /**
   * A live query's re-run: its read is polled this often (ms), and the poller keeps the entry as
   * fresh as the viewers were told; an entry this young is fresh to it whatever the route's TTL.
   */
  polledEveryMs?: number;
}

export type { StaleReason } from '../core/operation-stats.js';

/** What the cache tells the operation about a read. */
export interface CacheReadObserver {
  hit(): void;
  miss(): void;
  coalesced(): void;
  stale(ageMs: number, reason: StaleReason, resetAt?: string): void;
}

export interface CacheReadIo extends CacheReadObserver {
  /** The upstream call for this operation. */
  fetch(): Promise<Fetched>;
  /** The same call outside the operation (a background refresh outlives the response). */
  refresh(): Promise<Fetched>;
  /** Waits for another operation's call, or fails when this operation stops first. */
  wait<T>(pending: Promise<T>): Promise<T>;
  /** This operation saw the upstream accept its credential for the tenant (passthrough). */
  proven(): boolean;
  noteProven(): void;
}

/** A successful upstream answer: parsed, and the text it came as (its size, and what Redis keeps). */
export interface Fetched { value: unknown; text: string }

export interface Entry {
  value: unknown;
  text: string;
  storedAt: number;
  freshUntil: number;
  /** Keyed by a generation: dropped when the shared store reconnects (it may have lost them). */
  generational: boolean;
}

/**
 * CACHE_MAX_BYTES bounds an estimate: the entry's text (kept for Redis) plus its parsed form,
 * taken as twice the text (V8 objects of short keys and values). Not a heap measurement.
 */
export const HEAP_BYTES_PER_TEXT_BYTE = 3;
export const ENTRY_OVERHEAD_BYTES = 200;

/** Codes that mean the upstream could not answer: a stale entry is better than an error. */
const OUTAGE_CODES = new Set(['UPSTREAM_UNAVAILABLE', 'UPSTREAM_TIMEOUT', 'RATE_LIMITED', 'UPSTREAM_BAD_RESPONSE']);

export const isOutage = (error: unknown): boolean => error instanceof UpstreamError && OUTAGE_CODES.has(error.code) && !error.local;

/** The upstream refused the credential itself (401) or its access to the tenant (403). */
export const isRefusal = (error: unknown): boolean => error instanceof UpstreamError && !error.local && (error.status === 401 || error.status === 403);

/** Entries in the shared store: a header line, then the upstream's text. */
export function serialize(entry: Entry): string {
  return `v1 ${entry.storedAt} ${entry.freshUntil}\n${entry.text}`;
}
export function deserialize(raw: string, generational: boolean): Entry | null {
  const newline = raw.indexOf('\n');
  const header = /^v1 (\d+) (\d+)$/.exec(raw.slice(0, newline));
  if (newline < 0 || !header) return null;
  const text = raw.slice(newline + 1);
  try {
    return { value: deepFreeze(text.trim() === '' ? null : JSON.parse(text)), text, storedAt: Number(header[1]), freshUntil: Number(header[2]), generational };
  } catch {
    return null;
  }
}

/** Entries are shared by operations: frozen, so no reader can change what another one sees. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** The generation of a dependency (src/core/routes.ts, dependenciesOf): an update replaces it. */
export const dependencyGeneration = (dependency: string) => `g:d:${dependency}`;
/** A passthrough credential's entries: all its tenants, or one of them. */
export const credentialGeneration = (scope: string, tenantId?: string) => (tenantId === undefined ? `g:c:${scope}` : `g:c:${scope}:${tenantId}`);
export const isCredentialGeneration = (key: string) => key.startsWith('g:c:');

