/**
 * The reads of resource summaries (counts for dashboard tiles) for one operation, by the plan of
 * src/domain/summary.ts: minimal listings (one per state) or, for a filter the listing cannot
 * take, the search; counted locally. A read shared by the fields and aliases of an operation is
 * made once; the response cache shares it between operations.
 */
import type { ResourceType } from '../domain/records.js';
import {
  addTallies, emptyTally, planSummary, SUMMARY_STATES, tallyListing, tallySearchRecords, typeKey,
  type ListingState, type SummarySelection, type Tally,
} from '../domain/summary.js';
import type { UpstreamSession } from '../upstream/client.js';
import { unexpectedShape } from '../upstream/errors.js';
import type { CheckedResourceFilter } from '../domain/input.js';
import { resourceQueryString } from '../upstream/query-string.js';
import { pageOrThrow } from './lists.js';
import type { ResourceSummaryShape, ResourceTypeCount, StateCount } from './shapes.js';

export interface SummaryReadsDeps {
  session: UpstreamSession;
  /** A list read under the data source's 404 policy: an unknown tenant is its NOT_FOUND error. */
  read<T>(tenantId: string, work: () => Promise<T | null>): Promise<T>;
  /** The tenant's resource types (read under the same policy by the lists): an unknown tenant is its NOT_FOUND error. */
  resourceTypes(tenantId: string): Promise<ResourceType[]>;
  maxPageSize: number;
}

export class SummaryReads {
  /** Tallies by tenant, read and queryString: one read per operation. */
  private readonly tallies = new Map<string, Promise<Tally>>();

  constructor(private readonly deps: SummaryReadsDeps) {}

  /** Plans the reads of what is selected, for a filter the caller has checked (nothing is read yet). */
  summary(tenantId: string, filter: CheckedResourceFilter | null, selection: SummarySelection): ResourceSummaryShape {
    return { tenantId, filter, plan: planSummary(selection, filter) };
  }

  private once(key: string[], read: () => Promise<Tally>): Promise<Tally> {
    const k = key.join('\u0000');
    let tally = this.tallies.get(k);
    if (!tally) this.tallies.set(k, (tally = read()));
    return tally;
  }

  /** One minimal listing: the filter without its state as the queryString, the state as the listing's own. */
  private listing(tenantId: string, filter: CheckedResourceFilter | null, state: ListingState): Promise<Tally> {
    const queryString = resourceQueryString(filter, { withoutState: true });
    return this.once([tenantId, 'listing', state, queryString ?? ''], async () => {
      const raw = await this.deps.read(tenantId, () => this.deps.session.minimal(tenantId, { state, queryString }));
      if (!Array.isArray(raw)) throw unexpectedShape('the minimal resource list');
      return tallyListing(raw, state);
    });
  }

  /** The search's total (page size 1), or every record it matches in pages of MAX_PAGE_SIZE. */
  private search(tenantId: string, filter: CheckedResourceFilter | null, read: 'count' | 'records'): Promise<Tally> {
    const queryString = resourceQueryString(filter);
    const pageSize = read === 'count' ? 1 : this.deps.maxPageSize;
    return this.once([tenantId, 'search', read, queryString ?? ''], async () => {
      const page = async (pageNo: number) => {
        const raw = await this.deps.read(tenantId, () => this.deps.session.search(tenantId, { pageNo, pageSize, queryString }));
        return pageOrThrow(raw, (item) => item, 'the resource search');
      };
      const first = await page(1);
      const tally = emptyTally();
      if (read === 'count') return { ...tally, total: first.totalResults };
      // The upstream may answer with smaller pages than asked for: page by what it used.
      const size = first.pageSize > 0 ? first.pageSize : pageSize;
      const rest = Array.from({ length: Math.max(0, Math.ceil(first.totalResults / size) - 1) }, (_, i) => page(i + 2));
      for (const p of [first, ...await Promise.all(rest)]) tallySearchRecords(tally, p.items);
      // The upstream's own total, even if records moved between pages.
      return { ...tally, total: first.totalResults };
    });
  }

  /** The summary's counts: its listings added up, or its search. */
  private counts(summary: ResourceSummaryShape): Promise<Tally> {
    const { plan, tenantId, filter } = summary;
    if (plan.source === 'search') return this.search(tenantId, filter, plan.read);
    return Promise.all(plan.states.map((state) => this.listing(tenantId, filter, state))).then(addTallies);
  }

  async total(summary: ResourceSummaryShape): Promise<number> {
    return (await this.counts(summary)).total;
  }

  /** Every state: a listing's own count (0 for a state the filter excludes), or the search records that say it. */
  async byState(summary: ResourceSummaryShape): Promise<StateCount[]> {
    const { plan, tenantId, filter } = summary;
    if (plan.source === 'search') {
      const tally = await this.counts(summary);
      return SUMMARY_STATES.map((state) => ({ state, count: tally.byState.get(state) ?? 0 }));
    }
    return Promise.all(SUMMARY_STATES.map(async (state) => ({
      state,
      count: plan.states.includes(state) ? (await this.listing(tenantId, filter, state)).total : 0,
    })));
  }

  /** Every resource type of the tenant, ordered by path, with the records that name it (0 for none). */
  async byResourceType(summary: ResourceSummaryShape): Promise<ResourceTypeCount[]> {
    const [types, tally] = await Promise.all([this.deps.resourceTypes(summary.tenantId), this.counts(summary)]);
    return types.map((resourceType) => ({ resourceType, count: tally.byType.get(typeKey(resourceType.name)) ?? 0 }));
  }
}
