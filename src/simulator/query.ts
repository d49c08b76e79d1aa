/** queryString parsing and matching, per endpoint, as the interface document lists the keys. */
import type { SimDecommissioned, SimResource } from './data-model.js';

export class SimError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

const SEARCH_KEYS = [
  'hostName', 'resourceName', 'dnsName', 'aliasName', 'id', 'serialNumber', 'ipAddress', 'systemUID', 'state',
  'type', 'resourceType', 'deviceType', 'appRoles', 'startCreationDate', 'endCreationDate', 'startUpdationDate',
  'endUpdationDate', 'tags', 'template', 'agentProfile', 'gatewayProfile', 'instanceId', 'accountNumber',
  'installedIntgId', 'agentInstalled', 'deviceGroup', 'serviceGroup', 'deviceLocation', 'isEquals',
  'firstAssetManagedTime', 'assetManagedTime', 'aliasIp',
] as const;
export const SEARCH_QUERY_KEYS = new Set<string>(SEARCH_KEYS);
/** The minimal listing documents the same keys except aliasIp. */
export const MINIMAL_QUERY_KEYS = new Set<string>(SEARCH_KEYS.filter((k) => k !== 'aliasIp'));
export const HISTORY_QUERY_KEYS = new Set<string>([
  'id', 'state', 'hostName', 'ipAddress', 'instanceId', 'tags', 'startDate', 'endDate', 'type', 'accountNumber',
  'provider', 'owner', 'instanceType', 'instanceState', 'zone', 'region', 'ami', 'hostedServiceName',
  'startLaunchDate', 'endLaunchDate',
]);
export const ANTIVIRUS_QUERY_KEYS = new Set<string>(['status']);

/** `key:value+key:value`; the value runs to the next '+', so it may itself hold ':' (times, IPv6). */
export function parseQueryString(raw: string | null, allowed: Set<string>): Map<string, string> {
  const out = new Map<string, string>();
  if (raw === null || raw === '') return out;
  for (const part of raw.split('+')) {
    const colon = part.indexOf(':');
    if (colon <= 0) throw new SimError(400, `Malformed queryString segment '${part}': expected key:value`);
    const key = part.slice(0, colon);
    const value = part.slice(colon + 1);
    if (!allowed.has(key)) throw new SimError(400, `Unknown queryString key '${key}'`);
    if (out.has(key)) throw new SimError(400, `Duplicate queryString key '${key}'`);
    out.set(key, value);
  }
  return out;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/;

/** Dates in a queryString: yyyy-MM-ddTHH:mm:ssZ (GMT), or with a +hhmm offset. Returns epoch seconds. */
export function parseQueryDate(key: string, value: string): number {
  const m = DATE_RE.exec(value);
  if (!m) throw new SimError(400, `Invalid date for '${key}': expected yyyy-MM-ddTHH:mm:ssZ`);
  const [, y, mo, d, h, mi, s, zone] = m;
  let offsetMinutes = 0;
  if (zone && zone !== 'Z') {
    const digits = zone.replace(':', '');
    offsetMinutes = (digits[0] === '-' ? -1 : 1) * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5)));
  }
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(ms)) throw new SimError(400, `Invalid date for '${key}'`);
  return ms / 1000 - offsetMinutes * 60;
}

function parseBool(key: string, value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new SimError(400, `'${key}' must be true or false`);
}

const lower = (s: string) => s.toLowerCase();
const contains = (haystack: string, needle: string) => lower(haystack).includes(lower(needle));
const list = (value: string) => value.split(',').map((v) => v.trim().toLowerCase()).filter(Boolean);

type Predicate<T> = (item: T) => boolean;

/** States a search or minimal filter accepts; `all` only in the minimal listing. */
function statePredicate(value: string, allowAll: boolean): Predicate<SimResource> {
  const v = lower(value);
  if (allowAll && v === 'all') return () => true;
  if (!['active', 'inactive', 'discovered'].includes(v)) throw new SimError(400, `Invalid state '${value}'`);
  return (r) => r.state === v;
}

export function resourcePredicate(query: Map<string, string>, options: { allowStateAll: boolean }): Predicate<SimResource> {
  const predicates: Predicate<SimResource>[] = [];
  const exact = query.get('isEquals') === undefined ? false : parseBool('isEquals', query.get('isEquals') as string);
  const group = (value: string, pick: (r: SimResource) => string): Predicate<SimResource> =>
    exact ? (r) => lower(pick(r)) === lower(value) : (r) => contains(pick(r), value);
  const dateFrom = (key: string, pick: (r: SimResource) => number) => {
    const v = query.get(key);
    if (v !== undefined) { const t = parseQueryDate(key, v); predicates.push((r) => pick(r) >= t); }
  };
  const dateTo = (key: string, pick: (r: SimResource) => number) => {
    const v = query.get(key);
    if (v !== undefined) { const t = parseQueryDate(key, v); predicates.push((r) => pick(r) <= t); }
  };
  for (const [key, value] of query) {
    switch (key) {
      case 'hostName': predicates.push((r) => contains(r.hostName, value)); break;
      case 'resourceName': predicates.push((r) => contains(r.resourceName, value)); break;
      case 'dnsName': predicates.push((r) => contains(r.dns, value)); break;
      case 'aliasName': predicates.push((r) => contains(r.aliasName, value)); break;
      case 'id': predicates.push((r) => r.id === value); break;
      case 'serialNumber': predicates.push((r) => r.serialNumber === value); break;
      case 'ipAddress': predicates.push((r) => r.ipAddress === value || r.network.some((n) => n.ip === value)); break;
      case 'systemUID': predicates.push((r) => r.systemUID === value); break;
      case 'state': predicates.push(statePredicate(value, options.allowStateAll)); break;
      case 'type': predicates.push((r) => lower(r.type) === lower(value)); break;
      case 'resourceType': { const set = list(value); predicates.push((r) => set.includes(lower(r.resourceType))); break; }
      case 'deviceType': { const set = list(value); predicates.push((r) => set.includes(lower(r.deviceType))); break; }
      case 'appRoles': { const set = list(value); predicates.push((r) => r.appRoles.some((a) => set.includes(lower(a)))); break; }
      case 'tags': { const set = list(value); predicates.push((r) => r.tags.some((t) => set.includes(lower(t.name)))); break; }
      case 'template': predicates.push((r) => r.template === value); break;
      case 'agentProfile': predicates.push((r) => r.agentProfile === value); break;
      case 'gatewayProfile': predicates.push((r) => r.gatewayProfileId === value); break;
      case 'instanceId': predicates.push((r) => r.instanceId === value); break;
      case 'accountNumber': predicates.push((r) => r.accountNumber === value); break;
      case 'installedIntgId': predicates.push((r) => r.installedIntgId === value); break;
      case 'agentInstalled': { const b = parseBool(key, value); predicates.push((r) => r.agentInstalled === b); break; }
      case 'deviceGroup': predicates.push(group(value, (r) => r.deviceGroup)); break;
      case 'serviceGroup': predicates.push(group(value, (r) => r.serviceGroup)); break;
      case 'deviceLocation': predicates.push(group(value, (r) => r.location.name)); break;
      case 'aliasIp': predicates.push((r) => r.network.some((n) => n.aliasIp.split(',').includes(value))); break;
      // The document does not say how a single time filters; the simulator treats it as "at or after".
      case 'firstAssetManagedTime': { const t = parseQueryDate(key, value); predicates.push((r) => r.firstAssetManagedAt >= t); break; }
      case 'assetManagedTime': { const t = parseQueryDate(key, value); predicates.push((r) => r.assetManagedAt >= t); break; }
      default: break; // isEquals and the date ranges are handled around the loop
    }
  }
  dateFrom('startCreationDate', (r) => r.createdAt);
  dateTo('endCreationDate', (r) => r.createdAt);
  dateFrom('startUpdationDate', (r) => r.updatedAt);
  dateTo('endUpdationDate', (r) => r.updatedAt);
  return (r) => predicates.every((p) => p(r));
}

export function decommissionedPredicate(query: Map<string, string>): Predicate<SimDecommissioned> {
  const predicates: Predicate<SimDecommissioned>[] = [];
  const attr = (d: SimDecommissioned, key: string) => d.attributes?.[key] ?? '';
  const range = (startKey: string, endKey: string, pick: (d: SimDecommissioned) => number | undefined) => {
    const from = query.get(startKey);
    const to = query.get(endKey);
    if (from !== undefined) { const t = parseQueryDate(startKey, from); predicates.push((d) => (pick(d) ?? -Infinity) >= t); }
    if (to !== undefined) { const t = parseQueryDate(endKey, to); predicates.push((d) => (pick(d) ?? Infinity) <= t); }
  };
  for (const [key, value] of query) {
    switch (key) {
      case 'state':
      case 'instanceState':
        if (value.toUpperCase() !== 'DECOMMISSIONED') throw new SimError(400, `Unsupported ${key} '${value}': only DECOMMISSIONED`);
        if (key === 'instanceState') predicates.push((d) => attr(d, 'instanceState') === 'DECOMMISSIONED');
        break;
      case 'id': predicates.push((d) => d.id === value); break;
      case 'hostName': predicates.push((d) => contains(d.hostName, value)); break;
      case 'ipAddress': predicates.push((d) => d.ipAddress === value); break;
      case 'instanceId': predicates.push((d) => attr(d, 'instanceId') === value); break;
      case 'tags': { const set = list(value); predicates.push((d) => d.tags.some((t) => set.includes(lower(t.name)))); break; }
      case 'type': predicates.push((d) => lower(d.type) === lower(value)); break;
      case 'accountNumber':
      case 'owner': predicates.push((d) => attr(d, 'owner') === value); break;
      case 'provider': predicates.push((d) => lower(attr(d, 'provider')) === lower(value)); break;
      case 'instanceType': predicates.push((d) => attr(d, 'instanceType') === value); break;
      case 'zone': predicates.push((d) => attr(d, 'zone') === value); break;
      case 'region': predicates.push((d) => d.region === value); break;
      case 'ami': predicates.push((d) => attr(d, 'ami') === value); break;
      case 'hostedServiceName': predicates.push((d) => d.hostedServiceName === value); break;
      default: break;
    }
  }
  range('startDate', 'endDate', (d) => d.decommissionedAt);
  range('startLaunchDate', 'endLaunchDate', (d) => (d.attributes?.launchDate ? Number(d.attributes.launchDate) : undefined));
  return (d) => predicates.every((p) => p(d));
}
