/** The concrete type of a value reached through the Node interface (node, nodes). */
import type { GatewayContext } from '../context.js';
import type { ResourceKind } from '../domain/resource-shapes.js';
import type { ResourceView } from '../domain/resource-view.js';

export const TYPE_OF_KIND: Record<ResourceKind, string> = {
  general: 'GeneralResource',
  device: 'DeviceResource',
  synthetic: 'SyntheticResource',
};

/** Each node value has a shape of its own: a resource view has an origin, a history record its hardware, a type its levels. */
export function nodeTypeName(value: unknown, ctx: GatewayContext): string | Promise<string> {
  const v = value as Record<string, unknown>;
  if ('origin' in v && 'record' in v) {
    const view = value as ResourceView;
    // Synchronous when the record says its kind (a promise per item makes a list asynchronous).
    return view.kind ? TYPE_OF_KIND[view.kind] : ctx.inventory.kind(view).then((kind) => TYPE_OF_KIND[kind]);
  }
  if ('hardware' in v) return 'DecommissionedResource';
  if ('levels' in v) return 'ResourceType';
  return 'Tenant';
}
