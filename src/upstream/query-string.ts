/**
 * The one encoder of the upstream `queryString` (key:value pairs joined by '+'). It takes only
 * filters src/domain/input.ts has checked (a value the syntax cannot carry never gets here, so no
 * filter can smuggle a second key upstream) and checks nothing itself.
 */
import {
  GROUP_KEYS, type CheckedDecommissionedFilter, type CheckedResourceFilter, type DateRange, type DecommissionedResourceFilter, type GroupMatch, type ResourceFilter,
} from '../domain/input.js';

type Pairs = [string, string][];
/** A field's upstream key; a date range's two keys (from, to). */
type Keys = string | readonly [from: string, to: string];

/** Each field's upstream key, in the order the queryString carries them (isEquals: the groups' one flag). */
const RESOURCE_KEYS = [
  ['hostName', 'hostName'], ['resourceName', 'resourceName'], ['dnsName', 'dnsName'], ['aliasName', 'aliasName'], ['id', 'id'],
  ['serialNumber', 'serialNumber'], ['ipAddress', 'ipAddress'], ['systemUID', 'systemUID'], ['state', 'state'], ['type', 'type'],
  ['resourceTypes', 'resourceType'], ['deviceTypes', 'deviceType'], ['appRoles', 'appRoles'],
  ['createdBetween', ['startCreationDate', 'endCreationDate']], ['updatedBetween', ['startUpdationDate', 'endUpdationDate']],
  ['tags', 'tags'], ['template', 'template'], ['agentProfile', 'agentProfile'], ['gatewayProfile', 'gatewayProfile'], ['instanceId', 'instanceId'],
  ['accountNumber', 'accountNumber'], ['installedIntegrationId', 'installedIntgId'], ['agentInstalled', 'agentInstalled'],
  ['deviceGroup', 'deviceGroup'], ['serviceGroup', 'serviceGroup'], ['deviceLocation', 'deviceLocation'], ['isEquals', 'isEquals'],
  ['firstAssetManagedTime', 'firstAssetManagedTime'], ['assetManagedTime', 'assetManagedTime'], ['aliasIp', 'aliasIp'],
] as const satisfies readonly (readonly [keyof ResourceFilter | 'isEquals', Keys])[];
const DECOMMISSIONED_KEYS = [
  ['id', 'id'], ['hostName', 'hostName'], ['ipAddress', 'ipAddress'], ['instanceId', 'instanceId'], ['tags', 'tags'],
  ['decommissionedBetween', ['startDate', 'endDate']], ['type', 'type'], ['accountNumber', 'accountNumber'], ['provider', 'provider'],
  ['owner', 'owner'], ['instanceType', 'instanceType'], ['instanceState', 'instanceState'], ['zone', 'zone'], ['region', 'region'], ['ami', 'ami'],
  ['hostedServiceName', 'hostedServiceName'], ['launchedBetween', ['startLaunchDate', 'endLaunchDate']],
] as const satisfies readonly (readonly [keyof DecommissionedResourceFilter, Keys])[];

/** Compile-time: every filter field has an upstream key (a field added without one does not build). */
type Unkeyed<Filter, Table extends readonly (readonly [unknown, unknown])[]> = Exclude<keyof Filter, Table[number][0]>;
const everyFieldKeyed: [Unkeyed<ResourceFilter, typeof RESOURCE_KEYS>, Unkeyed<DecommissionedResourceFilter, typeof DECOMMISSIONED_KEYS>] extends [never, never] ? true : never = true;
void everyFieldKeyed;

/** yyyy-MM-ddTHH:mm:ssZ (GMT): the form the history endpoint documents, used for every date key. */
export function formatQueryDate(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A value as the queryString writes it: lists joined by ',', dates in GMT, a group by its name. */
function written(value: unknown): string {
  if (Array.isArray(value)) return value.join(',');
  if (value instanceof Date) return formatQueryDate(value);
  if (typeof value === 'object' && value !== null) return (value as GroupMatch).name;
  return String(value);
}

/** The pairs of what the filter gives, by the key table. */
function pairsOf(values: Record<string, unknown>, table: readonly (readonly [string, Keys])[]): Pairs {
  const pairs: Pairs = [];
  for (const [field, keys] of table) {
    const value = values[field];
    if (value === null || value === undefined) continue;
    if (typeof keys === 'string') pairs.push([keys, written(value)]);
    else for (const [i, end] of (['from', 'to'] as const).entries()) {
      const date = (value as DateRange)[end];
      if (date) pairs.push([keys[i]!, formatQueryDate(date)]);
    }
  }
  return pairs;
}

export function joinPairs(pairs: Pairs): string | undefined {
  return pairs.length === 0 ? undefined : pairs.map(([k, v]) => `${k}:${v}`).join('+');
}

/**
 * A checked ResourceFilter as the queryString of the search and minimal endpoints; `withoutState`
 * leaves its state out (a minimal listing takes the state as an argument of its own).
 */
export function resourceQueryString(filter: CheckedResourceFilter | null, options: { withoutState?: boolean } = {}): string | undefined {
  if (!filter) return undefined;
  // One isEquals for the three group keys (the check made their `exact` agree).
  const group = GROUP_KEYS.map((key) => filter[key]).find((match) => match != null);
  return joinPairs(pairsOf({ ...filter, state: options.withoutState ? null : filter.state, isEquals: group ? Boolean(group.exact) : null }, RESOURCE_KEYS));
}

/** The history list's queryString: always state:DECOMMISSIONED, then the checked filter. */
export function decommissionedQueryString(filter: CheckedDecommissionedFilter | null): string {
  return joinPairs([['state', 'DECOMMISSIONED'], ...pairsOf({ ...filter }, DECOMMISSIONED_KEYS)]) as string;
}
