import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UpdateResourceDocument } from '../__generated__/graphql.js';
import { globalIdOf } from '../../src/schema/global-id.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.resetCounts());

const general = () => h.simulator.dataset.tenants.get('client_1')!.resources.filter((r) => r.shape === 'general')[3]!;

describe('updateResource', () => {
  it('posts the change and returns the resource as re-read', async () => {
    const r = general();
    const res = await h.execute(UpdateResourceDocument, {
      input: {
        tenantId: 'client_1', id: r.id, aliasName: 'edge-router-7', extResourceId: 'ext-42',
        networkInterfaces: [{ ipAddressType: 'STATIC', macAddress: '00:1A:2B:3C:4D:5E', isDefault: true, ipAddress: '10.9.8.7' }],
        logicalDiskDrives: [{ name: 'C:', utilizationWarningThreshold: 80, utilizationCriticalThreshold: 95 }],
        oobInterfaceCards: [{ name: 'idrac', macAddress: '00:1A:2B:3C:4D:5F', port: 443 }],
      },
    });
    expect(res.errors).toBeUndefined();
    expect(res.data!.updateResource).toEqual({
      resource: { __typename: 'GeneralResource', id: globalIdOf({ kind: 'Resource', tenantId: 'client_1', id: r.id }), resourceId: r.id, aliasName: 'edge-router-7', extResourceId: 'ext-42' },
      userErrors: [],
    });
    expect(h.simulator.stats().calls).toEqual({ update: 1, detail: 1 });
    const rest = await h.rest(`client_1/resources/${r.id}`);
    expect(rest.generalInfo.aliasName).toBe('edge-router-7');
    expect(rest.ipAddress).toBe('10.9.8.7');
    expect(r.updates.oobInterfaceCards).toEqual([{ name: 'idrac', macAddress: '00:1A:2B:3C:4D:5F', port: 443 }]);
    expect(r.updates.logicalDiskDrives).toEqual([{ name: 'C:', utilizationWarningThreshold: 80, utilizationCriticalThreshold: 95 }]);
  });

  it('shows the update to a later read in the same operation', async () => {
    const r = general();
    const res = await h.query(
      `mutation($id: ID!) {
        before: updateResource(input: { tenantId: "client_1", id: $id, aliasName: "first" }) { resource { aliasName } }
        after: updateResource(input: { tenantId: "client_1", id: $id, aliasName: "second" }) { resource { aliasName } }
      }`,
      { id: r.id },
    );
    expect(res.data).toEqual({ before: { resource: { aliasName: 'first' } }, after: { resource: { aliasName: 'second' } } });
  });

  it.each([
    ['a threshold above 100', { logicalDiskDrives: [{ name: 'C:', utilizationWarningThreshold: 100.5 }] }, ['input', 'logicalDiskDrives', '0', 'utilizationWarningThreshold'], 'OUT_OF_RANGE'],
    ['a negative threshold', { logicalDiskDrives: [{ name: 'D:', freeDiskCriticalThreshold: -1 }] }, ['input', 'logicalDiskDrives', '0', 'freeDiskCriticalThreshold'], 'OUT_OF_RANGE'],
    ['an oob card without a name', { oobInterfaceCards: [{ name: ' ', macAddress: '00:1A:2B:3C:4D:5F' }] }, ['input', 'oobInterfaceCards', '0', 'name'], 'REQUIRED'],
    ['an oob card with an empty mac', { oobInterfaceCards: [{ name: 'bmc', macAddress: '' }] }, ['input', 'oobInterfaceCards', '0', 'macAddress'], 'REQUIRED'],
    ['a malformed mac', { networkInterfaces: [{ macAddress: 'zz:zz' }] }, ['input', 'networkInterfaces', '0', 'macAddress'], 'INVALID_FORMAT'],
    ['a port out of range', { oobInterfaceCards: [{ name: 'bmc', macAddress: '00:1A:2B:3C:4D:5F', port: 70000 }] }, ['input', 'oobInterfaceCards', '0', 'port'], 'OUT_OF_RANGE'],
    ['an id with a slash', { id: '../../x', aliasName: 'a' }, ['input', 'id'], 'INVALID_FORMAT'],
    ['a tenantId that is no tenant id', { tenantId: 'client 1', aliasName: 'a' }, ['input', 'tenantId'], 'INVALID_FORMAT'],
    ['nothing to change', {}, ['input'], 'EMPTY_UPDATE'],
  ])('reports %s as a userError without calling the upstream', async (_name, change, field, code) => {
    const res = await h.execute(UpdateResourceDocument, { input: { tenantId: 'client_1', id: general().id, ...change } });
    expect(res.errors).toBeUndefined();
    expect(res.data!.updateResource.resource).toBeNull();
    expect(res.data!.updateResource.userErrors).toEqual([{ field, message: expect.any(String), code }]);
    expect(h.simulator.stats().totalCalls).toBe(0);
  });

  it('reports a tenantId that is no tenant id as a userError beside a global id too (one rule, one outcome)', async () => {
    const gid = globalIdOf({ kind: 'Resource', tenantId: 'client_1', id: general().id });
    const res = await h.execute(UpdateResourceDocument, { input: { tenantId: 'client 1', id: gid, aliasName: 'a' } });
    expect(res.errors).toBeUndefined();
    expect(res.data!.updateResource.userErrors).toEqual([{ field: ['input', 'tenantId'], message: expect.any(String), code: 'INVALID_FORMAT' }]);
    expect(h.simulator.stats().totalCalls).toBe(0);
  });

  it('reports an unknown resource as a NOT_FOUND userError', async () => {
    const res = await h.execute(UpdateResourceDocument, { input: { tenantId: 'client_1', id: '00000000-0000-0000-0000-000000000000', aliasName: 'x' } });
    expect(res.data!.updateResource).toEqual({ resource: null, userErrors: [{ field: ['input', 'id'], message: expect.stringMatching(/not found/), code: 'NOT_FOUND' }] });
  });

  it('changes a resource named by its global id alone', async () => {
    const r = general();
    const gid = globalIdOf({ kind: 'Resource', tenantId: 'client_1', id: r.id });
    const res = await h.execute(UpdateResourceDocument, { input: { id: gid, aliasName: 'by-global-id' } });
    expect(res.errors).toBeUndefined();
    expect(res.data!.updateResource).toEqual({
      resource: expect.objectContaining({ __typename: 'GeneralResource', id: gid, resourceId: r.id, aliasName: 'by-global-id' }),
      userErrors: [],
    });
    expect(h.simulator.stats().calls).toEqual({ update: 1, detail: 1 });
    expect((await h.rest(`client_1/resources/${r.id}`)).generalInfo.aliasName).toBe('by-global-id');
    // With the tenant repeated, as long as it agrees.
    const again = await h.execute(UpdateResourceDocument, { input: { tenantId: 'client_1', id: gid, aliasName: 'by-global-id-2' } });
    expect(again.data!.updateResource.userErrors).toEqual([]);
    expect((await h.rest(`client_1/resources/${r.id}`)).generalInfo.aliasName).toBe('by-global-id-2');
  });

  it('reports an inventory id without tenantId as a userError without calling the upstream', async () => {
    const res = await h.execute(UpdateResourceDocument, { input: { id: general().id, aliasName: 'x' } });
    expect(res.data!.updateResource).toEqual({ resource: null, userErrors: [{ field: ['input', 'tenantId'], message: expect.any(String), code: 'REQUIRED' }] });
    expect(h.simulator.stats().totalCalls).toBe(0);
  });

  const client2Resource = () => h.simulator.dataset.tenants.get('client_2')!.resources[0]!;
  it.each([
    ['a tenant id', () => ({ id: globalIdOf({ kind: 'Tenant', tenantId: 'client_1' }) })],
    ['a decommissioned resource id', () => ({ id: globalIdOf({ kind: 'DecommissionedResource', tenantId: 'client_1', id: general().id }) })],
    ['a resource type id', () => ({ id: globalIdOf({ kind: 'ResourceType', tenantId: 'client_1', number: 1 }) })],
    ["another tenant's resource under tenantId", () => ({ tenantId: 'client_1', id: globalIdOf({ kind: 'Resource', tenantId: 'client_2', id: client2Resource().id }) })],
    ['a global id whose resource id has a slash', () => ({ id: Buffer.from('Resource:client_1:a/b').toString('base64url') })],
  ])('refuses %s as input.id with BAD_USER_INPUT and no upstream call', async (_name, target) => {
    const res = await h.execute(UpdateResourceDocument, { input: { ...target(), aliasName: 'x' } });
    expect(res.data).toBeNull();
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.id' });
    expect(h.simulator.stats().totalCalls).toBe(0);
    expect(client2Resource().updates).toEqual({});
  });

  it('refuses input of the wrong type through schema validation', async () => {
    // Deliberately ill-typed input, sent untyped: the server's validation must refuse it.
    const res = await h.execute(UpdateResourceDocument, { input: { tenantId: 'client_1', id: general().id, logicalDiskDrives: [{ name: 'C:', utilizationWarningThreshold: 'high' as unknown as number }] } });
    expect(res.errors?.[0]?.message).toMatch(/Float/);
    expect(h.simulator.stats().totalCalls).toBe(0);
  });
});
