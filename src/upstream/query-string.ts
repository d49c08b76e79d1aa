/**
 * The one encoder of the upstream `queryString` (key:value pairs joined by '+'). It takes only
 * filters src/domain/input.ts has checked (a value the syntax cannot carry never gets here, so no
 * filter can smuggle a second key upstream) and checks nothing itself.
 */
import { GROUP_KEYS, type CheckedDecommissionedFilter, type CheckedResourceFilter, type DateRange } from '../domain/input.js';

type Pairs = [string, string][];

/** yyyy-MM-ddTHH:mm:ssZ (GMT): the form the history endpoint documents, used for every date key. */
export function formatQueryDate(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Appends what is given: text as it is, lists joined by ',', dates formatted. */
function add(pairs: Pairs, key: string, value: string | string[] | boolean | Date | null | undefined): void {
  if (value === null || value === undefined) return;
  pairs.push([key, Array.isArray(value) ? value.join(',') : value instanceof Date ? formatQueryDate(value) : String(value)]);
}

function addRange(pairs: Pairs, range: DateRange | null | undefined, fromKey: string, toKey: string): void {
  add(pairs, fromKey, range?.from);
  add(pairs, toKey, range?.to);
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
  const pairs: Pairs = [];
  add(pairs, 'hostName', filter.hostName);
  add(pairs, 'resourceName', filter.resourceName);
  add(pairs, 'dnsName', filter.dnsName);
  add(pairs, 'aliasName', filter.aliasName);
  add(pairs, 'id', filter.id);
  add(pairs, 'serialNumber', filter.serialNumber);
  add(pairs, 'ipAddress', filter.ipAddress);
  add(pairs, 'systemUID', filter.systemUID);
  if (!options.withoutState) add(pairs, 'state', filter.state);
  add(pairs, 'type', filter.type);
  add(pairs, 'resourceType', filter.resourceTypes);
  add(pairs, 'deviceType', filter.deviceTypes);
  add(pairs, 'appRoles', filter.appRoles);
  addRange(pairs, filter.createdBetween, 'startCreationDate', 'endCreationDate');
  addRange(pairs, filter.updatedBetween, 'startUpdationDate', 'endUpdationDate');
  add(pairs, 'tags', filter.tags);
  add(pairs, 'template', filter.template);
  add(pairs, 'agentProfile', filter.agentProfile);
  add(pairs, 'gatewayProfile', filter.gatewayProfile);
  add(pairs, 'instanceId', filter.instanceId);
  add(pairs, 'accountNumber', filter.accountNumber);
  add(pairs, 'installedIntgId', filter.installedIntegrationId);
  add(pairs, 'agentInstalled', filter.agentInstalled);
  const groups = GROUP_KEYS.filter((key) => filter[key] != null);
  for (const key of groups) add(pairs, key, filter[key]?.name);
  // One isEquals for the three group keys (the check made their `exact` agree).
  if (groups.length > 0) add(pairs, 'isEquals', Boolean(filter[groups[0]!]?.exact));
  add(pairs, 'firstAssetManagedTime', filter.firstAssetManagedTime);
  add(pairs, 'assetManagedTime', filter.assetManagedTime);
  add(pairs, 'aliasIp', filter.aliasIp);
  return joinPairs(pairs);
}

/** The history list's queryString: always state:DECOMMISSIONED, then the checked filter. */
export function decommissionedQueryString(filter: CheckedDecommissionedFilter | null): string {
  const pairs: Pairs = [['state', 'DECOMMISSIONED']];
  if (filter) {
    add(pairs, 'id', filter.id);
    add(pairs, 'hostName', filter.hostName);
    add(pairs, 'ipAddress', filter.ipAddress);
    add(pairs, 'instanceId', filter.instanceId);
    add(pairs, 'tags', filter.tags);
    addRange(pairs, filter.decommissionedBetween, 'startDate', 'endDate');
    add(pairs, 'type', filter.type);
    add(pairs, 'accountNumber', filter.accountNumber);
    add(pairs, 'provider', filter.provider);
    add(pairs, 'owner', filter.owner);
    add(pairs, 'instanceType', filter.instanceType);
    add(pairs, 'instanceState', filter.instanceState);
    add(pairs, 'zone', filter.zone);
    add(pairs, 'region', filter.region);
    add(pairs, 'ami', filter.ami);
    add(pairs, 'hostedServiceName', filter.hostedServiceName);
    addRange(pairs, filter.launchedBetween, 'startLaunchDate', 'endLaunchDate');
  }
  return joinPairs(pairs) as string;
}
