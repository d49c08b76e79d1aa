/**
 * One resource's reads, each at most once per resource per operation: its detail, a field from
 * wherever it can be had, its concrete type, applications and availability; and decommissioned
 * records with their hardware. A 404 is "no such record" (not-found.ts).
 */
import type { GatewayConfig } from '../config.js';
import { availabilityWindowSeconds, checkId, checkTenantId } from '../domain/input.js';
import type { Availability, DecommissionedAdditional, DecommissionedResource, InstalledApplication } from '../domain/records.js';
import { answers, gather, LEAST_SPECIFIC_KIND, NO_SUBFIELDS, readHelps, valueOf, type Gathered, type ResourceView } from '../domain/resource-view.js';
import { readsFor, type ResourceFieldName, type ResourceFields } from '../domain/resource.js';
import type { ResourceKind } from '../domain/resource-shapes.js';
import { resourceKey, type Loaders, type ResourceKey } from '../loaders/index.js';
import type { Logger } from '../logger.js';
import type { NotFoundPolicy } from './not-found.js';

export const keyOf = (view: { tenantId: string; id: string }): ResourceKey => ({ tenantId: view.tenantId, id: view.id });

export class ResourceReads {
  /** Detail reads that have settled, so a field can look at one without making a call. */
  private readonly details = new Map<string, ResourceView | null>();
  private readonly mismatchLogged = new Set<string>();
  /** Concrete types learned from a detail read, for records that cannot tell their own. */
  private readonly kinds = new WeakMap<ResourceView, ResourceKind>();

  constructor(
    private readonly loaders: Loaders,
    private readonly notFound: NotFoundPolicy,
    private readonly config: Pick<GatewayConfig, 'maxAvailabilityWindowDays'>,
    private readonly logger: Logger,
  ) {}

  /**
   * A lookup reads the detail to know whether the resource exists; when the selection also
   * wants applications, they are requested at the same time rather than after the detail.
   */
  resource(tenantId: string, id: string, options: { prefetchApplications?: boolean } = {}): Promise<ResourceView | null> {
    const key = { tenantId: checkTenantId(tenantId, 'tenantId'), id: checkId(id, 'id') };
    if (options.prefetchApplications) this.loaders.applicationsByResource.load(key).catch(() => undefined); // errors surface on the field itself
    return this.detail(key);
  }

  async detail(key: ResourceKey): Promise<ResourceView | null> {
    if (this.notFound.known404(key.tenantId)) return null;
    const view = await this.loaders.resourceDetail.load(key);
    this.details.set(resourceKey(key), view);
    return view;
  }

  /** After an update: what this operation read of the resource is stale. */
  forget(key: ResourceKey): void {
    this.loaders.resourceDetail.clear(key);
    this.loaders.resourceSearchById.clear(key);
    this.details.delete(resourceKey(key));
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
   * shape otherwise. When the detail cannot be read, the least specific type.
   */
  async kind(view: ResourceView): Promise<ResourceKind> {
    const known = this.knownKind(view);
    if (known) return known;
    let kind: ResourceKind;
    try {
      kind = (await this.detail(keyOf(view)))?.kind ?? LEAST_SPECIFIC_KIND;
    } catch {
      kind = LEAST_SPECIFIC_KIND;
    }
    this.kinds.set(view, kind);
    return kind;
  }

  /** The concrete type when the record says it or a detail read told it already; null: it takes a read. */
  knownKind(view: ResourceView): ResourceKind | null {
    return view.kind ?? this.kinds.get(view) ?? null;
  }

  /** A detail whose shape contradicts the record's type: logged once; its fields are still served. */
  private checkClassification(view: ResourceView, detail: ResourceView): void {
    if (view.kind === null || detail.kind === null || view.kind === detail.kind) return;
    const key = resourceKey(view);
    if (this.mismatchLogged.has(key)) return;
    this.mismatchLogged.add(key);
    this.logger.warn('resource detail shape contradicts its type', { resourceId: view.id, fromRecord: view.kind, fromDetail: detail.kind });
  }

  applications(view: ResourceView): Promise<InstalledApplication[]> {
    return this.loaders.applicationsByResource.load(keyOf(view));
  }

  availability(view: ResourceView, from: Date, to: Date): Promise<Availability | null> {
    const { start, end } = availabilityWindowSeconds(from, to, this.config.maxAvailabilityWindowDays);
    return this.loaders.availabilityByWindow.load({ ...keyOf(view), from: start, to: end });
  }

  decommissionedResource(tenantId: string, id: string, withHardware: boolean): Promise<DecommissionedResource | null> {
    const key = { tenantId: checkTenantId(tenantId, 'tenantId'), id: checkId(id, 'id') };
    return withHardware ? this.loaders.decommissionedWithHardwareById.load(key) : this.loaders.decommissionedById.load(key);
  }

  /** A hardware section: from the record when it carries it, else one additionalInfo read per resource. */
  async hardware<K extends keyof DecommissionedAdditional>(record: DecommissionedResource, section: K): Promise<DecommissionedAdditional[K] | null> {
    if (Object.hasOwn(record.hardware, section)) return record.hardware[section] ?? null;
    const full = await this.loaders.decommissionedWithHardwareById.load(keyOf(record));
    return full?.hardware[section] ?? null;
  }
}
