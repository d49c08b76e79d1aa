/**
 * The generation tokens cache keys carry (what an entry depends on: a resource, a tenant's lists,
 * a passthrough credential): replacing one makes every entry keyed by the old one unreachable,
 * here and, through the shared store, on every replica. Used by response-cache.ts.
 */
import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { isCredentialGeneration } from './cache-entry.js';
import type { SharedStore } from './shared-store.js';

/** Generation tokens held in process; an evicted one is recreated fresh, which only costs hits. */
const MAX_LOCAL_GENERATIONS = 100_000;

const newToken = () => randomBytes(6).toString('base64url');

export class Generations {
  private readonly tokens = new LRUCache<string, string>({ max: MAX_LOCAL_GENERATIONS });
  /** Tokens set while the shared store was unreachable: written there when it is back (the latest MAX_LOCAL_GENERATIONS). */
  private readonly unsynced = new Map<string, string>();

  /** lifetimeMs: how long tokens live in the shared store (past every entry that can carry them). */
  constructor(private readonly shared: SharedStore | null, private readonly lifetimeMs: number) {}

  /**
   * A credential's generations are only read: missing, they are the initial one ('0'), so a caller
   * (or a guessed token) creates nothing in Redis until it is refused after being accepted.
   */
  async current(keys: string[]): Promise<string> {
    if (keys.length === 0) return '-';
    const created = keys.filter((key) => !isCredentialGeneration(key));
    const readOnly = keys.filter(isCredentialGeneration);
    if (this.shared?.available) {
      try {
        const shared = this.shared;
        const [tokens, found] = await Promise.all([
          created.length > 0 ? shared.generations(created, newToken, this.lifetimeMs) : Promise.resolve([]),
          Promise.all(readOnly.map((key) => shared.get(key))),
        ]);
        created.forEach((key, i) => this.tokens.set(key, tokens[i]!));
        readOnly.forEach((key, i) => {
          const token = found[i];
          if (token === null || token === undefined) this.tokens.delete(key);
          else this.tokens.set(key, token);
        });
        return [...readOnly.map((_, i) => found[i] ?? '0'), ...tokens].join('.');
      } catch {
        // Degraded: the tokens last seen here (shared-store.ts logs the outage once).
      }
    }
    return [
      ...readOnly.map((key) => this.tokens.get(key) ?? '0'),
      ...created.map((key) => {
        let token = this.tokens.get(key);
        if (token === undefined) this.tokens.set(key, (token = newToken()));
        return token;
      }),
    ].join('.');
  }

  /** New tokens for these generations, here and in the shared store (or there once it is back). */
  async replace(keys: string[]): Promise<void> {
    const tokens = new Map(keys.map((key) => [key, newToken()]));
    for (const [key, token] of tokens) this.tokens.set(key, token);
    if (this.shared?.available) {
      try {
        await this.shared.setGenerations(tokens, this.lifetimeMs);
        return;
      } catch {
        // Unreachable now: written when it is back (meanwhile other replicas can only see it by TTL).
      }
    }
    for (const [key, token] of tokens) {
      this.unsynced.delete(key);
      this.unsynced.set(key, token);
    }
    // A long outage with many updates: the oldest are dropped (their entries then end by TTL on the other replicas).
    for (const key of this.unsynced.keys()) {
      if (this.unsynced.size <= MAX_LOCAL_GENERATIONS) break;
      this.unsynced.delete(key);
    }
  }

  /** A new token here only (a credential never accepted here has nothing in the shared store to replace). */
  replaceHere(key: string): void {
    this.tokens.set(key, newToken());
  }

  /** The shared store is back: the tokens set while it was away are written there. */
  resync(): void {
    if (this.unsynced.size === 0 || !this.shared) return;
    const tokens = new Map(this.unsynced);
    this.unsynced.clear();
    this.shared.setGenerations(tokens, this.lifetimeMs).catch(() => {
      for (const [key, token] of tokens) if (!this.unsynced.has(key)) this.unsynced.set(key, token);
    });
  }

  clear(): void {
    this.tokens.clear();
  }
}
