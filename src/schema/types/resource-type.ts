import type { ResourceType } from '../../domain/records.js';
import { badUserInput } from '../../core/errors.js';
import { builder, globalId } from '../builder.js';
import { filterWithInventoryId } from '../global-id.js';
import { pagingArgs } from './connection.js';
import { ResourceFilterInput } from './filters.js';
import { ResourceConnectionRef } from './resource.js';

export const ResourceTypeRef = builder.objectRef<ResourceType>('ResourceType').implement({
  interfaces: [builder.nodeInterfaceRef()],
  description: 'A resource type with its place in the type hierarchy.',
  fields: (t) => ({
    id: t.id({ description: 'Global id: refetch with node(id:).', nullable: false, resolve: globalId('ResourceType', (type) => `${type.tenantId}:${type.number}`) }),
    number: t.exposeInt('number', { description: 'Number of the resource type in the inventory.', nullable: false }),
    name: t.exposeString('name', { description: 'Resource type name, trimmed.', nullable: false }),
    path: t.exposeString('path', { nullable: false, description: "Path in the type hierarchy as the inventory writes it, e.g. 'Server >> Linux'." }),
    levels: t.exposeStringList('levels', { nullable: false, description: "Path levels, trimmed: ['Server', 'Linux']." }),
    resources: t.field({
      type: ResourceConnectionRef,
      description: 'Resources of this type (search with resourceType:<name>).',
      args: {
        filter: t.arg({ type: ResourceFilterInput }),
        ...pagingArgs(t.arg),
      },
      resolve: (type, args, ctx) => {
        if (args.filter?.resourceTypes) throw badUserInput('filter.resourceTypes is implied by the ResourceType', 'filter.resourceTypes');
        return ctx.inventory.searchResources(type.tenantId, { ...args, filter: { ...filterWithInventoryId(args.filter, 'Resource', type.tenantId), resourceTypes: [type.name] } });
      },
    }),
  }),
});
