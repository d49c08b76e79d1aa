/** The concrete type of a value reached through the Node interface (node, nodes). */
import type { GatewayContext } from '../context.js';
import type { ResourceKind } from '../domain/resource.js';

export const TYPE_OF_KIND: Record<ResourceKind, string> = {
  general: 'GeneralResource',
  device: 'DeviceResource',
  synthetic: 'SyntheticResource',
};

/** Each node value has a shape of its own: a resource view has an origin, a history record its hardware, a type its levels. */
export async function nodeTypeName(value: unknown, ctx: GatewayContext): Promise<string> {
  const v = value as Record<string, unknown>;
  if ('origin' in v && 'record' in v) return TYPE_OF_KIND[await ctx.inventory.kind(value as never)];
  if ('hardware' in v) return 'DecommissionedResource';
  if ('levels' in v) return 'ResourceType';
  return 'Tenant';
}
