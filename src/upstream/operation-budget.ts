/**
 * An operation's places in the tenants' rate-limit windows: the claim the rate-limit plugin made
 * before it ran (its calls spend it first), places reserved call by call beyond it, and the
 * refusal that leaves it answering from the cache only. What is left is refunded when it ends.
 */
import type { Call } from './attempt.js';
import { rateLimited, type UpstreamError } from './errors.js';
import type { Charge, ClaimAs, RateBudget, Want } from './rate-budget.js';
import { windowKey } from './rate-window.js';
import type { RateCategory } from '../core/routes.js';

/** A claim's place: its window, in the fleet's windows or this replica's. */
const claimKey = (category: RateCategory, tenantId: string, shared: boolean) => `${windowKey(tenantId, category)}\u0000${shared ? 's' : 'l'}`;

export class OperationBudget {
  /** Calls claimed before the operation ran and not sent yet, by category and tenant. */
  private readonly claims = new Map<string, { tenant: string; charge: Charge; n: number }>();
  /** Set when the budget could not cover the operation: it may answer only from the cache, and this is each call's refusal. */
  private refusal: ((call: Call) => UpstreamError) | null = null;

  constructor(
    private readonly budget: RateBudget,
    /** Whose share of the tenants' windows the calls spend. */
    readonly caller: string,
    /** Whether the operation's reservations for a tenant go to the fleet's windows. */
    private readonly sharesFleetWindows: (tenantId: string) => boolean,
    private readonly ended: () => boolean,
  ) {}

  /** How this operation's own calls' claims on a tenant's window are made: where, and as which caller. */
  private claimAs(tenantId: string): ClaimAs {
    return { shared: this.sharesFleetWindows(tenantId), caller: this.caller };
  }

  addClaims(wants: readonly Want[], shared: boolean): void {
    for (const want of wants) {
      const key = claimKey(want.category, want.tenant, shared);
      const known = this.claims.get(key);
      if (known) known.n += want.n;
      else this.claims.set(key, { tenant: want.tenant, charge: { category: want.category, shared, caller: this.caller }, n: want.n });
    }
  }

  answerFromCacheOnly(refusal: (call: Call) => UpstreamError): void {
    this.refusal = refusal;
  }

  /**
   * A call about to be sent takes its place in the tenant's window: from the operation's claim,
   * else one reserved now; refused (RATE_LIMITED) when the window has no room, so it is never
   * sent. Returns where it was charged (null: not budgeted).
   */
  spend(call: Call): Charge | null | Promise<Charge | null> {
    if (this.refusal) throw this.refusal(call);
    const { budget } = this;
    const category = budget.categoryOf(call.route);
    if (!budget.tracks(category)) return null;
    for (const shared of [true, false]) {
      const claimed = this.claims.get(claimKey(category, call.tenantId, shared));
      if (claimed && claimed.n > 0) {
        claimed.n--;
        return claimed.charge;
      }
    }
    const as = this.claimAs(call.tenantId);
    return budget.claim([{ tenant: call.tenantId, category, n: 1 }], as).then((outcome) => {
      if (outcome.ok) return { category, shared: outcome.shared, caller: as.caller };
      throw rateLimited(`The inventory API's budget of ${category} calls for tenant ${call.tenantId} is spent until its window resets`, budget.resetOf(outcome.window));
    });
  }

  /** A call that spent its place and was not sent after all gives it back (returned with the claims when the operation ends). */
  unspend(call: Call, charge: Charge): void {
    // An ended operation refunds nothing later: its place goes back now.
    if (this.ended()) this.budget.refund(call.tenantId, charge, 1);
    else this.addClaims([{ tenant: call.tenantId, category: charge.category, n: 1 }], charge.shared);
  }

  /** The operation ended: what it claimed and did not spend goes back. */
  refundAll(): void {
    for (const { tenant, charge, n } of this.claims.values()) this.budget.refund(tenant, charge, n);
    this.claims.clear();
  }
}
