/** Tenant.resourceSummary: counts for dashboard tiles, each read from the search's total for one bucket. */
import type { ResourceSummaryShape, ResourceTypeCount, StateCount } from '../../datasource/shapes.js';
import { builder } from '../builder.js';
import { filterWithInventoryId } from '../global-id.js';
import { ResourceStateEnum } from './enums.js';
import { ResourceFilterInput } from './filters.js';
import { ResourceTypeRef } from './resource-type.js';
import { TenantRef } from './tenant.js';

export const ResourceStateCountRef = builder.objectRef<StateCount>('ResourceStateCount').implement({
  description: 'How many resources matching the summary\'s filter are in one state.',
  fields: (t) => ({
    state: t.field({ type: ResourceStateEnum, nullable: false, description: 'The state.', resolve: (bucket) => bucket.state }),
    count: t.exposeInt('count', { nullable: false, description: 'Resources in this state that match the filter.' }),
  }),
});

export const ResourceTypeCountRef = builder.objectRef<ResourceTypeCount>('ResourceTypeCount').implement({
  description: 'How many resources matching the summary\'s filter are of one resource type.',
  fields: (t) => ({
    resourceType: t.field({ type: ResourceTypeRef, nullable: false, description: 'The resource type.', resolve: (bucket) => bucket.resourceType }),
    count: t.exposeInt('count', { nullable: false, description: 'Resources of this type that match the filter.' }),
  }),
});

export const ResourceSummaryRef = builder.objectRef<ResourceSummaryShape>('ResourceSummary').implement({
  description:
    'Counts of the resources matching a filter, for dashboard tiles. Each selected field costs its own upstream reads (one search total per count, never a page of records); all are cached like any search.',
  fields: (t) => ({
    total: t.int({
      nullable: false,
      description: 'Resources matching the filter. One upstream read.',
      resolve: (summary, _args, ctx) => ctx.inventory.summaryTotal(summary),
    }),
    byState: t.field({
      type: [ResourceStateCountRef],
      nullable: false,
      description:
        'Count per state the search knows (ACTIVE, INACTIVE, DISCOVERED; decommissioned resources are counted by decommissionedResources.totalCount), always all three, in that order. One upstream read per state; when the filter names a state, the other states are 0 at no cost and the named one costs the read of total (shared with it).',
      resolve: (summary, _args, ctx) => ctx.inventory.summaryByState(summary),
    }),
    byResourceType: t.field({
      type: [ResourceTypeCountRef],
      nullable: false,
      description:
        "Count per resource type of the tenant, every type listed, ordered by the type's path. One upstream read for the tenant's resource types, then one per type; when the filter names resourceTypes, the other types are 0 at no cost, and a filter naming just this one type costs the read of total (shared with it). The cost estimate is exact for the first 5 tenants an operation asks for by tenant(id:): their types are read once the operation is admitted, before its fields run. Elsewhere (through node, nodes or _entities, or beyond the fifth tenant) it assumes 50 types; a tenant with more costs more, and the operation stops at MAX_UPSTREAM_CALLS while it runs.",
      resolve: (summary, _args, ctx) => ctx.inventory.summaryByResourceType(summary),
    }),
  }),
});

builder.objectField(TenantRef, 'resourceSummary', (t) => t.field({
  type: ResourceSummaryRef,
  nullable: false,
  description:
    "Counts of the tenant's resources matching a filter (the same filter as resources, with the same errors), for dashboard tiles. Makes no upstream call by itself: with everything selected it costs 1 + 3 + (1 + the number of resource types) reads, fewer when the filter names a state or resource types; selecting only total costs 1.",
  args: { filter: t.arg({ type: ResourceFilterInput }) },
  resolve: (tenant, args, ctx) => ctx.inventory.resourceSummary(tenant.id, filterWithInventoryId(args.filter, 'Resource', tenant.id)),
}));
