/** The concrete type of a value reached through the Node interface (node, nodes). */
import type { GatewayContext } from '../context.js';
import type { ResourceKind } from '../domain/resource-shapes.js';
import type { GraphQLResolveInfo } from 'graphql';
import { isResourceView, LEAST_SPECIFIC_KIND, type ResourceView } from '../domain/resource-view.js';
import { selectionNeedsConcreteType } from './selection.js';

export const TYPE_OF_KIND: Record<ResourceKind, string> = {
  general: 'GeneralResource',
  device: 'DeviceResource',
  synthetic: 'SyntheticResource',
};

/**
 * A resource's concrete type: synchronous when its record says it, a detail read told it already
 * (src/schema/concrete-type-plugin.ts reads it first when the selection can tell), or the
 * selection cannot tell the types apart (then the least specific one, at no cost).
 */
export function resourceTypeName(view: ResourceView, ctx: GatewayContext, info: GraphQLResolveInfo, abstractTypeName: string): string | Promise<string> {
  // The live-query store walks a result again with a context of its own (no data source).
  const known = (ctx.inventory as GatewayContext['inventory'] | undefined)?.knownKind(view) ?? view.kind;
  if (known) return TYPE_OF_KIND[known];
  if (!selectionNeedsConcreteType(info, abstractTypeName)) return TYPE_OF_KIND[LEAST_SPECIFIC_KIND];
  return ctx.inventory.kind(view).then((kind) => TYPE_OF_KIND[kind]);
}

/** Each node value has a shape of its own: a resource view has an origin, a history record its hardware, a type its levels. */
export function nodeTypeName(value: unknown, ctx: GatewayContext, info: GraphQLResolveInfo): string | Promise<string> {
  if (isResourceView(value)) return resourceTypeName(value, ctx, info, 'Node');
  const v = value as Record<string, unknown>;
  if ('hardware' in v) return 'DecommissionedResource';
  if ('levels' in v) return 'ResourceType';
  return 'Tenant';
}
