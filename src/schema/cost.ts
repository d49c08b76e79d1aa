/**
 * Static estimate of the upstream calls an operation can make, computed before execution from
 * the document and its variables: what a field costs is written once in field-costs.ts (which the
 * schema's @cost/@listSize read too), a resource's fields in the field-source table. It is an
 * upper bound under the stated assumptions for lists whose size the upstream does not bound (the
 * minimal listing, resource types); the session's runtime budget enforces the limit for those too.
 */
import { Kind, type DocumentNode, type FieldNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { documentWalk, operationOf, type CollectedField, type DocumentWalk } from './document-walk.js';
import { DETAIL_FORMS, documents, readsFor, RESOURCE_FIELDS, type RecordForm, type ResourceFieldName, type ResourceOrigin } from '../domain/resource.js';
import { documentsSelection, hasSubFields, readHelpsForm } from '../domain/resource-view.js';
import type { ResourceKind } from '../domain/resource-shapes.js';
import { planCalls, planSummary } from '../domain/summary.js';
import { callsOf, NO_CALLS, plus, times, worstOf, type CallCount, type UpstreamEstimate } from '../core/call-count.js';
import { costOf, FIELD_COSTS, type FieldCost, type Items } from './field-costs.js';
import { nodeKeyOf, tenantOfArgument, tenantOfGlobalId } from './entity-key.js';
import type { NodeKind } from '../core/node-key.js';
import type { RouteName } from '../core/routes.js';
import type { CostTrace } from './cost-trace.js';
import { CostArguments } from './cost-arguments.js';

export type { UpstreamEstimate } from '../core/call-count.js';

export interface CostSettings {
  maxAvailabilityWindowDays: number;
  defaultPageSize: number;
  maxPageSize: number;
  /** Assumed size of the unpaged minimal listing. */
  minimalListSize: number;
  /**
   * Assumed number of resource types of a tenant (for pages nested under resourceTypes): not a
   * bound (the upstream does not cap it), so the run-time budget covers a tenant with more.
   */
  resourceTypeCount: number;
}

const isResourceField = (name: string): name is ResourceFieldName => Object.hasOwn(RESOURCE_FIELDS, name);
const RESOURCE_TYPES = new Set(['Resource', 'GeneralResource', 'DeviceResource', 'SyntheticResource']);
/** The setting that sizes each kind of list of the table. */
const SIZE_SETTING = { page: 'defaultPageSize', minimalList: 'minimalListSize', resourceTypes: 'resourceTypeCount' } as const;

/** Adds the key; whether it was new (a read counted once per operation). */
const firstTime = (seen: Set<string>, key: string): boolean => !seen.has(key) && seen.add(key) !== undefined;
const responseKey = (field: FieldNode): string => field.alias?.value ?? field.name.value;

class Walker {
  readonly args: CostArguments;
  /** Reads the data source makes once per operation, by tenant argument: counted once too. */
  private readonly typesListRead = new Set<string>();
  private readonly summaryCounts = new Set<string>();

  constructor(
    private readonly walk: DocumentWalk,
    private readonly variables: Record<string, unknown>,
    private readonly settings: CostSettings,
    /** Records where the calls come from, when asked for (explain); the counts are the same either way. */
    private readonly trace: CostTrace | null = null,
  ) {
    this.args = new CostArguments(variables, settings);
  }

  private at<T>(segment: string, fn: () => T): T {
    return this.trace ? this.trace.at(segment, fn) : fn();
  }

  private each<T>(n: number, fn: () => T): T {
    return this.trace ? this.trace.each(n, fn) : fn();
  }

  /** Notes every route of a count at the current path (`leaf` below it). */
  private noted(count: CallCount, leaf?: string, needs?: readonly string[]): CallCount {
    if (this.trace) for (const [route, n] of Object.entries(count.routes)) this.trace.note(route as RouteName, n ?? 0, leaf, needs);
    return count;
  }

  /** The fields of a selection set through fragments, each once (memoized per document). */
  fields(set: SelectionSetNode | undefined): readonly CollectedField[] {
    return this.walk.fields(set);
  }

  /**
   * Upstream calls for one resource reached from `origin`, with this selection: the reads the
   * run time makes (readsFor, from the field-source table), at most one detail and one search by
   * id, in the worst case over the kinds the resource may turn out to be. It assumes records
   * carry their documented keys: a minimal record names its resource type, so an unknown kind
   * there is not a synthetic check (whose resource type is SYNTHETIC).
   */
  resource(set: SelectionSetNode | undefined, origin: ResourceOrigin): CallCount {
    const fields = this.fields(set);
    const names = new Set(fields.map((f) => f.field.name.value));
    const typeVisible = names.has('__typename') || fields.some((f) => f.on !== null && f.on !== 'Resource');
    const wanted = [...names].filter(isResourceField);
    // A nested object costs like its least documented selected sub-field.
    const subNames = (name: string): string[] => hasSubFields(name)
      ? fields.filter((f) => f.field.name.value === name).flatMap((f) => this.fields(f.field.selectionSet).map((s) => s.field.name.value))
      : [];
    const cases: { known: ResourceKind | null; actual: ResourceKind }[] =
      origin === 'search' || origin === 'detail'
        ? DETAIL_FORMS.map((k) => ({ known: k, actual: k }))
        : [
            ...DETAIL_FORMS.filter((k) => origin === 'antivirus' || k !== 'synthetic').map((k) => ({ known: null, actual: k })),
            { known: 'synthetic' as const, actual: 'synthetic' as const },
          ];
    // The selected fields that make a detail or search read needed (explain says so).
    const needs = { detail: new Set<string>(), search: new Set<string>() };
    const reads = worstOf(cases.map(({ known, actual }) => {
      let detail = known === null && typeVisible;
      if (detail) needs.detail.add('__typename');
      let search = false;
      for (const name of wanted) {
        const sub = subNames(name);
        if (documentsSelection(origin === 'detail' ? actual : origin, name, sub)) continue;
        // A form documenting the field but not every selected sub-field needs only the reads that can supply those.
        const atHand = origin === 'detail' ? actual : origin;
        let documenting: RecordForm | null = documents(atHand, name) ? atHand : null;
        for (const load of readsFor(name, origin, known)) {
          if (documenting && !readHelpsForm(documenting, name, sub, load)) continue;
          if (load === 'search') { search = true; needs.search.add(name); break; }
          detail = true;
          needs.detail.add(name);
          if (documentsSelection(actual, name, sub)) break;
          if (documents(actual, name)) documenting = actual;
        }
      }
      return plus(callsOf('detail', detail ? 1 : 0), callsOf('search', search ? 1 : 0));
    }));
    this.noted(callsOf('detail', reads.routes.detail ?? 0), undefined, [...needs.detail]);
    this.noted(callsOf('search', reads.routes.search ?? 0), undefined, [...needs.search]);
    // The per-resource reads of the table (applications, availability: one per distinct window).
    const own = Object.entries(FIELD_COSTS.Resource ?? {}).map(([name, entry]) => {
      const selected = fields.filter((f) => f.field.name.value === name);
      if (selected.length === 0) return NO_CALLS;
      const n = entry.perWindow ? this.args.windows(selected.map((f) => f.field)) : 1;
      return this.noted(plus(...(entry.reads ?? []).map((route) => callsOf(route, n))), [...new Set(selected.map((f) => responseKey(f.field)))].join(','));
    });
    return plus(reads, ...own);
  }

  /** Nodes of a connection selection (edges.node and nodes), as one merged selection list. */
  nodeSelections(set: SelectionSetNode | undefined): SelectionSetNode[] {
    const out: SelectionSetNode[] = [];
    for (const { field } of this.fields(set)) {
      if (field.name.value === 'nodes' && field.selectionSet) out.push(field.selectionSet);
      if (field.name.value === 'edges') for (const inner of this.fields(field.selectionSet)) if (inner.field.name.value === 'node' && inner.field.selectionSet) out.push(inner.field.selectionSet);
    }
    return out;
  }

  merged(sets: SelectionSetNode[]): SelectionSetNode {
    return { kind: Kind.SELECTION_SET, selections: sets.flatMap((s) => s.selections) };
  }

  /** Whether this tenant's resource types read was counted already (null: tenant unknown before execution, never shared). */
  private typesReadCounted(tenantArg: string | null): boolean {
    return tenantArg !== null && !firstTime(this.typesListRead, tenantArg);
  }

  /**
   * A resource summary: the plan of src/domain/summary.ts, exact (a search of records counted as
   * one page: exact while its aliasIp matches at most MAX_PAGE_SIZE resources). Reads of the same
   * tenant, filter and state are one read per operation at run time, so they count once here.
   */
  summary(field: FieldNode, tenantArg: string | null): CallCount {
    const selected = new Set(this.fields(field.selectionSet).map((f) => f.field.name.value));
    const raw = this.args.arg(field, 'filter');
    const filterValue = raw !== null && typeof raw === 'object' ? raw as Record<string, unknown> : {};
    const state = typeof filterValue.state === 'string' ? filterValue.state : null;
    const aliasIp = typeof filterValue.aliasIp === 'string' ? filterValue.aliasIp : null;
    const plan = planSummary({ total: selected.has('total'), byState: selected.has('byState'), byResourceType: selected.has('byResourceType') }, { state, aliasIp });
    const calls = planCalls(plan);
    if (tenantArg === null) return this.noted(plus(callsOf('minimal', calls.minimal), callsOf('search', calls.search), callsOf('resourceTypes', calls.resourceTypes)));
    // A listing's queryString leaves the state out (it is the listing's own parameter).
    const reads = plan.source === 'listing'
      ? plan.states.map((s) => JSON.stringify([tenantArg, { ...filterValue, state: undefined }, 'listing', s]))
      : [JSON.stringify([tenantArg, filterValue, 'search', plan.read])];
    const cost = reads.filter((key) => firstTime(this.summaryCounts, key)).length;
    return this.noted(plus(callsOf(plan.source === 'listing' ? 'minimal' : 'search', cost), callsOf('resourceTypes', plan.typesList && !this.typesReadCounted(tenantArg) ? 1 : 0)));
  }

  /** What the fields of `typeName` selected in `set` cost, each by its entry in the table. */
  fieldsOf(typeName: string, set: SelectionSetNode | undefined, tenantArg: string | null): CallCount {
    const costs: CallCount[] = [];
    const shared = new Set<string>();
    for (const { field } of this.fields(set)) {
      const entry = costOf(typeName, field.name.value);
      if (!entry) continue;
      if (entry.sharedBy && !firstTime(shared, entry.sharedBy)) continue;
      costs.push(this.at(responseKey(field), () => this.priced(entry, field, tenantArg)));
    }
    return plus(...costs);
  }

  /**
   * One field by its entry: its reads (a connection's pages: one or two, as src/domain/paging.ts
   * plans the window), then what its items cost, times how many there are.
   */
  priced(entry: FieldCost, field: FieldNode, tenantArg: string | null): CallCount {
    if (entry.items === 'summary') return this.summary(field, tenantArg);
    const reads = entry.oncePerTenant && this.typesReadCounted(tenantArg) ? [] : (entry.reads ?? []);
    if (entry.list === 'connection') {
      const pages = this.noted(plus(...reads.map((route) => callsOf(route, this.args.upstreamPages(field)))));
      const size = this.args.pageSize(field);
      const nodes = this.fields(field.selectionSet).some((f) => f.field.name.value === 'nodes') ? 'nodes' : 'edges.node';
      const items = this.each(size, () => this.at(nodes, () => this.items(entry.items, this.merged(this.nodeSelections(field.selectionSet)), tenantArg)));
      return plus(pages, times(items, size));
    }
    const count = entry.list ? this.settings[SIZE_SETTING[entry.list]] : 1;
    const own = this.noted(plus(...reads.map((route) => callsOf(route))));
    const items = entry.list ? this.each(count, () => this.items(entry.items, field.selectionSet, tenantArg)) : this.items(entry.items, field.selectionSet, tenantArg);
    return plus(own, times(items, count));
  }

  private items(items: Items | undefined, set: SelectionSetNode | undefined, tenantArg: string | null): CallCount {
    if (!items || items === 'summary') return NO_CALLS;
    return 'resource' in items ? this.resource(set, items.resource) : this.fieldsOf(items.type, set, tenantArg);
  }

  /**
   * One object looked up by key (node, nodes, _entities), once per distinct key: its read, plus
   * what its selection costs on its type. Fields on Node itself count as the object's.
   */
  byKey(set: SelectionSetNode | undefined, kind: NodeKind, tenantId: string | null): CallCount {
    const fields = this.fields(set);
    const on = (types: (string | null)[]) => ({ kind: Kind.SELECTION_SET, selections: fields.filter((f) => types.includes(f.on)).map((f) => f.field) }) as SelectionSetNode;
    switch (kind) {
      case 'Resource': return plus(this.noted(callsOf('detail')), this.resource(on([null, 'Node', ...RESOURCE_TYPES]), 'detail'));
      // A Tenant reference's existence check reads its resource types (types/entities.ts); node/nodes read none: an upper bound.
      case 'Tenant': return plus(this.noted(callsOf('resourceTypes', this.typesReadCounted(tenantId) ? 0 : 1)), this.fieldsOf('Tenant', on([null, 'Node', 'Tenant']), tenantId));
      case 'DecommissionedResource': return plus(this.noted(callsOf('historyDetail')), this.fieldsOf('DecommissionedResource', on([null, 'Node', 'DecommissionedResource']), tenantId));
      case 'ResourceType': return plus(this.noted(callsOf('resourceTypes', this.typesReadCounted(tenantId) ? 0 : 1)), this.fieldsOf('ResourceType', on([null, 'Node', 'ResourceType']), tenantId));
    }
  }

  /** The operation's cost by the tenant it spends (null: a tenant not known before execution). */
  root(operation: OperationDefinitionNode): Map<string | null, CallCount> {
    const byTenant = new Map<string | null, CallCount>();
    const add = (tenant: string | null, cost: CallCount) => {
      if (cost.total > 0) byTenant.set(tenant, plus(byTenant.get(tenant) ?? NO_CALLS, cost));
    };
    const rootType = operation.operation === 'mutation' ? 'Mutation' : 'Query';
    // Keys looked up by node, nodes and _entities: the loaders read each once per operation, so they count once.
    const looked = new Set<string>();
    const tenantIs = (tenant: string | null) => {
      if (this.trace) this.trace.tenant = tenant;
    };
    for (const { field } of this.fields(operation.selectionSet)) {
      const name = field.name.value;
      const entry = name === '_entities' ? { byKey: true as const } : costOf(rootType, name);
      if (!entry) continue;
      if (entry.byKey) {
        const list = name === 'node' ? [this.args.arg(field, 'id')] : this.args.arg(field, name === 'nodes' ? 'ids' : 'representations');
        if (!Array.isArray(list)) {
          const kinds: NodeKind[] = ['Resource', 'Tenant', 'DecommissionedResource', 'ResourceType'];
          tenantIs(null);
          // The worst of the kinds is recorded once, as what each of the keys costs.
          const quiet = <T>(fn: () => T): T => (this.trace ? this.trace.quiet(fn) : fn());
          const each = quiet(() => worstOf(kinds.map((kind) => this.byKey(field.selectionSet, kind, null))));
          this.at(responseKey(field), () => this.each(this.settings.maxPageSize, () => this.noted(each)));
          add(null, times(each, this.settings.maxPageSize));
          continue;
        }
        for (const item of list) {
          const key = nodeKeyOf(item);
          if (!key || !firstTime(looked, JSON.stringify(key))) continue; // a key that names nothing is refused before any call
          tenantIs(key.tenantId);
          add(key.tenantId, this.at(responseKey(field), () => this.byKey(field.selectionSet, key.kind, key.tenantId)));
        }
        continue;
      }
      const id = this.args.arg(field, 'id');
      const input = this.args.arg(field, 'input') as { tenantId?: unknown; id?: unknown } | null | undefined;
      const tenantArg = name === 'tenant' ? (typeof id === 'string' ? id : null) : null;
      const tenant = tenantArg !== null ? tenantOfArgument(tenantArg)
        : typeof input?.tenantId === 'string' ? input.tenantId : typeof input?.id === 'string' ? tenantOfGlobalId(input.id) : null;
      tenantIs(tenant);
      add(tenant, this.at(responseKey(field), () => this.priced(entry, field, tenantArg)));
    }
    return byTenant;
  }
}

export function estimateUpstreamCalls(
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown>,
  settings: CostSettings,
  trace: CostTrace | null = null,
): UpstreamEstimate {
  const operation = operationOf(document, operationName);
  if (!operation) return { estimate: 0, byTenant: new Map(), problems: [] };
  const walker = new Walker(documentWalk(document), variables, settings, trace);
  const byTenant = walker.root(operation);
  const estimate = [...byTenant.values()].reduce((sum, cost) => sum + cost.total, 0);
  return { estimate, byTenant, problems: walker.args.problems };
}
