/**
 * For the exact estimate of an operation whose resource summary counts per resource type: once
 * the operation was admitted (limits.ts), the tenant's resource types are read through the
 * operation's data source (which keeps the read, so execution makes no second one), and the
 * estimate counts one read per type exactly. Only for a summary whose filter the search would
 * accept: bad input costs no upstream call.
 */
import { BREAK, getVariableValues, Kind, valueFromAST, visit, type DocumentNode, type GraphQLInputType, type GraphQLSchema } from 'graphql';
import type { GatewayContext } from '../context.js';
import { summariesByType } from '../schema/cost.js';
import { operationOf } from '../schema/document-walk.js';
import { filterWithInventoryId, inventoryIdArgument } from '../schema/global-id.js';
import { resourceQueryString, type ResourceFilter } from '../upstream/query-string.js';

/**
 * Tenants whose types are read for the estimate. Beyond, it assumes its default number of types:
 * an assumption, not a bound (a tenant may have more; the run-time budget of MAX_UPSTREAM_CALLS
 * still stops the operation). Kept small because an operation that the exact estimate then
 * refuses has made these reads; a dashboard's operation names one tenant or a few.
 */
const MAX_TENANTS_READ_BEFORE_EXECUTION = 5;

/** Per document, whether it asks for counts per resource type at all: most never do. */
const countsPerType = new WeakMap<DocumentNode, boolean>();

function asksCountsPerType(document: DocumentNode): boolean {
  let asks = countsPerType.get(document);
  if (asks === undefined) {
    asks = false;
    visit(document, {
      Field(node) {
        if (node.name.value !== 'byResourceType') return undefined;
        asks = true;
        return BREAK;
      },
    });
    countsPerType.set(document, asks);
  }
  return asks;
}

/** Tenant ids (as the operation gives them) whose summaries count per type with a valid filter; empty for most operations. */
export function tenantsToReadTypesOf(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined, variables: Record<string, unknown>): string[] {
  // Checked once per document, so other operations walk no tenant field here.
  if (!asksCountsPerType(document)) return [];
  const operation = operationOf(document, operationName);
  if (!operation || operation.operation !== 'query') return [];
  const summaries = summariesByType(document, operation, variables);
  if (summaries.length === 0) return [];
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables);
  if (coerced.errors) return []; // execution refuses the operation before any field runs
  const filterType = schema.getType('ResourceFilter') as GraphQLInputType;
  const tenants = new Set<string>();
  for (const { tenantArg, filter } of summaries) {
    try {
      const tenantId = inventoryIdArgument(tenantArg, 'Tenant', 'id');
      // An unset variable is no filter (valueFromAST would call it invalid).
      const unset = !filter || (filter.kind === Kind.VARIABLE && coerced.coerced[filter.name.value] === undefined);
      const value = unset ? null : valueFromAST(filter, filterType, coerced.coerced) as ResourceFilter | undefined;
      if (value === undefined) continue;
      // The checks the data source makes: a filter it refuses is refused without any read.
      resourceQueryString(filterWithInventoryId(value, 'Resource', tenantId));
      tenants.add(tenantArg);
    } catch {
      // The field reports the bad id or filter itself.
    }
  }
  return [...tenants].slice(0, MAX_TENANTS_READ_BEFORE_EXECUTION);
}

/** The resource type names of each tenant, by its argument; a read that fails is left to the field to report. */
export async function readResourceTypeNames(ctx: GatewayContext, tenantArgs: string[]): Promise<Map<string, string[]>> {
  const names = new Map<string, string[]>();
  await Promise.all(tenantArgs.map(async (arg) => {
    try {
      const tenant = ctx.inventory.tenant(inventoryIdArgument(arg, 'Tenant', 'id'));
      const types = await ctx.inventory.resourceTypes(tenant.id);
      if (types) names.set(arg, types.map((type) => type.name));
    } catch {
      // An unknown tenant or a failed read: the field raises the same error; the estimate assumes the default.
    }
  }));
  return names;
}
