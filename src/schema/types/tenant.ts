/** Query.tenant and the Tenant root of everything one tenant holds. */
import type { TenantShape } from '../../datasource/inventory.js';
import { builder } from '../builder.js';
import { pagingArgs } from './connection.js';
import { selectsAnyField } from '../selection.js';
import { AntivirusDefinitionConnectionRef } from './antivirus.js';
import { DecommissionedResourceConnectionRef, DecommissionedResourceRef, HARDWARE_FIELDS } from './decommissioned.js';
import { AntivirusStatusEnum, ResourceStateFilterEnum } from './enums.js';
import { AntivirusOrderInput, DecommissionedResourceFilterInput, ResourceFilterInput, ResourceOrderInput } from './filters.js';
import { ResourceConnectionRef, ResourceRef } from './resource.js';
import { ResourceTypeRef } from './resource-type.js';

const APPLICATIONS_FIELD = new Set(['applications']);

export const TenantRef = builder.objectRef<TenantShape>('Tenant').implement({
  description: 'Everything of one tenant (a client or MSP account).',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Tenant id, e.g. client_1.', nullable: false }),
    resources: t.field({
      type: ResourceConnectionRef,
      description: "GET /resources/search. Relay connection over the upstream's page-based search; any window costs at most two upstream page reads.",
      args: {
        filter: t.arg({ type: ResourceFilterInput }),
        orderBy: t.arg({ type: ResourceOrderInput, defaultValue: { field: 'id', direction: 'DESC' } }),
        includeStatus: t.arg.boolean({ defaultValue: false, description: 'Ask the upstream to include status in the search records.' }),
        ...pagingArgs(t.arg, { offset: 'Random access for page-numbered tables: skip this many items (instead of after/before).' }),
      },
      resolve: (tenant, args, ctx) => ctx.inventory.searchResources(tenant.id, args),
    }),
    resourceList: t.field({
      type: [ResourceRef],
      description: 'GET /resources/minimal. Unpaged list; each item is a full Resource whose other fields load lazily.',
      args: {
        state: t.arg({ type: ResourceStateFilterEnum, defaultValue: 'active' }),
        locationId: t.arg.int(),
        deviceGroupId: t.arg.int(),
        deviceTypeId: t.arg.int(),
        filter: t.arg({ type: ResourceFilterInput }),
      },
      resolve: (tenant, args, ctx) => ctx.inventory.listMinimal(tenant.id, args),
    }),
    resource: t.field({
      type: ResourceRef,
      description: 'GET /resources/{id}. Null when the upstream does not know the id.',
      args: { id: t.arg.id({ required: true }) },
      resolve: (tenant, args, ctx, info) => ctx.inventory.resource(tenant.id, String(args.id), { prefetchApplications: selectsAnyField(info, APPLICATIONS_FIELD) }),
    }),
    decommissionedResources: t.field({
      type: DecommissionedResourceConnectionRef,
      description: 'GET /history/resources (state:DECOMMISSIONED is added by the gateway).',
      args: {
        filter: t.arg({ type: DecommissionedResourceFilterInput }),
        ...pagingArgs(t.arg, { last: 'Only together with before.' }),
      },
      resolve: (tenant, args, ctx) => ctx.inventory.decommissionedResources(tenant.id, args),
    }),
    decommissionedResource: t.field({
      type: DecommissionedResourceRef,
      description: 'GET /history/resources/{id}; with additionalInfo=true when hardware fields are selected. Null when unknown.',
      args: { id: t.arg.id({ required: true }) },
      resolve: (tenant, args, ctx, info) => ctx.inventory.decommissionedResource(tenant.id, String(args.id), selectsAnyField(info, HARDWARE_FIELDS)),
    }),
    antivirusDefinitions: t.field({
      type: AntivirusDefinitionConnectionRef,
      description: 'GET /resources/antivirus/search.',
      args: {
        status: t.arg({ type: AntivirusStatusEnum }),
        orderBy: t.arg({ type: AntivirusOrderInput, defaultValue: { field: 'scanDate', direction: 'DESC' } }),
        ...pagingArgs(t.arg),
      },
      resolve: (tenant, args, ctx) => ctx.inventory.antivirusDefinitions(tenant.id, args),
    }),
    resourceTypes: t.field({
      type: [ResourceTypeRef],
      description: 'GET /resourceType/minimal.',
      resolve: (tenant, _args, ctx) => ctx.inventory.resourceTypes(tenant.id),
    }),
  }),
});

builder.queryType({
  description: 'Read access to the inventory, one tenant at a time.',
  fields: (t) => ({
    tenant: t.field({
      type: TenantRef,
      nullable: false,
      description: 'Entry point for everything of one tenant (client or MSP account id, e.g. client_1). Makes no upstream call by itself.',
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, args, ctx) => ctx.inventory.tenant(String(args.id)),
    }),
  }),
});
