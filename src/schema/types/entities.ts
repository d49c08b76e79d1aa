/**
 * Apollo Federation entities, keyed by the same global id as `node(id:)`, so one id reaches an
 * entity both ways. Tenant also has the key "tenantId" and DecommissionedResource "tenantId
 * resourceId", for subgraphs that know the inventory's own ids. Resources (the interface and
 * its three implementations, as entity interfaces require) have the global id only: with a
 * second key, Hive Gateway 2.12 plans no fetch to an @interfaceObject subgraph (seen in
 * test/e2e/federation.test.ts). A reference by tenantId and resourceId still resolves.
 * References resolve through the same per-operation loaders, so a batch of references is
 * de-duplicated and costs at most one detail call per distinct resource.
 */
import { builder } from '../builder.js';
import type { NodeKind } from '../../core/node-key.js';
import { parseGlobalId } from '../global-id.js';
import { badUserInput } from '../../core/errors.js';
import { DecommissionedResourceRef } from './decommissioned.js';
import { DeviceResourceRef, GeneralResourceRef, ResourceRef, SyntheticResourceRef } from './resource.js';
import { TenantRef } from './tenant.js';

interface Reference { id?: unknown; tenantId?: unknown; resourceId?: unknown }

/** The inventory's own ids of a reference, from its global id or from its other key. */
function ownIds(ref: Reference, kind: NodeKind): { tenantId: string; id: string } {
  if (ref.id !== undefined) {
    const key = parseGlobalId(String(ref.id), 'representations.id');
    if (key.kind !== kind) throw badUserInput(`representations.id is not the id of a ${kind}`, 'representations.id');
    return { tenantId: key.tenantId, id: 'id' in key ? key.id : key.tenantId };
  }
  return { tenantId: String(ref.tenantId), id: String(ref.resourceId ?? ref.tenantId) };
}

builder.asEntity(TenantRef, {
  key: [builder.selection<{ id: string }>('id'), builder.selection<{ tenantId: string }>('tenantId')],
  resolveReference: (ref: Reference, ctx) => ctx.inventory.tenant(ownIds(ref, 'Tenant').tenantId),
});

for (const ref of [ResourceRef, GeneralResourceRef, DeviceResourceRef, SyntheticResourceRef]) {
  builder.asEntity(ref, {
    key: builder.selection<{ id: string }>('id'),
    resolveReference: (key: Reference, ctx) => ctx.inventory.resourceReference(ownIds(key, 'Resource')),
  });
}

builder.asEntity(DecommissionedResourceRef, {
  key: [builder.selection<{ id: string }>('id'), builder.selection<{ tenantId: string; resourceId: string }>('tenantId resourceId')],
  resolveReference: (key: Reference, ctx) => ctx.inventory.decommissionedReference(ownIds(key, 'DecommissionedResource')),
});
