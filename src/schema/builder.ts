/** The Pothos builder: context, scalar typing and plugins (federation, relay, pricing); types live in ./types. */
import SchemaBuilder from '@pothos/core';
import DirectivePlugin from '@pothos/plugin-directives';
import FederationPlugin from '@pothos/plugin-federation';
import RelayPlugin from '@pothos/plugin-relay';
import './pricing-plugin.js';
import './concrete-type-plugin.js';
import type { GatewayContext } from '../context.js';
import type { NodeKind } from '../core/node-key.js';
import { decodeGlobalId, encodeGlobalId, nodeKey } from './global-id.js';
import { nodeTypeName } from './node-type.js';
import { FEDERATION_RIGHTS } from '../identity/access.js';

export interface GatewaySchemaTypes {
  Context: GatewayContext;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    SafeInt: { Input: number; Output: number };
    JSON: { Input: unknown; Output: unknown };
  };
}

export const builder = new SchemaBuilder<GatewaySchemaTypes>({
  // Pricing after federation: Pothos runs field hooks last plugin first, and federation emits what pricing sets.
  plugins: [DirectivePlugin, RelayPlugin, FederationPlugin, 'pricing', 'concreteTypes'],
  relay: {
    encodeGlobalID: (typename, id) => encodeGlobalId(typename, String(id)),
    decodeGlobalID: (globalId) => decodeGlobalId(globalId),
    idFieldOptions: { description: 'Global id: refetch the object with node(id:); the key of normalized client caches.' },
    nodeTypeOptions: {
      description: 'An object with a global id: refetch it with `node(id:)`, whatever the tenant. Normalized caches (Relay, Apollo Client, urql) key objects by it.',
      resolveType: (value, ctx, info) => nodeTypeName(value, ctx, info),
    },
    // Shareable: a second Relay-style subgraph defines node, nodes and PageInfo too.
    nodeQueryOptions: {
      shareable: true,
      ...FEDERATION_RIGHTS.read,
      description: 'The object with this global id, or null when it no longer exists. Costs what a lookup of that object costs (a resource: its detail read). With sign-in, an object of a tenant the caller may not read is null with a FORBIDDEN error.',
      resolve: (_root, args, ctx) => ctx.inventory.node(nodeKey(args.id.typename, args.id.id)),
    },
    nodesQueryOptions: {
      shareable: true,
      ...FEDERATION_RIGHTS.read,
      description: 'The objects with these global ids, in order (null where one no longer exists). Lookups are batched and never repeated for the same object. With sign-in, each object of a tenant the caller may not read is null with a FORBIDDEN error of its own; the others stand.',
      // Each id on its own: one refused or failing lookup is null with its error at its index, the others stand.
      resolve: (_root, args, ctx) => args.ids.map((id) => Promise.resolve().then(() => ctx.inventory.node(nodeKey(id.typename, id.id))).catch((error: unknown) => error)),
    },
    pageInfoTypeOptions: { description: 'Where a page is in the whole list.' },
  },
});

export type GatewayTypes = PothosSchemaTypes.ExtendDefaultTypes<GatewaySchemaTypes>;

export type MaybePromise<T> = T | Promise<T>;

/**
 * The resolver of an object's global id field, the same id t.globalID gives (encodeGlobalID
 * above), computed synchronously: t.globalID wraps its resolver in an async function, a promise
 * per object that makes graphql-js complete every list of such objects asynchronously.
 */
export function globalId<T>(kind: NodeKind, local: (parent: T) => string): (parent: T) => string {
  return (parent) => encodeGlobalId(kind, local(parent));
}
