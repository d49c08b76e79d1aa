/**
 * How often live reads are polled. Polls are background work: a tenant's polls of one rate-limit
 * category fit within a share of its window (POLL_SHARE of the background's share, the rest left
 * to cache refreshes). When the open reads would poll more often, every period of that tenant and
 * category stretches by the same factor (forty tiles polled every 5 s alone may each be polled
 * every 20 s together). Used by live-polls.ts.
 */
import type { BackgroundBudget } from './rate-window.js';

/** The part of the background's share of a window that polls may plan to use (the rest: cache refreshes, timing). */
const POLL_SHARE = 0.8;

/** A read's place in the plan: its period at rest, and the budget its polls count against (null: none) with the polls per window it adds there. */
export interface Planned { basePeriodMs: number; budgetKey: string | null; demand: number }

export class PollPlan {
  /** Polls per window the open reads would make at their base periods, by background budget. */
  private readonly demand = new Map<string, number>();
  /** With Redis: the same for the fleet's open reads (each read once, whatever the replicas reading it). */
  private readonly fleetDemand = new Map<string, number>();

  /** What the fleet's open reads demand of a budget (null: not known, Redis away: this replica's own count). */
  fleet(budgetKey: string, demand: number | null): void {
    if (demand === null) this.fleetDemand.delete(budgetKey);
    else this.fleetDemand.set(budgetKey, demand);
  }

  /** A read starts being polled at `basePeriodMs`, within `budget`. */
  add(basePeriodMs: number, budget: BackgroundBudget | null): Planned {
    const planned = { basePeriodMs, budgetKey: budget?.key ?? null, demand: budget ? budget.windowMs / basePeriodMs : 0 };
    if (budget) this.demand.set(budget.key, (this.demand.get(budget.key) ?? 0) + planned.demand);
    return planned;
  }

  remove(planned: Planned): void {
    if (planned.budgetKey === null) return;
    const left = (this.demand.get(planned.budgetKey) ?? 0) - planned.demand;
    if (left > 1e-9) this.demand.set(planned.budgetKey, left);
    else {
      this.demand.delete(planned.budgetKey);
      this.fleetDemand.delete(planned.budgetKey);
    }
  }

  /** The read's period now: its base period, stretched so that the polls of its budget fit its share (`budget`: as it stands now). */
  periodOf(planned: Planned, budget: BackgroundBudget | null): number {
    if (!budget || planned.budgetKey === null) return planned.basePeriodMs;
    const share = Math.max(1, Math.floor(budget.callsPerWindow * POLL_SHARE));
    // The demand is kept under the key the read was counted in (add/remove), which stays put when
    // the budget later learns another category for the route (the minimal listing).
    const demand = Math.max(this.demand.get(planned.budgetKey) ?? 0, this.fleetDemand.get(planned.budgetKey) ?? 0);
    return planned.basePeriodMs * Math.max(1, demand / share);
  }
}
