/**
 * The read operations behind the Tenant fields: argument checks, the queryString builder,
 * paging, and mapping. Resolvers call these and nothing else.
 */
import type { GatewayContext } from '../context.js';
import { toAntivirus, toDecommissioned, toPage, toResourceTypes, type AntivirusDefinition, type DecommissionedResource, type Page, type ResourceType } from '../domain/inventory.js';
import { fetchWindow, planWindow, toConnection, type ConnectionArgs, type ConnectionShape, type PageRequest } from '../domain/paging.js';
import { fromMinimalRecord, fromSearchRecord, type ResourceView } from '../domain/resource.js';
import { badUserInput, unexpectedShape } from '../upstream/errors.js';
import {
  checkId, decommissionedQueryString, joinPairs, resourceQueryString, type DecommissionedResourceFilter, type ResourceFilter,
} from '../upstream/query-string.js';

const TENANT_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function checkTenantId(id: string): string {
  if (!TENANT_RE.test(id)) throw badUserInput("tenant id must be letters, digits, '-' or '_' (at most 64), e.g. client_1", 'id');
  return id;
}

function limits(ctx: GatewayContext) {
  return { defaultPageSize: ctx.config.defaultPageSize, maxPageSize: ctx.config.maxPageSize };
}

function pageOrThrow<T>(raw: unknown, map: (item: unknown) => T | null, what: string): Page<T> {
  const page = toPage(raw, map);
  if (!page) throw unexpectedShape(what);
  return page;
}

export interface ResourceSearchArgs extends ConnectionArgs {
  filter?: ResourceFilter | null;
  orderBy?: { field: string; direction: 'ASC' | 'DESC' } | null;
  includeStatus?: boolean | null;
}

export async function searchResources(ctx: GatewayContext, tenantId: string, args: ResourceSearchArgs): Promise<ConnectionShape<ResourceView>> {
  // Everything is validated before the first upstream call.
  const queryString = resourceQueryString(args.filter);
  const plan = planWindow(args, limits(ctx));
  const sortName = args.orderBy?.field ?? 'id';
  const descending = (args.orderBy?.direction ?? 'DESC') === 'DESC';
  const includeStatus = args.includeStatus === true ? true : undefined;
  const window = await fetchWindow(plan, limits(ctx), async ({ pageNo, pageSize }: PageRequest, reverse) => {
    const raw = await ctx.session.search(tenantId, { pageNo, pageSize, sortName, isDescendingOrder: reverse ? !descending : descending, queryString, includeStatus });
    const page = pageOrThrow(raw, (r) => fromSearchRecord(tenantId, r), 'the resource search');
    for (const view of page.items) if (view) ctx.loaders.primeSearchHit(view);
    return page;
  });
  return toConnection(window);
}

export interface MinimalListArgs {
  state?: string | null;
  locationId?: number | null;
  deviceGroupId?: number | null;
  deviceTypeId?: number | null;
  filter?: ResourceFilter | null;
}

export async function listMinimal(ctx: GatewayContext, tenantId: string, args: MinimalListArgs): Promise<ResourceView[]> {
  if (args.filter?.state != null) throw badUserInput('resourceList takes the state argument, not filter.state', 'filter.state');
  if (args.filter?.aliasIp != null) throw badUserInput('The minimal listing does not support the aliasIp filter', 'filter.aliasIp');
  for (const name of ['locationId', 'deviceGroupId', 'deviceTypeId'] as const) {
    const value = args[name];
    if (value != null && value < 0) throw badUserInput(`${name} must be zero or more`, name);
  }
  const queryString = resourceQueryString(args.filter);
  const raw = await ctx.session.minimal(tenantId, {
    state: args.state ?? 'active',
    locationId: args.locationId ?? undefined,
    deviceGroupId: args.deviceGroupId ?? undefined,
    deviceTypeId: args.deviceTypeId ?? undefined,
    queryString,
  });
  if (!Array.isArray(raw)) throw unexpectedShape('the minimal resource list');
  return raw.map((r) => fromMinimalRecord(tenantId, r)).filter((v): v is ResourceView => v !== null);
}

/**
 * A lookup must read the detail to know whether the resource exists; when the selection also
 * wants applications, they are requested at the same time rather than after the detail.
 */
export function getResource(ctx: GatewayContext, tenantId: string, id: string, prefetchApplications = false): Promise<ResourceView | null> {
  const key = { tenantId, id: checkId(id, 'id') };
  if (prefetchApplications) ctx.loaders.applicationsByResource.load(key).catch(() => undefined); // errors surface on the field itself
  return ctx.loaders.resourceDetail.load(key);
}

export interface DecommissionedListArgs extends ConnectionArgs {
  filter?: DecommissionedResourceFilter | null;
}

export async function listDecommissioned(ctx: GatewayContext, tenantId: string, args: DecommissionedListArgs): Promise<ConnectionShape<DecommissionedResource>> {
  const queryString = decommissionedQueryString(args.filter);
  const plan = planWindow(args, limits(ctx));
  if (plan.reverse) throw badUserInput('The history cannot be read from the end: use first/after or offset', 'last');
  const window = await fetchWindow(plan, limits(ctx), async ({ pageNo, pageSize }) => {
    const raw = await ctx.session.history(tenantId, { pageNo, pageSize, queryString });
    return pageOrThrow(raw, (r) => toDecommissioned(tenantId, r, false), 'the decommissioned resource list');
  });
  return toConnection(window);
}

export function getDecommissioned(ctx: GatewayContext, tenantId: string, id: string, withHardware: boolean): Promise<DecommissionedResource | null> {
  const key = { tenantId, id: checkId(id, 'id') };
  return withHardware ? ctx.loaders.decommissionedWithHardwareById.load(key) : ctx.loaders.decommissionedById.load(key);
}

export interface AntivirusListArgs extends ConnectionArgs {
  status?: string | null;
  orderBy?: { field: string; direction: 'ASC' | 'DESC' } | null;
}

export async function listAntivirus(ctx: GatewayContext, tenantId: string, args: AntivirusListArgs): Promise<ConnectionShape<AntivirusDefinition>> {
  const queryString = args.status ? joinPairs([['status', args.status]]) : undefined;
  const plan = planWindow(args, limits(ctx));
  const sortName = args.orderBy?.field ?? 'scanDate';
  const descending = (args.orderBy?.direction ?? 'DESC') === 'DESC';
  const window = await fetchWindow(plan, limits(ctx), async ({ pageNo, pageSize }, reverse) => {
    const raw = await ctx.session.antivirus(tenantId, { pageNo, pageSize, sortName, isDescendingOrder: reverse ? !descending : descending, queryString });
    return pageOrThrow(raw, (r) => toAntivirus(tenantId, r), 'the antivirus list');
  });
  return toConnection(window);
}

export async function listResourceTypes(ctx: GatewayContext, tenantId: string): Promise<ResourceType[]> {
  const raw = await ctx.session.resourceTypes(tenantId);
  if (!Array.isArray(raw)) throw unexpectedShape('the resource types');
  return toResourceTypes(tenantId, raw);
}
