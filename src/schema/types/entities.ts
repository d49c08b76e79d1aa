/**
 * Apollo Federation entities. Tenant is keyed by id; every resource (the interface and its three
 * implementations, as entity interfaces require) and DecommissionedResource by "tenantId id".
 * References resolve through the same per-operation loaders, so a batch of references is
 * de-duplicated and costs at most one detail call per distinct resource.
 */
import { builder } from '../builder.js';
import { DecommissionedResourceRef } from './decommissioned.js';
import { DeviceResourceRef, GeneralResourceRef, ResourceRef, SyntheticResourceRef } from './resource.js';
import { TenantRef } from './tenant.js';

interface ResourceKeyShape { tenantId: string; id: string }

builder.asEntity(TenantRef, {
  key: builder.selection<{ id: string }>('id'),
  resolveReference: (ref, ctx) => ctx.inventory.tenant(String(ref.id)),
});

for (const ref of [ResourceRef, GeneralResourceRef, DeviceResourceRef, SyntheticResourceRef]) {
  builder.asEntity(ref, {
    key: builder.selection<ResourceKeyShape>('tenantId id'),
    resolveReference: (key, ctx) => ctx.inventory.resourceReference(key),
  });
}

builder.asEntity(DecommissionedResourceRef, {
  key: builder.selection<ResourceKeyShape>('tenantId id'),
  resolveReference: (key, ctx) => ctx.inventory.decommissionedReference(key),
});
