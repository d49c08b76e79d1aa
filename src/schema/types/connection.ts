/** Relay connection types and the one function that turns a fetched window into one. */
import type { ArgBuilder, InterfaceRef, ObjectRef } from '@pothos/core';
import type { ConnectionShape } from '../../domain/paging.js';
import { builder, type GatewayTypes } from '../builder.js';
import { PageInfoRef } from './common.js';

// Pothos cannot check a generic node shape against `resolve`, hence the `never` casts below.
export function connectionType<T>(name: string, node: ObjectRef<GatewayTypes, T> | InterfaceRef<GatewayTypes, T>, what: string) {
  const edge = builder.objectRef<{ cursor: string; node: T }>(`${name}Edge`).implement({
    description: `An edge to one ${what}.`,
    fields: (t) => ({
      cursor: t.exposeString('cursor', { nullable: false, description: 'Opaque position, for after/before.' }),
      node: t.field({ type: node, nullable: false, description: `The ${what}.`, resolve: (e) => e.node as never }),
    }),
  });
  return builder.objectRef<ConnectionShape<T>>(`${name}Connection`).implement({
    description: `A page of ${what}s.`,
    fields: (t) => ({
      edges: t.field({ type: [edge], nullable: false, description: 'The items of this page, with their cursors.', resolve: (c) => c.edges }),
      nodes: t.field({ type: [node], nullable: false, description: 'The nodes of `edges`, for clients that need no cursors.', resolve: (c) => c.edges.map((e) => e.node) as never }),
      pageInfo: t.field({ type: PageInfoRef, nullable: false, description: 'Where this page is in the whole list.', resolve: (c) => c.pageInfo }),
      totalCount: t.exposeInt('totalCount', { nullable: false, description: 'All matching items.' }),
    }),
  });
}

/** The paging arguments every connection field takes (see domain/paging.ts for how they map to pages). */
export function pagingArgs(arg: ArgBuilder<GatewayTypes>, notes: { last?: string; offset?: string } = {}) {
  return {
    first: arg.int(),
    after: arg.string(),
    last: arg.int(notes.last ? { description: notes.last } : {}),
    before: arg.string(),
    offset: arg.int(notes.offset ? { description: notes.offset } : {}),
  };
}
