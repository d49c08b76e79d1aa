/**
 * A Pothos plugin for the abstract types whose concrete type may take a read (Resource, Node: a
 * resource reached through the minimal list or an antivirus record does not say its type). When
 * the selection can tell the concrete types apart, a field returning them learns each item's type
 * before it returns (the reads batched per list), so that resolveType is always synchronous: the
 * compiled executor (src/server/compiled-execution.ts) takes resolveType's answer as it is, and
 * a synchronous one keeps a list from completing item by item.
 */
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type PothosOutputFieldType, type SchemaTypes } from '@pothos/core';
import type { GraphQLFieldResolver } from 'graphql';
import type { GatewayContext } from '../context.js';
import { isResourceView } from '../domain/resource-view.js';
import { selectionNeedsConcreteType } from './selection.js';

const TYPE_TAKES_A_READ = new Set(['Resource', 'Node']);

/** The value, once every resource in it knows its concrete type (a list stays a list of items: one item's failure stays its own). */
function withKnownKinds(value: unknown, ctx: GatewayContext): unknown {
  if (Array.isArray(value)) return value.map((item) => withKnownKinds(item, ctx));
  if (value instanceof Promise) return value.then((settled: unknown) => withKnownKinds(settled, ctx));
  if (!isResourceView(value) || ctx.inventory.knownKind(value)) return value;
  return ctx.inventory.kind(value).then(() => value);
}

export class ConcreteTypePlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(resolver: GraphQLFieldResolver<unknown, Types['Context'], object>, fieldConfig: PothosOutputFieldConfig<Types>): GraphQLFieldResolver<unknown, Types['Context'], object> {
    let type: PothosOutputFieldType<Types> = fieldConfig.type;
    while (type.kind === 'List') type = type.type;
    if (type.kind !== 'Interface') return resolver;
    const name = this.buildCache.getTypeConfig(type.ref).name;
    if (!TYPE_TAKES_A_READ.has(name)) return resolver;
    return (parent, args, ctx, info) => {
      const value = resolver(parent, args, ctx, info);
      return selectionNeedsConcreteType(info, name) ? withKnownKinds(value, ctx as GatewayContext) : value;
    };
  }
}

declare global {
  // Pothos registers plugins in this global namespace.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  export namespace PothosSchemaTypes {
    interface Plugins<Types extends SchemaTypes> {
      concreteTypes: ConcreteTypePlugin<Types>;
    }
  }
}

SchemaBuilder.registerPlugin('concreteTypes', ConcreteTypePlugin);
