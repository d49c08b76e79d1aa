/**
 * The plan of a resource summary (counts for dashboard tiles), shared by the run time (the data
 * source) and the pre-execution cost estimate, so both count the same upstream reads.
 *
 * Every count is the search's totalResults (page size 1) for the caller's filter plus one
 * bucket. The search takes one `state` and one `resourceType` list, so a filter that already
 * names them combines with a bucket like this:
 * - a bucket the filter excludes (another state; a type not in filter.resourceTypes) is 0
 *   without a call, so the tiles always list every state and every type;
 * - a bucket the filter names alone (filter.state, or filter.resourceTypes of one item) is the
 *   filter's own count: the same read as `total`, made once;
 * - any other bucket narrows the filter (state set, resourceTypes replaced by the one type).
 */
import { checkFilterText } from './input.js';

/** The states the resource search filters by (the history holds DECOMMISSIONED, which the search cannot ask). */
export const SUMMARY_STATES = ['active', 'inactive', 'discovered'] as const;
export type SummaryState = (typeof SUMMARY_STATES)[number];

/** The part of a resource filter that decides how a bucket combines with it. */
export interface BucketFilter {
  state?: string | null;
  resourceTypes?: readonly string[] | null;
}

/** zero: excluded by the filter (no call); same: the filter's own count (the `total` read); narrow: a read of its own. */
export type BucketRead = 'zero' | 'same' | 'narrow';

export function stateBucket(filter: BucketFilter | null | undefined, state: SummaryState): BucketRead {
  const named = filter?.state;
  if (named == null) return 'narrow';
  return named.toLowerCase() === state ? 'same' : 'zero';
}

export function typeBucket(filter: BucketFilter | null | undefined, typeName: string): BucketRead {
  const named = filter?.resourceTypes;
  if (named == null) return 'narrow';
  if (named.length === 1 && named[0] === typeName) return 'same';
  // Case-insensitive, as the upstream may match: a type the filter might name is asked, not assumed 0.
  return named.some((n) => n.toLowerCase() === typeName.toLowerCase()) ? 'narrow' : 'zero';
}

/** A type whose name the queryString syntax cannot carry as a list item is not a bucket (it could not be asked). */
export function isAskableTypeName(name: string): boolean {
  try {
    checkFilterText(name, 'resourceType');
    return true;
  } catch {
    return false;
  }
}

/**
 * Upstream reads of one summary, given what it selects and (when known) the tenant's type
 * names: the `total` read when `total` is selected or a bucket is the filter's own count, one
 * read per narrowing bucket, and the resource-types read itself when byResourceType is selected.
 * `typeNames` null: unknown before execution; `assumedTypeCount` narrowing buckets then.
 */
export function summaryReads(
  selection: { total: boolean; byState: boolean; byResourceType: boolean },
  filter: BucketFilter | null | undefined,
  typeNames: readonly string[] | null,
  assumedTypeCount: number,
): { totalRead: boolean; stateReads: number; typeReads: number; typesListRead: boolean } {
  let totalRead = selection.total;
  let stateReads = 0;
  let typeReads = 0;
  const count = (read: BucketRead) => {
    if (read === 'same') totalRead = true;
    return read === 'narrow' ? 1 : 0;
  };
  if (selection.byState) for (const state of SUMMARY_STATES) stateReads += count(stateBucket(filter, state));
  if (selection.byResourceType) {
    if (typeNames === null) typeReads = assumedTypeCount;
    else for (const name of typeNames.filter(isAskableTypeName)) typeReads += count(typeBucket(filter, name));
  }
  return { totalRead, stateReads, typeReads, typesListRead: selection.byResourceType };
}
