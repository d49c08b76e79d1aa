/**
 * Resources in domain form, read by presence. The upstream shows a resource in six documented
 * forms (search hit, minimal record, antivirus reference, three detail forms), and real records
 * carry keys their form does not document. A ResourceView keeps the record at hand; every field
 * is read from it wherever the key stands (RESOURCE_FIELDS lists the keys). A present key with
 * '' or null is known to be empty; only an absent key is worth a call, and the same table says
 * which call (and tells the cost estimate what a form documents).
 */
import { bool, int32, list, mapRecords, record, safeInt, splitList, str, stringList, time } from './coerce.js';
import { type ResourceKind, type ClientRef, type NetworkAddress, type NetworkCard, type MetricType, resourceState, location, tags, cloudProperties, managementProfile, deviceGroups, installedIntegration, credential } from './resource-shapes.js';

/** A documented form of a resource record. */
export type RecordForm = 'search' | 'minimal' | 'antivirus' | ResourceKind;
/** Where a view's record came from: a detail read is one of the three detail forms. */
export type ResourceOrigin = 'search' | 'minimal' | 'antivirus' | 'detail';
/** The reads that can supply a field a record lacks. */
export type FieldLoad = 'detail' | 'search';

export interface FieldSource<T> {
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
export interface SubFieldSource {
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
