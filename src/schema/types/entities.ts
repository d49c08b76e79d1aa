/**
 * Apollo Federation entities, keyed by the inventory's natural key, which other subgraphs know:
 * Tenant by "tenantId", resources (the interface and its three implementations, as entity
 * interfaces require) and DecommissionedResource by "tenantId resourceId". Tenant and
 * DecommissionedResource also by the global id of `node(id:)`; resources by their natural key
 * only: with a second key on an entity interface or its implementations, Hive Gateway 2.12 plans
 * no fetch to an @interfaceObject subgraph (test/e2e/federation-limits.test.ts shows it). A
 * representation carrying a global id still resolves.
 *
 * Each representation of an `_entities` batch succeeds or fails on its own (resolveEntitiesOneByOne):
 * a malformed one is an error at its index; one that names nothing that exists (a resource gone,
 * a tenant the upstream does not know, a reference whose __typename is not the resource's real
 * type) is null without an error. References resolve through the per-operation loaders, so a
 * batch costs at most one read per distinct key.
 */
import { entitiesResolver } from '@apollo/subgraph/dist/types.js';
import { GraphQLError, isInterfaceType, isObjectType, type GraphQLFieldResolver } from 'graphql';
import type { GatewayContext } from '../../context.js';
import { badUserInput } from '../../core/errors.js';
import type { ResourceKind } from '../../domain/resource-shapes.js';
import type { ResourceView } from '../../domain/resource-view.js';
import { builder } from '../builder.js';
import { entityKey } from '../entity-key.js';
import { DecommissionedResourceRef } from './decommissioned.js';
import { DeviceResourceRef, GeneralResourceRef, ResourceRef, SyntheticResourceRef } from './resource.js';
import { TenantRef } from './tenant.js';

const idKey = builder.selection<{ id: string }>('id');
const naturalKey = builder.selection<{ tenantId: string; resourceId: string }>('tenantId resourceId');

/** The key of a reference as the data source takes it. */
function ownIds(ref: unknown): { tenantId: string; id: string } {
  const key = entityKey(ref);
  return { tenantId: key.tenantId, id: 'id' in key ? key.id : key.tenantId };
}

builder.asEntity(TenantRef, {
  key: [idKey, builder.selection<{ tenantId: string }>('tenantId')],
  // A tenant exists when the upstream answers its resource types (read once per operation, shared with node lookups).
  resolveReference: async (ref, ctx) => {
    const tenant = ctx.inventory.tenant(ownIds(ref).tenantId);
    try {
      return (await ctx.inventory.resourceTypes(tenant.id)) === null ? null : tenant;
    } catch (error) {
      if (error instanceof GraphQLError && error.extensions.code === 'NOT_FOUND') return null;
      throw error;
    }
  },
});

builder.asEntity(ResourceRef, {
  key: naturalKey,
  resolveReference: (ref, ctx) => ctx.inventory.resourceReference(ownIds(ref)),
});

/** A concrete type's reference is that type only: a device sent as GeneralResource is no GeneralResource (null). */
const concrete = (kind: ResourceKind) => async (ref: unknown, ctx: GatewayContext): Promise<ResourceView | null> => {
  const view = await ctx.inventory.resourceReference(ownIds(ref));
  return view && (view.kind ?? kind) === kind ? view : null;
};
builder.asEntity(GeneralResourceRef, { key: naturalKey, resolveReference: concrete('general') });
builder.asEntity(DeviceResourceRef, { key: naturalKey, resolveReference: concrete('device') });
builder.asEntity(SyntheticResourceRef, { key: naturalKey, resolveReference: concrete('synthetic') });

builder.asEntity(DecommissionedResourceRef, {
  key: [idKey, naturalKey],
  resolveReference: (ref, ctx) => ctx.inventory.decommissionedReference(ownIds(ref)),
});

/**
 * `_entities`, one representation at a time: @apollo/subgraph's resolver maps the whole batch in
 * one synchronous pass, so one representation that throws (an unknown __typename, a malformed id)
 * nulls the batch and leaves the others' promises rejecting unhandled. Here a representation's
 * error is a value at its index (a rejection too), which is reported at that index; the others answer.
 */
export const resolveEntitiesOneByOne: GraphQLFieldResolver<unknown, GatewayContext, { representations: unknown[] }> = (_root, args, ctx, info) =>
  args.representations.map((rep, index) => {
    try {
      const typename = (rep as { __typename?: unknown }).__typename;
      const type = typeof typename === 'string' ? info.schema.getType(typename) : undefined;
      const resolvable = (isObjectType(type) || isInterfaceType(type)) && (type.extensions as { apollo?: { subgraph?: { resolveReference?: unknown } } }).apollo?.subgraph?.resolveReference;
      if (!resolvable) return badUserInput(`representations[${index}]: no entity type named '${String(typename).slice(0, 100)}'`, 'representations.__typename');
      // A rejection becomes the error value too: compiled execution drops a rejected list item, which would shift the others' indexes.
      return Promise.resolve(entitiesResolver({ representations: [rep], context: ctx, info })[0]).catch((error: unknown) => error);
    } catch (error) {
      return error instanceof GraphQLError ? error : new GraphQLError(`representations[${index}] could not be resolved`, { originalError: error as Error });
    }
  });
