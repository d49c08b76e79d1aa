/**
 * Upstream calls counted by route: what an operation is estimated to cost, so the cost can be
 * read per rate-limit category (a search and an availability read spend different budgets).
 * `total` is kept beside the routes: where the kind of a record decides which reads it needs,
 * the worst case over the kinds is one number of calls, while each route's count is the worst
 * case of that route alone (the routes may sum to more than `total`).
 */
import type { GraphQLError } from 'graphql';
import { RATE_CATEGORIES, type RateCategory, type RouteName } from './routes.js';

export interface CallCount {
  readonly routes: Readonly<Partial<Record<RouteName, number>>>;
  readonly total: number;
}

export const NO_CALLS: CallCount = { routes: {}, total: 0 };

/** n calls of one route. */
export function callsOf(route: RouteName, n = 1): CallCount {
  return n > 0 ? { routes: { [route]: n }, total: n } : NO_CALLS;
}

/** Counts merged route by route, and in total, by `merge` (a sum, or the worst case). */
function combine(counts: readonly CallCount[], merge: (a: number, b: number) => number): CallCount {
  const routes: Partial<Record<RouteName, number>> = {};
  let total = 0;
  for (const count of counts) {
    total = merge(total, count.total);
    for (const [route, n] of entriesOf(count)) routes[route] = merge(routes[route] ?? 0, n);
  }
  return { routes, total };
}

const entriesOf = (count: CallCount) => Object.entries(count.routes) as [RouteName, number][];
const sum = (a: number, b: number) => a + b;

export function plus(...counts: CallCount[]): CallCount {
  return combine(counts, sum);
}

export function times(count: CallCount, k: number): CallCount {
  if (k === 1) return count;
  const routes: Partial<Record<RouteName, number>> = {};
  for (const [route, n] of entriesOf(count)) routes[route] = n * k;
  return { routes, total: count.total * k };
}

/** The worst of several cases: per route and in total. */
export function worstOf(counts: CallCount[]): CallCount {
  return combine(counts, Math.max);
}

/**
 * The count per rate-limit category: `categoryOf` says each route's (the rate budget's, which
 * learns the undocumented one from the upstream's answers).
 */
export function byCategory(count: CallCount, categoryOf: (route: RouteName) => RateCategory): Record<RateCategory, number> {
  const out = Object.fromEntries(RATE_CATEGORIES.map((c) => [c, 0])) as Record<RateCategory, number>;
  for (const [route, n] of entriesOf(count)) out[categoryOf(route)] += n;
  return out;
}

/** Calls of one tenant (null: a tenant known only at run time) in one rate-limit category. */
export interface WindowCalls {
  tenant: string | null;
  category: RateCategory;
  n: number;
}

/** An estimate's calls by tenant and category (those with calls), the windows they spend. */
export function callsByWindow(estimate: UpstreamEstimate, categoryOf: (route: RouteName) => RateCategory): WindowCalls[] {
  const out: WindowCalls[] = [];
  for (const [tenant, count] of estimate.byTenant) {
    for (const [category, n] of Object.entries(byCategory(count, categoryOf)) as [RateCategory, number][]) if (n > 0) out.push({ tenant, category, n });
  }
  return out;
}

/** What an operation is estimated to cost upstream before it runs (src/schema/cost.ts). */
export interface UpstreamEstimate {
  /** Upstream calls in all (MAX_UPSTREAM_CALLS, admission's weight). */
  estimate: number;
  /** The same calls by tenant and route (rate-limit budgets); null: a tenant known only at run time. */
  byTenant: ReadonlyMap<string | null, CallCount>;
  /** Argument problems found before execution. */
  problems: GraphQLError[];
}
