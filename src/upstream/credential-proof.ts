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

/** Scopes remembered; an evicted one is proven again, which costs one call. */
const MAX_SCOPES = 100_000;

interface Proof {
  /** When the upstream last accepted the credential for this tenant (ms, this.now()). */
  acceptedAt: number;
  /** A read proving it now: the other reads of the scope and tenant wait for it. */
  pending: Promise<void> | null;
}

/** What a read of a credential's entries may do now. */
export type ProofCheck =
  | { kind: 'proven' }
  | { kind: 'wait'; pending: Promise<void> }
  /** This read proves it: it goes upstream, then calls settle with its error (null: accepted). */
  | { kind: 'prove'; settle: (error: unknown) => void };

export class CredentialProofs {
  private readonly scopes = new LRUCache<string, Map<string, Proof>>({ max: MAX_SCOPES });

  constructor(private readonly recheckMs: number, private readonly now: () => number) {}

  check(scope: string, tenantId: string): ProofCheck {
    let tenants = this.scopes.get(scope);
    if (!tenants) this.scopes.set(scope, (tenants = new Map()));
    let proof = tenants.get(tenantId);
    if (!proof) tenants.set(tenantId, (proof = { acceptedAt: -Infinity, pending: null }));
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
    return {
      kind: 'prove',
      settle: (error) => {
        // Cleared first: a waiter woken by a failure checks again and may prove it itself.
        if (owner.pending === pending) owner.pending = null;
        if (error === null) resolve();
        else reject(error);
      },
    };
  }

  /** The upstream answered a call carrying the credential with a 2xx. */
  accepted(scope: string, tenantId: string): void {
    let tenants = this.scopes.get(scope);
    if (!tenants) this.scopes.set(scope, (tenants = new Map()));
    const proof = tenants.get(tenantId);
    if (proof) proof.acceptedAt = this.now();
    else tenants.set(tenantId, { acceptedAt: this.now(), pending: null });
  }

  /**
   * The upstream refused the credential: for every tenant (401) or for this one (403). Returns
   * whether it had been accepted here (there may be entries to drop).
   */
  refused(scope: string, tenantId: string | null): boolean {
    const tenants = this.scopes.get(scope);
    if (!tenants) return false;
    let wasAccepted = false;
    for (const [tenant, proof] of tenants) {
      if (tenantId !== null && tenant !== tenantId) continue;
      wasAccepted ||= Number.isFinite(proof.acceptedAt);
      proof.acceptedAt = -Infinity;
    }
    return wasAccepted;
  }

  clear(): void {
    this.scopes.clear();
  }
}
