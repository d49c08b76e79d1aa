/**
 * The tenant's lists, a page (or a listing) at a time: arguments checked before the first call
 * (src/domain/input.ts), their defaults from list-args.ts, the filter encoded for the upstream,
 * answers mapped to domain types. A 404 is the tenant's (not-found.ts).
 */
import type { GatewayConfig } from '../config.js';
import { badUserInput } from '../core/errors.js';
import { checkDecommissionedFilter, checkMinimalListInput, checkResourceFilter } from '../domain/input.js';
import { fetchWindow, planWindow, toConnection, type ConnectionShape, type PageRequest } from '../domain/paging.js';
import { toAntivirus, toDecommissioned, toPage, toResourceTypes, type AntivirusDefinition, type DecommissionedResource, type Page, type ResourceType } from '../domain/records.js';
import { toResourceView, type ResourceView } from '../domain/resource-view.js';
import type { Loaders } from '../loaders/index.js';
import type { UpstreamSession } from '../upstream/client.js';
import { unexpectedShape } from '../upstream/errors.js';
import { decommissionedQueryString, joinPairs, resourceQueryString } from '../upstream/query-string.js';
import { LIST_DEFAULTS } from './list-args.js';
import type { NotFoundPolicy } from './not-found.js';
import type { AntivirusListArgs, DecommissionedListArgs, MinimalListArgs, ResourceSearchArgs } from './shapes.js';

export const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

export class ListReads {
  private readonly typesByTenant = new Map<string, Promise<ResourceType[] | null>>();

  constructor(
    private readonly session: UpstreamSession,
    private readonly config: Pick<GatewayConfig, 'defaultPageSize' | 'maxPageSize'>,
    private readonly notFound: NotFoundPolicy,
    private readonly loaders: Loaders,
  ) {}

  private pageLimits() {
    return { defaultPageSize: this.config.defaultPageSize, maxPageSize: this.config.maxPageSize };
  }

  async searchResources(tenantId: string, args: ResourceSearchArgs): Promise<ConnectionShape<ResourceView> | null> {
    // Everything is checked before the first upstream call.
    const queryString = resourceQueryString(checkResourceFilter(args.filter));
    const limits = this.pageLimits();
    const plan = planWindow(args, limits);
    const { field: sortName, direction } = args.orderBy ?? LIST_DEFAULTS.resources.orderBy;
    const descending = direction === 'DESC';
    const includeStatus = args.includeStatus === true ? true : undefined;
    return this.notFound.list(tenantId, async () => toConnection(await fetchWindow(plan, limits, async ({ pageNo, pageSize }: PageRequest, reverse) => {
      const raw = await this.session.search(tenantId, { pageNo, pageSize, sortName, isDescendingOrder: reverse ? !descending : descending, queryString, includeStatus });
      const page = pageOrThrow(raw, (r) => toResourceView(tenantId, r, 'search'), 'the resource search');
      // A hit answers later search-by-id needs of the same resource for free.
      for (const view of page.items) if (view) this.loaders.resourceSearchById.prime({ tenantId: view.tenantId, id: view.id }, view);
      return page;
    })));
  }

  async listMinimal(tenantId: string, args: MinimalListArgs): Promise<ResourceView[] | null> {
    const queryString = resourceQueryString(checkMinimalListInput(args));
    const raw = await this.notFound.list(tenantId, () => this.session.minimal(tenantId, {
      state: args.state ?? LIST_DEFAULTS.resourceList.state,
      locationId: args.locationId ?? undefined,
      deviceGroupId: args.deviceGroupId ?? undefined,
      deviceTypeId: args.deviceTypeId ?? undefined,
      queryString,
    }));
    if (raw === null) return null;
    if (!Array.isArray(raw)) throw unexpectedShape('the minimal resource list');
    // The listing comes in no stated order; people expect names A to Z.
    return raw.map((r) => toResourceView(tenantId, r, 'minimal')).filter((v): v is ResourceView => v !== null).sort(byName);
  }

  async decommissionedResources(tenantId: string, args: DecommissionedListArgs): Promise<ConnectionShape<DecommissionedResource> | null> {
    const queryString = decommissionedQueryString(checkDecommissionedFilter(args.filter));
    const limits = this.pageLimits();
    const plan = planWindow(args, limits);
    if (plan.reverse) throw badUserInput('The history cannot be read from the end: use first/after or offset', 'last');
    return this.notFound.list(tenantId, async () => toConnection(await fetchWindow(plan, limits, async ({ pageNo, pageSize }) => {
      const raw = await this.session.history(tenantId, { pageNo, pageSize, queryString });
      return pageOrThrow(raw, (r) => toDecommissioned(tenantId, r), 'the decommissioned resource list');
    })));
  }

  async antivirusDefinitions(tenantId: string, args: AntivirusListArgs): Promise<ConnectionShape<AntivirusDefinition> | null> {
    // The status is an enum value: nothing to check.
    const queryString = args.status ? joinPairs([['status', args.status]]) : undefined;
    const limits = this.pageLimits();
    const plan = planWindow(args, limits);
    const { field: sortName, direction } = args.orderBy ?? LIST_DEFAULTS.antivirusDefinitions.orderBy;
    const descending = direction === 'DESC';
    return this.notFound.list(tenantId, async () => toConnection(await fetchWindow(plan, limits, async ({ pageNo, pageSize }, reverse) => {
      const raw = await this.session.antivirus(tenantId, { pageNo, pageSize, sortName, isDescendingOrder: reverse ? !descending : descending, queryString });
      return pageOrThrow(raw, (r) => toAntivirus(tenantId, r), 'the antivirus list');
    })));
  }

  /** Read once per tenant per operation (node lookups of several types share the read). */
  resourceTypes(tenantId: string): Promise<ResourceType[] | null> {
    let types = this.typesByTenant.get(tenantId);
    if (!types) {
      types = this.notFound.list(tenantId, () => this.session.resourceTypes(tenantId)).then((raw) => {
        if (raw === null) return null;
        if (!Array.isArray(raw)) throw unexpectedShape('the resource types');
        return toResourceTypes(tenantId, raw).sort((a, b) => collator.compare(a.path, b.path));
      });
      this.typesByTenant.set(tenantId, types);
    }
    return types;
  }
}

/** Minimal records by name (then host name), as a person reads a list. */
function byName(a: ResourceView, b: ResourceView): number {
  const key = (v: ResourceView) => String(v.record.name ?? v.record.hostName ?? '');
  return collator.compare(key(a), key(b)) || collator.compare(a.id, b.id);
}

/** A page of the upstream's paged answers, or UPSTREAM_BAD_RESPONSE naming what it was. */
export function pageOrThrow<T>(raw: unknown, map: (item: unknown) => T | null, what: string): Page<T> {
  const page = toPage(raw, map);
  if (!page) throw unexpectedShape(what);
  return page;
}
