/**
 * The one place that checks caller input before it can reach the upstream: tenant ids,
 * resource ids, filters (checked here, then encoded for the upstream by
 * src/upstream/query-string.ts, which checks nothing), IP addresses, dates and availability
 * windows. Every refusal is BAD_USER_INPUT naming the argument, and costs no upstream call; the
 * update's input uses the same rules (isTenantId...) and reports them as userErrors.
 */
import { badUserInput } from '../core/errors.js';

export const MAX_FILTER_VALUE_LENGTH = 200;
export const MAX_LIST_ITEMS = 50;

const TENANT_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const TENANT_ID_RULE = "letters, digits, '-' or '_' (at most 64), e.g. client_1";
export const isTenantId = (value: string): boolean => TENANT_RE.test(value);
export function checkTenantId(id: string, field = 'id'): string {
  if (!isTenantId(id)) throw badUserInput(`tenant id must be ${TENANT_ID_RULE}`, field);
  return id;
}

const ID_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
export const ID_RULE = "an id of letters, digits, '-' or '_' (at most 128)";
/** Resource ids: also the ids the search can filter by (a lookup by any other id asks nothing). */
export const isId = (value: string): boolean => ID_RE.test(value);
export function checkId(value: string, field: string): string {
  if (!isId(value)) throw badUserInput(`${field} must be ${ID_RULE}`, field);
  return value;
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
export const hasControlCharacters = (value: string): boolean => CONTROL.test(value);

/** Filter text: the queryString syntax cannot carry '+', ':' (outside fields that need it), ',' in list items, or control characters. */
export function checkFilterText(value: string, field: string, options: { allowColon?: boolean; allowComma?: boolean } = {}): string {
  if (value.length > MAX_FILTER_VALUE_LENGTH) throw badUserInput(`${field} is longer than ${MAX_FILTER_VALUE_LENGTH} characters`, field);
  const text = value.trim();
  if (text === '') throw badUserInput(`${field} must not be empty`, field);
  if (hasControlCharacters(text)) throw badUserInput(`${field} must not contain control characters or line breaks`, field);
  if (text.includes('+')) throw badUserInput(`${field} must not contain '+': the upstream uses it to separate filter keys`, field);
  if (!options.allowColon && text.includes(':')) throw badUserInput(`${field} must not contain ':': the upstream uses it between key and value`, field);
  if (!options.allowComma && text.includes(',')) throw badUserInput(`${field} items must not contain ',': the upstream uses it to separate list items`, field);
  return text;
}

const IP_RE = /^[0-9A-Fa-f.:]{2,45}$/;
export const isIp = (value: string): boolean => IP_RE.test(value);
export function checkIp(value: string, field: string): string {
  const text = value.trim();
  if (!isIp(text)) throw badUserInput(`${field} must be an IPv4 or IPv6 address`, field);
  return text;
}

export function checkDate(value: Date, field: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw badUserInput(`${field} is not a valid date`, field);
  return value;
}

/** The availability window in whole epoch seconds; checked at run time and before execution. */
export function availabilityWindowSeconds(from: Date, to: Date, maxDays: number): { start: number; end: number } {
  const start = Math.floor(from.getTime() / 1000);
  const end = Math.floor(to.getTime() / 1000);
  if (end <= start) throw badUserInput('availability: `to` must be after `from`', 'to');
  if (end - start > maxDays * 86_400) throw badUserInput(`availability: the window may span at most ${maxDays} days`, 'to');
  return { start, end };
}

// ---- filters ---------------------------------------------------------------------------------

export interface DateRange { from?: Date | null; to?: Date | null }
export interface GroupMatch { name: string; exact?: boolean | null }

/** Tenant.resources' filter (also resourceList's and resourceSummary's), as the schema passes it. */
export interface ResourceFilter {
  hostName?: string | null;
  resourceName?: string | null;
  dnsName?: string | null;
  aliasName?: string | null;
  id?: string | null;
  serialNumber?: string | null;
  ipAddress?: string | null;
  systemUID?: string | null;
  state?: string | null;
  type?: string | null;
  resourceTypes?: string[] | null;
  deviceTypes?: string[] | null;
  appRoles?: string[] | null;
  createdBetween?: DateRange | null;
  updatedBetween?: DateRange | null;
  tags?: string[] | null;
  template?: string | null;
  agentProfile?: string | null;
  gatewayProfile?: string | null;
  instanceId?: string | null;
  accountNumber?: string | null;
  installedIntegrationId?: string | null;
  agentInstalled?: boolean | null;
  deviceGroup?: GroupMatch | null;
  serviceGroup?: GroupMatch | null;
  deviceLocation?: GroupMatch | null;
  firstAssetManagedTime?: Date | null;
  assetManagedTime?: Date | null;
  aliasIp?: string | null;
}

export interface DecommissionedResourceFilter {
  id?: string | null;
  hostName?: string | null;
  ipAddress?: string | null;
  instanceId?: string | null;
  tags?: string[] | null;
  decommissionedBetween?: DateRange | null;
  type?: string | null;
  accountNumber?: string | null;
  provider?: string | null;
  owner?: string | null;
  instanceType?: string | null;
  instanceState?: string | null;
  zone?: string | null;
  region?: string | null;
  ami?: string | null;
  hostedServiceName?: string | null;
  launchedBetween?: DateRange | null;
}

declare const CHECKED: unique symbol;
/** A filter every value of which passed its check (trimmed where text): the only kind query-string.ts encodes. */
export type Checked<F> = F & { readonly [CHECKED]: true };
export type CheckedResourceFilter = Checked<ResourceFilter>;
export type CheckedDecommissionedFilter = Checked<DecommissionedResourceFilter>;

function checkRange(range: DateRange | null | undefined, field: string): DateRange | undefined {
  if (!range) return undefined;
  const from = range.from ? checkDate(range.from, `${field}.from`) : null;
  const to = range.to ? checkDate(range.to, `${field}.to`) : null;
  if (from && to && from.getTime() > to.getTime()) throw badUserInput(`${field}.from must not be after ${field}.to`, field);
  return { from, to };
}

function checkList(values: string[] | null | undefined, field: string): string[] | undefined {
  if (!values) return undefined;
  if (values.length === 0) throw badUserInput(`${field} must not be an empty list`, field);
  if (values.length > MAX_LIST_ITEMS) throw badUserInput(`${field} takes at most ${MAX_LIST_ITEMS} items`, field);
  return values.map((v, i) => checkFilterText(v, `${field}[${i}]`));
}

/** How a value of a filter is checked (and normalized: text trimmed, a group's `exact` a boolean). */
type ValueCheck = 'text' | 'id' | 'ip' | 'list' | 'range' | 'date' | 'group' | 'state' | 'as-is';

/** Each field of a filter and its check, in the order the checks run (the queryString's). */
const RESOURCE_FILTER_CHECKS: Record<keyof ResourceFilter, ValueCheck> = {
  hostName: 'text', resourceName: 'text', dnsName: 'text', aliasName: 'text', id: 'id', serialNumber: 'text', ipAddress: 'ip', systemUID: 'text',
  state: 'state', type: 'text', resourceTypes: 'list', deviceTypes: 'list', appRoles: 'list', createdBetween: 'range', updatedBetween: 'range',
  tags: 'list', template: 'text', agentProfile: 'text', gatewayProfile: 'text', instanceId: 'text', accountNumber: 'text', installedIntegrationId: 'text',
  agentInstalled: 'as-is', deviceGroup: 'group', serviceGroup: 'group', deviceLocation: 'group', firstAssetManagedTime: 'date', assetManagedTime: 'date',
  aliasIp: 'ip',
};
const DECOMMISSIONED_FILTER_CHECKS: Record<keyof DecommissionedResourceFilter, ValueCheck> = {
  id: 'id', hostName: 'text', ipAddress: 'ip', instanceId: 'text', tags: 'list', decommissionedBetween: 'range', type: 'text', accountNumber: 'text',
  provider: 'text', owner: 'text', instanceType: 'text', instanceState: 'as-is', zone: 'text', region: 'text', ami: 'text', hostedServiceName: 'text',
  launchedBetween: 'range',
};

function checkValue(check: ValueCheck, value: unknown, field: string): unknown {
  switch (check) {
    case 'text': return checkFilterText(value as string, field, { allowComma: true });
    case 'id': return checkId(value as string, field);
    case 'ip': return checkIp(value as string, field);
    case 'list': return checkList(value as string[], field);
    case 'range': return checkRange(value as DateRange, field);
    case 'date': return checkDate(value as Date, field);
    case 'group': {
      const group = value as GroupMatch;
      return { name: checkFilterText(group.name, `${field}.name`, { allowComma: true }), exact: Boolean(group.exact) };
    }
    case 'state':
      if (value === 'decommissioned') throw badUserInput('Decommissioned resources are listed by decommissionedResources, not by this filter', field);
      return value;
    case 'as-is': return value;
  }
}

/** Every given value checked by its field's check; the checked filter holds only what was given. */
function checkFields<F extends object>(filter: F, checks: Record<keyof F, ValueCheck>, path: string): Checked<F> {
  const checked: Record<string, unknown> = {};
  for (const [key, check] of Object.entries(checks) as [string, ValueCheck][]) {
    const value = (filter as Record<string, unknown>)[key];
    if (value !== null && value !== undefined) checked[key] = checkValue(check, value, `${path}.${key}`);
  }
  return checked as Checked<F>;
}

/** The three group keys that share the upstream's one isEquals flag. */
export const GROUP_KEYS = ['deviceGroup', 'serviceGroup', 'deviceLocation'] as const;

/** Checks every value of a resource filter; null: no filter. */
export function checkResourceFilter(filter: ResourceFilter | null | undefined, path = 'filter'): CheckedResourceFilter | null {
  if (!filter) return null;
  // The upstream has one isEquals for all three group keys, so their `exact` must agree.
  const groups = GROUP_KEYS.filter((k) => filter[k] != null);
  if (new Set(groups.map((k) => Boolean(filter[k]?.exact))).size > 1) {
    throw badUserInput('deviceGroup, serviceGroup and deviceLocation must use the same `exact`: the upstream has one isEquals flag', path);
  }
  return checkFields(filter, RESOURCE_FILTER_CHECKS, path);
}

/** Checks every value of a decommissioned-resource filter; null: no filter. */
export function checkDecommissionedFilter(filter: DecommissionedResourceFilter | null | undefined, path = 'filter'): CheckedDecommissionedFilter | null {
  return filter ? checkFields(filter, DECOMMISSIONED_FILTER_CHECKS, path) : null;
}

/**
 * resourceList's own limits on its filter and arguments: the state is its argument, not the
 * filter's, and the listing has no aliasIp key. Then the filter is checked as the search's.
 */
export function checkMinimalListInput(args: { filter?: ResourceFilter | null; locationId?: number | null; deviceGroupId?: number | null; deviceTypeId?: number | null }): CheckedResourceFilter | null {
  if (args.filter?.state != null) throw badUserInput('resourceList takes the state argument, not filter.state', 'filter.state');
  if (args.filter?.aliasIp != null) throw badUserInput('The minimal listing does not support the aliasIp filter', 'filter.aliasIp');
  for (const name of ['locationId', 'deviceGroupId', 'deviceTypeId'] as const) {
    const value = args[name];
    if (value != null && value < 0) throw badUserInput(`${name} must be zero or more`, name);
  }
  return checkResourceFilter(args.filter);
}
