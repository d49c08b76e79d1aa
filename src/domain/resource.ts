/**
 * Resources in domain form, read by presence. The upstream shows a resource in six documented
 * forms (search hit, minimal record, antivirus reference, three detail forms), and real records
 * carry keys their form does not document. A ResourceView keeps the record at hand; every field
 * is read from it wherever the key stands (RESOURCE_FIELDS lists the keys). A present key with
 * '' or null is known to be empty; only an absent key is worth a call, and the same table says
 * which call (and tells the cost estimate what a form documents).
 */
import {
  bool, int32, isRecord, list, mapRecords, record, safeInt, splitList, str, stringList, time, type WireRecord,
} from './coerce.js';

export type ResourceKind = 'general' | 'device' | 'synthetic';
export type ResourceState = 'active' | 'inactive' | 'discovered' | 'decommissioned';

export interface Location { number: number; name: string | null; city: string | null; clientId: number | null; mspId: number | null }
export interface Tag { name: string; value: string | null; source: string | null }
export interface ClientRef { number: number | null; uniqueId: string | null; name: string | null }
export interface NetworkAddress { ip: string | null; mac: string | null; aliasIps: string[] }
export interface NetworkCard {
  index: number | null; name: string | null; status: string | null; ipAddress: string | null; macAddress: string | null;
  dhcpEnabled: boolean | null; linkMode: string | null; aliasIps: string[];
}
export interface InstalledIntegration {
  installId: string; displayName: string | null; integrationId: string | null; integrationName: string | null;
  installedBy: string | null; installedAt: Date | null;
}
export interface CloudProperties {
  provider: string | null; instanceId: string | null; instanceState: string | null; instanceType: string | null;
  publicIp: string | null; ami: string | null; launchedAt: Date | null; owner: string | null; privateDns: string | null;
  privateIp: string | null; zone: string | null; monitoringState: string | null;
  /** Every property as sent, provider-specific ones included. */
  all: WireRecord;
}
export interface MetricType { name: string; displayName: string | null; unit: string | null; availabilityMetric: boolean | null; thresholdType: string | null }
export interface SyntheticCredential {
  number: number | null; secure: boolean | null; port: number | null; snmpVersion: string | null; autoEnableMode: boolean | null;
  universal: boolean | null; spSecure: boolean | null; spPort: number | null; securityLevel: string | null; timeoutMs: number | null;
  oauthClientKey: string | null; oauthClientSecret: string | null; oauthAccessTokenUrl: string | null; oauthGrantType: string | null;
}
export interface DeviceGroup { number: number | null; name: string }
export interface ManagementProfile { number: number | null; name: string | null; type: string | null }

export function resourceState(value: unknown): ResourceState | null {
  const text = str(value)?.toLowerCase();
  return text === 'active' || text === 'inactive' || text === 'discovered' || text === 'decommissioned' ? text : null;
}

export function location(value: unknown): Location | null {
  const r = record(value);
  const number = r ? int32(r.id) : null;
  if (!r || number === null) return null;
  return { number, name: str(r.name), city: str(r.city), clientId: int32(r.clientId), mspId: int32(r.mspId) };
}

export function tags(value: unknown): Tag[] {
  return mapRecords(value, (t) => {
    const name = str(t.name);
    return name === null ? null : { name, value: str(t.value), source: str(t.tagSource) };
  });
}

export function cloudProperties(value: unknown): CloudProperties | null {
  const r = record(value);
  if (!r || Object.keys(r).length === 0) return null;
  return {
    provider: str(r.provider), instanceId: str(r.instanceId), instanceState: str(r.instanceState), instanceType: str(r.instanceType),
    publicIp: str(r.publicIp), ami: str(r.ami), launchedAt: time(r.launchDate), owner: str(r.owner), privateDns: str(r.privateDns),
    privateIp: str(r.privateIp), zone: str(r.zone), monitoringState: str(r.monitoringState), all: r,
  };
}

export function managementProfile(value: unknown): ManagementProfile | null {
  if (typeof value === 'string') return str(value) === null ? null : { number: null, name: value, type: null };
  const r = record(value);
  return r ? { number: int32(r.id), name: str(r.name), type: str(r.type) } : null;
}

function deviceGroups(value: unknown): DeviceGroup[] {
  return list(value).flatMap((g): DeviceGroup[] => {
    if (typeof g === 'string') return str(g) === null ? [] : [{ number: null, name: g }];
    const r = record(g);
    const name = r ? str(r.name) : null;
    return r && name !== null ? [{ number: int32(r.id), name }] : [];
  });
}

function installedIntegration(value: unknown): InstalledIntegration | null {
  const app = record(value);
  const installId = app ? str(app.id) : null;
  if (!app || installId === null) return null;
  const integration = record(app.integration);
  const by = app.installedBy ?? app.installedUser;
  return {
    installId, displayName: str(app.displayName), integrationId: str(integration?.id), integrationName: str(integration?.name),
    installedBy: str(record(by)?.loginName ?? record(by)?.name ?? by), installedAt: time(app.installedTime ?? app.installedDate ?? app.createdDate),
  };
}

function credential(value: unknown): SyntheticCredential | null {
  const c = record(value);
  if (!c) return null;
  return {
    number: int32(c.id), secure: bool(c.secure), port: int32(c.port), snmpVersion: str(c.snmpVersion),
    autoEnableMode: bool(c.autoEnableMode), universal: bool(c.universal), spSecure: bool(c.spSecure),
    spPort: int32(c.spPort), securityLevel: str(c.securityLevel), timeoutMs: int32(c.timeoutMs),
    oauthClientKey: str(c.oauthClientKey), oauthClientSecret: str(c.oauthClientSecret),
    oauthAccessTokenUrl: str(c.oauthAccessTokenUrl), oauthGrantType: str(c.oauthGrantType),
  };
}

/** A documented form of a resource record. */
export type RecordForm = 'search' | 'minimal' | 'antivirus' | ResourceKind;
/** Where a view's record came from: a detail read is one of the three detail forms. */
export type ResourceOrigin = 'search' | 'minimal' | 'antivirus' | 'detail';
/** The reads that can supply a field a record lacks. */
export type FieldLoad = 'detail' | 'search';

interface FieldSource<T> {
  /** Where the key may stand, in order; a dot reads a nested record (generalInfo.hostName). */
  keys: readonly string[];
  read: (value: unknown) => T;
  /** The forms the interface document lists it in. */
  documented: readonly RecordForm[];
  /** Reads that supply it when the record lacks it, in order (default: from `documented`). */
  loads?: readonly FieldLoad[];
  /** A nested object (or list of them): where each of its fields stands in the nested record. */
  sub?: Readonly<Record<string, SubFieldSource>>;
  /** The sub-fields without which the nested object does not exist (its id, a tag's name). */
  identity?: readonly string[];
}

/**
 * A field of a nested object, by its schema name: the keys of the nested record that carry it
 * (a dot reads one level deeper), and the forms that document it (default: the owner field's).
 * No keys means the whole nested record, an opaque JSON leaf: only a form that documents the
 * owner field carries it, so every path answers it from that one source.
 */
interface SubFieldSource {
  keys: readonly string[];
  documented?: readonly RecordForm[];
  /** The reads that can supply it (default: the owner field's loads); a read that cannot is not made for it. */
  loads?: readonly FieldLoad[];
}
const keysOf = (names: Record<string, string | string[]>): Record<string, SubFieldSource> =>
  Object.fromEntries(Object.entries(names).map(([name, keys]) => [name, { keys: typeof keys === 'string' ? [keys] : keys }]));
const same = (...names: string[]): Record<string, string> => Object.fromEntries(names.map((n) => [n, n]));

const text = (keys: string[], documented: RecordForm[], loads?: FieldLoad[]): FieldSource<string | null> => ({ keys, read: str, documented, loads });
const date = (keys: string[], documented: RecordForm[]): FieldSource<Date | null> => ({ keys, read: time, documented });

const SEARCH_AND_GENERAL: RecordForm[] = ['search', 'general'];

/**
 * The one table of where each resource field comes from. The run-time reads and the
 * pre-execution cost estimate both use it; a schema field of a resource without an entry here
 * fails a test. `loads` names the reads that supply a field real records carry outside their
 * documented form (search hits with tags and location; cloud items' short detail with names).
 */
export const RESOURCE_FIELDS = {
  name: text(['name', 'generalInfo.name'], ['search', 'minimal', 'general', 'synthetic']),
  hostName: text(['hostName', 'generalInfo.hostName'], ['search', 'minimal', 'antivirus', 'general']),
  ipAddress: text(['ipAddress'], ['search', 'minimal', 'antivirus', 'general']),
  dns: text(['dns', 'dnsName', 'generalInfo.dns'], SEARCH_AND_GENERAL),
  aliasName: text(['aliasName', 'generalInfo.aliasName'], ['search', 'minimal', 'general']),
  resourceName: text(['resourceName', 'generalInfo.resourceName'], ['search', 'minimal', 'general', 'device']),
  resourceType: text(['resourceType', 'generalInfo.resourceType'], ['search', 'minimal', 'general', 'synthetic']),
  type: text(['type'], ['search', 'device']),
  state: { keys: ['state'], read: resourceState, documented: ['search', 'general', 'device'] },
  status: text(['status'], ['general', 'device']),
  source: text(['source'], ['search', 'general', 'device']),
  agentInstalled: { keys: ['agentInstalled'], read: bool, documented: SEARCH_AND_GENERAL },
  createdAt: date(['createdDate', 'generalInfo.createdTime', 'createdTime'], ['search', 'general', 'device']),
  // Search hits of the real API carry these too: a lookup of a synthetic check (whose detail lacks
  // them) reads them from its search record, so every way of reaching a resource agrees.
  updatedAt: { ...date(['updatedDate', 'generalInfo.updatedTime', 'updatedTime'], ['general', 'device']), loads: ['detail', 'search'] },
  location: {
    keys: ['location'], read: location, documented: ['general', 'device'], loads: ['detail', 'search'], identity: ['number'],
    // The short detail form documents only id and name, and search hits carry only those two:
    // the rest comes from the general detail alone (a search by id is never made for a city).
    sub: {
      ...keysOf({ number: 'id', name: 'name' }),
      ...Object.fromEntries(['city', 'clientId', 'mspId'].map((n) => [n, { keys: [n], documented: ['general'], loads: ['detail'] } satisfies SubFieldSource])),
    },
  },
  tags: { keys: ['tags'], read: tags, documented: ['general'], loads: ['detail', 'search'], identity: ['name'], sub: keysOf({ name: 'name', value: 'value', source: 'tagSource' }) },
  consoles: { keys: ['consoles'], read: list, documented: ['search', 'general', 'device', 'synthetic'] },
  make: text(['make', 'generalInfo.make'], SEARCH_AND_GENERAL),
  model: text(['model'], ['search']),
  osName: text(['osName', 'generalInfo.osName'], ['search', 'antivirus', 'general']),
  osArchitecture: text(['osArchitecture', 'generalInfo.osArchitecture'], [], ['search']),
  description: text(['description', 'generalInfo.description'], SEARCH_AND_GENERAL),
  classCode: text(['classCode'], ['search']),
  deviceType: text(['deviceType'], ['search']),
  devicePath: text(['devicePath'], ['search']),
  gatewayProfileId: text(['gatewayProfileId'], ['search']),
  client: {
    keys: ['client'], documented: ['search'], sub: keysOf({ number: 'id', uniqueId: 'uniqueId', name: 'name' }),
    read: (v: unknown): ClientRef | null => {
      const c = record(v);
      return c ? { number: int32(c.id), uniqueId: str(c.uniqueId), name: str(c.name) } : null;
    },
  },
  clientId: { keys: ['clientId'], read: int32, documented: ['search', 'synthetic'] },
  clientUniqueId: text(['clientUniqueId', 'client.uniqueId'], ['search', 'general', 'device']),
  networkAddresses: {
    keys: ['attributes.network'], documented: ['search'], sub: keysOf({ ip: 'ip', mac: 'mac', aliasIps: 'aliasIp' }),
    read: (v: unknown): NetworkAddress[] => mapRecords(v, (n) => ({ ip: str(n.ip), mac: str(n.mac), aliasIps: splitList(n.aliasIp, ',') })),
  },
  attributes: { keys: ['attributes'], read: record, documented: ['search'] },
  macAddress: text(['macAddress'], [], ['search']),
  serialNumber: text(['serialNumber', 'bios.systemSerial'], ['general'], ['detail', 'search']),
  systemUID: text(['systemUID', 'systemUid'], [], ['search']),
  deviceGroups: { keys: ['deviceGroups'], read: deviceGroups, documented: [], loads: ['search'], identity: ['name'], sub: keysOf({ number: 'id', name: 'name' }) },
  managementProfile: { keys: ['managementProfile'], read: managementProfile, documented: [], loads: ['search'], sub: keysOf({ number: 'id', name: 'name', type: 'type' }) },
  assetManagedAt: date(['assetManagedTime', 'generalInfo.assetManagedTime'], SEARCH_AND_GENERAL),
  firstAssetManagedAt: date(['firstAssetManagedTime', 'generalInfo.firstAssetManagedTime'], SEARCH_AND_GENERAL),
  deleted: { keys: ['deleted'], read: bool, documented: ['search', 'synthetic'] },
  ts: { keys: ['ts'], read: safeInt, documented: ['search', 'synthetic'] },
  locationOffset: { keys: ['locationOffset'], read: int32, documented: ['search', 'synthetic'] },
  totalLocations: { keys: ['totalLocations'], read: int32, documented: ['search', 'synthetic'] },
  // the general detail form
  extResourceId: text(['extResourceId'], ['general']),
  physicalMemory: text(['generalInfo.physicalMemory', 'physicalMemory'], ['general']),
  keyboardType: text(['generalInfo.keyboardType', 'keyboardType'], ['general']),
  encodingType: text(['generalInfo.encodingType', 'encodingType'], ['general']),
  agentDeployedAt: date(['generalInfo.agentDeploytime', 'generalInfo.agentDeployTime', 'agentDeployTime'], ['general']),
  components: { keys: ['components'], read: stringList, documented: ['general'] },
  bios: {
    keys: ['bios'], documented: ['general'], sub: keysOf(same('systemSerial', 'systemModel')),
    read: (v: unknown) => {
      const b = record(v);
      return b ? { systemSerial: str(b.systemSerial), systemModel: str(b.systemModel) } : null;
    },
  },
  cpus: { keys: ['cpus'], read: list, documented: ['general'] },
  networkCards: {
    keys: ['networkCardDetails'], documented: ['general'],
    sub: keysOf({ index: 'id', name: 'networkName', ...same('status', 'ipAddress', 'macAddress', 'dhcpEnabled', 'linkMode', 'aliasIps') }),
    read: (v: unknown): NetworkCard[] => mapRecords(v, (n) => ({
      index: int32(n.id), name: str(n.networkName), status: str(n.status), ipAddress: str(n.ipAddress), macAddress: str(n.macAddress),
      dhcpEnabled: bool(n.dhcpEnabled), linkMode: str(n.linkMode), aliasIps: splitList(n.aliasIps, ','),
    })),
  },
  installedIntegration: {
    keys: ['installedApp'], read: installedIntegration, documented: ['general'], identity: ['installId'],
    sub: {
      ...keysOf({ installId: 'id', displayName: 'displayName', integrationId: 'integration.id', integrationName: 'integration.name' }),
      // Seen on real records, not in the interface document.
      installedBy: { keys: ['installedBy', 'installedUser'], documented: [] },
      installedAt: { keys: ['installedTime', 'installedDate', 'createdDate'], documented: [] },
    },
  },
  cloud: {
    keys: ['properties'], read: cloudProperties, documented: ['general'],
    // properties (every cloud property) is the whole record: always from the general detail, which carries the full set.
    sub: { ...keysOf({ ...same('provider', 'instanceId', 'instanceState', 'instanceType', 'publicIp', 'ami', 'owner', 'privateDns', 'privateIp', 'zone', 'monitoringState'), launchedAt: 'launchDate' }), properties: { keys: [] } },
  },
  // Real cloud details carry the provider's id as identity (an AWS ARN or an Azure resource id),
  // AWS ones also as properties.arn; the other keys are older spellings seen on some records.
  cloudResourceId: text(['identity', 'properties.arn', 'cloudResourceId', 'arn', 'resourceArn', 'azureResourceId', 'providerUID'], [], ['detail']),
  metricTypes: {
    keys: ['metricTypes'], documented: ['general'], identity: ['name'],
    sub: keysOf({ name: 'metricName', ...same('displayName', 'unit', 'availabilityMetric', 'thresholdType') }),
    read: (v: unknown): MetricType[] => mapRecords(v, (m) => {
      const name = str(m.metricName);
      return name === null ? null : { name, displayName: str(m.displayName), unit: str(m.unit), availabilityMetric: bool(m.availabilityMetric), thresholdType: str(m.thresholdType) };
    }),
  },
  appRoles: { keys: ['appRoles'], read: (v: unknown) => mapRecords(v, (r) => str(r.name)), documented: ['general'] },
  wsusSettings: text(['wsusSettings'], ['general']),
  // the synthetic detail form
  checkType: text(['checkType'], ['synthetic']),
  host: text(['host'], ['synthetic']),
  url: text(['url'], ['synthetic']),
  locationUuids: { keys: ['locationUuids'], read: stringList, documented: ['synthetic'] },
  credential: {
    keys: ['credential'], read: credential, documented: ['synthetic'],
    sub: keysOf({
      number: 'id', hasClientKey: 'oauthClientKey', hasClientSecret: 'oauthClientSecret',
      ...same('secure', 'port', 'snmpVersion', 'autoEnableMode', 'universal', 'spSecure', 'spPort', 'securityLevel', 'timeoutMs',
        'oauthClientKey', 'oauthClientSecret', 'oauthAccessTokenUrl', 'oauthGrantType'),
    }),
  },
} satisfies Record<string, FieldSource<unknown>>;

export type ResourceFieldName = keyof typeof RESOURCE_FIELDS;
export type ResourceFields = { [K in ResourceFieldName]: ReturnType<(typeof RESOURCE_FIELDS)[K]['read']> };

/** The three detail forms, one per concrete type. */
export const DETAIL_FORMS: readonly ResourceKind[] = ['general', 'device', 'synthetic'];

/** Whether a record of this form documents the field. */
export function documents(form: RecordForm, field: ResourceFieldName): boolean {
  return (RESOURCE_FIELDS[field].documented as readonly RecordForm[]).includes(form);
}

/** The reads that supply a field a record lacks, in order. */
export function loadsFor(field: ResourceFieldName): readonly FieldLoad[] {
  const source: FieldSource<unknown> = RESOURCE_FIELDS[field];
  if (source.loads) return source.loads;
  const out: FieldLoad[] = [];
  if (DETAIL_FORMS.some((k) => documents(k, field))) out.push('detail');
  if (documents('search', field)) out.push('search');
  return out;
}

/**
 * The reads to try, in order, for a field the record at hand lacks: the field's loads, less the
 * read that made the record, and less a detail read that cannot help: when the record says its
 * kind, the detail is read only for a field that kind's form carries (or that no detail form
 * documents, such as a cloud item's provider id). The run-time reads and the cost estimate both
 * follow this.
 */
export function readsFor(field: ResourceFieldName, origin: ResourceOrigin, kind: ResourceKind | null): FieldLoad[] {
  return loadsFor(field).filter((load) => {
    if (load === 'search') return origin !== 'search';
    return origin !== 'detail' && (kind === null || documents(kind, field) || !DETAIL_FORMS.some((k) => documents(k, field)));
  });
}

export interface ResourceView {
  tenantId: string;
  id: string;
  origin: ResourceOrigin;
  /** From the record's type/resourceType, or from the detail's shape; null when the record cannot tell. */
  kind: ResourceKind | null;
  record: WireRecord;
}

export type FieldRead<T> = { present: true; value: T } | { present: false };
const ABSENT = { present: false } as const;
/** No nested selection: a top-level field, or a nested one whose sub-fields do not matter. */
export const NO_SUBFIELDS: readonly string[] = [];

/** The form a view's record has. */
export function formOf(view: ResourceView): RecordForm {
  return view.origin === 'detail' ? (view.kind ?? 'device') : view.origin;
}

const MISSING: unique symbol = Symbol('missing');

/** The raw value of a field in a record, by its keys in order (a dot reads one level deeper). */
function rawAt(holder: WireRecord, keys: readonly string[]): unknown {
  for (const key of keys) {
    const dot = key.indexOf('.');
    const inner = dot < 0 ? holder : record(holder[key.slice(0, dot)]);
    const name = dot < 0 ? key : key.slice(dot + 1);
    if (inner && Object.hasOwn(inner, name)) return inner[name];
  }
  return MISSING;
}

/**
 * A field's raw value gathered from the records of one resource seen so far (the record at
 * hand first), and the forms of the records that carried it.
 */
export interface Gathered { present: boolean; raw: unknown; forms: RecordForm[] }

/**
 * Adds what another record of the same resource says. Nested records merge key by key, lists
 * element by element by index: every form of a resource lists the same elements in the same
 * order (the forms are projections of one record), while identity keys are exactly what a
 * partial element may lack (a tag without its source has its name, a network card may lack its
 * id). What an earlier record says stands.
 */
export function gather(into: Gathered | null, view: ResourceView, field: ResourceFieldName): Gathered {
  const own = rawAt(view.record, RESOURCE_FIELDS[field].keys);
  if (own === MISSING) return into ?? { present: false, raw: undefined, forms: [] };
  if (!into?.present) return { present: true, raw: own, forms: [formOf(view)] };
  return { present: true, raw: mergeRaw(into.raw, own), forms: [...into.forms, formOf(view)] };
}

function mergeRaw(first: unknown, then: unknown): unknown {
  if (isRecord(first) && isRecord(then)) {
    const out: WireRecord = { ...then };
    for (const [key, value] of Object.entries(first)) out[key] = Object.hasOwn(then, key) ? mergeRaw(value, then[key]) : value;
    return out;
  }
  if (Array.isArray(first) && Array.isArray(then)) return first.map((element, i) => (i < then.length ? mergeRaw(element, then[i]) : element));
  return first;
}

/**
 * Whether what was gathered answers the selection: the field is present and, for a nested
 * object, every selected sub-field and every identity sub-field stands in each nested record
 * (an opaque whole-record leaf only when a documenting form carried it). A known-empty value
 * ('' or null) or the upstream's string shorthand answers everything.
 */
export function answers(got: Gathered, field: ResourceFieldName, wanted: readonly string[]): boolean {
  if (!got.present) return false;
  if (!(RESOURCE_FIELDS[field] as FieldSource<unknown>).sub) return true;
  const needed = neededSubs(field, wanted);
  if (needed.length === 0) return true;
  const whole = got.forms.some((f) => documents(f, field));
  if (!Array.isArray(got.raw)) return carries(got.raw, needed, whole);
  for (const element of got.raw) if (!carries(element, needed, whole)) return false;
  return true;
}

/** Whether a nested record carries the needed sub-fields; `whole`: a documenting form supplied it (for opaque leaves). */
function carries(raw: unknown, needed: readonly SubFieldSource[], whole: boolean): boolean {
  if (!isRecord(raw)) return true;
  for (const s of needed) {
    if (s.keys.length === 0 ? !whole : rawAt(raw, s.keys) === MISSING) return false;
  }
  return true;
}

/** The selected and identity sub-fields of a nested field, with their sources. */
const neededByField = new Map<ResourceFieldName, WeakMap<readonly string[], SubFieldSource[]>>();
function neededSubs(field: ResourceFieldName, wanted: readonly string[]): SubFieldSource[] {
  // Selections are cached per field node, so this is computed once per field per document.
  let byWanted = neededByField.get(field);
  if (!byWanted) neededByField.set(field, (byWanted = new WeakMap()));
  let needed = byWanted.get(wanted);
  if (!needed) {
    const source: FieldSource<unknown> = RESOURCE_FIELDS[field];
    needed = [...new Set([...(source.identity ?? []), ...wanted])].map((name) => source.sub?.[name]).filter((s): s is SubFieldSource => s !== undefined);
    byWanted.set(wanted, needed);
  }
  return needed;
}

/**
 * Whether a read can add to what was gathered: always for a plain field or an absent one; for a
 * nested object, when some sub-field still missing names that read among its loads.
 */
export function readHelps(got: Gathered, field: ResourceFieldName, wanted: readonly string[], load: FieldLoad): boolean {
  if (!got.present || !(RESOURCE_FIELDS[field] as FieldSource<unknown>).sub) return true;
  const raws = Array.isArray(got.raw) ? got.raw : [got.raw];
  const missing = neededSubs(field, wanted).filter((s) => s.keys.length === 0 ? !got.forms.some((f) => documents(f, field)) : raws.some((r) => isRecord(r) && rawAt(r, s.keys) === MISSING));
  return missing.some((s) => (s.loads ?? loadsFor(field)).includes(load));
}

/** The same for the cost estimate: whether a read can supply a selected sub-field the form does not document. */
export function readHelpsForm(form: RecordForm, field: ResourceFieldName, wanted: readonly string[], load: FieldLoad): boolean {
  const source: FieldSource<unknown> = RESOURCE_FIELDS[field];
  if (!source.sub || !documents(form, field)) return true;
  return neededSubs(field, wanted)
    .filter((s) => s.documented !== undefined && !s.documented.includes(form))
    .some((s) => (s.loads ?? loadsFor(field)).includes(load));
}

export function valueOf<K extends ResourceFieldName>(got: Gathered, field: K): ResourceFields[K] {
  return (RESOURCE_FIELDS[field] as FieldSource<ResourceFields[K]>).read(got.raw);
}

/** A field of the record at hand, when it answers the selection (maybe known-empty); else absent. */
export function readField<K extends ResourceFieldName>(view: ResourceView, field: K, wanted: readonly string[] = NO_SUBFIELDS): FieldRead<ResourceFields[K]> {
  const source = RESOURCE_FIELDS[field] as FieldSource<ResourceFields[K]>;
  const raw = rawAt(view.record, source.keys);
  if (raw === MISSING) return ABSENT;
  // The hot path (every field of every item of a page): no gathering for a plain field.
  if (!source.sub) return { present: true, value: source.read(raw) };
  const needed = neededSubs(field, wanted);
  const whole = documents(formOf(view), field);
  const complete = !Array.isArray(raw) ? carries(raw, needed, whole) : raw.every((element) => carries(element, needed, whole));
  return complete ? { present: true, value: source.read(raw) } : ABSENT;
}

/** Whether a record of this form documents the field with these sub-fields (for the cost estimate). */
export function documentsSelection(form: RecordForm, field: ResourceFieldName, wanted: readonly string[]): boolean {
  if (!documents(form, field)) return false;
  const source: FieldSource<unknown> = RESOURCE_FIELDS[field];
  return [...(source.identity ?? []), ...wanted].every((name) => {
    const sub = source.sub?.[name];
    return !sub?.documented || sub.documented.includes(form);
  });
}

/** The schema names of a nested field's sub-fields, for selections. */
export function hasSubFields(field: string): boolean {
  return Object.hasOwn(RESOURCE_FIELDS, field) && (RESOURCE_FIELDS[field as ResourceFieldName] as FieldSource<unknown>).sub !== undefined;
}

/**
 * The concrete type from the record's own words (seen on the real API): SYNTHETIC in type or
 * resourceType is a synthetic check, type DEVICE has the general detail form, any other type
 * (cloud and service items) the short form. A record with neither key cannot tell.
 */
export function kindFromRecord(raw: WireRecord): ResourceKind | null {
  const type = str(raw.type)?.toUpperCase();
  if (type === 'SYNTHETIC' || str(raw.resourceType)?.toUpperCase() === 'SYNTHETIC') return 'synthetic';
  if (type === undefined) return null;
  return type === 'DEVICE' ? 'general' : 'device';
}

/** The shape of a detail record: generalInfo -> general; SYNTHETIC -> synthetic; otherwise the short form. */
export function detailKind(raw: WireRecord): ResourceKind {
  if (isRecord(raw.generalInfo)) return 'general';
  return kindFromRecord(raw) === 'synthetic' ? 'synthetic' : 'device';
}

/** A record becomes a view only with a usable id; others are dropped (a null hole in a page). */
export function toResourceView(tenantId: string, raw: unknown, origin: ResourceOrigin): ResourceView | null {
  if (!isRecord(raw)) return null;
  const id = str(raw.id);
  if (id === null) return null;
  return { tenantId, id, origin, kind: origin === 'detail' ? detailKind(raw) : kindFromRecord(raw), record: raw };
}
