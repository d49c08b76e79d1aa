/** Relay paging over the page-numbered upstream: complete walks, and at most two reads per window. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ResourcePageDocument, type ResourcePageQueryVariables } from '../__generated__/graphql.js';
import { globalIdOf } from '../../src/schema/global-id.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
let allIds: string[];
beforeAll(async () => {
  h = await startHarness();
  // The connection's default order: by name, A to Z.
  const rest = await h.rest('client_1/resources/search?pageSize=1000&sortName=name&isDescendingOrder=false');
  allIds = rest.results.map((r: { id: string }) => r.id);
});
afterAll(() => h.close());
beforeEach(() => h.resetCounts());

const PAGE = ResourcePageDocument;
const page = async (vars: Omit<ResourcePageQueryVariables, 'tenant'>) => {
  const res = await h.execute(PAGE, { tenant: 'client_1', ...vars });
  expect(res.errors).toBeUndefined();
  const conn = res.data!.tenant!.resources!;
  for (const { node } of conn.edges) expect(node.id).toBe(globalIdOf({ kind: 'Resource', tenantId: 'client_1', id: node.resourceId }));
  return conn;
};

describe('walking the 500-item tenant', () => {
  it('first: 7 forwards visits every item exactly once, one upstream read per page at most two', async () => {
    const seen: string[] = [];
    let after: string | null | undefined = null;
    let pages = 0;
    for (;;) {
      h.resetCounts();
      const conn = await page({ first: 7, after });
      expect(h.simulator.stats().calls.search).toBeLessThanOrEqual(2);
      seen.push(...conn.edges.map((e) => e.node.resourceId));
      pages++;
      expect(conn.totalCount).toBe(500);
      expect(conn.pageInfo.hasPreviousPage).toBe(pages > 1);
      if (!conn.pageInfo.hasNextPage) break;
      after = conn.pageInfo.endCursor;
    }
    expect(pages).toBe(Math.ceil(500 / 7));
    expect(seen).toEqual(allIds);
  });

  it('last: 7 backwards visits every item exactly once', async () => {
    const seen: string[] = [];
    let before: string | null | undefined = null;
    for (;;) {
      h.resetCounts();
      const conn = await page({ last: 7, before });
      expect(h.simulator.stats().calls.search).toBeLessThanOrEqual(2);
      seen.unshift(...conn.edges.map((e) => e.node.resourceId));
      if (!conn.pageInfo.hasPreviousPage) break;
      before = conn.pageInfo.startCursor;
    }
    expect(seen).toEqual(allIds);
  });

  it('last: 7 alone reads the reversed order once and gives the final items with forward cursors', async () => {
    const conn = await page({ last: 7 });
    expect(conn.edges.map((e) => e.node.resourceId)).toEqual(allIds.slice(-7));
    expect(conn.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect(h.simulator.stats().calls).toEqual({ search: 1 });
    h.resetCounts();
    const next = await page({ first: 3, after: conn.edges[0]!.cursor });
    expect(next.edges.map((e) => e.node.resourceId)).toEqual(allIds.slice(494, 497));
  });
});

describe('offset windows', () => {
  it.each([
    [0, 10], [95, 10], [98, 5], [199, 2], [7, 7], [13, 29], [250, 100], [490, 25], [333, 1], [0, 500],
  ])('offset %i, first %i is right and costs at most two reads', async (offset, first) => {
    const conn = await page({ offset, first });
    expect(conn.edges.map((e) => e.node.resourceId)).toEqual(allIds.slice(offset, offset + first));
    expect(h.simulator.stats().calls.search).toBeLessThanOrEqual(2);
    expect(conn.pageInfo.hasNextPage).toBe(offset + first < 500);
    expect(conn.pageInfo.hasPreviousPage).toBe(offset > 0);
  });

  it('a window that straddles two upstream pages is served by exactly two reads', async () => {
    // 7 items from 138: no page size in [7, 14] holds 138..144 in one page.
    const conn = await page({ offset: 138, first: 7 });
    expect(conn.edges.map((e) => e.node.resourceId)).toEqual(allIds.slice(138, 145));
    expect(h.simulator.stats().calls.search).toBe(2);
  });

  it('past the end gives an empty page with the right flags', async () => {
    const conn = await page({ offset: 600, first: 5 });
    expect(conn).toMatchObject({ totalCount: 500, edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: true } });
  });

  it('an empty tenant gives an empty connection', async () => {
    const res = await h.query('{ tenant(id: "client_3") { resources(first: 5) { totalCount edges { cursor } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }');
    expect(res.data!.tenant.resources).toEqual({ totalCount: 0, edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null } });
  });
});

describe('paging arguments', () => {
  it.each([
    [{ first: 501 }, /at most 500/],
    [{ last: 10_000 }, /at most 500/],
    [{ first: -1 }, /zero or more/],
    [{ offset: -5 }, /zero or more/],
    [{ after: 'not-a-cursor' }, /not a cursor/],
    [{ offset: 3, after: 'bzoz' }, /cannot be combined/],
  ])('%j is BAD_USER_INPUT with no upstream call', async (vars, message) => {
    const res = await h.execute(PAGE, { tenant: 'client_1', ...vars });
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0]?.message).toMatch(message);
    expect(h.simulator.stats().totalCalls).toBe(0);
  });

  it('pages the history and the antivirus list the same way', async () => {
    const history = await h.rest(`client_1/history/resources?pageSize=100&queryString=${encodeURIComponent('state:DECOMMISSIONED')}`);
    const res = await h.query('{ tenant(id: "client_1") { decommissionedResources(offset: 5, first: 9) { nodes { resourceId } pageInfo { hasNextPage } } } }');
    expect(res.data!.tenant.decommissionedResources.nodes.map((n: { resourceId: string }) => n.resourceId)).toEqual(history.results.slice(5, 14).map((r: { id: string }) => r.id));
    const av = await h.rest('client_1/resources/antivirus/search?pageSize=1000');
    const last = await h.query('{ tenant(id: "client_1") { antivirusDefinitions(last: 4) { nodes { resource { resourceId } } } } }');
    expect(last.data!.tenant.antivirusDefinitions.nodes.map((n: { resource: { resourceId: string } }) => n.resource.resourceId)).toEqual(av.results.slice(-4).map((r: { resource: { id: string } }) => r.resource.id));
  });
});
