/**
 * What each field that reaches the upstream costs, written once: the gateway's own estimate
 * (cost.ts) walks an operation with it, and the pricing plugin (pricing-plugin.ts) gives each field
 * its entry's `@cost`/`@listSize`, which Pothos' federation plugin emits for a federation gateway's
 * demand control. A resource's record fields (hostName, bios...) are not here: what they
 * cost depends on where the resource was reached (the field-source table, src/domain/resource.ts),
 * at most one detail read and one search by id per resource whatever is selected, which the
 * gateways' default weight of an object (1) stands for. test/unit/field-sources.test.ts fails when
 * a field calls the data source without an entry, or the printed schema lacks its directives.
 */
import type { RouteName } from '../core/routes.js';
import type { ResourceOrigin } from '../domain/resource.js';
import { HARDWARE_PART_NAMES } from '../domain/records.js';
import { planCalls, planSummary } from '../domain/summary.js';

/** Sizes a gateway assumes where no argument bounds a list: the defaults of the settings the estimate reads. */
export const ASSUMED_SIZES = {
  /** DEFAULT_PAGE_SIZE's default: a connection without first/last. */
  page: 50,
  /** MAX_PAGE_SIZE's default: the unpaged minimal listing (the upstream does not bound it). */
  minimalList: 500,
  /** A tenant's resource types (the upstream does not bound them either). */
  resourceTypes: 50,
} as const;

/**
 * What a field's items (or its object) are, whose selection costs more: resources (as reached
 * from a record form), a type whose fields this table prices in turn, or a resource summary.
 */
export type Items = { resource: ResourceOrigin } | { type: string } | 'summary';

export interface FieldCost {
  /** The upstream reads the field makes for each object it is selected on, one call each (a connection: its pages). */
  reads?: readonly RouteName[];
  /** The read is made once per tenant and operation, whatever selects it (a tenant's resource types). */
  oncePerTenant?: true;
  /** The read is shared by every selected field of one object with the same `sharedBy` (a decommissioned resource's hardware). */
  sharedBy?: string;
  /** A page of a connection (sized by first/last), or a list of an assumed size. */
  list?: 'connection' | keyof typeof ASSUMED_SIZES;
  /** A field taking a time window (from, to): one read per distinct window. */
  perWindow?: true;
  /** An object looked up by its key (node, nodes): what it costs depends on what the key names. */
  byKey?: true;
  items?: Items;
  /** A field of an interface: composition takes @cost and @listSize on the implementations' fields only. */
  onImplementations?: true;
}

const connection = (read: RouteName, items: Items): FieldCost => ({ reads: [read], list: 'connection', items });
const HARDWARE: FieldCost = { reads: ['historyDetail'], sharedBy: 'hardware' };
const RESOURCES_OF_SEARCH: Items = { resource: 'search' };

/** The reads a resource summary may make, the worst case (src/domain/summary.ts plans them). */
const SUMMARY_READS = Object.entries(planCalls(planSummary({ total: true, byState: true, byResourceType: true }, { state: null, aliasIp: null })))
  .flatMap(([route, n]) => Array.from({ length: n }, () => route as RouteName));

/** Every field that reaches the upstream (or whose items do), by type and field name. */
export const FIELD_COSTS: Readonly<Record<string, Readonly<Record<string, FieldCost>>>> = {
  Query: {
    tenant: { items: { type: 'Tenant' } },
    node: { reads: ['detail'], byKey: true },
    nodes: { reads: ['detail'], byKey: true },
  },
  Mutation: {
    updateResource: { reads: ['update', 'detail'], items: { type: 'UpdateResourcePayload' } },
  },
  UpdateResourcePayload: {
    resource: { items: { resource: 'detail' } },
  },
  Tenant: {
    resources: connection('search', RESOURCES_OF_SEARCH),
    resourceList: { reads: ['minimal'], list: 'minimalList', items: { resource: 'minimal' } },
    resource: { reads: ['detail'], items: { resource: 'detail' } },
    decommissionedResources: connection('history', { type: 'DecommissionedResource' }),
    decommissionedResource: { reads: ['historyDetail'], items: { type: 'DecommissionedResource' } },
    antivirusDefinitions: connection('antivirus', { type: 'AntivirusDefinition' }),
    resourceSummary: { reads: SUMMARY_READS, items: 'summary' },
    resourceTypes: { reads: ['resourceTypes'], oncePerTenant: true, list: 'resourceTypes', items: { type: 'ResourceType' } },
  },
  ResourceType: {
    resources: connection('search', RESOURCES_OF_SEARCH),
  },
  AntivirusDefinition: {
    resource: { items: { resource: 'antivirus' } },
  },
  Resource: {
    applications: { reads: ['applications'], onImplementations: true },
    availability: { reads: ['availability'], perWindow: true, onImplementations: true },
  },
  DecommissionedResource: Object.fromEntries(HARDWARE_PART_NAMES.map((name) => [name, HARDWARE])),
};

/**
 * The weight of an object type (@cost on the type): a gateway counts 1 per object by default, which
 * for a resource stands for its detail read (at most one per resource, whatever fields are
 * selected). Every other object comes with the record or read that holds it, priced on its field
 * (the Resource interface cannot carry @cost, so it keeps the default 1 too).
 */
export function objectWeight(typeName: string): number | undefined {
  if (['Query', 'Mutation', 'Subscription'].includes(typeName)) return undefined;
  return ['GeneralResource', 'DeviceResource', 'SyntheticResource'].includes(typeName) ? 1 : 0;
}

/** The fields of a decommissioned resource that share its hardware read (the additionalInfo read). */
export const HARDWARE_FIELDS: ReadonlySet<string> = new Set(Object.entries(FIELD_COSTS.DecommissionedResource ?? {}).filter(([, c]) => c.sharedBy === 'hardware').map(([name]) => name));

export function costOf(typeName: string, field: string): FieldCost | undefined {
  const fields = FIELD_COSTS[typeName];
  return fields && Object.hasOwn(fields, field) ? fields[field] : undefined;
}

export interface CostDirectives {
  cost?: number;
  listSize?: { assumedSize?: number; slicingArguments?: string[]; sizedFields?: string[]; requireOneSlicingArgument?: boolean };
}

/** The @cost/@listSize of a field from its entry (spread into the field's options). */
export function directivesOf(entry: FieldCost): CostDirectives {
  const out: CostDirectives = {};
  if (entry.reads?.length) out.cost = entry.reads.length;
  if (entry.list === 'connection') {
    // Without first or last, a page is the default page size (assumedSize: the gateways that read it).
    out.listSize = { slicingArguments: ['first', 'last'], sizedFields: ['edges', 'nodes'], assumedSize: ASSUMED_SIZES.page, requireOneSlicingArgument: false };
  } else if (entry.list) {
    out.listSize = { assumedSize: ASSUMED_SIZES[entry.list] };
  }
  return out;
}
