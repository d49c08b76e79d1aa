/**
 * InventoryDataSource: one per request, the only thing resolvers and federation references
 * call. It owns the upstream session, the per-operation loaders and the mappers, checks input
 * before any call, decides once what a 404 means, and returns domain types.
 *
 * The request path: resolver -> data source -> (loader) -> client -> mapper.
 */
import type { GatewayConfig } from '../config.js';
import {
  toAntivirus, toDecommissioned, toPage, toResourceTypes, type AntivirusDefinition, type Availability, type DecommissionedAdditional,
  type DecommissionedResource, type InstalledApplication, type Page, type ResourceType,
} from '../domain/records.js';
import { availabilityWindowSeconds, checkId, checkTenantId } from '../domain/input.js';
import { fetchWindow, planWindow, toConnection, type ConnectionShape, type PageRequest } from '../domain/paging.js';
import type { SummarySelection } from '../domain/summary.js';
import { answers, gather, NO_SUBFIELDS, readHelps, toResourceView, valueOf, type Gathered, type ResourceView } from '../domain/resource-view.js';
import { readsFor, type ResourceFieldName, type ResourceFields } from '../domain/resource.js';
import type { ResourceKind } from '../domain/resource-shapes.js';
import { toUpdateBody, validateUpdate, type UpdateResourceInput, type UserError } from '../domain/update.js';
import { createLoaders, resourceKey, type Loaders, type ResourceKey } from '../loaders/index.js';
import type { Logger } from '../logger.js';
import type { InventorySession } from '../upstream/client.js';
import { badUserInput, gatewayError } from '../core/errors.js';
import { unexpectedShape, UpstreamError, UpstreamNotFound } from '../upstream/errors.js';
import { decommissionedQueryString, joinPairs, resourceQueryString, type ResourceFilter } from '../upstream/query-string.js';
import type { OperationStats } from '../core/operation-stats.js';
import { SummaryReads } from './summary.js';
import type { NodeKey } from '../core/node-key.js';
import type {
  AntivirusListArgs, DecommissionedListArgs, MinimalListArgs, ResourceSearchArgs, ResourceSummaryShape, ResourceTypeCount, StateCount, TenantShape,
} from './shapes.js';

/** Detail reads whose shape contradicted the record's type (process-wide, for operators). */
export const classificationMismatches = { count: 0 };

/** The one error for a tenant the upstream does not know. */
const unknownTenant = (tenantId: string) => gatewayError('NOT_FOUND', `Tenant '${tenantId}' was not found`, { tenantId });

const keyOf = (view: { tenantId: string; id: string }): ResourceKey => ({ tenantId: view.tenantId, id: view.id });

export class InventoryDataSource {
  private readonly loaders: Loaders;
  /** Tenants the upstream does not know: reported once per operation, never asked again. */
  private readonly unknownTenants = new Set<string>();
  /** Detail reads that have settled, so a field can look at one without making a call. */
  private readonly details = new Map<string, ResourceView | null>();
  private readonly mismatchLogged = new Set<string>();
  private readonly typesByTenant = new Map<string, Promise<ResourceType[] | null>>();
  private readonly summaries: SummaryReads;

  constructor(
    private readonly session: InventorySession,
    private readonly config: GatewayConfig,
    private readonly logger: Logger,
    stats: OperationStats,
  ) {
    this.loaders = createLoaders(session, stats, (tenantId, work) => this.lookup(tenantId, work));
    this.summaries = new SummaryReads({
      session,
      // The counts are non-null: an unknown tenant reported by another field is still an error here.
      read: async (tenantId, work) => {
        const result = await this.list(tenantId, work);
        if (result === null) throw unknownTenant(tenantId);
        return result;
      },
      resourceTypes: (tenantId) => this.resourceTypes(tenantId),
      maxPageSize: config.maxPageSize,
    });
  }

  // ---- 404s, decided here -----------------------------------------------------------

  /**
   * A 404 on a record read is "no such record" (null), unless the upstream says the tenant is
   * unknown; a 404 on a list read can only mean the tenant. An unknown tenant is one NOT_FOUND
   * error naming it: the first field to learn it raises it, the others of the operation are
   * null without repeating it and without another call.
   */
  private async lookup<T>(tenantId: string, work: Promise<T>): Promise<T | null> {
    try {
      return await work;
    } catch (error) {
      if (!(error instanceof UpstreamNotFound)) throw error;
      if (error.tenantUnknown) return this.tenantNotFound(tenantId);
      return null;
    }
  }

  private async list<T>(tenantId: string, work: () => Promise<T>): Promise<T | null> {
    if (this.unknownTenants.has(tenantId)) return null;
    try {
      return await work();
    } catch (error) {
      if (error instanceof UpstreamNotFound) return this.tenantNotFound(tenantId);
      throw error;
    }
  }

  private tenantNotFound(tenantId: string): null {
    if (this.unknownTenants.has(tenantId)) return null;
    this.unknownTenants.add(tenantId);
    throw unknownTenant(tenantId);
  }

  // ---- tenants and lists ----------------------------------------------------------------

  tenant(id: string): TenantShape {
    return { id: checkTenantId(id) };
  }

  private pageLimits() {
    return { defaultPageSize: this.config.defaultPageSize, maxPageSize: this.config.maxPageSize };
  }

  async searchResources(tenantId: string, args: ResourceSearchArgs): Promise<ConnectionShape<ResourceView> | null> {
    // Everything is validated before the first upstream call.
    const queryString = resourceQueryString(args.filter);
    const limits = this.pageLimits();
    const plan = planWindow(args, limits);
    const sortName = args.orderBy?.field ?? 'name';
    const descending = (args.orderBy?.direction ?? 'ASC') === 'DESC';
    const includeStatus = args.includeStatus === true ? true : undefined;
    return this.list(tenantId, async () => toConnection(await fetchWindow(plan, limits, async ({ pageNo, pageSize }: PageRequest, reverse) => {
      const raw = await this.session.search(tenantId, { pageNo, pageSize, sortName, isDescendingOrder: reverse ? !descending : descending, queryString, includeStatus });
      const page = pageOrThrow(raw, (r) => toResourceView(tenantId, r, 'search'), 'the resource search');
      // A hit answers later search-by-id needs of the same resource for free.
      for (const view of page.items) if (view) this.loaders.resourceSearchById.prime(keyOf(view), view);
      return page;
    })));
  }

  async listMinimal(tenantId: string, args: MinimalListArgs): Promise<ResourceView[] | null> {
    if (args.filter?.state != null) throw badUserInput('resourceList takes the state argument, not filter.state', 'filter.state');
    if (args.filter?.aliasIp != null) throw badUserInput('The minimal listing does not support the aliasIp filter', 'filter.aliasIp');
    for (const name of ['locationId', 'deviceGroupId', 'deviceTypeId'] as const) {
      const value = args[name];
      if (value != null && value < 0) throw badUserInput(`${name} must be zero or more`, name);
    }
    const queryString = resourceQueryString(args.filter);
    const raw = await this.list(tenantId, () => this.session.minimal(tenantId, {
      state: args.state ?? 'active',
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
    const queryString = decommissionedQueryString(args.filter);
    const limits = this.pageLimits();
    const plan = planWindow(args, limits);
    if (plan.reverse) throw badUserInput('The history cannot be read from the end: use first/after or offset', 'last');
    return this.list(tenantId, async () => toConnection(await fetchWindow(plan, limits, async ({ pageNo, pageSize }) => {
      const raw = await this.session.history(tenantId, { pageNo, pageSize, queryString });
      return pageOrThrow(raw, (r) => toDecommissioned(tenantId, r), 'the decommissioned resource list');
    })));
  }

  async antivirusDefinitions(tenantId: string, args: AntivirusListArgs): Promise<ConnectionShape<AntivirusDefinition> | null> {
    const queryString = args.status ? joinPairs([['status', args.status]]) : undefined;
    const limits = this.pageLimits();
    const plan = planWindow(args, limits);
    const sortName = args.orderBy?.field ?? 'scanDate';
    const descending = (args.orderBy?.direction ?? 'DESC') === 'DESC';
    return this.list(tenantId, async () => toConnection(await fetchWindow(plan, limits, async ({ pageNo, pageSize }, reverse) => {
      const raw = await this.session.antivirus(tenantId, { pageNo, pageSize, sortName, isDescendingOrder: reverse ? !descending : descending, queryString });
      return pageOrThrow(raw, (r) => toAntivirus(tenantId, r), 'the antivirus list');
    })));
  }

  /** Read once per tenant per operation (node lookups of several types share the read). */
  resourceTypes(tenantId: string): Promise<ResourceType[] | null> {
    let types = this.typesByTenant.get(tenantId);
    if (!types) {
      types = this.list(tenantId, () => this.session.resourceTypes(tenantId)).then((raw) => {
        if (raw === null) return null;
        if (!Array.isArray(raw)) throw unexpectedShape('the resource types');
        return toResourceTypes(tenantId, raw).sort((a, b) => collator.compare(a.path, b.path));
      });
      this.typesByTenant.set(tenantId, types);
    }
    return types;
  }

  // ---- counts for dashboard tiles (src/datasource/summary.ts) ----------------------------------

  resourceSummary(tenantId: string, filter: ResourceFilter | null | undefined, selection: SummarySelection): ResourceSummaryShape {
    return this.summaries.summary(tenantId, filter, selection);
  }

  summaryTotal(summary: ResourceSummaryShape): Promise<number> {
    return this.summaries.total(summary);
  }

  summaryByState(summary: ResourceSummaryShape): Promise<StateCount[]> {
    return this.summaries.byState(summary);
  }

  summaryByResourceType(summary: ResourceSummaryShape): Promise<ResourceTypeCount[]> {
    return this.summaries.byResourceType(summary);
  }

  // ---- one resource ----------------------------------------------------------------------

  /**
   * A lookup reads the detail to know whether the resource exists; when the selection also
   * wants applications, they are requested at the same time rather than after the detail.
   */
  resource(tenantId: string, id: string, options: { prefetchApplications?: boolean } = {}): Promise<ResourceView | null> {
    const key = { tenantId: checkTenantId(tenantId, 'tenantId'), id: checkId(id, 'id') };
    if (options.prefetchApplications) this.loaders.applicationsByResource.load(key).catch(() => undefined); // errors surface on the field itself
    return this.detail(key);
  }

  private async detail(key: ResourceKey): Promise<ResourceView | null> {
    if (this.unknownTenants.has(key.tenantId)) return null;
    const view = await this.loaders.resourceDetail.load(key);
    this.details.set(resourceKey(key), view);
    return view;
  }

  /**
   * A field of a resource, wherever it was reached: from the record at hand when it has the
   * key, else from a detail read already made, else from the reads the field-source table
   * names (the detail, then a search by id), each at most once per resource per operation.
   * A nested object is read per selected sub-field the same way: what the record at hand
   * lacks comes from the record that has it, merged in (so every path gives the same object).
   */
  async field<K extends ResourceFieldName>(view: ResourceView, name: K, wanted: readonly string[] = NO_SUBFIELDS): Promise<ResourceFields[K] | null> {
    let got: Gathered = gather(null, view, name);
    const result = () => (got.present ? valueOf(got, name) : null);
    if (answers(got, name, wanted)) return result();
    const read = this.details.get(resourceKey(view));
    if (read === null) return result(); // the resource is gone
    if (read && view.origin !== 'detail') {
      got = gather(got, read, name);
      if (answers(got, name, wanted)) return result();
    }
    for (const load of readsFor(name, view.origin, view.kind)) {
      if (!readHelps(got, name, wanted, load)) continue;
      if (load === 'detail' && read === undefined) {
        const detail = await this.detail(keyOf(view));
        if (detail === null) return result();
        this.checkClassification(view, detail);
        got = gather(got, detail, name);
        if (answers(got, name, wanted)) return result();
      }
      if (load === 'search') {
        const hit = await this.loaders.resourceSearchById.load(keyOf(view));
        if (hit) got = gather(got, hit, name);
        if (answers(got, name, wanted)) return result();
      }
    }
    return result();
  }

  /**
   * The concrete type: from the record when it carries type or resourceType, from the detail's
   * shape otherwise. When the detail cannot be read, the least specific type (device).
   */
  async kind(view: ResourceView): Promise<ResourceKind> {
    if (view.kind) return view.kind;
    try {
      return (await this.detail(keyOf(view)))?.kind ?? 'device';
    } catch {
      return 'device';
    }
  }

  /** A detail whose shape contradicts the record's type: counted and logged once; its fields are still served. */
  private checkClassification(view: ResourceView, detail: ResourceView): void {
    if (view.kind === null || detail.kind === null || view.kind === detail.kind) return;
    const key = resourceKey(view);
    if (this.mismatchLogged.has(key)) return;
    this.mismatchLogged.add(key);
    classificationMismatches.count++;
    this.logger.warn('resource detail shape contradicts its type', { resourceId: view.id, fromRecord: view.kind, fromDetail: detail.kind });
  }

  async applications(view: ResourceView): Promise<InstalledApplication[]> {
    return this.loaders.applicationsByResource.load(keyOf(view));
  }

  async availability(view: ResourceView, from: Date, to: Date): Promise<Availability | null> {
    const { start, end } = availabilityWindowSeconds(from, to, this.config.maxAvailabilityWindowDays);
    return this.loaders.availabilityByWindow.load({ ...keyOf(view), from: start, to: end });
  }

  // ---- decommissioned resources ------------------------------------------------------------

  decommissionedResource(tenantId: string, id: string, withHardware: boolean): Promise<DecommissionedResource | null> {
    const key = { tenantId: checkTenantId(tenantId, 'tenantId'), id: checkId(id, 'id') };
    return withHardware ? this.loaders.decommissionedWithHardwareById.load(key) : this.loaders.decommissionedById.load(key);
  }

  /** A hardware part: from the record when it carries it, else one additionalInfo read per resource. */
  async hardware<K extends keyof DecommissionedAdditional>(record: DecommissionedResource, part: K): Promise<DecommissionedAdditional[K] | null> {
    if (Object.hasOwn(record.hardware, part)) return record.hardware[part] ?? null;
    const full = await this.loaders.decommissionedWithHardwareById.load(keyOf(record));
    return full?.hardware[part] ?? null;
  }

  // ---- the update ------------------------------------------------------------------------------

  /**
   * Input problems become userErrors without any upstream call; a valid input is POSTed, and
   * the resource is re-read so the payload shows what the upstream now holds.
   */
  async updateResource(input: UpdateResourceInput): Promise<{ resource: ResourceView | null; userErrors: UserError[] }> {
    const userErrors = validateUpdate(input);
    if (userErrors.length > 0) return { resource: null, userErrors };
    const key = { tenantId: String(input.tenantId), id: String(input.id) };
    try {
      await this.session.update(key.tenantId, key.id, toUpdateBody(input));
    } catch (error) {
      if (error instanceof UpstreamNotFound) {
        const what = error.tenantUnknown ? `tenant '${key.tenantId}'` : `resource ${key.id}`;
        return { resource: null, userErrors: [{ field: ['input', error.tenantUnknown ? 'tenantId' : 'id'], message: `${what} was not found`, code: 'NOT_FOUND' }] };
      }
      if (error instanceof UpstreamError && error.code === 'BAD_USER_INPUT') {
        return { resource: null, userErrors: [{ field: ['input'], message: error.message, code: 'UPSTREAM_REJECTED' }] };
      }
      throw error;
    }
    // Anything read earlier in this operation is stale now.
    this.loaders.resourceDetail.clear(key);
    this.loaders.resourceSearchById.clear(key);
    this.details.delete(resourceKey(key));
    return { resource: await this.detail(key), userErrors: [] };
  }

  // ---- global ids ------------------------------------------------------------------------------

  /** The object a global id stands for, through the same loaders as every other read. */
  node(key: NodeKey): Promise<TenantShape | ResourceView | DecommissionedResource | ResourceType | null> | TenantShape {
    switch (key.kind) {
      case 'Tenant': return this.tenant(key.tenantId);
      case 'Resource': return this.resource(key.tenantId, key.id);
      case 'DecommissionedResource': return this.decommissionedResource(key.tenantId, key.id, false);
      case 'ResourceType': return this.resourceTypes(key.tenantId).then((types) => types?.find((t) => t.number === key.number) ?? null);
    }
  }

  // ---- federation references ------------------------------------------------------------------

  resourceReference(ref: { tenantId: unknown; id: unknown }): Promise<ResourceView | null> {
    return this.resource(String(ref.tenantId), String(ref.id));
  }

  decommissionedReference(ref: { tenantId: unknown; id: unknown }): Promise<DecommissionedResource | null> {
    return this.decommissionedResource(String(ref.tenantId), String(ref.id), false);
  }
}

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

/** Minimal records by name (then host name), as a person reads a list. */
function byName(a: ResourceView, b: ResourceView): number {
  const key = (v: ResourceView) => String(v.record.name ?? v.record.hostName ?? '');
  return collator.compare(key(a), key(b)) || collator.compare(a.id, b.id);
}

function pageOrThrow<T>(raw: unknown, map: (item: unknown) => T | null, what: string): Page<T> {
  const page = toPage(raw, map);
  if (!page) throw unexpectedShape(what);
  return page;
}
