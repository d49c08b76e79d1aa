/**
 * The inventory endpoints: each route's parameters checked as the interface document says, and its
 * answer computed from the dataset. Pure of HTTP: takes the parsed request, returns status and body.
 */
import { deviceGroupIdOf, resourceTypeIdOf } from './dataset.js';
import type { Dataset, SimTenant } from './data-model.js';
import { availabilityOf, MAX_WINDOW_SECONDS } from './availability.js';
import {
  ANTIVIRUS_QUERY_KEYS, decommissionedPredicate, HISTORY_QUERY_KEYS, MINIMAL_QUERY_KEYS, parseQueryString,
  resourcePredicate, SEARCH_QUERY_KEYS, SimError,
} from './query.js';
import { antivirusRecord, applicationRecords, decommissionedRecord, detailRecord, minimalRecord, searchRecord } from './render.js';
import type { RouteName } from './routes.js';
import type { SimulatorSettings } from './settings.js';
import { validateUpdate, applyUpdate } from './update.js';

const SEARCH_SORT_FIELDS = new Set([
  'id', 'hostName', 'ipAddress', 'dns', 'createdDate', 'classCode', 'deviceType', 'devicePath', 'type', 'state',
  'make', 'model', 'osName', 'description', 'source', 'aliasName', 'name', 'resourceName', 'resourceType',
  'assetManagedTime', 'firstAssetManagedTime', 'ts',
]);
const ANTIVIRUS_SORT_FIELDS = new Set(['name', 'version', 'currentDefinition', 'currentDefinitionDate', 'scanDate', 'supported', 'status']);

type Json = Record<string, unknown>;

export interface ApiAnswer { status: number; body: unknown }

/** One request's query parameters, read by name; unknown ones are refused at the end. */
export class Params {
  private seen = new Set<string>();
  constructor(private readonly search: URLSearchParams) {}
  private raw(name: string): string | null {
    this.seen.add(name);
    return this.search.get(name);
  }
  string(name: string): string | null {
    return this.raw(name);
  }
  int(name: string, fallback: number, min: number, max: number): number {
    const v = this.raw(name);
    if (v === null) return fallback;
    if (!/^-?\d+$/.test(v)) throw new SimError(400, `Parameter '${name}' must be an integer`);
    const n = Number(v);
    if (n < min || n > max) throw new SimError(400, `Parameter '${name}' must be between ${min} and ${max}`);
    return n;
  }
  bool(name: string, fallback: boolean): boolean {
    const v = this.raw(name);
    if (v === null) return fallback;
    if (v !== 'true' && v !== 'false') throw new SimError(400, `Parameter '${name}' must be true or false`);
    return v === 'true';
  }
  /** Unknown parameters are refused, so a client that sends a misspelt one finds out. */
  assertNoOthers(): void {
    for (const name of this.search.keys()) {
      if (!this.seen.has(name)) throw new SimError(400, `Unknown parameter '${name}'`);
    }
  }
}

function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const sa = String(a).toLowerCase();
  const sb = String(b).toLowerCase();
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** Sort by one field with a stable tie-break, so the descending order is the exact reverse of the ascending one. */
function sortRecords(records: Json[], field: string, descending: boolean, tieBreak: (r: Json) => string): Json[] {
  const sorted = [...records].sort((x, y) => compareValues(x[field], y[field]) || compareValues(tieBreak(x), tieBreak(y)));
  return descending ? sorted.reverse() : sorted;
}

function envelope(records: Json[], pageNo: number, pageSize: number, orderBy: string, descending: boolean): Json {
  const totalResults = records.length;
  const totalPages = Math.ceil(totalResults / pageSize);
  return {
    results: records.slice((pageNo - 1) * pageSize, pageNo * pageSize),
    totalResults,
    orderBy,
    pageNo,
    pageSize,
    totalPages,
    nextPage: pageNo < totalPages,
    descendingOrder: descending,
  };
}

function tenantOf(dataset: Dataset, id: string): SimTenant {
  const tenant = dataset.tenants.get(id);
  if (!tenant) throw new SimError(404, `Unknown tenant '${id}'`);
  return tenant;
}

function resourceOf(tenant: SimTenant, id: string) {
  const resource = tenant.byId.get(id);
  if (!resource) throw new SimError(404, `Resource '${id}' not found`);
  return resource;
}

/** The page and order parameters of a sorted list (search, antivirus); an unknown sort field is a 400. */
function sortedPage(params: Params, settings: SimulatorSettings, defaultSort: string, sortable: ReadonlySet<string>) {
  const pageNo = params.int('pageNo', 1, 1, 1_000_000);
  const pageSize = params.int('pageSize', 100, 1, settings.maxPageSize);
  const descending = params.bool('isDescendingOrder', true);
  const sortName = params.string('sortName') ?? defaultSort;
  if (!sortable.has(sortName)) throw new SimError(400, `Cannot sort by '${sortName}'`);
  return { pageNo, pageSize, descending, sortName };
}

/**
 * Answers one inventory request. `pathParams` are the tenant id and, where the route has one, the
 * resource id; `body` is the parsed JSON body of a POST. Refusals are thrown as SimError.
 */
export function answerApi(
  dataset: Dataset, settings: SimulatorSettings, route: RouteName, pathParams: string[], params: Params, body: unknown,
): ApiAnswer {
  const tenant = tenantOf(dataset, pathParams[0] as string);
  const resourceId = pathParams[1] ?? '';
  switch (route) {
    case 'search': {
      const { pageNo, pageSize, descending, sortName } = sortedPage(params, settings, 'id', SEARCH_SORT_FIELDS);
      const includeStatus = params.bool('includeStatus', false);
      const matches = resourcePredicate(parseQueryString(params.string('queryString'), SEARCH_QUERY_KEYS), { allowStateAll: false });
      params.assertNoOthers();
      const records = tenant.resources.filter(matches).map((r) => searchRecord(tenant, r, includeStatus));
      return { status: 200, body: envelope(sortRecords(records, sortName, descending, (r) => String(r.id)), pageNo, pageSize, sortName, descending) };
    }
    case 'minimal': {
      const locationId = params.int('locationId', 0, 0, 2 ** 31 - 1);
      const deviceGroupId = params.int('deviceGroupId', 0, 0, 2 ** 31 - 1);
      const deviceTypeId = params.int('deviceTypeId', 0, 0, 2 ** 31 - 1);
      const state = (params.string('state') ?? 'active').toLowerCase();
      if (!['active', 'inactive', 'discovered', 'all'].includes(state)) throw new SimError(400, `Invalid state '${state}'`);
      const query = parseQueryString(params.string('queryString'), MINIMAL_QUERY_KEYS);
      const matches = resourcePredicate(query, { allowStateAll: true });
      params.assertNoOthers();
      return {
        status: 200,
        body: tenant.resources
          .filter(
            (r) =>
              (state === 'all' || r.state === state) &&
              (locationId === 0 || r.location.id === locationId) &&
              (deviceGroupId === 0 || deviceGroupIdOf(r) === deviceGroupId) &&
              (deviceTypeId === 0 || resourceTypeIdOf(dataset, r) === deviceTypeId) &&
              matches(r),
          )
          .map(minimalRecord),
      };
    }
    case 'detail':
      params.assertNoOthers();
      return { status: 200, body: detailRecord(tenant, resourceOf(tenant, resourceId)) };
    case 'update': {
      params.assertNoOthers();
      const resource = resourceOf(tenant, resourceId);
      applyUpdate(resource, validateUpdate(body));
      return { status: 200, body: null };
    }
    case 'applications':
      params.assertNoOthers();
      return { status: 200, body: applicationRecords(tenant, resourceOf(tenant, resourceId)) };
    case 'availability': {
      const start = params.string('startTime');
      const end = params.string('endTime');
      params.assertNoOthers();
      if (start === null || end === null) throw new SimError(400, 'startTime and endTime are required');
      if (!/^\d+$/.test(start) || !/^\d+$/.test(end)) throw new SimError(400, 'startTime and endTime must be epoch seconds');
      const from = Number(start);
      const to = Number(end);
      if (to <= from) throw new SimError(400, 'endTime must be after startTime');
      if (to - from > MAX_WINDOW_SECONDS) throw new SimError(400, 'Window longer than 400 days');
      return { status: 200, body: availabilityOf(resourceOf(tenant, resourceId), from, to) };
    }
    case 'history': {
      const pageNo = params.int('pageNo', 1, 1, 1_000_000);
      const pageSize = params.int('pageSize', 100, 1, settings.maxPageSize);
      const matches = decommissionedPredicate(parseQueryString(params.string('queryString'), HISTORY_QUERY_KEYS));
      params.assertNoOthers();
      const records = tenant.decommissioned
        .filter(matches)
        .sort((a, b) => b.decommissionedAt - a.decommissionedAt || compareValues(a.id, b.id))
        .map((d) => decommissionedRecord(tenant, d, false));
      return { status: 200, body: envelope(records, pageNo, pageSize, 'updatedDate', true) };
    }
    case 'historyDetail': {
      const additionalInfo = params.bool('additionalInfo', false);
      params.assertNoOthers();
      const record = tenant.decommissioned.find((d) => d.id === resourceId);
      if (!record) throw new SimError(404, `Decommissioned resource '${resourceId}' not found`);
      return { status: 200, body: decommissionedRecord(tenant, record, additionalInfo) };
    }
    case 'antivirus': {
      const { pageNo, pageSize, descending, sortName } = sortedPage(params, settings, 'scanDate', ANTIVIRUS_SORT_FIELDS);
      const query = parseQueryString(params.string('queryString'), ANTIVIRUS_QUERY_KEYS);
      const status = query.get('status');
      if (status !== undefined && status !== 'OUTOFDATE' && status !== 'UPTODATE') throw new SimError(400, `Invalid status '${status}'`);
      params.assertNoOthers();
      const records = tenant.antivirus
        .filter((a) => status === undefined || a.status === status)
        .map((a) => antivirusRecord(tenant, a));
      const sorted = sortRecords(records, sortName, descending, (r) => (r.resource as { id: string }).id);
      const page = envelope(sorted, pageNo, pageSize, sortName, descending);
      return { status: 200, body: { ...page, previousPageNo: pageNo > 1 ? pageNo - 1 : 0 } };
    }
    case 'resourceTypes':
      params.assertNoOthers();
      return { status: 200, body: dataset.resourceTypes.map((t) => ({ ...t })) };
    default:
      throw new SimError(404, 'Not found');
  }
}
