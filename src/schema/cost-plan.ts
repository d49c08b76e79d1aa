/**
 * An operation's estimate (src/schema/cost.ts) as a plan a person or a tool reads: calls per
 * tenant and rate-limit category against the tenant's window, the fields that drive them (each
 * with its multiplier and why), and what the gateway would do with it. Explain (x-explain: 1,
 * src/server/limits/explain.ts) and `npm run explain` (scripts/explain.ts) both answer this, from the
 * same estimate admission and the rate-limit claim use.
 *
 * Its free text avoids words that are schema names (tenant, type, from, if...), so that with
 * introspection off the redaction of names the request did not use leaves it readable.
 */
import { byCategory } from '../core/call-count.js';
import { RATE_CATEGORIES, type RateCategory, type RouteName } from '../core/routes.js';
import type { UpstreamEstimate } from './cost.js';
import type { CostPart } from './cost-trace.js';

/** A tenant's window of one category as known now. */
export interface WindowNow {
  /** Calls a window allows. */
  limit: number;
  /** Calls left in the current window (the whole limit when no answer of this window was heard). */
  remaining: number;
  /** When the window resets (ISO 8601); null: no answer of the upstream heard in this window yet. */
  resetAt: string | null;
}

export interface CategoryPlan {
  /** Calls of this category at most: what admission and the rate-limit claim count. */
  calls: number;
  /** Of those, reads made only for records that lack a selected field: fewer when the records carry it. */
  conditional: number;
  limit: number | null;
  remaining: number | null;
  resetAt: string | null;
  /** calls / limit: the share of a whole window. */
  share: number | null;
  /** Whether the calls fit what is left now; null: not budgeted, or the tenant is known only at run time. */
  fits: boolean | null;
}

export interface TenantPlan {
  /** null: a tenant known only at run time (an id in a variable of node/nodes). */
  tenant: string | null;
  byCategory: Partial<Record<RateCategory, CategoryPlan>>;
}

export interface CostDriver {
  tenant: string | null;
  /** The response path of the field whose reads these are. */
  path: string;
  category: RateCategory;
  calls: number;
  /** The product of the list sizes the field sits under (1: none). */
  multiplier: number;
  /** "100 resources × one applications read". */
  why: string;
  /** For a read made only for records that lack a selected field: those fields. */
  conditionalOn?: readonly string[];
}

export type Verdict = 'full' | 'cache-only' | 'refused';

export interface CostPlan {
  operationName: string | null;
  /** Upstream calls in all (admission's weight; MAX_UPSTREAM_CALLS judges it). */
  calls: number;
  tenants: TenantPlan[];
  /** The costliest fields first. */
  drivers: CostDriver[];
  /** full: runs with upstream calls; cache-only: a window cannot cover it, so it runs on the cache alone (answered when every read is cached, else RATE_LIMITED); refused: never runs. */
  verdict: Verdict;
  reason: string;
}

export interface PlanInput {
  operationName: string | null;
  estimate: UpstreamEstimate;
  parts: readonly CostPart[];
  categoryOf: (route: RouteName) => RateCategory;
  /** The window of a tenant and category now; null: not budgeted (or no tenant). */
  windowOf: (tenant: string | null, category: RateCategory) => WindowNow | null;
  /** Why the gateway refuses the operation before it runs (src/server/limits/limits.ts costRefusal), or null. */
  refusal: string | null;
  /** How many drivers to list. */
  drivers?: number;
}

const READS: Record<RouteName, [one: string, many: string]> = {
  search: ['search page', 'search pages'],
  minimal: ['minimal listing read', 'minimal listing reads'],
  detail: ['detail read', 'detail reads'],
  update: ['update call', 'update calls'],
  history: ['history page', 'history pages'],
  historyDetail: ['history detail read', 'history detail reads'],
  antivirus: ['antivirus page', 'antivirus pages'],
  applications: ['applications read', 'applications reads'],
  resourceTypes: ['resourceTypes read', 'resourceTypes reads'],
  availability: ['availability read', 'availability reads'],
};

const lastKey = (path: string) => path.slice(path.lastIndexOf('.') + 1);

function why(part: CostPart): string {
  const [one, many] = READS[part.route];
  const reads = part.perItem === 1 ? `one ${one}` : `${part.perItem} ${many}`;
  const needs = part.needs?.length ? ` (for ${part.needs.join(', ')}, where a record lacks ${part.needs.length > 1 ? 'them' : 'it'})` : '';
  return [...part.under.map((l) => `${l.n} ${lastKey(l.path)}`), reads].join(' × ') + needs;
}

export function planOf(input: PlanInput): CostPlan {
  const { estimate, parts, categoryOf, windowOf } = input;
  const tenants: TenantPlan[] = [];
  let short: { tenant: string | null; category: RateCategory; calls: number; window: WindowNow } | null = null;
  for (const [tenant, count] of estimate.byTenant) {
    const calls = byCategory(count, categoryOf);
    const conditional = Object.fromEntries(RATE_CATEGORIES.map((c) => [c, 0])) as Record<RateCategory, number>;
    for (const part of parts) if (part.tenant === tenant && part.needs?.length) conditional[categoryOf(part.route)] += part.calls;
    const plan: TenantPlan = { tenant, byCategory: {} };
    for (const category of RATE_CATEGORIES) {
      const n = calls[category];
      if (n === 0) continue;
      const window = windowOf(tenant, category);
      const fits = window ? n <= window.remaining : null;
      if (window && !fits && !short) short = { tenant, category, calls: n, window };
      plan.byCategory[category] = {
        calls: n,
        conditional: Math.min(n, conditional[category]),
        limit: window?.limit ?? null,
        remaining: window?.remaining ?? null,
        resetAt: window?.resetAt ?? null,
        share: window ? Math.round((n / window.limit) * 1000) / 1000 : null,
        fits,
      };
    }
    tenants.push(plan);
  }
  const drivers = [...parts]
    .sort((a, b) => b.calls - a.calls)
    .slice(0, input.drivers ?? 8)
    .map((part): CostDriver => ({
      tenant: part.tenant,
      path: part.path,
      category: categoryOf(part.route),
      calls: part.calls,
      multiplier: part.under.reduce((product, l) => product * l.n, 1),
      why: why(part),
      ...(part.needs?.length ? { conditionalOn: part.needs } : {}),
    }));
  const verdict: Verdict = input.refusal ? 'refused' : short ? 'cache-only' : 'full';
  const reason = input.refusal
    ?? (short
      ? `${short.tenant} has ${short.window.remaining} of ${short.window.limit} ${short.category} calls left in this window${short.window.resetAt ? ` (it resets at ${short.window.resetAt})` : ''} and the operation needs ${short.calls}: it would run on the cache alone, answered when every read it needs is cached, else refused with RATE_LIMITED.`
      : `Its calls fit every window it spends: it would be answered in full, with at most ${estimate.estimate} upstream calls.`);
  return { operationName: input.operationName, calls: estimate.estimate, tenants, drivers, verdict, reason };
}
