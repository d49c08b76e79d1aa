/**
 * The simulator's deterministic inventory. One internal record per resource holds every
 * attribute; app.ts renders the documented wire shapes (search, minimal, the three detail
 * forms) from it, so all endpoints stay consistent with each other.
 */
import { APP_ROLES } from '../domain/app-roles.js';
import { createRandom, type Random } from './random.js';
import { DATASET_NOW, DAY, ipv4, mac } from './dataset-basics.js';
import { makeDecommissioned } from './dataset-history.js';
import type { Shape, SimTenant, SimTag, SimResource, SimAntivirus, SimResourceType, Dataset, DatasetOptions } from './data-model.js';

export { APP_ROLES };
export { DATASET_NOW } from './dataset-basics.js';

const RESOURCE_TYPES: SimResourceType[] = [
  { id: 1, name: 'Linux', path: 'Server >> Linux' },
  { id: 2, name: 'Windows', path: 'Server >> Windows' },
  { id: 3, name: 'EBS', path: 'Cloud >> AWS >> EBS' },
  { id: 4, name: 'Load Balancer', path: 'Cloud >> AWS >> Load Balancer' },
  { id: 5, name: 'Auto Scaling Group', path: 'Cloud >> AWS >> Auto Scaling Group' },
  { id: 6, name: 'SQL Database', path: 'Cloud >> Azure >> SQL Database' },
  { id: 7, name: 'SQL Server', path: 'Application >> SQL Server' },
  { id: 8, name: 'Virtual Network', path: 'Cloud >> Azure >>  Virtual Network ' },
  { id: 9, name: 'SYNTHETIC', path: 'Synthetic >> Web Check' },
];

const LOCATIONS = [
  { id: 11, name: 'Frankfurt DC', city: 'Frankfurt' },
  { id: 12, name: 'Dublin DC', city: 'Dublin' },
  { id: 13, name: 'Virginia Edge', city: 'Ashburn' },
  { id: 14, name: 'Tokyo POP', city: 'Tokyo' },
];
const DEVICE_GROUPS = ['Production Web', 'Production DB', 'Staging', 'Edge Routers', 'Lab'];
const SERVICE_GROUPS = ['Checkout', 'Search', 'Billing', 'Identity'];
const TAG_NAMES = ['env', 'owner', 'costCenter', 'tier'];
const TAG_VALUES: Record<string, string[]> = {
  env: ['prod', 'staging', 'dev'],
  owner: ['team-a', 'team-b', 'ops'],
  costCenter: ['cc-100', 'cc-200'],
  tier: ['gold', 'silver'],
};
const VENDORS = ['Microsoft', 'Oracle', 'Canonical', 'Apache Software Foundation', 'Elastic', 'Redis Ltd'];
const APP_NAMES = [
  'openssl', 'nginx', 'postgresql', 'redis-server', 'java-17-openjdk', 'python3', 'curl', 'git',
  'docker-ce', 'node', 'Microsoft Edge', '.NET Runtime', 'SQL Server Management Studio', 'elasticsearch',
  'kafka', 'zookeeper', 'tomcat', 'haproxy', 'rsyslog', 'chrony', 'auditd', 'vim', 'zip', 'unzip',
  'htop', 'iotop', 'tcpdump', 'wireshark', 'ansible', 'terraform', '7-Zip',
];

function makeTags(rng: Random): SimTag[] {
  const count = rng.int(0, 3);
  const names = [...TAG_NAMES].sort(() => rng.next() - 0.5).slice(0, count);
  return names.map((name) => ({ name, value: rng.pick(TAG_VALUES[name] ?? ['x']), tagSource: rng.pick(['USER', 'AWS']) }));
}

function makeResource(rng: Random, tenant: { uniqueId: string; clientId: number }, index: number, shape: Shape): SimResource {
  const id = rng.uuid();
  const created = DATASET_NOW - rng.int(30, 900) * DAY + rng.int(0, DAY);
  const updated = Math.min(DATASET_NOW, created + rng.int(0, 300) * DAY);
  const firstManaged = created + rng.int(0, 5) * DAY;
  const location = { ...rng.pick(LOCATIONS), clientId: tenant.clientId, mspId: 1 };
  const state = rng.chance(0.8) ? 'active' : rng.chance(0.5) ? 'inactive' : 'discovered';
  const base = {
    shape, index, id, createdAt: created, updatedAt: updated,
    firstAssetManagedAt: firstManaged,
    assetManagedAt: Math.min(DATASET_NOW, firstManaged + rng.int(0, 200) * DAY),
    agentDeployedAt: firstManaged + 3600,
    state: state as SimResource['state'],
    status: state === 'active' ? rng.pick(['UP', 'UP', 'UP', 'DOWN']) : 'UNKNOWN',
    location,
    tags: makeTags(rng),
    deviceGroup: rng.pick(DEVICE_GROUPS),
    serviceGroup: rng.pick(SERVICE_GROUPS),
    gatewayProfileId: String(rng.int(1, 4)),
    template: `tmpl-${rng.int(1, 6)}`,
    agentProfile: `agent-${rng.int(1, 3)}`,
    source: rng.pick(['MANUAL', 'AGENT', 'DISCOVERY']),
    serialNumber: `SN${rng.hex(10).toUpperCase()}`,
    systemUID: rng.uuid(),
    appCount: rng.int(0, 30),
    outageRate: rng.chance(0.15) ? 0 : rng.next() * 0.02,
    updates: {},
    deleted: false,
    extResourceId: rng.chance(0.5) ? `ext-${rng.hex(8)}` : '',
  };
  if (shape === 'general') {
    const windows = rng.chance(0.4);
    const host = `${windows ? 'win' : 'lnx'}-${tenant.uniqueId.replace('_', '')}-${String(index).padStart(4, '0')}`;
    const ip = ipv4(rng);
    return {
      ...base,
      hostName: host,
      ipAddress: ip,
      dns: `${host}.corp.example.com`,
      name: host,
      aliasName: rng.chance(0.3) ? `${host}-alias` : '',
      resourceName: host,
      resourceType: windows ? 'Windows' : 'Linux',
      type: 'DEVICE',
      deviceType: 'Server',
      devicePath: windows ? 'Server >> Windows' : 'Server >> Linux',
      classCode: windows ? 'WINDOWS' : 'LINUX',
      make: rng.pick(['Dell Inc.', 'HPE', 'Lenovo', 'VMware, Inc.']),
      model: rng.pick(['PowerEdge R740', 'ProLiant DL380', 'ThinkSystem SR650', 'VMware Virtual Platform']),
      osName: windows ? rng.pick(['Microsoft Windows Server 2019', 'Microsoft Windows Server 2022']) : rng.pick(['Ubuntu 22.04', 'Red Hat Enterprise Linux 9', 'Debian 12']),
      description: `${windows ? 'Windows' : 'Linux'} server ${index}`,
      agentInstalled: rng.chance(0.85),
      network: [{ ip, mac: mac(rng), aliasIp: rng.chance(0.3) ? `${ipv4(rng)},${ipv4(rng)}` : '' }],
      instanceId: rng.chance(0.3) ? `i-${rng.hex(17)}` : '',
      accountNumber: rng.chance(0.3) ? String(rng.int(100000000000, 999999999999)) : '',
      installedIntgId: rng.chance(0.5) ? `intg-${rng.int(1, 5)}` : '',
      appRoles: [...APP_ROLES].sort(() => rng.next() - 0.5).slice(0, rng.int(0, 3)),
      components: ['cpu', 'memory', 'disk', ...(rng.chance(0.5) ? ['network'] : [])],
      physicalMemory: `${rng.pick([8, 16, 32, 64, 128])} GB`,
      cloud: rng.chance(0.3)
        ? {
            provider: 'AWS', instanceId: `i-${rng.hex(17)}`, instanceState: 'running', instanceType: rng.pick(['m5.large', 't3.medium']),
            publicIp: ipv4(rng, '52'), ami: `ami-${rng.hex(8)}`, launchDate: '', owner: String(rng.int(100000, 999999)),
            privateDns: `ip-${host}.ec2.internal`, privateIp: ip, zone: rng.pick(['eu-central-1a', 'us-east-1b']), monitoringState: 'enabled',
          }
        : null,
      synthetic: null,
    };
  }
  if (shape === 'device') {
    const kind = rng.pick([
      { type: 'EBS', resourceType: 'EBS', deviceType: 'Storage' },
      { type: 'LOAD_BALANCER', resourceType: 'Load Balancer', deviceType: 'Load Balancer' },
      { type: 'AUTO_SCALING', resourceType: 'Auto Scaling Group', deviceType: 'Compute' },
      { type: 'SQL_DATABASE', resourceType: 'SQL Database', deviceType: 'Database' },
      { type: 'SQL_SERVER', resourceType: 'SQL Server', deviceType: 'Database' },
      // Type DEVICE always has the general detail form on the real API; network items here are Azure's.
      { type: 'AZ_VIRTUAL_NETWORK', resourceType: 'Virtual Network', deviceType: 'Network' },
    ]);
    const azure = kind.type.startsWith('AZ_');
    const slug = kind.type.toLowerCase().replace('_', '-');
    const host = `${slug}-${String(index).padStart(4, '0')}`;
    const ip = kind.type === 'EBS' ? '' : ipv4(rng, '172');
    return {
      ...base,
      hostName: host,
      ipAddress: ip,
      dns: '',
      name: host,
      aliasName: '',
      resourceName: `${kind.resourceType} ${index}`,
      resourceType: kind.resourceType,
      type: kind.type,
      deviceType: kind.deviceType,
      devicePath: `Cloud >> ${kind.resourceType}`,
      classCode: kind.type,
      make: azure ? 'Microsoft' : 'Amazon',
      model: '',
      osName: '',
      description: `${kind.resourceType} ${index}`,
      agentInstalled: false,
      network: ip ? [{ ip, mac: mac(rng), aliasIp: '' }] : [],
      instanceId: azure ? '' : `${slug}-${rng.hex(12)}`,
      accountNumber: azure ? '' : String(rng.int(100000000000, 999999999999)),
      installedIntgId: azure ? 'intg-azure' : 'intg-aws',
      appRoles: [],
      components: [],
      physicalMemory: '',
      cloud: null,
      synthetic: null,
      appCount: azure ? rng.int(0, 5) : 0,
    };
  }
  const checkType = rng.pick(['HTTP', 'HTTPS', 'PING', 'DNS', 'SSL']);
  const host = `check-${index}.example.org`;
  return {
    ...base,
    hostName: host,
    ipAddress: '',
    dns: '',
    name: `${checkType} check ${index}`,
    aliasName: '',
    resourceName: `${checkType} check ${index}`,
    resourceType: 'SYNTHETIC',
    type: 'SYNTHETIC',
    deviceType: 'Synthetic',
    devicePath: 'Synthetic >> Web Check',
    classCode: 'SYNTHETIC',
    make: '',
    model: '',
    osName: '',
    description: `${checkType} availability check`,
    agentInstalled: false,
    network: [],
    instanceId: '',
    accountNumber: '',
    installedIntgId: '',
    appRoles: [],
    components: [],
    physicalMemory: '',
    cloud: null,
    appCount: 0,
    deleted: rng.chance(0.05),
    synthetic: {
      checkType,
      host,
      url: `https://${host}/health`,
      // Epoch milliseconds: beyond 32 bits, as the real upstream sends.
      ts: (created + rng.int(0, 100) * DAY) * 1000 + rng.int(0, 999),
      locationUuids: Array.from({ length: rng.int(1, 4) }, () => rng.uuid()),
      credential: {
        id: rng.int(1000, 9999),
        secure: true,
        port: 443,
        snmpVersion: '',
        autoEnableMode: false,
        universal: false,
        spSecure: false,
        spPort: 0,
        securityLevel: rng.pick(['AUTH_PRIV', 'NO_AUTH']),
        timeoutMs: rng.int(1, 30) * 1000,
        // Deterministic fake secrets, so tests can prove they never leak.
        oauthClientKey: rng.chance(0.7) ? `sim-client-key-${rng.hex(12)}` : '',
        oauthClientSecret: rng.chance(0.7) ? `sim-client-secret-${rng.hex(24)}` : '',
        oauthAccessTokenUrl: `https://auth.example.org/oauth/token`,
        oauthGrantType: 'client_credentials',
      },
    },
  };
}

function buildTenant(uniqueId: string, clientId: number, name: string, size: number, seed: number, offsetMinutes: number, extraKeys: boolean): SimTenant {
  const rng = createRandom(seed);
  const resources: SimResource[] = [];
  const tenant = { uniqueId, clientId };
  for (let i = 0; i < size; i++) {
    const roll = rng.next();
    const shape: Shape = roll < 0.55 ? 'general' : roll < 0.85 ? 'device' : 'synthetic';
    resources.push(makeResource(rng, tenant, i + 1, shape));
  }
  const decommissioned = size === 0 ? [] : Array.from({ length: Math.max(3, Math.round(size / 12)) }, (_, i) => makeDecommissioned(rng, i + 1));
  const antivirus: SimAntivirus[] = [];
  for (const resource of resources) {
    if (resource.shape !== 'general' || !rng.chance(0.6)) continue;
    const defDate = DATASET_NOW - rng.int(0, 40) * DAY;
    antivirus.push({
      name: rng.pick(['Windows Defender', 'Sophos Endpoint', 'ClamAV']),
      version: `${rng.int(1, 12)}.${rng.int(0, 20)}`,
      currentDefinition: `${rng.int(1, 2)}.${rng.int(100, 400)}.${rng.int(0, 9999)}.0`,
      currentDefinitionDate: defDate,
      scanDate: defDate + rng.int(0, 5) * DAY,
      supported: rng.chance(0.9),
      status: DATASET_NOW - defDate > 7 * DAY ? 'OUTOFDATE' : 'UPTODATE',
      resource,
    });
  }
  return { uniqueId, clientId, name, offsetMinutes, extraKeys, resources, byId: new Map(resources.map((r) => [r.id, r])), decommissioned, antivirus };
}

export function buildDataset(options: DatasetOptions): Dataset {
  const tenants = new Map<string, SimTenant>();
  tenants.set('client_1', buildTenant('client_1', 1, 'Acme Corp', options.size, options.seed, 0, true));
  // client_2 renders its timestamps at +05:30, as some real tenants do.
  tenants.set('client_2', buildTenant('client_2', 2, 'Globex', Math.max(5, Math.round(options.size / 20)), options.seed + 1, 330, false));
  tenants.set('client_3', buildTenant('client_3', 3, 'Empty Tenant', 0, options.seed + 2, 0, false));
  return { tenants, resourceTypes: RESOURCE_TYPES };
}

/** Installed applications are derived from the resource, so they need no storage. */
export function applicationsOf(resource: SimResource): Record<string, unknown>[] {
  const rng = createRandom(resource.index * 7919 + resource.appCount);
  return Array.from({ length: resource.appCount }, (_, i) => {
    const created = resource.createdAt + rng.int(0, 100) * DAY;
    return {
      id: resource.index * 1000 + i + 1,
      name: APP_NAMES[(resource.index + i) % APP_NAMES.length],
      vendor: rng.pick(VENDORS),
      version: `${rng.int(1, 20)}.${rng.int(0, 9)}.${rng.int(0, 99)}`,
      ...(rng.chance(0.8) ? { installedDate: created } : {}),
      createdDate: created,
      modifiedDate: created + rng.int(0, 30) * DAY,
    };
  });
}

/** Ids for the minimal listing's deviceGroupId and deviceTypeId filters. */
export function deviceGroupIdOf(resource: SimResource): number {
  return DEVICE_GROUPS.indexOf(resource.deviceGroup) + 1;
}
export function resourceTypeIdOf(dataset: Dataset, resource: SimResource): number {
  return dataset.resourceTypes.find((t) => t.name === resource.resourceType)?.id ?? 0;
}
