/**
 * A resource summary's reads and counts (src/datasource/summary.ts with the plan and tallies of
 * src/domain/summary.ts), over a fake session that records each call: which lists are read for
 * what is selected, and how untrusted records count.
 */
import { describe, expect, it } from 'vitest';
import { SummaryReads } from '../../src/datasource/summary.js';
import type { ResourceType } from '../../src/domain/records.js';
import type { SummarySelection } from '../../src/domain/summary.js';
import type { UpstreamSession } from '../../src/upstream/client.js';
import { checkResourceFilter, type ResourceFilter } from '../../src/domain/input.js';

const TYPES: ResourceType[] = ['Linux', 'SYNTHETIC', 'Windows'].map((name, i) => ({ tenantId: 't', number: i + 1, name, path: name, levels: [name] }));
const ALL: SummarySelection = { total: true, byState: true, byResourceType: true };

interface Call { route: 'minimal' | 'search'; query: Record<string, unknown> }

function reads(answers: { minimal?: Record<string, unknown>; search?: (pageNo: number) => unknown }) {
  const calls: Call[] = [];
  const session = {
    minimal: async (_tenant: string, query: { state: string }) => {
      calls.push({ route: 'minimal', query });
      return answers.minimal?.[query.state] ?? [];
    },
    search: async (_tenant: string, query: { pageNo: number }) => {
      calls.push({ route: 'search', query });
      return answers.search?.(query.pageNo);
    },
  } as unknown as UpstreamSession;
  const summaries = new SummaryReads({ session, read: async (_t, work) => (await work())!, resourceTypes: async () => TYPES, maxPageSize: 500 });
  const run = async (filter: ResourceFilter | null, selection = ALL) => {
    const summary = summaries.summary('t', checkResourceFilter(filter), selection);
    const [total, byState, byType] = await Promise.all([
      selection.total ? summaries.total(summary) : null,
      selection.byState ? summaries.byState(summary) : null,
      selection.byResourceType ? summaries.byResourceType(summary) : null,
    ]);
    return {
      total,
      byState: byState && Object.fromEntries(byState.map((b) => [b.state, b.count])),
      byType: byType && Object.fromEntries(byType.map((b) => [b.resourceType.name, b.count])),
    };
  };
  return { calls, run };
}

describe('resource summary reads', () => {
  it('counts every record of a listing in total and its state; a type only when the record names one of the tenant (case-insensitively)', async () => {
    const { calls, run } = reads({
      minimal: {
        active: [{ resourceType: 'Linux' }, { resourceType: 'LINUX' }, { resourceType: '' }, {}, null, 7, { resourceType: 'Unknown' }, { resourceType: 5 }],
        discovered: [{ resourceType: 'Windows' }],
      },
    });
    expect(await run(null)).toEqual({
      total: 9,
      byState: { active: 8, inactive: 0, discovered: 1 },
      byType: { Linux: 2, SYNTHETIC: 0, Windows: 1 },
    });
    expect(calls.map((c) => c.query.state)).toEqual(['active', 'inactive', 'discovered']);
  });

  it('reads one listing of all without byState, and only the filter\'s state (as the listing\'s own parameter) when it names one', async () => {
    const one = reads({ minimal: { all: [{ resourceType: 'Linux' }, { resourceType: 'Windows' }] } });
    expect(await one.run({ hostName: 'web' }, { total: true, byState: false, byResourceType: true })).toEqual({ total: 2, byState: null, byType: { Linux: 1, SYNTHETIC: 0, Windows: 1 } });
    expect(one.calls).toEqual([{ route: 'minimal', query: { state: 'all', queryString: 'hostName:web' } }]);

    const named = reads({ minimal: { inactive: [{ resourceType: 'Linux' }] } });
    expect(await named.run({ state: 'inactive', type: 'DEVICE' })).toEqual({ total: 1, byState: { active: 0, inactive: 1, discovered: 0 }, byType: { Linux: 1, SYNTHETIC: 0, Windows: 0 } });
    expect(named.calls).toEqual([{ route: 'minimal', query: { state: 'inactive', queryString: 'type:DEVICE' } }]);
  });

  it('with aliasIp reads the search: every page the upstream says there is, counting each record by the state and type it names', async () => {
    // The upstream pages by 2 although 500 was asked for: 3 matches are 2 pages.
    const pages: Record<number, unknown[]> = {
      1: [{ state: 'ACTIVE', resourceType: 'Linux' }, { state: 'retired', resourceType: 'Windows' }],
      2: [{ resourceType: 'Linux' }],
    };
    const { calls, run } = reads({ search: (pageNo) => ({ results: pages[pageNo], totalResults: 3, pageNo, pageSize: 2 }) });
    expect(await run({ aliasIp: '10.0.0.9' })).toEqual({
      total: 3,
      byState: { active: 1, inactive: 0, discovered: 0 },
      byType: { Linux: 2, SYNTHETIC: 0, Windows: 1 },
    });
    expect(calls.map((c) => [c.route, c.query.pageNo, c.query.pageSize])).toEqual([['search', 1, 500], ['search', 2, 500]]);

    const count = reads({ search: () => ({ results: [{}], totalResults: 42, pageNo: 1, pageSize: 1 }) });
    expect((await count.run({ aliasIp: '10.0.0.9' }, { total: true, byState: false, byResourceType: false })).total).toBe(42);
    expect(count.calls.map((c) => c.query.pageSize)).toEqual([1]);
  });

  it('refuses a listing that is not an array', async () => {
    const { run } = reads({ minimal: { all: { results: [] } } });
    await expect(run(null, { total: true, byState: false, byResourceType: false })).rejects.toThrow(/minimal resource list/);
  });
});
