/**
 * The plan of a resource summary (counts for dashboard tiles), shared by the run time (the data
 * source) and the pre-execution cost estimate, so both count the same upstream reads; and the
 * tallies that count records locally.
 *
 * The counts come from records counted here, not from a search total per bucket:
 * - the minimal listing (a plain array of every matching resource, no paging) takes the same
 *   queryString as the search and a `state` (active, inactive, discovered or all). Its records
 *   name their resource type but not their state, so `byState` reads one listing per state
 *   (only the filter's state when it names one) and `total` and `byResourceType` add those up;
 *   without `byState`, one listing of `all` (or of the filter's state) answers them.
 * - a filter the listing cannot take (`aliasIp`, not one of its keys) reads the search instead:
 *   `total` alone is its totalResults at page size 1; with `byState` or `byResourceType`, every
 *   matching record in pages of MAX_PAGE_SIZE, counted by the state and type the search records
 *   carry (one page while the filter matches at most MAX_PAGE_SIZE resources).
 * - `byResourceType` also reads the tenant's resource types, to list every type (0 included).
 *
 * Records are untrusted. Every record the upstream returns is a resource it says matches: it
 * counts in `total`, and in the state bucket the listing asked for. It counts in a type bucket
 * only when it names that type (case-insensitively, as the search matches a type); a record with
 * no, an empty or an unknown type, or a search record with no known state, counts in `total`
 * (and the other bucket it does name) only, so the buckets may add up to less than `total`.
 */
import { record as asRecord, str } from './coerce.js';

/** The states the resource search filters by (the history holds DECOMMISSIONED, which the search cannot ask). */
export const SUMMARY_STATES = ['active', 'inactive', 'discovered'] as const;
export type SummaryState = (typeof SUMMARY_STATES)[number];
/** What the minimal listing's `state` takes: a state, or `all` of them. */
export type ListingState = SummaryState | 'all';

export interface SummarySelection { total: boolean; byState: boolean; byResourceType: boolean }

/** The part of a resource filter that decides the plan. */
export interface PlanFilter {
  state?: string | null;
  aliasIp?: string | null;
}

export type SummaryPlan =
  /** One minimal listing per state named (with the rest of the filter as its queryString). */
  | { source: 'listing'; states: ListingState[]; typesList: boolean }
  /** The search: its total at page size 1 (`count`), or every record in pages of MAX_PAGE_SIZE (`records`). */
  | { source: 'search'; read: 'count' | 'records'; typesList: boolean };

const isSummaryState = (s: string): s is SummaryState => (SUMMARY_STATES as readonly string[]).includes(s);

/** The reads of one summary, from what it selects and its filter (state as the enum value or name). */
export function planSummary(selection: SummarySelection, filter: PlanFilter | null | undefined): SummaryPlan {
  const typesList = selection.byResourceType;
  const anything = selection.total || selection.byState || selection.byResourceType;
  if (filter?.aliasIp != null) {
    const read = selection.byState || selection.byResourceType ? 'records' : 'count';
    return anything ? { source: 'search', read, typesList } : { source: 'listing', states: [], typesList };
  }
  if (!anything) return { source: 'listing', states: [], typesList };
  const named = filter?.state?.toLowerCase() ?? null;
  if (named !== null) return { source: 'listing', states: isSummaryState(named) ? [named] : [], typesList };
  return { source: 'listing', states: selection.byState ? [...SUMMARY_STATES] : ['all'], typesList };
}

/** Upstream calls of a plan by route, a search of records counted as one page (exact up to MAX_PAGE_SIZE matches). */
export function planCalls(plan: SummaryPlan): { minimal: number; search: number; resourceTypes: number } {
  return {
    minimal: plan.source === 'listing' ? plan.states.length : 0,
    search: plan.source === 'search' ? 1 : 0,
    resourceTypes: plan.typesList ? 1 : 0,
  };
}

/** Counts from one read: every record in `total`, and in the buckets it names. */
export interface Tally {
  total: number;
  byState: Map<SummaryState, number>;
  /** By resource type name in lower case. */
  byType: Map<string, number>;
}

export const emptyTally = (): Tally => ({ total: 0, byState: new Map(), byType: new Map() });

const bump = <K>(map: Map<K, number>, key: K, n = 1) => map.set(key, (map.get(key) ?? 0) + n);

/** The key a resource type's count is kept under: the search matches a type case-insensitively. */
export const typeKey = (name: string): string => name.toLowerCase();

function countRecord(tally: Tally, record: unknown, state: SummaryState | null): void {
  tally.total++;
  if (state) bump(tally.byState, state);
  const type = str(asRecord(record)?.resourceType);
  if (type) bump(tally.byType, typeKey(type));
}

/** A minimal listing of one state (or all): its state is the one asked for, since its records do not say it. */
export function tallyListing(records: readonly unknown[], state: ListingState): Tally {
  const tally = emptyTally();
  for (const record of records) countRecord(tally, record, state === 'all' ? null : state);
  return tally;
}

/** Search records: each says its state (read case-insensitively) and resource type. */
export function tallySearchRecords(tally: Tally, records: readonly unknown[]): Tally {
  for (const record of records) {
    const state = str(asRecord(record)?.state)?.toLowerCase() ?? null;
    countRecord(tally, record, state !== null && isSummaryState(state) ? state : null);
  }
  return tally;
}

/** Several reads' counts added up (the listings of several states). */
export function addTallies(tallies: readonly Tally[]): Tally {
  const sum = emptyTally();
  for (const t of tallies) {
    sum.total += t.total;
    for (const [k, n] of t.byState) bump(sum.byState, k, n);
    for (const [k, n] of t.byType) bump(sum.byType, k, n);
  }
  return sum;
}
