/**
 * Our subgraph as a federation gateway calls it: the SDL it reports, and `_entities` batches, where
 * each representation succeeds or fails on its own and repeated references cost once.
 * (Both gateways over HTTP: federation-gateways.test.ts; what they cannot do: federation-limits.test.ts.)
 */
import { printSubgraphSchema } from '@apollo/subgraph';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { globalIdOf } from '../../src/schema/global-id.js';
import { subgraphSchema } from '../../src/schema/index.js';
import { FEDERATION_SECRET, SECRET_HEADER } from '../support/federation-gateways.js';
import { startHarness, upstreamCalls, type Harness } from '../support/harness.js';

let inventory: Harness;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  inventory = await startHarness({ env: { NODE_ENV: 'production', AUTH: 'off', FEDERATION_SECRET } });
  process.on('unhandledRejection', onUnhandled);
});
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await inventory.close();
});
beforeEach(() => inventory.resetCounts());

const ENTITIES = 'query($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Resource { resourceId hostName } ... on Tenant { tenantId } ... on DecommissionedResource { resourceId hostName } } }';
const tenant1 = () => inventory.simulator.dataset.tenants.get('client_1')!;
const of = (shape: string) => tenant1().resources.find((r) => r.shape === shape)!;

describe('the subgraph', () => {
  it('reports the checked-in subgraph SDL to the federation gateway only (its secret), in production', async () => {
    const res = await inventory.query('{ _service { sdl } }', undefined, SECRET_HEADER);
    expect(res.data!._service.sdl).toBe(printSubgraphSchema(subgraphSchema));
    // Federation v2.9, with the prices a gateway's demand control reads.
    expect(res.data!._service.sdl).toContain('@link(url: "https://specs.apollo.dev/federation/v2.9", import: ["@authenticated", "@cost", "@key", "@listSize", "@requiresScopes", "@shareable"])');
    const refused = await inventory.query('{ _service { sdl } }');
    expect(refused.data ?? null).toBeNull();
    expect(refused.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('answers each representation of a batch on its own: errors at their index, null for what does not exist', async () => {
    const general = of('general');
    const device = of('device');
    const decommissioned = tenant1().decommissioned[0]!;
    const representations = [
      { __typename: 'Resource', tenantId: 'client_1', resourceId: general.id },
      { __typename: 'Nope', tenantId: 'client_1', resourceId: general.id },
      { __typename: 'Resource', id: globalIdOf({ kind: 'Tenant', tenantId: 'client_1' }) },
      { __typename: 'Resource', id: 'not an id!' },
      { __typename: 'Resource', tenantId: 'client_1', resourceId: '00000000-0000-4000-8000-000000000000' },
      { __typename: 'GeneralResource', tenantId: 'client_1', resourceId: device.id },
      { __typename: 'Tenant', tenantId: 'client_999' },
      { __typename: 'Tenant', tenantId: 'client_2' },
      { __typename: 'DecommissionedResource', tenantId: 'client_1', resourceId: decommissioned.id },
      { __typename: 'DeviceResource', tenantId: 'client_1', resourceId: device.id },
    ];
    const res = await inventory.query(ENTITIES, { r: representations }, SECRET_HEADER);
    expect(res.data!._entities).toEqual([
      { __typename: 'GeneralResource', resourceId: general.id, hostName: general.hostName },
      null, // unknown __typename
      null, // the id of a tenant, not of a resource
      null, // malformed id
      null, // a resource that no longer exists
      null, // a device sent as a GeneralResource
      null, // a tenant that does not exist
      { __typename: 'Tenant', tenantId: 'client_2' },
      { __typename: 'DecommissionedResource', resourceId: decommissioned.id, hostName: decommissioned.hostName },
      { __typename: 'DeviceResource', resourceId: device.id, hostName: device.hostName },
    ]);
    expect(res.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['_entities', 1], 'BAD_USER_INPUT'],
      [['_entities', 2], 'BAD_USER_INPUT'],
      [['_entities', 3], 'BAD_USER_INPUT'],
    ]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  });

  it('resolves 600 references to 5 resources at the cost of 5 detail reads, estimated by distinct keys', async () => {
    const five = tenant1().resources.slice(0, 5);
    const representations = Array.from({ length: 600 }, (_x, i) => ({ __typename: 'Resource', tenantId: 'client_1', resourceId: five[i % 5]!.id }));
    const res = await inventory.query(ENTITIES, { r: representations }, SECRET_HEADER);
    expect(res.errors).toBeUndefined();
    expect(res.data!._entities.map((e: { resourceId: string }) => e.resourceId)).toEqual(representations.map((r) => r.resourceId));
    expect(upstreamCalls(inventory)).toEqual({ detail: 5 });
  });

  it('reaches a tenant and a decommissioned resource by the global id of node(id:) too', async () => {
    const decommissioned = tenant1().decommissioned[0]!;
    const res = await inventory.query(ENTITIES, {
      r: [
        { __typename: 'Tenant', id: globalIdOf({ kind: 'Tenant', tenantId: 'client_1' }) },
        { __typename: 'DecommissionedResource', id: globalIdOf({ kind: 'DecommissionedResource', tenantId: 'client_1', id: decommissioned.id }) },
      ],
    }, SECRET_HEADER);
    expect(res.errors).toBeUndefined();
    expect(res.data!._entities).toEqual([
      { __typename: 'Tenant', tenantId: 'client_1' },
      { __typename: 'DecommissionedResource', resourceId: decommissioned.id, hostName: decommissioned.hostName },
    ]);
  });
});
