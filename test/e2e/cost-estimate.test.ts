/**
 * The pre-execution estimate of upstream calls and the calls an operation really makes read the
 * same field-source table; over representative operations the estimate never under-counts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
let ids: Record<'general' | 'device' | 'synthetic', string>;
let decommissionedId: string;

beforeAll(async () => {
  h = await startHarness();
  const tenant = h.simulator.dataset.tenants.get('client_1')!;
  const of = (shape: string) => tenant.resources.find((r) => r.shape === shape)!.id;
  ids = { general: of('general'), device: of('device'), synthetic: of('synthetic') };
  decommissionedId = tenant.decommissioned[0]!.id;
});
afterAll(() => h.close());

const WINDOW = 'from: "2026-10-31T00:00:00Z", to: "2026-11-01T00:00:00Z"';
const operations = (): [string, string, Record<string, unknown>?][] => [
  ['search fields only', '{ tenant(id: "client_1") { resources(first: 20) { nodes { id hostName ipAddress } } } }'],
  ['typename and extras on a page', '{ tenant(id: "client_1") { resources(first: 20) { nodes { __typename updatedAt tags { name } location { name } } } } }'],
  ['detail fields on a page', '{ tenant(id: "client_1") { resources(first: 10) { nodes { status ... on GeneralResource { bios { systemSerial } networkCards { macAddress } } } } } }'],
  ['extras on a documented-only tenant', '{ tenant(id: "client_2") { resources(first: 10) { nodes { updatedAt macAddress deviceGroups { name } serialNumber } } } }'],
  ['nested applications and availability', `{ tenant(id: "client_1") { resources(first: 10) { nodes { applications { name } availability(${WINDOW}) { downtimeSeconds } } } } }`],
  ['two availability windows', `{ tenant(id: "client_1") { resources(first: 5) { nodes { a: availability(${WINDOW}) { downtimeSeconds } b: availability(from: "2026-10-01T00:00:00Z", to: "2026-10-02T00:00:00Z") { downtimeSeconds } } } } }`],
  ['general lookup with a search-only field', `{ tenant(id: "client_1") { resource(id: "$general") { __typename model classCode } } }`],
  ['device lookup with search-only fields', `{ tenant(id: "client_1") { resource(id: "$device") { __typename devicePath gatewayProfileId macAddress } } }`],
  ['synthetic lookup', `{ tenant(id: "client_1") { resource(id: "$synthetic") { __typename ... on SyntheticResource { checkType credential { hasClientKey } } hostName } } }`],
  ['lookup with applications (prefetch)', `{ tenant(id: "client_1") { resource(id: "$general") { id applications { name version } } } }`],
  ['minimal list of a small tenant with typename', '{ tenant(id: "client_2") { resourceList(state: ALL) { __typename id hostName } } }'],
  ['a sub-field the search does not document, on a page', '{ tenant(id: "client_1") { resources(first: 10) { nodes { location { name city } tags { source } } } } }'],
  ['minimal list with a city', '{ tenant(id: "client_2") { resourceList { location { number city } } } }'],
  ['minimal list with a detail field', '{ tenant(id: "client_2") { resourceList { status location { name } } } }'],
  ['minimal list with typename and a field a search may supply', '{ tenant(id: "client_2") { resourceList(state: ALL) { __typename hostName location { name } } } }'],
  ['antivirus with resource fields', '{ tenant(id: "client_1") { antivirusDefinitions(first: 10) { nodes { status resource { __typename hostName tags { name } } } } } }'],
  ['history page with hardware', '{ tenant(id: "client_1") { decommissionedResources(first: 5) { nodes { id bios { biosName } cpus { processorName } } } } }'],
  ['history lookup', `{ tenant(id: "client_1") { decommissionedResource(id: "$decommissioned") { id hostName videoCards { name } } } }`],
  ['resource types with nested pages', '{ tenant(id: "client_1") { resourceTypes { name resources(first: 2) { nodes { id __typename } } } } }'],
  ['fragments and aliases', '{ tenant(id: "client_1") { a: resources(first: 3) { ...Page } b: resources(first: 3, offset: 3) { ...Page } } } fragment Page on ResourceConnection { nodes { ...R } } fragment R on Resource { id status }'],
  ['entities by reference', `query($r: [_Any!]!) { _entities(representations: $r) { ... on Resource { __typename hostName model } } }`, { r: ['$general', '$device', '$synthetic'].map((resourceId) => ({ __typename: 'Resource', tenantId: 'client_1', resourceId })) }],
  ['tenant entity', `query($r: [_Any!]!) { _entities(representations: $r) { ... on Tenant { resources(first: 3) { nodes { id status } } } } }`, { r: [{ __typename: 'Tenant', tenantId: 'client_1' }] }],
  ['backward page', '{ tenant(id: "client_1") { resources(last: 7) { nodes { id osName } } } }'],
  ['update and re-read', `mutation { updateResource(input: { tenantId: "client_1", id: "$general", aliasName: "estimated" }) { resource { aliasName model } userErrors { code } } }`],
  ['resource summary with a state filter', '{ tenant(id: "client_1") { resourceSummary(filter: { state: ACTIVE, type: "DEVICE" }) { total byState { count } byResourceType { count } } } }'],
  ['everything of one tenant', `{ tenant(id: "client_1") { resources(first: 3) { totalCount } resourceTypes { name } antivirusDefinitions(first: 3) { totalCount } decommissionedResources(first: 3) { totalCount } } }`],
];

function bind(text: string): string {
  return text.replaceAll('$general', ids.general).replaceAll('$device', ids.device).replaceAll('$synthetic', ids.synthetic).replaceAll('$decommissioned', decommissionedId);
}

describe('the upstream call estimate', () => {
  // The estimate bounds an operation's cold cost: each one starts with an empty response cache.
  beforeEach(() => h.resetCounts());

  it('covers at least 20 operations', () => {
    expect(operations().length).toBeGreaterThanOrEqual(20);
  });

  it.each(operations().map(([name, query, variables]) => [name, query, variables] as const))('%s: estimate >= calls made', async (_name, query, variables) => {
    const bound = variables ? JSON.parse(bind(JSON.stringify(variables))) : undefined;
    const res = await h.query(bind(query), bound, { 'x-upstream-stats': '1' });
    expect(res.errors).toBeUndefined();
    const { estimatedCalls, totalCalls } = res.extensions!.upstream as { estimatedCalls: number; totalCalls: number };
    expect(totalCalls).toBeGreaterThan(0);
    expect(estimatedCalls).toBeGreaterThanOrEqual(totalCalls);
  });
});
