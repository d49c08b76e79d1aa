/** Wire shapes of the simulator, exactly as the interface document describes them. */
import { formatUpstreamTime } from './random.js';
import { applicationsOf, deviceGroupIdOf } from './dataset.js';
import type { SimAntivirus, SimDecommissioned, SimResource, SimTenant } from './data-model.js';

type Json = Record<string, unknown>;

export function timeOf(tenant: SimTenant, epochSeconds: number): string {
  return formatUpstreamTime(epochSeconds, tenant.offsetMinutes);
}

/** Empty values as the wild upstream sends them: '' on client_1, null on client_2. */
function empty(tenant: SimTenant, value: string): string | null {
  return value === '' && tenant.offsetMinutes !== 0 ? null : value;
}

export function searchRecord(tenant: SimTenant, r: SimResource, includeStatus: boolean): Json {
  const record: Json = {
    id: r.id,
    hostName: r.hostName,
    ipAddress: empty(tenant, r.ipAddress),
    dns: empty(tenant, r.dns),
    client: { id: tenant.clientId, uniqueId: tenant.uniqueId, name: tenant.name },
    createdDate: timeOf(tenant, r.createdAt),
    classCode: r.classCode,
    deviceType: r.deviceType,
    devicePath: r.devicePath,
    type: r.type,
    state: r.state,
    make: empty(tenant, r.make),
    model: empty(tenant, r.model),
    osName: empty(tenant, r.osName),
    description: r.description,
    gatewayProfileId: r.gatewayProfileId,
    source: r.source,
    agentInstalled: r.agentInstalled,
    attributes: { network: r.network.map((n) => ({ ip: n.ip, mac: n.mac, aliasIp: n.aliasIp })) },
    aliasName: r.aliasName,
    name: r.name,
    resourceName: r.resourceName,
    consoles: [],
    resourceType: r.resourceType,
    assetManagedTime: timeOf(tenant, r.assetManagedAt),
    firstAssetManagedTime: timeOf(tenant, r.firstAssetManagedAt),
    deleted: r.deleted,
    ts: r.synthetic ? r.synthetic.ts : r.updatedAt * 1000,
    clientId: tenant.clientId,
    locationOffset: 0,
    totalLocations: r.synthetic ? r.synthetic.locationUuids.length : 1,
  };
  // Real records carry fields the document does not list; clients must ignore them.
  if (r.index % 7 === 0) record.partnerRef = { id: r.index, kind: 'undocumented' };
  if (tenant.extraKeys) Object.assign(record, searchExtras(tenant, r));
  if (includeStatus) record.status = r.status;
  return record;
}

const PROFILES = [
  { id: 201, name: 'Gateway Default', type: 'GATEWAY' },
  { id: 202, name: 'Agent Linux', type: 'AGENT' },
  { id: 203, name: 'Agent Windows', type: 'AGENT' },
];

/**
 * Keys real search hits carry beyond the documented form: always the update time, tags and
 * location; the others where the resource has them (some records do, some do not).
 */
function searchExtras(tenant: SimTenant, r: SimResource): Json {
  const extras: Json = {
    updatedDate: timeOf(tenant, r.updatedAt),
    tags: r.tags.map((t) => ({ ...t })),
    // Real search hits name the location by id and name only; its city and owners are in the detail.
    location: { id: r.location.id, name: r.location.name },
  };
  if (r.index % 2 === 0) extras.managementProfile = { ...PROFILES[r.index % PROFILES.length] };
  if (r.network[0]) extras.macAddress = r.network[0].mac;
  if (r.shape === 'general') {
    extras.serialNumber = r.serialNumber;
    extras.osArchitecture = r.osName.startsWith('Microsoft') ? '64-bit' : 'x86_64';
    if (r.index % 3 !== 0) extras.systemUID = r.systemUID;
    extras.dnsName = r.dns;
  }
  if (r.index % 5 !== 0) extras.deviceGroups = [{ id: deviceGroupIdOf(r), name: r.deviceGroup }];
  return extras;
}

/** Keys real short-form details of cloud items carry: names, the provider identity, the integration, provider properties. */
function cloudItemExtras(tenant: SimTenant, r: SimResource): Json {
  const azure = r.type.startsWith('AZ_');
  const subscription = `0c1d2e3f-${String(r.index).padStart(4, '0')}-4a5b-8c9d-${String(tenant.clientId).padStart(12, '0')}`;
  const slug = r.hostName;
  const arn = `arn:aws:${r.type === 'EBS' ? 'ec2' : 'elasticloadbalancing'}:eu-central-1:${r.accountNumber}:${r.type.toLowerCase()}/${r.instanceId}`;
  return {
    hostName: r.hostName,
    ipAddress: r.ipAddress,
    aliasName: r.aliasName,
    name: r.name,
    resourceType: r.resourceType,
    // The provider's id, as real records name it: identity (an ARN, or an Azure resource id).
    identity: azure ? `/subscriptions/${subscription}/resourceGroups/rg-${tenant.uniqueId}/providers/Microsoft.Network/virtualNetworks/${slug}` : arn,
    installedApp: {
      id: r.installedIntgId,
      displayName: azure ? 'Azure subscription' : `AWS account ${r.accountNumber}`,
      integration: azure ? { id: 'azure', name: 'Azure' } : { id: 'aws', name: 'AWS' },
      installedBy: 'ops@acme.example',
      installedTime: timeOf(tenant, r.firstAssetManagedAt),
    },
    properties: azure
      ? { provider: 'Azure', subscriptionId: subscription, resourceGroup: `rg-${tenant.uniqueId}`, region: 'westeurope', addressSpace: '10.20.0.0/16' }
      : { provider: 'AWS', instanceId: r.instanceId, zone: 'eu-central-1a', accountId: r.accountNumber, region: 'eu-central-1', arn },
  };
}

export function minimalRecord(r: SimResource): Json {
  return {
    id: r.id,
    name: r.name,
    hostName: r.hostName,
    ipAddress: r.ipAddress,
    aliasName: r.aliasName,
    resourceName: r.resourceName,
    resourceType: r.resourceType,
  };
}

export function detailRecord(tenant: SimTenant, r: SimResource): Json {
  const location = { id: r.location.id, name: r.location.name };
  if (r.shape === 'synthetic' && r.synthetic) {
    const s = r.synthetic;
    return {
      id: r.id,
      resourceType: 'SYNTHETIC',
      name: r.name,
      consoles: [],
      checkType: s.checkType,
      host: s.host,
      deleted: r.deleted,
      url: s.url,
      credential: { ...s.credential },
      locationUuids: [...s.locationUuids],
      ts: s.ts,
      clientId: tenant.clientId,
      locationOffset: 0,
      totalLocations: s.locationUuids.length,
      // Real synthetic details carry the check's state.
      ...(tenant.extraKeys ? { state: r.state } : {}),
    };
  }
  if (r.shape === 'device') {
    return {
      ...(tenant.extraKeys ? cloudItemExtras(tenant, r) : {}),
      id: r.id,
      createdDate: timeOf(tenant, r.createdAt),
      updatedDate: timeOf(tenant, r.updatedAt),
      type: r.type,
      state: r.state,
      source: r.source,
      status: r.status,
      location,
      resourceName: r.resourceName,
      consoles: [],
      clientUniqueId: tenant.uniqueId,
    };
  }
  return {
    id: r.id,
    ipAddress: r.ipAddress,
    extResourceId: r.extResourceId,
    state: r.state,
    source: r.source,
    agentInstalled: r.agentInstalled,
    status: r.status,
    location: { ...r.location },
    components: [...r.components],
    tags: r.tags.map((t) => ({ ...t })),
    bios: { systemSerial: r.serialNumber, systemModel: r.model },
    cpus: [{ name: 'CPU0', cores: 4, speedMhz: 2400 }],
    generalInfo: {
      name: r.name,
      osName: r.osName,
      make: r.make,
      description: r.description,
      hostName: r.hostName,
      dns: r.dns,
      resourceType: r.resourceType,
      keyboardType: r.osName.startsWith('Microsoft') ? 'US' : '',
      encodingType: 'UTF-8',
      physicalMemory: r.physicalMemory,
      resourceName: r.resourceName,
      aliasName: r.aliasName,
      createdTime: timeOf(tenant, r.createdAt),
      updatedTime: timeOf(tenant, r.updatedAt),
      agentDeploytime: r.agentInstalled ? timeOf(tenant, r.agentDeployedAt) : '',
      assetManagedTime: timeOf(tenant, r.assetManagedAt),
      firstAssetManagedTime: timeOf(tenant, r.firstAssetManagedAt),
    },
    consoles: [],
    networkCardDetails: r.network.map((n, i) => ({
      id: i + 1,
      networkName: `eth${i}`,
      status: 'UP',
      ipAddress: n.ip,
      macAddress: n.mac,
      dhcpEnabled: i > 0,
      linkMode: 'Full Duplex',
      aliasIps: n.aliasIp,
    })),
    installedApp: r.installedIntgId
      ? { id: r.installedIntgId, displayName: `Integration ${r.installedIntgId}`, integration: { id: 'aws', name: 'AWS' } }
      : {},
    properties: r.cloud ? { ...r.cloud } : {},
    metricTypes: [
      { metricName: 'system.cpu.utilization', displayName: 'CPU Utilization', unit: '%', availabilityMetric: false, thresholdType: 'STATIC' },
      { metricName: 'system.ping', displayName: 'Ping', unit: 'ms', availabilityMetric: true, thresholdType: 'NONE' },
    ],
    clientUniqueId: tenant.uniqueId,
    appRoles: r.appRoles.map((name) => ({ name })),
    wsusSettings: r.osName.startsWith('Microsoft') ? 'Automatic' : '',
  };
}

export function applicationRecords(tenant: SimTenant, r: SimResource): Json[] {
  return applicationsOf(r).map((app) => {
    const out: Json = { ...app };
    for (const key of ['installedDate', 'createdDate', 'modifiedDate']) {
      if (typeof out[key] === 'number') out[key] = timeOf(tenant, out[key] as number);
    }
    return out;
  });
}

export function decommissionedRecord(tenant: SimTenant, d: SimDecommissioned, additionalInfo: boolean): Json {
  const out: Json = {
    id: d.id,
    hostName: d.hostName,
    ipAddress: d.ipAddress,
    dns: d.dns,
    updatedDate: timeOf(tenant, d.decommissionedAt),
    deviceType: d.deviceType,
    devicePath: d.devicePath,
    type: d.type,
    state: 'Decommissioned',
    macAddress: d.macAddress,
    make: d.make,
    model: d.model,
    osName: d.osName,
    osArchitecture: d.osArchitecture,
    serialNumber: d.serialNumber,
    systemUID: d.systemUID,
    description: d.description,
    agentInstalled: d.agentInstalled,
    tags: d.tags.map((t) => ({ ...t })),
    history: { ...d.history },
  };
  // Optional members are omitted when they have no value.
  for (const key of ['aliasName', 'name', 'resourceName', 'resourceType'] as const) {
    if (d[key] !== undefined) out[key] = d[key];
  }
  if (d.attributes) {
    const attributes = { ...d.attributes };
    if (attributes.launchDate) attributes.launchDate = timeOf(tenant, Number(attributes.launchDate));
    out.attributes = attributes;
  }
  if (d.managementProfile) out.managementProfile = { ...d.managementProfile };
  if (additionalInfo) Object.assign(out, structuredClone(d.additional));
  return out;
}

export function antivirusRecord(tenant: SimTenant, a: SimAntivirus): Json {
  return {
    name: a.name,
    version: a.version,
    currentDefinition: a.currentDefinition,
    currentDefinitionDate: timeOf(tenant, a.currentDefinitionDate),
    scanDate: timeOf(tenant, a.scanDate),
    supported: a.supported,
    status: a.status,
    resource: { id: a.resource.id, hostName: a.resource.hostName, ipAddress: a.resource.ipAddress, osName: a.resource.osName },
  };
}
