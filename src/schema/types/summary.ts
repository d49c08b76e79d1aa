/** Tenant.resourceSummary: counts for dashboard tiles, counted from the records of a few list reads (src/domain/summary.ts). */
import type { GraphQLResolveInfo } from 'graphql';
import type { ResourceSummaryShape, ResourceTypeCount, StateCount } from '../../datasource/shapes.js';
import type { SummarySelection } from '../../domain/summary.js';
import { builder } from '../builder.js';
import { filterWithInventoryId } from '../global-id.js';
import { subFieldNames } from '../selection.js';
import { ResourceStateEnum } from './enums.js';
import { ResourceFilterInput } from './filters.js';
import { ResourceTypeRef } from './resource-type.js';
import { TenantRef } from './tenant.js';

/** Which counts the summary's selection asks for (through fragments, as the cost estimate reads them): only those are read. */
function selectedCounts(info: GraphQLResolveInfo): SummarySelection {
  const names = new Set(subFieldNames(info));
  return { total: names.has('total'), byState: names.has('byState'), byResourceType: names.has('byResourceType') };
}

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
    'Counts of the resources matching a filter, for dashboard tiles, counted from the matching records of a few list reads (at most three, none of them a page of the resource search unless the filter has aliasIp) and cached like any list. Only the selected fields are read; fields of the same summary share their reads.',
  fields: (t) => ({
    total: t.int({
      nullable: false,
      description: 'Resources matching the filter. Alone it costs one read of the resource list; with byState it adds up the counts per state.',
      resolve: (summary, _args, ctx) => ctx.inventory.summaryTotal(summary),
    }),
    byState: t.field({
      type: [ResourceStateCountRef],
      nullable: false,
      description:
        'Count per state the search knows (ACTIVE, INACTIVE, DISCOVERED; decommissioned resources are counted by decommissionedResources.totalCount), always all three, in that order. One read of the resource list per state; when the filter names a state, the other states are 0 and it costs one read. A resource the upstream sends without a state it knows (possible with aliasIp only) counts in total alone.',
      resolve: (summary, _args, ctx) => ctx.inventory.summaryByState(summary),
    }),
    byResourceType: t.field({
      type: [ResourceTypeCountRef],
      nullable: false,
      description:
        "Count per resource type of the tenant, every type listed (0 included), ordered by the type's path. Costs one read of the tenant's resource types besides the records total or byState read (or one read of the resource list when selected alone). A resource whose record names no type of the tenant counts in total alone.",
      resolve: (summary, _args, ctx) => ctx.inventory.summaryByResourceType(summary),
    }),
  }),
});

builder.objectField(TenantRef, 'resourceSummary', (t) => t.field({
  type: ResourceSummaryRef,
  nullable: false,
  description:
    "Counts of the tenant's resources matching a filter (the same filter as resources, with the same errors), for dashboard tiles. Everything selected costs three reads of the resource list (one when the filter names a state) and one of the resource types, whatever the number of resources or types; total alone costs one read. With aliasIp, which the resource list cannot filter by, total alone is one search read, and byState or byResourceType read every matching resource from the search, one page per MAX_PAGE_SIZE matches (one page in practice: an alias IP matches few resources).",
  args: { filter: t.arg({ type: ResourceFilterInput }) },
  resolve: (tenant, args, ctx, info) => ctx.inventory.resourceSummary(tenant.id, filterWithInventoryId(args.filter, 'Resource', tenant.id), selectedCounts(info)),
}));
