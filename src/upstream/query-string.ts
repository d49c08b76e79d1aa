/**
 * The one builder of the upstream `queryString` (key:value pairs joined by '+'). Every value is
 * checked here: a value the syntax cannot carry ('+', a ':' outside the fields that need one,
 * ',' inside a list item, control characters, oversized text) is BAD_USER_INPUT, so no filter can
 * smuggle a second key upstream.
 */
import { checkDate, checkFilterText, checkId, checkIp } from '../domain/input.js';
import { badUserInput } from '../core/errors.js';

export const MAX_LIST_ITEMS = 50;

export interface DateRange { from?: Date | null; to?: Date | null }
export interface GroupMatch { name: string; exact?: boolean | null }

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

type Pairs = [string, string][];

/** yyyy-MM-ddTHH:mm:ssZ (GMT): the form the history endpoint documents, used for every date key. */
export function formatQueryDate(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function addRange(pairs: Pairs, range: DateRange | null | undefined, fromKey: string, toKey: string, field: string): void {
  if (!range) return;
  const from = range.from ? checkDate(range.from, `${field}.from`) : null;
  const to = range.to ? checkDate(range.to, `${field}.to`) : null;
  if (from && to && from.getTime() > to.getTime()) throw badUserInput(`${field}.from must not be after ${field}.to`, field);
  if (from) pairs.push([fromKey, formatQueryDate(from)]);
  if (to) pairs.push([toKey, formatQueryDate(to)]);
}

function addList(pairs: Pairs, key: string, values: string[] | null | undefined, field: string): void {
  if (!values) return;
  if (values.length === 0) throw badUserInput(`${field} must not be an empty list`, field);
  if (values.length > MAX_LIST_ITEMS) throw badUserInput(`${field} takes at most ${MAX_LIST_ITEMS} items`, field);
  pairs.push([key, values.map((v, i) => checkFilterText(v, `${field}[${i}]`)).join(',')]);
}

function addText(pairs: Pairs, key: string, value: string | null | undefined, field: string): void {
  if (value === null || value === undefined) return;
  pairs.push([key, checkFilterText(value, field, { allowComma: true })]);
}

export function joinPairs(pairs: Pairs): string | undefined {
  return pairs.length === 0 ? undefined : pairs.map(([k, v]) => `${k}:${v}`).join('+');
}

/** ResourceFilter -> queryString of the search and minimal endpoints. `state` may be extended by the caller. */
export function resourceFilterPairs(filter: ResourceFilter | null | undefined, path = 'filter'): Pairs {
  const pairs: Pairs = [];
  if (!filter) return pairs;
  const f = (name: string) => `${path}.${name}`;
  addText(pairs, 'hostName', filter.hostName, f('hostName'));
  addText(pairs, 'resourceName', filter.resourceName, f('resourceName'));
  addText(pairs, 'dnsName', filter.dnsName, f('dnsName'));
  addText(pairs, 'aliasName', filter.aliasName, f('aliasName'));
  if (filter.id != null) pairs.push(['id', checkId(filter.id, f('id'))]);
  addText(pairs, 'serialNumber', filter.serialNumber, f('serialNumber'));
  if (filter.ipAddress != null) pairs.push(['ipAddress', checkIp(filter.ipAddress, f('ipAddress'))]);
  addText(pairs, 'systemUID', filter.systemUID, f('systemUID'));
  if (filter.state != null) {
    if (filter.state === 'decommissioned') throw badUserInput('Decommissioned resources are listed by decommissionedResources, not by this filter', f('state'));
    pairs.push(['state', filter.state]);
  }
  addText(pairs, 'type', filter.type, f('type'));
  addList(pairs, 'resourceType', filter.resourceTypes, f('resourceTypes'));
  addList(pairs, 'deviceType', filter.deviceTypes, f('deviceTypes'));
  if (filter.appRoles) addList(pairs, 'appRoles', filter.appRoles, f('appRoles'));
  addRange(pairs, filter.createdBetween, 'startCreationDate', 'endCreationDate', f('createdBetween'));
  addRange(pairs, filter.updatedBetween, 'startUpdationDate', 'endUpdationDate', f('updatedBetween'));
  addList(pairs, 'tags', filter.tags, f('tags'));
  addText(pairs, 'template', filter.template, f('template'));
  addText(pairs, 'agentProfile', filter.agentProfile, f('agentProfile'));
  addText(pairs, 'gatewayProfile', filter.gatewayProfile, f('gatewayProfile'));
  addText(pairs, 'instanceId', filter.instanceId, f('instanceId'));
  addText(pairs, 'accountNumber', filter.accountNumber, f('accountNumber'));
  addText(pairs, 'installedIntgId', filter.installedIntegrationId, f('installedIntegrationId'));
  if (filter.agentInstalled != null) pairs.push(['agentInstalled', String(filter.agentInstalled)]);
  // The upstream has one isEquals for all three group keys, so their `exact` must agree.
  const groups = (['deviceGroup', 'serviceGroup', 'deviceLocation'] as const).filter((k) => filter[k] != null);
  const exactness = new Set(groups.map((k) => Boolean(filter[k]?.exact)));
  if (exactness.size > 1) throw badUserInput('deviceGroup, serviceGroup and deviceLocation must use the same `exact`: the upstream has one isEquals flag', path);
  for (const key of groups) pairs.push([key, checkFilterText((filter[key] as GroupMatch).name, f(`${key}.name`), { allowComma: true })]);
  if (groups.length > 0) pairs.push(['isEquals', String([...exactness][0])]);
  if (filter.firstAssetManagedTime) pairs.push(['firstAssetManagedTime', formatQueryDate(checkDate(filter.firstAssetManagedTime, f('firstAssetManagedTime')))]);
  if (filter.assetManagedTime) pairs.push(['assetManagedTime', formatQueryDate(checkDate(filter.assetManagedTime, f('assetManagedTime')))]);
  if (filter.aliasIp != null) pairs.push(['aliasIp', checkIp(filter.aliasIp, f('aliasIp'))]);
  return pairs;
}

export function resourceQueryString(filter: ResourceFilter | null | undefined): string | undefined {
  return joinPairs(resourceFilterPairs(filter));
}

/** The history list always carries state:DECOMMISSIONED. */
export function decommissionedQueryString(filter: DecommissionedResourceFilter | null | undefined, path = 'filter'): string {
  const pairs: Pairs = [['state', 'DECOMMISSIONED']];
  const f = (name: string) => `${path}.${name}`;
  if (filter) {
    if (filter.id != null) pairs.push(['id', checkId(filter.id, f('id'))]);
    addText(pairs, 'hostName', filter.hostName, f('hostName'));
    if (filter.ipAddress != null) pairs.push(['ipAddress', checkIp(filter.ipAddress, f('ipAddress'))]);
    addText(pairs, 'instanceId', filter.instanceId, f('instanceId'));
    addList(pairs, 'tags', filter.tags, f('tags'));
    addRange(pairs, filter.decommissionedBetween, 'startDate', 'endDate', f('decommissionedBetween'));
    addText(pairs, 'type', filter.type, f('type'));
    addText(pairs, 'accountNumber', filter.accountNumber, f('accountNumber'));
    addText(pairs, 'provider', filter.provider, f('provider'));
    addText(pairs, 'owner', filter.owner, f('owner'));
    addText(pairs, 'instanceType', filter.instanceType, f('instanceType'));
    if (filter.instanceState != null) pairs.push(['instanceState', filter.instanceState]);
    addText(pairs, 'zone', filter.zone, f('zone'));
    addText(pairs, 'region', filter.region, f('region'));
    addText(pairs, 'ami', filter.ami, f('ami'));
    addText(pairs, 'hostedServiceName', filter.hostedServiceName, f('hostedServiceName'));
    addRange(pairs, filter.launchedBetween, 'startLaunchDate', 'endLaunchDate', f('launchedBetween'));
  }
  return joinPairs(pairs) as string;
}
