/**
 * Passthrough: cached answers only while the caller's credential is good.
 *
 * Entries are kept per credential (the cache scope, an HMAC of it) and a hit asks nobody, so a
 * token the upstream stopped accepting could read them until their TTL. Here, per scope and
 * tenant, is when the upstream last accepted the credential (any 2xx to a call carrying it).
 * Older than CACHE_CREDENTIAL_RECHECK_S: the next read goes upstream (one call proves it) and
 * the reads that arrive meanwhile wait for that answer. A 401 or 403 forgets the proof; the
 * response cache then drops the scope's entries (response-cache.ts credentialRefused).
 *
 * In process only: each replica proves a credential at most once per period, which is within the
 * promise; a refusal reaches the other replicas at once through the generation in Redis.
 */
import { LRUCache } from 'lru-cache';
import { isRefusal, type CacheReadIo } from './cache-entry.js';

/**
 * Proofs remembered, in all (a scope counts one, and one per tenant it was proven for); the
 * least recently used scopes go first. A forgotten proof is proven again, which costs one call.
 */
const MAX_PROOFS = 100_000;
/** Tenants remembered for one scope (a credential that reads many tenants); the oldest half goes when it is full. */
const MAX_TENANTS_PER_SCOPE = 10_000;

interface Proof {
  /** When the upstream last accepted the credential for this tenant (ms, this.now()). */
  acceptedAt: number;
  /** A read proving it now: the other reads of the scope and tenant wait for it. */
  pending: Promise<void> | null;
  /** Refused for this tenant (403) since the last acceptance. */
  refused: boolean;
}

interface ScopeProofs {
  /** Refused for every tenant (401) since the last acceptance. */
  refused: boolean;
  tenants: Map<string, Proof>;
}

/** What a read of a credential's entries may do now. */
export type ProofCheck =
  | { kind: 'proven' }
  | { kind: 'wait'; pending: Promise<void> }
  /** This read proves it: it goes upstream, then calls settle with its error (null: accepted). */
  | { kind: 'prove'; settle: (error: unknown) => void };

export class CredentialProofs {
  private readonly scopes: LRUCache<string, ScopeProofs>;
  private readonly maxTenantsPerScope: number;

  /** `limits`: smaller bounds than MAX_PROOFS and MAX_TENANTS_PER_SCOPE (tests). */
  constructor(private readonly recheckMs: number, private readonly now: () => number, limits: { proofs: number; tenantsPerScope: number } = { proofs: MAX_PROOFS, tenantsPerScope: MAX_TENANTS_PER_SCOPE }) {
    this.scopes = new LRUCache<string, ScopeProofs>({ maxSize: limits.proofs, sizeCalculation: (scoped) => 1 + scoped.tenants.size });
    this.maxTenantsPerScope = limits.tenantsPerScope;
  }

  private scopeOf(scope: string): ScopeProofs {
    let scoped = this.scopes.get(scope);
    if (!scoped) this.scopes.set(scope, (scoped = { refused: false, tenants: new Map() }));
    return scoped;
  }

  private proofOf(scope: string, tenantId: string): { scoped: ScopeProofs; proof: Proof } {
    const scoped = this.scopeOf(scope);
    let proof = scoped.tenants.get(tenantId);
    if (!proof) {
      // Full: the older half goes at once (one by one from the front, a Map's iteration slows down).
      if (scoped.tenants.size >= this.maxTenantsPerScope) scoped.tenants = new Map([...scoped.tenants].slice(Math.floor(this.maxTenantsPerScope / 2)));
      scoped.tenants.set(tenantId, (proof = { acceptedAt: -Infinity, pending: null, refused: false }));
      // Weighed anew (the LRU weighs an entry when it is set, and only when its value changes).
      this.scopes.delete(scope);
      this.scopes.set(scope, scoped);
    }
    return { scoped, proof };
  }

  check(scope: string, tenantId: string): ProofCheck {
    const { proof } = this.proofOf(scope, tenantId);
    if (this.now() - proof.acceptedAt < this.recheckMs) return { kind: 'proven' };
    if (proof.pending) return { kind: 'wait', pending: proof.pending };
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const pending = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Nobody may be waiting: a failed proof must not be an unhandled rejection.
    pending.catch(() => undefined);
    proof.pending = pending;
    const owner = proof;
    let settled = false;
    return {
      kind: 'prove',
      // The first answer counts: a read settles once more when it ends, in case it stopped early.
      settle: (error) => {
        if (settled) return;
        settled = true;
        // Cleared first: a waiter woken by a failure checks again and may prove it itself.
        if (owner.pending === pending) owner.pending = null;
        if (error === null) resolve();
        else reject(error);
      },
    };
  }

  /**
   * Null when the operation may read the credential's entries now (proven recently, or by the
   * read it waited for); else this read proves it: settle it with the upstream's answer.
   */
  async awaitProof(scope: string, tenantId: string, io: Pick<CacheReadIo, 'wait' | 'noteProven'>): Promise<((error: unknown) => void) | null> {
    for (;;) {
      const check = this.check(scope, tenantId);
      if (check.kind === 'proven') return null;
      if (check.kind === 'prove') return check.settle;
      try {
        await io.wait(check.pending);
        io.noteProven();
        return null;
      } catch (error) {
        // Refused: so is this read. Else (an outage, the prover's or this operation's stop) check again.
        if (isRefusal(error)) throw error;
      }
    }
  }

  /** The upstream answered a call carrying the credential with a 2xx. */
  accepted(scope: string, tenantId: string): void {
    const { scoped, proof } = this.proofOf(scope, tenantId);
    proof.acceptedAt = this.now();
    proof.refused = false;
    scoped.refused = false;
  }

  /** The upstream accepted the credential for this tenant at some time (and it was not refused since). */
  known(scope: string, tenantId: string): boolean {
    const scoped = this.scopes.get(scope);
    const proof = scoped?.tenants.get(tenantId);
    return proof !== undefined && proof.acceptedAt > -Infinity && !proof.refused && !scoped!.refused;
  }

  /** Refused here since it was last accepted: no stale answer for it either. */
  isRefused(scope: string, tenantId: string): boolean {
    const scoped = this.scopes.get(scope);
    return scoped !== undefined && (scoped.refused || scoped.tenants.get(tenantId)?.refused === true);
  }

  /**
   * The upstream refused the credential: for every tenant (401) or for this one (403). Returns
   * whether it had been accepted here (there may be entries to drop).
   */
  refused(scope: string, tenantId: string | null): boolean {
    const scoped = this.scopeOf(scope);
    if (tenantId === null) scoped.refused = true;
    else this.proofOf(scope, tenantId).proof.refused = true;
    let wasAccepted = false;
    for (const [tenant, each] of scoped.tenants) {
      if (tenantId !== null && tenant !== tenantId) continue;
      wasAccepted ||= Number.isFinite(each.acceptedAt);
      each.acceptedAt = -Infinity;
    }
    return wasAccepted;
  }

  clear(): void {
    this.scopes.clear();
  }

  /** Proofs held, scopes counted once each (tests). */
  get size(): number {
    return this.scopes.calculatedSize;
  }
}
