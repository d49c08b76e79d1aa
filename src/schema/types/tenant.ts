/** Query.tenant and the Tenant root of everything one tenant holds. */
import type { TenantShape } from '../../datasource/shapes.js';
import { LIST_DEFAULTS } from '../../datasource/list-args.js';
import { FEDERATION_RIGHTS } from '../../identity/access.js';
import { builder, globalId } from '../builder.js';
import { filterWithInventoryId, inventoryIdArgument } from '../global-id.js';
import { pagingArgs } from './connection.js';
import { selectsAnyField } from '../selection.js';
import { AntivirusDefinitionConnectionRef } from './antivirus.js';
import { DecommissionedResourceConnectionRef, DecommissionedResourceRef } from './decommissioned.js';
import { HARDWARE_FIELDS } from '../field-costs.js';
import { AntivirusStatusEnum, ResourceStateFilterEnum } from './enums.js';
import { AntivirusOrderInput, DecommissionedResourceFilterInput, ResourceFilterInput, ResourceOrderInput } from './filters.js';
import { ResourceConnectionRef, ResourceRef } from './resource.js';
import { ResourceTypeRef } from './resource-type.js';

const APPLICATIONS_FIELD = new Set(['applications']);

export const TenantRef = builder.objectRef<TenantShape>('Tenant').implement({
  interfaces: [builder.nodeInterfaceRef()],
  ...FEDERATION_RIGHTS.read,
  description: 'Everything of one tenant (a client or MSP account).',
  fields: (t) => ({
    id: t.id({ description: 'Global id: refetch with node(id:).', nullable: false, resolve: globalId('Tenant', (tenant) => tenant.id) }),
    tenantId: t.exposeID('id', { description: 'Tenant id (client or MSP account), e.g. client_1, as Query.tenant(id:) takes it.', nullable: false }),
    resources: t.field({
      type: ResourceConnectionRef,
      description: 'Resources of the tenant, searched with filters, a page at a time (Relay connection; offset for page-numbered tables). Any page costs one or two upstream reads; fields the search results do not carry cost more (see each field).',
      args: {
        filter: t.arg({ type: ResourceFilterInput }),
        orderBy: t.arg({ type: ResourceOrderInput, defaultValue: LIST_DEFAULTS.resources.orderBy, description: 'Order of the results; by name, A to Z, unless given.' }),
        includeStatus: t.arg.boolean({ defaultValue: LIST_DEFAULTS.resources.includeStatus, description: 'Include each resource\'s monitoring status in the search results, so that status costs no detail read.' }),
        ...pagingArgs(t.arg, { offset: 'Random access for page-numbered tables: skip this many items (instead of after/before).' }),
      },
      resolve: (tenant, args, ctx) => ctx.inventory.searchResources(tenant.id, { ...args, filter: filterWithInventoryId(args.filter, 'Resource', tenant.id) }),
    }),
    resourceList: t.field({
      type: [ResourceRef],
      description: 'Every resource of the tenant in one unpaged list, by name (A to Z). One upstream read; the items carry only names and addresses, so most other fields load the resource detail (one call per resource).',
      args: {
        state: t.arg({ type: ResourceStateFilterEnum, defaultValue: LIST_DEFAULTS.resourceList.state }),
        locationId: t.arg.int(),
        deviceGroupId: t.arg.int(),
        deviceTypeId: t.arg.int(),
        filter: t.arg({ type: ResourceFilterInput }),
      },
      resolve: (tenant, args, ctx) => ctx.inventory.listMinimal(tenant.id, { ...args, filter: filterWithInventoryId(args.filter, 'Resource', tenant.id) }),
    }),
    resource: t.field({
      type: ResourceRef,
      description: 'One resource of this tenant by its inventory id (resourceId) or its global id (id), or null when there is none. One upstream read (its detail).',
      args: { id: t.arg.id({ required: true, description: "The resource's inventory id (resourceId) or its global id (id); the global id of another kind of object or of another tenant's resource is refused (BAD_USER_INPUT)." }) },
      resolve: (tenant, args, ctx, info) =>
        ctx.inventory.resource(tenant.id, inventoryIdArgument(args.id, 'Resource', 'id', tenant.id), { prefetchApplications: selectsAnyField(info, APPLICATIONS_FIELD) }),
    }),
    decommissionedResources: t.field({
      type: DecommissionedResourceConnectionRef,
      description: 'Resources taken out of service, a page at a time. One or two upstream reads per page.',
      args: {
        filter: t.arg({ type: DecommissionedResourceFilterInput }),
        ...pagingArgs(t.arg, { last: 'Only together with before.' }),
      },
      resolve: (tenant, args, ctx) => ctx.inventory.decommissionedResources(tenant.id, { ...args, filter: filterWithInventoryId(args.filter, 'DecommissionedResource', tenant.id) }),
    }),
    decommissionedResource: t.field({
      type: DecommissionedResourceRef,
      description: 'One decommissioned resource of this tenant by its inventory id (resourceId) or its global id (id), or null when there is none. One upstream read (with its hardware when hardware fields are selected).',
      args: { id: t.arg.id({ required: true, description: "The decommissioned resource's inventory id (resourceId) or its global id (id); the global id of another kind of object (an active resource's too) or of another tenant's record is refused (BAD_USER_INPUT)." }) },
      resolve: (tenant, args, ctx, info) =>
        ctx.inventory.decommissionedResource(tenant.id, inventoryIdArgument(args.id, 'DecommissionedResource', 'id', tenant.id), selectsAnyField(info, HARDWARE_FIELDS)),
    }),
    antivirusDefinitions: t.field({
      type: AntivirusDefinitionConnectionRef,
      description: 'Antivirus status of the tenant\'s resources, a page at a time (newest scan first unless ordered otherwise). One or two upstream reads per page.',
      args: {
        status: t.arg({ type: AntivirusStatusEnum }),
        orderBy: t.arg({ type: AntivirusOrderInput, defaultValue: LIST_DEFAULTS.antivirusDefinitions.orderBy }),
        ...pagingArgs(t.arg),
      },
      resolve: (tenant, args, ctx) => ctx.inventory.antivirusDefinitions(tenant.id, args),
    }),
    resourceTypes: t.field({
      type: [ResourceTypeRef],
      description: 'The resource types of the tenant, ordered by their path. One upstream read per operation.',
      resolve: (tenant, _args, ctx) => ctx.inventory.resourceTypes(tenant.id),
    }),
  }),
});

builder.queryType({
  description: 'Read access to the inventory, one tenant at a time.',
  fields: (t) => ({
    tenant: t.field({
      type: TenantRef,
      ...FEDERATION_RIGHTS.read,
      description: 'Everything of one tenant (client or MSP account id, e.g. client_1, or the tenant\'s global id). Makes no upstream call by itself. With sign-in, needs the read scope and a grant of this tenant: otherwise null with a FORBIDDEN error here (the same for a tenant that does not exist), and the rest of the answer stands.',
      args: { id: t.arg.id({ required: true, description: "The tenant id (tenantId, e.g. client_1) or the tenant's global id (id); the global id of another kind of object is refused (BAD_USER_INPUT)." }) },
      resolve: (_root, args, ctx) => ctx.inventory.tenant(inventoryIdArgument(args.id, 'Tenant', 'id')),
    }),
  }),
});
