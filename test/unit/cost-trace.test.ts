/**
 * Explain's "where the calls come from" is recorded by the walk that makes the estimate: per
 * tenant and route its parts add up to the estimate's counts, whatever the operation's shape.
 */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { estimateUpstreamCalls } from '../../src/schema/cost.js';
import { CostTrace } from '../../src/schema/cost-trace.js';
import { globalIdOf } from '../../src/schema/global-id.js';

const SETTINGS = { defaultPageSize: 50, maxPageSize: 500, minimalListSize: 500, resourceTypeCount: 50, maxAvailabilityWindowDays: 366 };
const WINDOW = 'from: "2026-10-31T00:00:00Z", to: "2026-11-01T00:00:00Z"';
const ID = globalIdOf({ kind: 'Resource', tenantId: 'client_1', id: 'abc' });

const OPERATIONS = [
  '{ tenant(id: "client_1") { resources(first: 100) { nodes { id hostName applications { name } availability(' + WINDOW + ') { downtimeSeconds } } } } }',
  '{ tenant(id: "client_1") { resources(first: 10) { nodes { status location { name city } ... on GeneralResource { bios { systemSerial } } } } } }',
  '{ tenant(id: "client_2") { resourceList(state: ALL) { __typename id status } } }',
  '{ tenant(id: "client_1") { resourceTypes { name resources(first: 2) { nodes { id __typename applications { name } } } } } }',
  '{ tenant(id: "client_1") { a: resources(first: 3) { ...P } b: resources(first: 3, offset: 3) { ...P } } } fragment P on ResourceConnection { nodes { id status } }',
  '{ tenant(id: "client_1") { antivirusDefinitions(first: 10) { nodes { status resource { __typename hostName } } } decommissionedResources(first: 5) { nodes { bios { biosName } cpus { processorName } } } } }',
  '{ tenant(id: "client_1") { resourceSummary(filter: { state: ACTIVE }) { total byState { count } byResourceType { count } } resourceTypes { name } } }',
  `{ node(id: "${ID}") { id ... on GeneralResource { osName applications { name } } } }`,
  'query($ids: [ID!]!) { nodes(ids: $ids) { id } }',
  'mutation { updateResource(input: { tenantId: "client_1", id: "abc", aliasName: "x" }) { resource { aliasName model } } }',
];

describe('the cost trace', () => {
  it.each(OPERATIONS)('adds up to the estimate, per tenant and route: %s', (query) => {
    const trace = new CostTrace();
    const traced = estimateUpstreamCalls(parse(query), undefined, {}, SETTINGS, trace);
    const plain = estimateUpstreamCalls(parse(query), undefined, {}, SETTINGS);
    expect(traced.estimate).toBe(plain.estimate);
    expect(traced.estimate).toBeGreaterThan(0);
    const sums = new Map<string | null, Record<string, number>>();
    for (const part of trace.parts) {
      const routes = sums.get(part.tenant) ?? {};
      routes[part.route] = (routes[part.route] ?? 0) + part.calls;
      sums.set(part.tenant, routes);
      expect(part.calls).toBe(part.under.reduce((p, l) => p * l.n, part.perItem));
    }
    expect(Object.fromEntries(sums)).toEqual(Object.fromEntries([...plain.byTenant].map(([t, c]) => [t, c.routes])));
  });
});
