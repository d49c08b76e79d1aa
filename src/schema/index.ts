/** Assembles the schema: importing the type modules registers them on the builder. */
import { GraphQLSchema, lexicographicSortSchema } from 'graphql';
import { GraphQLLiveDirective } from '@n1ru4l/graphql-live-query';
import './types/scalars.js';
import './types/enums.js';
import './types/common.js';
import './types/resource.js';
import './types/decommissioned.js';
import './types/antivirus.js';
import './types/resource-type.js';
import './types/tenant.js';
import './types/summary.js';
import './types/mutation.js';
import { resolveEntitiesOneByOne } from './types/entities.js';
import { builder } from './builder.js';

/**
 * The Apollo Federation v2.9 subgraph (with _entities and _service; v2.9 for @cost and @listSize) as a supergraph composes it:
 * without `@live`, which only this gateway's own endpoint serves (a router does not).
 */
export const subgraphSchema = lexicographicSortSchema(builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.9' }));
const entitiesField = subgraphSchema.getQueryType()?.getFields()._entities;
if (entitiesField) entitiesField.resolve = resolveEntitiesOneByOne as never;

/** The served schema: the subgraph with the `@live` directive of the @n1ru4l/graphql-live-query convention (src/server/live/live-query.ts). */
export const schema = new GraphQLSchema({ ...subgraphSchema.toConfig(), directives: [...subgraphSchema.getDirectives(), GraphQLLiveDirective] });
