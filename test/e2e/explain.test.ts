/**
 * Issue 40: `x-explain: 1` answers an operation's cost plan instead of running it, with no upstream
 * call; its calls per tenant and category are the estimate admission and the rate-limit claim use,
 * and running the operation cold costs what it says (the simulator counting), against the
 * simulator at its documented rate limits and the gateway at its defaults.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isEnumType, isInputObjectType, isInterfaceType, isObjectType, parse, visit } from 'graphql';
import { schema } from '../../src/schema/index.js';
import { startHarness, type Harness } from '../support/harness.js';
import { DASHBOARD } from '../support/dashboard-query.js';

/** The README's example (section "Example"). */
const README_EXAMPLE = `{
  tenant(id: "client_1") {
    resources(first: 2, filter: { state: ACTIVE, type: "DEVICE" }) {
      totalCount
      nodes {
        __typename id hostName ipAddress
        ... on GeneralResource { osName location { name } }
        applications { name version }
      }
    }
  }
}`;

const DAY = { from: '2026-10-31T00:00:00Z', to: '2026-11-01T00:00:00Z' };

type Plan = {
  calls: number;
  verdict: string;
  reason: string;
  tenants: { tenant: string | null; byCategory: Record<string, { calls: number; conditional: number; limit: number | null; remaining: number | null; resetAt: string | null; fits: boolean | null; share: number | null }> }[];
  drivers: { path: string; category: string; calls: number; multiplier: number; why: string; conditionalOn?: string[] }[];
};

async function post(h: Harness, query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const response = await h.fetch(h.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, body: (await response.json()) as { data?: any; errors?: any[]; extensions?: any } };
}

/** The simulator's own count, over HTTP, by tenant and rate-limit category. */
async function simulatorCounts(h: Harness, tenant: string): Promise<Record<string, number>> {
  const stats = (await (await fetch(`${h.simulator.url}/__sim/stats`)).json()) as { totalCalls: number; byTenant: Record<string, Record<string, { calls: number }>> };
  return { total: stats.totalCalls, ...Object.fromEntries(Object.entries(stats.byTenant[tenant] ?? {}).map(([c, v]) => [c, v.calls])) };
}

const categoriesOf = (plan: Plan, tenant: string, pick: 'calls' | 'conditional' = 'calls') =>
  Object.fromEntries(Object.entries(plan.tenants.find((t) => t.tenant === tenant)!.byCategory).map(([c, v]) => [c, v[pick]]));

describe('explain (x-explain: 1), at the defaults', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ simulator: { rateLimit: {} } });
  });
  afterAll(() => h.close());

  it('the README example: the plan, no upstream call; running it cold costs the plan less the reads its records make unneeded', async () => {
    h.resetCounts();
    const explained = await post(h, README_EXAMPLE, {}, { 'x-explain': '1' });
    expect(explained.status).toBe(200);
    expect(explained.body.data).toBeNull();
    expect(explained.body.errors).toBeUndefined();
    expect((await simulatorCounts(h, 'client_1')).total).toBe(0);
    const plan = explained.body.extensions.explain as Plan;
    expect(categoriesOf(plan, 'client_1')).toEqual({ paginated: 1, other: 4 });
    // The two detail reads are for `location`, which the search does not document: made only for records without it.
    expect(categoriesOf(plan, 'client_1', 'conditional')).toEqual({ paginated: 0, other: 2 });
    expect(plan.drivers).toContainEqual(expect.objectContaining({ path: 'tenant.resources.nodes.applications', calls: 2, multiplier: 2, why: '2 resources × one applications read' }));
    expect(plan.drivers).toContainEqual(expect.objectContaining({ path: 'tenant.resources.nodes', calls: 2, conditionalOn: ['location'] }));
    expect(plan.verdict).toBe('full');

    const run = await post(h, README_EXAMPLE, {}, { 'x-upstream-stats': '1' });
    expect(run.body.errors).toBeUndefined();
    const upstream = run.body.extensions.upstream;
    // The same estimate admission and the rate-limit claim used.
    expect(upstream.estimatedCalls).toBe(plan.calls);
    expect(upstream.estimatedCallsByCategory).toMatchObject(categoriesOf(plan, 'client_1'));
    // client_1's search records carry location: the conditional reads were not made.
    const certain = { paginated: 1, other: 4 - 2 };
    expect(upstream.callsByCategory).toMatchObject(certain);
    expect(await simulatorCounts(h, 'client_1')).toMatchObject(certain);
  });

  it('a 100-resource dashboard page: explain says 1 + 200 calls, the field that drives them, and a cold run costs exactly that', async () => {
    h.resetCounts();
    const variables = { tenant: 'client_1', after: null, ...DAY };
    const before = await simulatorCounts(h, 'client_1');
    const explained = await post(h, DASHBOARD, variables, { 'x-explain': '1' });
    expect(explained.body.data).toBeNull();
    expect(await simulatorCounts(h, 'client_1')).toEqual(before);
    const plan = explained.body.extensions.explain as Plan;
    expect(categoriesOf(plan, 'client_1')).toEqual({ paginated: 1, other: 200 });
    expect(categoriesOf(plan, 'client_1', 'conditional')).toEqual({ paginated: 0, other: 0 });
    expect(plan.drivers.slice(0, 2).map((d) => d.why).sort()).toEqual(['100 resources × one applications read', '100 resources × one availability read']);
    expect(plan.drivers[0]).toMatchObject({ category: 'other', calls: 100, multiplier: 100 });
    // The tenant's window now: a paginated call of the README example was spent above.
    const other = plan.tenants[0]!.byCategory.other!;
    expect(other).toMatchObject({ calls: 200, limit: 500, fits: true, share: 0.4 });
    expect(other.remaining).toBeGreaterThanOrEqual(200);
    expect(plan.verdict).toBe('full');

    const run = await post(h, DASHBOARD, variables, { 'x-upstream-stats': '1' });
    expect(run.body.errors).toBeUndefined();
    expect(run.body.extensions.upstream.callsByCategory).toMatchObject({ paginated: 1, other: 200 });
    expect(run.body.extensions.upstream.estimatedCallsByCategory).toMatchObject({ paginated: 1, other: 200 });
    const after = await simulatorCounts(h, 'client_1');
    expect({ paginated: after.paginated! - (before.paginated ?? 0), other: after.other! - (before.other ?? 0) }).toEqual({ paginated: 1, other: 200 });
  });

  it('says when the tenant has too little left (cache only, with the reset) and when an operation would be refused', async () => {
    // A second page spends 200 more other calls of client_1's 500: about 100 are left.
    const first = await post(h, DASHBOARD, { tenant: 'client_1', after: null, ...DAY });
    const second = await post(h, DASHBOARD, { tenant: 'client_1', after: first.body.data.tenant.resources.pageInfo.endCursor, ...DAY });
    expect(second.body.errors).toBeUndefined();
    const counted = await simulatorCounts(h, 'client_1');
    const third = (await post(h, DASHBOARD, { tenant: 'client_1', after: second.body.data.tenant.resources.pageInfo.endCursor, ...DAY }, { 'x-explain': '1' })).body.extensions.explain as Plan;
    expect(await simulatorCounts(h, 'client_1')).toEqual(counted);
    const other = third.tenants[0]!.byCategory.other!;
    expect(other.fits).toBe(false);
    expect(other.remaining).toBeLessThan(200);
    expect(other.resetAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(third.verdict).toBe('cache-only');
    expect(third.reason).toContain(`${other.remaining} of 500 other calls left`);
    // 500 resources with their applications: over a whole window, never run.
    const huge = (await post(h, DASHBOARD.replace('first: 100', 'first: 500'), { tenant: 'client_2', after: null, ...DAY }, { 'x-explain': '1' })).body.extensions.explain as Plan;
    expect(huge.verdict).toBe('refused');
    expect(huge.reason).toMatch(/about 1001 upstream calls; the limit is \d+/);
    expect(await simulatorCounts(h, 'client_1')).toEqual(counted);
  });
});

/** Every name the schema defines (as schema-exposure.ts counts them). */
function schemaNames(): Set<string> {
  const names = new Set<string>();
  for (const type of Object.values(schema.getTypeMap())) {
    names.add(type.name);
    if (isObjectType(type) || isInterfaceType(type)) for (const f of Object.values(type.getFields())) [f.name, ...f.args.map((a) => a.name)].forEach((n) => names.add(n));
    else if (isInputObjectType(type)) for (const f of Object.values(type.getFields())) names.add(f.name);
    else if (isEnumType(type)) for (const v of type.getValues()) names.add(v.name);
  }
  for (const d of schema.getDirectives()) [d.name, ...d.args.map((a) => a.name)].forEach((n) => names.add(n));
  return names;
}

/** The schema names in a plan's strings that the request did not use. */
function unnamedSchemaNames(plan: unknown, query: string): string[] {
  const named = new Set<string>();
  visit(parse(query), { Name: (node) => void named.add(node.value) });
  const known = schemaNames();
  // Object keys are the plan's own vocabulary; its string values are what it tells.
  const values = Object.values(flatten(plan)).join(' ').match(/[_A-Za-z][_0-9A-Za-z]*/g) ?? [];
  return [...new Set(values.filter((w) => known.has(w) && !named.has(w)))];
}

function flatten(value: unknown, out: Record<string, unknown> = {}, prefix = ''): Record<string, unknown> {
  if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) flatten(v, out, `${prefix}.${k}`);
  else if (typeof value === 'string') out[prefix] = value;
  return out;
}

describe('explain in production (introspection off)', () => {
  /** A summary reads the tenant's resource types: a read whose name the request does not use. */
  const SUMMARY = '{ tenant(id: "client_1") { resourceSummary { byResourceType { count } } } }';

  it('is refused unless EXPLAIN allows it, with no upstream call', async () => {
    const h = await startHarness({ env: { NODE_ENV: 'production', AUTH: 'off' } });
    try {
      h.resetCounts();
      const refused = await post(h, DASHBOARD, { tenant: 'client_1', after: null, ...DAY }, { 'x-explain': '1' });
      expect(refused.status).toBe(403);
      expect(refused.body.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'FORBIDDEN' }) })]);
      expect(refused.body.extensions?.explain).toBeUndefined();
      expect(h.simulator.stats().totalCalls).toBe(0);
    } finally {
      await h.close();
    }
  });

  it('with EXPLAIN=on answers the plan and names no schema element the request did not name', async () => {
    const [prod, dev] = await Promise.all([startHarness({ env: { NODE_ENV: 'production', AUTH: 'off', EXPLAIN: 'on' } }), startHarness()]);
    try {
      const plan = (await post(prod, SUMMARY, {}, { 'x-explain': '1' })).body.extensions.explain as Plan;
      expect(plan.calls).toBeGreaterThan(0);
      expect(unnamedSchemaNames(plan, SUMMARY)).toEqual([]);
      expect(JSON.stringify(plan)).toContain('(hidden)');
      const dashboard = (await post(prod, DASHBOARD, { tenant: 'client_1', after: null, ...DAY }, { 'x-explain': '1' })).body.extensions.explain as Plan;
      expect(dashboard.drivers[0]!.why).toMatch(/^100 resources × one (applications|availability) read$/);
      expect(unnamedSchemaNames(dashboard, DASHBOARD)).toEqual([]);
      // In development the same plan names the read (the check above is not vacuous).
      const open = (await post(dev, SUMMARY, {}, { 'x-explain': '1' })).body.extensions.explain as Plan;
      expect(unnamedSchemaNames(open, SUMMARY)).not.toEqual([]);
      expect(prod.simulator.stats().totalCalls + dev.simulator.stats().totalCalls).toBe(0);
    } finally {
      await Promise.all([prod.close(), dev.close()]);
    }
  });
});
