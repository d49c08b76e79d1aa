/**
 * The simulator's internal records: one per resource, decommissioned item, antivirus entry and
 * resource type, holding every attribute. dataset.ts makes them; render.ts turns them into the
 * documented wire shapes.
 */
export type Shape = 'general' | 'device' | 'synthetic';

export interface SimTenant {
  uniqueId: string;
  clientId: number;
  name: string;
  /** UTC offset (minutes) used when this tenant's timestamps are rendered. */
  offsetMinutes: number;
  /**
   * Whether this tenant's records carry the keys real records carry beyond their documented
   * form (search hits with update time, tags, location, ...; cloud items' short detail with
   * names and provider identity; synthetic details with a state). client_1 does, client_2 sends
   * the documented forms only, as older deployments do.
   */
  extraKeys: boolean;
  resources: SimResource[];
  byId: Map<string, SimResource>;
  decommissioned: SimDecommissioned[];
  antivirus: SimAntivirus[];
}

export interface SimNetwork { ip: string; mac: string; aliasIp: string }
export interface SimTag { name: string; value: string; tagSource: string }

export interface SimResource {
  shape: Shape;
  index: number;
  id: string;
  hostName: string;
  ipAddress: string;
  dns: string;
  name: string;
  aliasName: string;
  resourceName: string;
  resourceType: string;
  type: string;
  deviceType: string;
  devicePath: string;
  classCode: string;
  state: 'active' | 'inactive' | 'discovered';
  status: string;
  make: string;
  model: string;
  osName: string;
  description: string;
  gatewayProfileId: string;
  source: string;
  agentInstalled: boolean;
  createdAt: number;
  updatedAt: number;
  assetManagedAt: number;
  firstAssetManagedAt: number;
  agentDeployedAt: number;
  network: SimNetwork[];
  serialNumber: string;
  systemUID: string;
  tags: SimTag[];
  template: string;
  agentProfile: string;
  instanceId: string;
  accountNumber: string;
  installedIntgId: string;
  deviceGroup: string;
  serviceGroup: string;
  location: { id: number; name: string; city: string; clientId: number; mspId: number };
  appRoles: string[];
  extResourceId: string;
  components: string[];
  physicalMemory: string;
  cloud: Record<string, string> | null;
  appCount: number;
  /** Availability: chance per hour that an outage starts; 0 for resources that never go down. */
  outageRate: number;
  synthetic: {
    checkType: string;
    host: string;
    url: string;
    ts: number;
    locationUuids: string[];
    credential: Record<string, unknown>;
  } | null;
  /** Attributes written by the update endpoint that no read form shows. */
  updates: Record<string, unknown>;
  deleted: boolean;
}

export interface SimDecommissioned {
  id: string;
  hostName: string;
  ipAddress: string;
  dns: string;
  decommissionedAt: number;
  deviceType: string;
  devicePath: string;
  type: string;
  macAddress: string;
  make: string;
  model: string;
  osName: string;
  osArchitecture: string;
  serialNumber: string;
  systemUID: string;
  description: string;
  agentInstalled: boolean;
  name?: string;
  aliasName?: string;
  resourceName?: string;
  resourceType?: string;
  attributes?: Record<string, string>;
  managementProfile?: { id: number; name: string; type: string };
  tags: { name: string; value: string }[];
  history: { decommissionReason: string };
  region?: string;
  hostedServiceName?: string;
  additional: Record<string, unknown>;
}

export interface SimAntivirus {
  name: string;
  version: string;
  currentDefinition: string;
  currentDefinitionDate: number;
  scanDate: number;
  supported: boolean;
  status: 'OUTOFDATE' | 'UPTODATE';
  resource: SimResource;
}

export interface SimResourceType { id: number; name: string; path: string }

export interface Dataset {
  tenants: Map<string, SimTenant>;
  resourceTypes: SimResourceType[];
}

export interface DatasetOptions {
  seed: number;
  /** Resources of the main tenant client_1. */
  size: number;
}
