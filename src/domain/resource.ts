/**
 * Resources in domain form. The upstream shows a resource in six shapes (search hit, minimal
 * record, antivirus reference, and three detail forms); each maps to a ResourceView that says
 * which fields it carries, so the schema can tell "known to be empty" from "not loaded yet".
 */
import {
  bool, int32, isRecord, list, mapRecords, record, safeInt, splitList, str, stringList, time, type WireRecord,
} from './coerce.js';

export type ResourceKind = 'general' | 'device' | 'synthetic';
export type ResourceState = 'active' | 'inactive' | 'discovered' | 'decommissioned';

export interface Location { id: number; name: string | null; city: string | null; clientId: number | null; mspId: number | null }
export interface Tag { name: string; value: string | null; source: string | null }
export interface ClientRef { id: number | null; uniqueId: string | null; name: string | null }
export interface NetworkAddress { ip: string | null; mac: string | null; aliasIps: string[] }
export interface NetworkCard {
  id: number | null; name: string | null; status: string | null; ipAddress: string | null; macAddress: string | null;
  dhcpEnabled: boolean | null; linkMode: string | null; aliasIps: string[];
}
export interface InstalledIntegration { id: string; displayName: string | null; integrationId: string | null; integrationName: string | null }
export interface CloudProperties {
  provider: string | null; instanceId: string | null; instanceState: string | null; instanceType: string | null;
  publicIp: string | null; ami: string | null; launchedAt: Date | null; owner: string | null; privateDns: string | null;
  privateIp: string | null; zone: string | null; monitoringState: string | null;
}
export interface MetricType { name: string; displayName: string | null; unit: string | null; availabilityMetric: boolean | null; thresholdType: string | null }
export interface SyntheticCredential {
  id: number | null; secure: boolean | null; port: number | null; snmpVersion: string | null; autoEnableMode: boolean | null;
  universal: boolean | null; spSecure: boolean | null; spPort: number | null; securityLevel: string | null; timeoutMs: number | null;
  oauthClientKey: string | null; oauthClientSecret: string | null; oauthAccessTokenUrl: string | null; oauthGrantType: string | null;
}

/** Every resource field the gateway exposes, in domain names. */
export interface ResourceFields {
  name: string | null;
  hostName: string | null;
  ipAddress: string | null;
  dns: string | null;
  aliasName: string | null;
  resourceName: string | null;
  resourceType: string | null;
  type: string | null;
  state: ResourceState | null;
  status: string | null;
  source: string | null;
  agentInstalled: boolean | null;
  createdAt: Date | null;
  updatedAt: Date | null;
  location: Location | null;
  tags: Tag[];
  consoles: unknown[];
  make: string | null;
  model: string | null;
  osName: string | null;
  description: string | null;
  classCode: string | null;
  deviceType: string | null;
  devicePath: string | null;
  gatewayProfileId: string | null;
  client: ClientRef | null;
  clientId: number | null;
  networkAddresses: NetworkAddress[];
  attributes: WireRecord | null;
  assetManagedAt: Date | null;
  firstAssetManagedAt: Date | null;
  deleted: boolean | null;
  ts: number | null;
  locationOffset: number | null;
  totalLocations: number | null;
  // general detail
  extResourceId: string | null;
  physicalMemory: string | null;
  keyboardType: string | null;
  encodingType: string | null;
  agentDeployedAt: Date | null;
  components: string[];
  bios: { systemSerial: string | null; systemModel: string | null } | null;
  cpus: unknown[];
  networkCards: NetworkCard[];
  installedIntegration: InstalledIntegration | null;
  cloud: CloudProperties | null;
  metricTypes: MetricType[];
  clientUniqueId: string | null;
  appRoles: string[];
  wsusSettings: string | null;
  // synthetic detail
  checkType: string | null;
  host: string | null;
  url: string | null;
  locationUuids: string[];
  credential: SyntheticCredential | null;
}

export type ResourceFieldName = keyof ResourceFields;

export type ResourceForm = 'search' | 'minimal' | 'antivirus' | 'detail';

export interface ResourceView {
  tenantId: string;
  id: string;
  form: ResourceForm;
  /** Known from a detail record, or from a type/resourceType SYNTHETIC hint; null when undecided. */
  kind: ResourceKind | null;
  /** The fields this shape carries: a carried field that is null is known to be empty. */
  carries: ReadonlySet<ResourceFieldName>;
  fields: Partial<ResourceFields>;
}

const fieldSet = (...names: ResourceFieldName[]) => new Set<ResourceFieldName>(names);

export const SEARCH_FIELDS = fieldSet(
  'hostName', 'ipAddress', 'dns', 'client', 'createdAt', 'classCode', 'deviceType', 'devicePath', 'type', 'state', 'make',
  'model', 'osName', 'description', 'gatewayProfileId', 'source', 'agentInstalled', 'networkAddresses', 'attributes',
  'aliasName', 'name', 'resourceName', 'consoles', 'resourceType', 'assetManagedAt', 'firstAssetManagedAt', 'deleted',
  'ts', 'clientId', 'locationOffset', 'totalLocations',
);
const SEARCH_FIELDS_WITH_STATUS = new Set<ResourceFieldName>([...SEARCH_FIELDS, 'status']);
export const MINIMAL_FIELDS = fieldSet('name', 'hostName', 'ipAddress', 'aliasName', 'resourceName', 'resourceType');
export const ANTIVIRUS_FIELDS = fieldSet('hostName', 'ipAddress', 'osName');
export const DETAIL_FIELDS: Record<ResourceKind, ReadonlySet<ResourceFieldName>> = {
  general: fieldSet(
    'ipAddress', 'extResourceId', 'state', 'source', 'agentInstalled', 'status', 'location', 'components', 'tags', 'bios',
    'cpus', 'name', 'osName', 'make', 'description', 'hostName', 'dns', 'resourceType', 'keyboardType', 'encodingType',
    'physicalMemory', 'resourceName', 'aliasName', 'createdAt', 'updatedAt', 'agentDeployedAt', 'assetManagedAt',
    'firstAssetManagedAt', 'consoles', 'networkCards', 'installedIntegration', 'cloud', 'metricTypes', 'clientUniqueId',
    'appRoles', 'wsusSettings',
  ),
  device: fieldSet('createdAt', 'updatedAt', 'type', 'state', 'source', 'status', 'location', 'resourceName', 'consoles', 'clientUniqueId'),
  synthetic: fieldSet(
    'resourceType', 'name', 'consoles', 'checkType', 'host', 'deleted', 'url', 'credential', 'locationUuids', 'ts', 'clientId',
    'locationOffset', 'totalLocations',
  ),
};
/** Fields some detail form carries: only these are worth a detail call. */
export const ANY_DETAIL_FIELDS = new Set<ResourceFieldName>([...DETAIL_FIELDS.general, ...DETAIL_FIELDS.device, ...DETAIL_FIELDS.synthetic]);

export function resourceState(value: unknown): ResourceState | null {
  const text = str(value)?.toLowerCase();
  return text === 'active' || text === 'inactive' || text === 'discovered' || text === 'decommissioned' ? text : null;
}

export function location(value: unknown): Location | null {
  const r = record(value);
  const id = r ? int32(r.id) : null;
  if (!r || id === null) return null;
  return { id, name: str(r.name), city: str(r.city), clientId: int32(r.clientId), mspId: int32(r.mspId) };
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
    privateIp: str(r.privateIp), zone: str(r.zone), monitoringState: str(r.monitoringState),
  };
}

/** An upstream id must be a non-empty string (or number) to become a node; records without one are dropped. */
export function resourceId(value: unknown): string | null {
  return str(value);
}

function view(tenantId: string, raw: WireRecord, form: ResourceForm, kind: ResourceKind | null, carries: ReadonlySet<ResourceFieldName>, fields: Partial<ResourceFields>): ResourceView | null {
  const id = resourceId(raw.id);
  if (id === null) return null;
  return { tenantId, id, form, kind: kind ?? kindHint(fields), carries, fields };
}

/** SYNTHETIC in type or resourceType decides the type without a detail read. */
export function kindHint(fields: Partial<ResourceFields>): ResourceKind | null {
  return fields.type?.toUpperCase() === 'SYNTHETIC' || fields.resourceType?.toUpperCase() === 'SYNTHETIC' ? 'synthetic' : null;
}

export function fromSearchRecord(tenantId: string, raw: unknown): ResourceView | null {
  if (!isRecord(raw)) return null;
  const client = record(raw.client);
  const attributes = record(raw.attributes);
  const fields: Partial<ResourceFields> = {
    hostName: str(raw.hostName),
    ipAddress: str(raw.ipAddress),
    dns: str(raw.dns),
    client: client ? { id: int32(client.id), uniqueId: str(client.uniqueId), name: str(client.name) } : null,
    createdAt: time(raw.createdDate),
    classCode: str(raw.classCode),
    deviceType: str(raw.deviceType),
    devicePath: str(raw.devicePath),
    type: str(raw.type),
    state: resourceState(raw.state),
    make: str(raw.make),
    model: str(raw.model),
    osName: str(raw.osName),
    description: str(raw.description),
    gatewayProfileId: str(raw.gatewayProfileId),
    source: str(raw.source),
    agentInstalled: bool(raw.agentInstalled),
    networkAddresses: mapRecords(attributes?.network, (n) => ({ ip: str(n.ip), mac: str(n.mac), aliasIps: splitList(n.aliasIp, ',') })),
    attributes,
    aliasName: str(raw.aliasName),
    name: str(raw.name),
    resourceName: str(raw.resourceName),
    consoles: list(raw.consoles),
    resourceType: str(raw.resourceType),
    assetManagedAt: time(raw.assetManagedTime),
    firstAssetManagedAt: time(raw.firstAssetManagedTime),
    deleted: bool(raw.deleted),
    ts: safeInt(raw.ts),
    clientId: int32(raw.clientId),
    locationOffset: int32(raw.locationOffset),
    totalLocations: int32(raw.totalLocations),
  };
  const withStatus = 'status' in raw;
  if (withStatus) fields.status = str(raw.status);
  return view(tenantId, raw, 'search', null, withStatus ? SEARCH_FIELDS_WITH_STATUS : SEARCH_FIELDS, fields);
}

export function fromMinimalRecord(tenantId: string, raw: unknown): ResourceView | null {
  if (!isRecord(raw)) return null;
  return view(tenantId, raw, 'minimal', null, MINIMAL_FIELDS, {
    name: str(raw.name),
    hostName: str(raw.hostName),
    ipAddress: str(raw.ipAddress),
    aliasName: str(raw.aliasName),
    resourceName: str(raw.resourceName),
    resourceType: str(raw.resourceType),
  });
}

export function fromAntivirusResource(tenantId: string, raw: unknown): ResourceView | null {
  if (!isRecord(raw)) return null;
  return view(tenantId, raw, 'antivirus', null, ANTIVIRUS_FIELDS, {
    hostName: str(raw.hostName), ipAddress: str(raw.ipAddress), osName: str(raw.osName),
  });
}

/** The rule of the schema sketch: generalInfo -> general; SYNTHETIC -> synthetic; otherwise the short device form. */
export function detailKind(raw: WireRecord): ResourceKind {
  if (isRecord(raw.generalInfo)) return 'general';
  return kindHint({ type: str(raw.type), resourceType: str(raw.resourceType) }) ?? 'device';
}

export function fromDetailRecord(tenantId: string, raw: unknown): ResourceView | null {
  if (!isRecord(raw)) return null;
  const kind = detailKind(raw);
  if (kind === 'synthetic') {
    const c = record(raw.credential);
    return view(tenantId, raw, 'detail', kind, DETAIL_FIELDS.synthetic, {
      resourceType: str(raw.resourceType),
      name: str(raw.name),
      consoles: list(raw.consoles),
      checkType: str(raw.checkType),
      host: str(raw.host),
      deleted: bool(raw.deleted),
      url: str(raw.url),
      credential: c
        ? {
            id: int32(c.id), secure: bool(c.secure), port: int32(c.port), snmpVersion: str(c.snmpVersion),
            autoEnableMode: bool(c.autoEnableMode), universal: bool(c.universal), spSecure: bool(c.spSecure),
            spPort: int32(c.spPort), securityLevel: str(c.securityLevel), timeoutMs: int32(c.timeoutMs),
            oauthClientKey: str(c.oauthClientKey), oauthClientSecret: str(c.oauthClientSecret),
            oauthAccessTokenUrl: str(c.oauthAccessTokenUrl), oauthGrantType: str(c.oauthGrantType),
          }
        : null,
      locationUuids: stringList(raw.locationUuids),
      ts: safeInt(raw.ts),
      clientId: int32(raw.clientId),
      locationOffset: int32(raw.locationOffset),
      totalLocations: int32(raw.totalLocations),
    });
  }
  if (kind === 'device') {
    return view(tenantId, raw, 'detail', kind, DETAIL_FIELDS.device, {
      createdAt: time(raw.createdDate),
      updatedAt: time(raw.updatedDate),
      type: str(raw.type),
      state: resourceState(raw.state),
      source: str(raw.source),
      status: str(raw.status),
      location: location(raw.location),
      resourceName: str(raw.resourceName),
      consoles: list(raw.consoles),
      clientUniqueId: str(raw.clientUniqueId),
    });
  }
  const info = record(raw.generalInfo) ?? {};
  const bios = record(raw.bios);
  const app = record(raw.installedApp);
  const appId = app ? str(app.id) : null;
  const integration = app ? record(app.integration) : null;
  return view(tenantId, raw, 'detail', kind, DETAIL_FIELDS.general, {
    ipAddress: str(raw.ipAddress),
    extResourceId: str(raw.extResourceId),
    state: resourceState(raw.state),
    source: str(raw.source),
    agentInstalled: bool(raw.agentInstalled),
    status: str(raw.status),
    location: location(raw.location),
    components: stringList(raw.components),
    tags: tags(raw.tags),
    bios: bios ? { systemSerial: str(bios.systemSerial), systemModel: str(bios.systemModel) } : null,
    cpus: list(raw.cpus),
    name: str(info.name),
    osName: str(info.osName),
    make: str(info.make),
    description: str(info.description),
    hostName: str(info.hostName),
    dns: str(info.dns),
    resourceType: str(info.resourceType),
    keyboardType: str(info.keyboardType),
    encodingType: str(info.encodingType),
    physicalMemory: str(info.physicalMemory),
    resourceName: str(info.resourceName),
    aliasName: str(info.aliasName),
    createdAt: time(info.createdTime),
    updatedAt: time(info.updatedTime),
    agentDeployedAt: time(info.agentDeploytime),
    assetManagedAt: time(info.assetManagedTime),
    firstAssetManagedAt: time(info.firstAssetManagedTime),
    consoles: list(raw.consoles),
    networkCards: mapRecords(raw.networkCardDetails, (n) => ({
      id: int32(n.id), name: str(n.networkName), status: str(n.status), ipAddress: str(n.ipAddress), macAddress: str(n.macAddress),
      dhcpEnabled: bool(n.dhcpEnabled), linkMode: str(n.linkMode), aliasIps: splitList(n.aliasIps, ','),
    })),
    installedIntegration: appId
      ? { id: appId, displayName: str(app?.displayName), integrationId: str(integration?.id), integrationName: str(integration?.name) }
      : null,
    cloud: cloudProperties(raw.properties),
    metricTypes: mapRecords(raw.metricTypes, (m) => {
      const name = str(m.metricName);
      return name === null ? null : { name, displayName: str(m.displayName), unit: str(m.unit), availabilityMetric: bool(m.availabilityMetric), thresholdType: str(m.thresholdType) };
    }),
    clientUniqueId: str(raw.clientUniqueId),
    appRoles: mapRecords(raw.appRoles, (r) => str(r.name)),
    wsusSettings: str(raw.wsusSettings),
  });
}
