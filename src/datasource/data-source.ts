/**
 * InventoryDataSource: one per request, the only thing resolvers and federation references
 * call (the context's `inventory`). A facade over the rooms of src/datasource/: the 404 policy
 * (not-found.ts), the tenant's lists (lists.ts), one resource's reads (resource-reads.ts), the
 * summaries (summary.ts) and the update (update.ts). Input is checked before any call and
 * domain types come back.
 *
 * The request path: resolver -> data source -> (loader) -> session -> mapper.
 */
import type { GatewayConfig } from '../config.js';
import { checkResourceFilter, checkTenantId, type ResourceFilter } from '../domain/input.js';
import type { ConnectionShape } from '../domain/paging.js';
import type { AntivirusDefinition, Availability, DecommissionedAdditional, DecommissionedResource, InstalledApplication, ResourceType } from '../domain/records.js';
import type { ResourceView } from '../domain/resource-view.js';
import type { ResourceFieldName, ResourceFields } from '../domain/resource.js';
import type { ResourceKind } from '../domain/resource-shapes.js';
import type { SummarySelection } from '../domain/summary.js';
import type { UpdateResourceInput } from '../domain/update.js';
import { createLoaders } from '../loaders/index.js';
import type { Logger } from '../logger.js';
import type { UpstreamSession } from '../upstream/client.js';
import type { OperationStats } from '../core/operation-stats.js';
import type { NodeKey } from '../core/node-key.js';
import { ListReads } from './lists.js';
import { known, NotFoundPolicy } from './not-found.js';
import { ResourceReads } from './resource-reads.js';
import { SummaryReads } from './summary.js';
import { updateResource, type UpdatePayload } from './update.js';
import type {
  AntivirusListArgs, DecommissionedListArgs, MinimalListArgs, ResourceSearchArgs, ResourceSummaryShape, ResourceTypeCount, StateCount, TenantShape,
} from './shapes.js';

export class InventoryDataSource {
  private readonly lists: ListReads;
  private readonly reads: ResourceReads;
  private readonly summaries: SummaryReads;

  constructor(private readonly session: UpstreamSession, config: GatewayConfig, logger: Logger, stats: OperationStats) {
    const notFound = new NotFoundPolicy();
    const loaders = createLoaders(session, stats, notFound.lookup);
    this.lists = new ListReads(session, config, notFound, loaders);
    this.reads = new ResourceReads(loaders, notFound, config, logger);
    this.summaries = new SummaryReads({
      session,
      // The counts are non-null: an unknown tenant reported by another field is still an error here.
      read: async (tenantId, work) => known(tenantId, await notFound.list(tenantId, work)),
      // Already read under the 404 policy by the lists (once per operation).
      resourceTypes: async (tenantId) => known(tenantId, await this.lists.resourceTypes(tenantId)),
      maxPageSize: config.maxPageSize,
    });
  }

  // ---- tenants and lists (lists.ts) -------------------------------------------------------

  /** A tenant the caller may read (FORBIDDEN otherwise, the same for an unknown one): made without an upstream call. */
  tenant(id: string): TenantShape {
    const tenantId = checkTenantId(id);
    this.session.authorize(tenantId, 'read');
    return { id: tenantId };
  }

  searchResources(tenantId: string, args: ResourceSearchArgs): Promise<ConnectionShape<ResourceView> | null> {
    return this.lists.searchResources(tenantId, args);
  }

  listMinimal(tenantId: string, args: MinimalListArgs): Promise<ResourceView[] | null> {
    return this.lists.listMinimal(tenantId, args);
  }

  decommissionedResources(tenantId: string, args: DecommissionedListArgs): Promise<ConnectionShape<DecommissionedResource> | null> {
    return this.lists.decommissionedResources(tenantId, args);
  }

  antivirusDefinitions(tenantId: string, args: AntivirusListArgs): Promise<ConnectionShape<AntivirusDefinition> | null> {
    return this.lists.antivirusDefinitions(tenantId, args);
  }

  resourceTypes(tenantId: string): Promise<ResourceType[] | null> {
    return this.lists.resourceTypes(tenantId);
  }

  // ---- counts for dashboard tiles (summary.ts) ------------------------------------------------

  /** The filter is checked as the search's (same errors, before any call); its reads wait for the fields. */
  resourceSummary(tenantId: string, filter: ResourceFilter | null | undefined, selection: SummarySelection): ResourceSummaryShape {
    return this.summaries.summary(tenantId, checkResourceFilter(filter), selection);
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

  // ---- one resource (resource-reads.ts) -------------------------------------------------------

  resource(tenantId: string, id: string, options: { prefetchApplications?: boolean } = {}): Promise<ResourceView | null> {
    return this.reads.resource(tenantId, id, options);
  }

  field<K extends ResourceFieldName>(view: ResourceView, name: K, wanted?: readonly string[]): Promise<ResourceFields[K] | null> {
    return this.reads.field(view, name, wanted);
  }

  kind(view: ResourceView): Promise<ResourceKind> {
    return this.reads.kind(view);
  }

  knownKind(view: ResourceView): ResourceKind | null {
    return this.reads.knownKind(view);
  }

  applications(view: ResourceView): Promise<InstalledApplication[]> {
    return this.reads.applications(view);
  }

  availability(view: ResourceView, from: Date, to: Date): Promise<Availability | null> {
    return this.reads.availability(view, from, to);
  }

  decommissionedResource(tenantId: string, id: string, withHardware: boolean): Promise<DecommissionedResource | null> {
    return this.reads.decommissionedResource(tenantId, id, withHardware);
  }

  hardware<K extends keyof DecommissionedAdditional>(record: DecommissionedResource, section: K): Promise<DecommissionedAdditional[K] | null> {
    return this.reads.hardware(record, section);
  }

  // ---- the update (update.ts) -----------------------------------------------------------------

  async updateResource(input: UpdateResourceInput): Promise<UpdatePayload> {
    // Refused before the input is looked at: a caller without the right learns nothing of the tenant.
    // (Without a tenant the input is refused as userErrors, with no call.)
    if (input.tenantId != null) this.session.authorize(String(input.tenantId), 'write');
    return updateResource(this.session, this.reads, input);
  }

  // ---- global ids and federation references ---------------------------------------------------

  /** The object a global id stands for, through the same loaders as every other read. */
  node(key: NodeKey): Promise<TenantShape | ResourceView | DecommissionedResource | ResourceType | null> | TenantShape {
    switch (key.kind) {
      case 'Tenant': return this.tenant(key.tenantId);
      case 'Resource': return this.resource(key.tenantId, key.id);
      case 'DecommissionedResource': return this.decommissionedResource(key.tenantId, key.id, false);
      case 'ResourceType': return this.resourceTypes(key.tenantId).then((types) => types?.find((t) => t.number === key.number) ?? null);
    }
  }

  resourceReference(ref: { tenantId: unknown; id: unknown }): Promise<ResourceView | null> {
    return this.resource(String(ref.tenantId), String(ref.id));
  }

  decommissionedReference(ref: { tenantId: unknown; id: unknown }): Promise<DecommissionedResource | null> {
    return this.decommissionedResource(String(ref.tenantId), String(ref.id), false);
  }
}
