/**
 * One upstream call per cached read across the fleet: the replica that misses (or refreshes) a
 * key first takes a short lock on it in Redis and calls; a replica that finds the lock taken waits
 * for the answer to appear in the shared cache instead of calling too. Used by response-cache.ts.
 *
 * - Taking the lock and reading the shared entry are one script (one round trip): a replica that
 *   missed just before another stored the answer finds it there instead of calling again.
 * - The wait is bounded: a holder that stalls or dies delays the others by WAIT_MS at most, after
 *   which they call themselves; a holder that gave up (its call failed) releases the lock, and one
 *   waiter takes it and calls.
 * - The wait looks at the shared cache (entry and lock in one MGET) a few times a second rather
 *   than listening on pub/sub: waits are rare (cold misses at the same moment), and a look cannot
 *   miss a notice sent before it listened.
 * - Redis failing or slow costs the coalescing only: every step that fails answers "call yourself".
 */
import { randomUUID } from 'node:crypto';
import type { SharedStore } from './shared-store.js';

/** How long a replica waits for another's call before it calls itself. */
export const WAIT_MS = 5_000;
/** A holder releases the lock when done; a stalled one holds it this long at most. */
const LOCK_MS = WAIT_MS;
/** Pauses between looks at the shared cache while waiting: short first (most answers take tens of ms). */
const LOOK_EVERY_MS = [20, 40, 80, 150];

/** KEYS: the entry, its lock; ARGV: holder id, lock ms. Returns {1 when the lock was taken, the entry or false}. */
const TAKE = `
local taken = redis.call('SET', KEYS[2], ARGV[1], 'PX', tonumber(ARGV[2]), 'NX')
return { taken and 1 or 0, redis.call('GET', KEYS[1]) }
`;

const lockKey = (key: string) => `lock:fetch:${key}`;

/** Who answered: this replica's own call, or another replica's (found in the shared cache). */
export interface Answered<T> { value: T; by: 'self' | 'fleet' }

export class FleetFetches {
  /** Reads answered by another replica's call (the bench and /metrics read it). */
  answered = 0;

  constructor(private readonly shared: SharedStore) {}

  get available(): boolean {
    return this.shared.available;
  }

  /**
   * The key's answer with one call for the fleet: found in the shared cache (`accept` takes what it
   * holds there, or returns null when that is not good enough), another replica's call awaited
   * (`wait` bounds the waiting by the operation's own stop), or `call` made here.
   */
  async once<T>(key: string, accept: (raw: string) => T | null, call: () => Promise<T>, wait: <V>(pending: Promise<V>) => Promise<V>): Promise<Answered<T>> {
    const until = performance.now() + WAIT_MS;
    for (;;) {
      const turn = await this.take(key, accept);
      if (turn.found !== null) return this.fromFleet(turn.found);
      if (turn.lead) return { value: await this.holding(key, turn.id, call), by: 'self' };
      if (!turn.reachable) return { value: await call(), by: 'self' };
      const seen = await wait(this.watch(key, accept, until));
      if (seen.found !== null) return this.fromFleet(seen.found);
      // The holder gave up: try to take its place. Out of time, or Redis gone: call.
      if (!seen.released) return { value: await call(), by: 'self' };
    }
  }

  /**
   * A refresh for the fleet: made here when this replica takes the lock (or finds a newer answer
   * already stored), skipped (null) while another replica holds it.
   */
  async unlessTaken<T>(key: string, accept: (raw: string) => T | null, call: () => Promise<T>): Promise<Answered<T> | null> {
    const turn = await this.take(key, accept);
    if (turn.found !== null) return this.fromFleet(turn.found);
    if (turn.lead) return { value: await this.holding(key, turn.id, call), by: 'self' };
    return turn.reachable ? null : { value: await call(), by: 'self' };
  }

  private fromFleet<T>(value: T): Answered<T> {
    this.answered++;
    return { value, by: 'fleet' };
  }

  /** Takes the lock and reads the entry at once; a good entry found releases the lock again. */
  private async take<T>(key: string, accept: (raw: string) => T | null): Promise<{ lead: boolean; reachable: boolean; id: string; found: T | null }> {
    const id = randomUUID();
    let reply: [number, string | null];
    try {
      reply = (await this.shared.runScript(TAKE, [key, lockKey(key)], [id, LOCK_MS])) as [number, string | null];
    } catch {
      return { lead: false, reachable: false, id, found: null };
    }
    const lead = Number(reply[0]) === 1;
    const found = typeof reply[1] === 'string' ? accept(reply[1]) : null;
    if (found !== null && lead) this.release(key, id);
    return { lead, reachable: true, id, found };
  }

  private async holding<T>(key: string, id: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } finally {
      // Not awaited: the answer is stored (call() awaits that), the waiters need nothing more.
      this.release(key, id);
    }
  }

  private release(key: string, id: string): void {
    this.shared.unlock(lockKey(key), id).catch(() => undefined);
  }

  /** Looks at the shared cache until an acceptable entry is there, the lock is released, time is up or Redis fails. */
  private async watch<T>(key: string, accept: (raw: string) => T | null, until: number): Promise<{ found: T | null; released: boolean }> {
    for (let i = 0; performance.now() < until; i++) {
      await new Promise((resolve) => setTimeout(resolve, LOOK_EVERY_MS[Math.min(i, LOOK_EVERY_MS.length - 1)]));
      let raw: string | null;
      let lock: string | null;
      try {
        [raw, lock] = (await this.shared.mget([key, lockKey(key)])) as [string | null, string | null];
      } catch {
        return { found: null, released: false };
      }
      const found = raw === null ? null : accept(raw);
      if (found !== null) return { found, released: false };
      if (lock === null) return { found: null, released: true };
    }
    return { found: null, released: false };
  }
}
