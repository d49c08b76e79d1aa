/**
 * Apollo Federation entities. Tenant is keyed by id; every resource (the interface and its three
 * implementations, as entity interfaces require) and DecommissionedResource by "tenantId id".
 * References resolve through the same per-operation loaders, so a batch of references is
 * de-duplicated and costs at most one detail call per distinct resource.
 */
import type { GatewayContext } from '../../context.js';
import { checkTenantId } from '../../services/inventory.js';
import { checkId } from '../../upstream/query-string.js';
import { builder } from '../builder.js';
import { DecommissionedResourceRef } from './decommissioned.js';
import { DeviceResourceRef, GeneralResourceRef, ResourceRef, SyntheticResourceRef } from './resource.js';
import { TenantRef } from './tenant.js';

interface ResourceKeyShape { tenantId: string; id: string }

function resourceByKey(ref: ResourceKeyShape, ctx: GatewayContext) {
  return ctx.loaders.resourceDetail.load({ tenantId: checkTenantId(String(ref.tenantId)), id: checkId(String(ref.id), 'id') });
}

builder.asEntity(TenantRef, {
  key: builder.selection<{ id: string }>('id'),
  resolveReference: (ref) => ({ id: checkTenantId(String(ref.id)) }),
});

for (const ref of [ResourceRef, GeneralResourceRef, DeviceResourceRef, SyntheticResourceRef]) {
  builder.asEntity(ref, {
    key: builder.selection<ResourceKeyShape>('tenantId id'),
    resolveReference: (key, ctx) => resourceByKey(key, ctx),
  });
}

builder.asEntity(DecommissionedResourceRef, {
  key: builder.selection<ResourceKeyShape>('tenantId id'),
  resolveReference: (key, ctx) =>
    ctx.loaders.decommissionedById.load({ tenantId: checkTenantId(String(key.tenantId)), id: checkId(String(key.id), 'id') }),
});
